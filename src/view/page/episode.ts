/**
 * One episode: the task context beside the conversation (tool calls and results, user-side calls,
 * bridge / decision-only / planned calls marked, long results folded), the reward breakdown, the
 * failure facts and policy hits pinned to their messages, the state-changing calls against the
 * ground truth, and the note form.
 */
import type { EpisodeNote } from "../../analysis/notes.ts";
import type { RecordMessage, RecordStep } from "../../core/episode-record.ts";
import type { EndStateDiff, StateRowDiff } from "../../core/state-diff.ts";
import type { PageData, PageEpisode, PageRun } from "../view-model.ts";
import { fmt, h, money, pretty, rewardColour } from "./dom.ts";
import { filtered, type PageState } from "./state.ts";
import { type EpisodeDetail, episodeDetail, partsReady } from "./store.ts";
import { type Navigate, table } from "./summary.ts";

const FOLD_AT = 400;
const NOTE_SOURCES = ["agent", "user", "environment", "unknown"] as const;
const NOTE_TYPES = ["wrong_tool", "wrong_argument", "partial_completion", "policy_violation", "other"] as const;

export type SaveNote = (run: PageRun, note: EpisodeNote) => Promise<string>;

/** An opened episode: its details (parsed on opening) with its key. */
type ViewEpisode = EpisodeDetail & { key: string };

/** Pins: what the facts and the policy say about each message index. */
function pinsOf(episode: ViewEpisode): Map<number, Array<{ kind: "fact" | "policy"; text: string }>> {
  const pins = new Map<number, Array<{ kind: "fact" | "policy"; text: string }>>();
  const pin = (index: number | null | undefined, kind: "fact" | "policy", text: string) => {
    if (index === null || index === undefined) return;
    const list = pins.get(index) ?? [];
    list.push({ kind, text });
    pins.set(index, list);
  };
  const facts = episode.facts;
  for (const diff of facts.argumentDiffs)
    pin(
      diff.step.messageIndex,
      "fact",
      `different arguments for ${diff.name}: ${diff.fields.map((field) => `${field.field} expected ${JSON.stringify(field.expected)}, got ${field.actual === undefined ? "(absent)" : JSON.stringify(field.actual)}`).join("; ")}`,
    );
  for (const step of facts.extraActions) pin(step.messageIndex, "fact", `${step.name}: no ground-truth action accounts for this call`);
  for (const error of facts.toolErrors) pin(error.messageIndex, "fact", `${error.name} returned an error`);
  if (facts.firstDivergence?.actual) pin(facts.firstDivergence.actual.messageIndex, "fact", `first divergence: expected ${facts.firstDivergence.expected.name} here`);
  for (const hit of episode.policyHits) pin(hit.messageIndex, "policy", `${hit.ruleId} (${hit.severity}): ${hit.detail}`);
  return pins;
}

function stepsByCall(steps: readonly RecordStep[]): Map<string, RecordStep> {
  const out = new Map<string, RecordStep>();
  for (const step of steps) if (step.toolCallId) out.set(step.toolCallId, step);
  return out;
}

const ORIGIN_LABEL: Record<string, string> = { bridge: "bridge", harness: "decision-only (harness)", "dry-run": "planned (dry run)", user: "user-side" };

function badge(text: string, kind: string): HTMLElement {
  return h("span", { class: `badge ${kind}`, "data-testid": `badge-${kind}` }, text);
}

function folded(text: string, label: string): Node {
  if (text.length <= FOLD_AT) return h("pre", { class: "result" }, text);
  return h("details", { class: "fold" }, h("summary", {}, `${label} (${text.length} characters)`), h("pre", { class: "result" }, text));
}

function messageView(message: RecordMessage, index: number, steps: Map<string, RecordStep>, pins: ReturnType<typeof pinsOf>): HTMLElement {
  const userSide = message.requestor === "user" || (message.role === "user" && (message.toolCalls?.length ?? 0) > 0);
  const element = h(
    "div",
    { class: `message ${message.role}${message.error ? " error" : ""}`, id: `m-${index}`, "data-testid": "message", "data-index": index },
    h(
      "div",
      { class: "message-head" },
      h("span", { class: "index" }, `#${index}`),
      h("strong", {}, message.role),
      userSide && message.role === "tool" ? badge("user-side", "user-side") : null,
      message.error ? badge("error", "error") : null,
    ),
  );
  if (message.content)
    element.appendChild(
      message.role === "tool" ? folded(message.content, "result") : message.role === "system" ? folded(message.content, "system prompt") : h("div", { class: "content" }, message.content),
    );
  for (const call of message.toolCalls ?? []) {
    const step = steps.get(call.id);
    const origin = step?.origin ?? (call.requestor === "user" ? "user" : "agent");
    element.appendChild(
      h(
        "div",
        { class: "tool-call", "data-testid": "tool-call" },
        h("code", {}, `${call.name}(${JSON.stringify(call.arguments)})`),
        call.requestor === "user" ? badge("user-side", "user-side") : null,
        origin !== "agent" && origin !== "user" ? badge(ORIGIN_LABEL[origin] ?? origin, origin) : null,
        step?.frameworkToolName ? badge(`framework tool ${step.frameworkToolName}`, "framework") : null,
      ),
    );
  }
  for (const pin of pins.get(index) ?? []) element.appendChild(h("div", { class: `pin ${pin.kind}`, "data-testid": `pin-${pin.kind}` }, pin.kind === "policy" ? "⚑ policy: " : "✗ ", pin.text));
  return element;
}

const jump = (index: number | null) =>
  index === null
    ? null
    : h("a", { href: `#m-${index}`, onclick: (event: Event) => (event.preventDefault(), document.getElementById(`m-${index}`)?.scrollIntoView({ block: "center" })) }, ` → message ${index}`);

function factsView(episode: ViewEpisode): HTMLElement {
  const facts = episode.facts;
  const items: Node[] = [];
  for (const action of facts.missingActions)
    items.push(h("li", {}, `missing ${action.requestor === "user" ? "user-side " : ""}action #${action.expectedIndex}: `, h("code", {}, `${action.name}(${JSON.stringify(action.arguments)})`)));
  for (const diff of facts.argumentDiffs)
    items.push(
      h(
        "li",
        {},
        `different arguments for ${diff.name}: `,
        ...diff.fields.map((field) => h("code", {}, `${field.field}: expected ${JSON.stringify(field.expected)}, got ${field.actual === undefined ? "(absent)" : JSON.stringify(field.actual)} `)),
        jump(diff.step.messageIndex),
      ),
    );
  for (const output of facts.missingOutputs) items.push(h("li", {}, `never said: ${JSON.stringify(output)}`));
  for (const assertion of facts.unmetAssertions) items.push(h("li", {}, `unmet ${assertion.kind} assertion: ${assertion.text}${assertion.justification ? ` — ${assertion.justification}` : ""}`));
  if (facts.firstDivergence)
    items.push(
      h(
        "li",
        {},
        `first divergence at ground-truth action #${facts.firstDivergence.expectedIndex} (${facts.firstDivergence.expected.name}): `,
        facts.firstDivergence.actual ? `the episode called ${facts.firstDivergence.actual.name}` : "no further call",
        jump(facts.firstDivergence.actual?.messageIndex ?? null),
      ),
    );
  for (const error of facts.toolErrors) items.push(h("li", {}, `tool error in ${error.name}`, jump(error.messageIndex)));
  if (facts.extraActions.length > 0) items.push(h("li", {}, `calls no ground-truth action accounts for: ${facts.extraActions.map((step) => step.name).join(", ")}`));
  if (!facts.groundTruth) items.push(h("li", { class: "muted" }, "the results file carries no ground truth for this episode"));
  return h("div", { "data-testid": "facts" }, h("h3", {}, "Failure facts"), items.length === 0 ? h("p", { class: "muted" }, "none") : h("ul", {}, ...items));
}

function policyView(episode: ViewEpisode): HTMLElement {
  return h(
    "div",
    { "data-testid": "policy-hits" },
    h("h3", {}, `Policy hits (adherence ${fmt(episode.adherence)})`),
    episode.policyHits.length === 0
      ? h("p", { class: "muted" }, "none")
      : h("ul", {}, ...episode.policyHits.map((hit) => h("li", {}, `${hit.ruleId} (${hit.severity}): ${hit.detail}`, jump(hit.messageIndex)))),
  );
}

/** The task's context: instruction or scenario, the user's tools, evaluation criteria, required documents, and the task as recorded. */
function taskView(episode: ViewEpisode): HTMLElement {
  const expected = episode.record.expected;
  const task = (episode.task ?? {}) as Record<string, unknown>;
  const scenario = task.user_scenario as Record<string, unknown> | undefined;
  const criteria = (task.evaluation_criteria ?? null) as unknown;
  const documents = task.required_documents ?? (task as { requiredDocuments?: unknown }).requiredDocuments ?? null;
  const userTools = [
    ...new Set([
      ...episode.record.steps.filter((step) => step.requestor === "user").map((step) => step.name),
      ...(expected?.actions ?? []).filter((action) => action.requestor === "user").map((action) => action.name),
    ]),
  ];
  return h(
    "aside",
    { class: "task", "data-testid": "task-context" },
    h("h3", {}, "Task"),
    h("p", {}, h("strong", {}, "Instruction / scenario: "), expected?.instruction ?? (scenario ? pretty(scenario.instructions) : "(not recorded)")),
    scenario?.persona ? h("p", {}, h("strong", {}, "Persona: "), String(scenario.persona)) : null,
    task.ticket ? h("p", {}, h("strong", {}, "Ticket: "), String(task.ticket)) : null,
    h("p", { "data-testid": "user-tools" }, h("strong", {}, "User's tools: "), userTools.length ? userTools.join(", ") : "none used or expected"),
    expected
      ? h(
          "div",
          {},
          h("h4", {}, "Ground-truth actions"),
          expected.actions.length === 0
            ? h("p", { class: "muted" }, "none")
            : h(
                "ol",
                { start: 0 },
                ...expected.actions.map((action) =>
                  h(
                    "li",
                    { class: action.matched === false ? "unmet" : action.matched ? "met" : "" },
                    h("code", {}, `${action.name}(${JSON.stringify(action.arguments)})`),
                    action.requestor === "user" ? badge("user-side", "user-side") : null,
                    action.toolType ? badge(action.toolType, "tool-type") : null,
                    action.matched === null ? null : action.matched ? " ✓" : " ✗",
                  ),
                ),
              ),
          expected.outputs.length
            ? h("div", {}, h("h4", {}, "Outputs to say"), h("ul", {}, ...expected.outputs.map((output) => h("li", {}, `${output.text}${output.met === null ? "" : output.met ? " ✓" : " ✗"}`))))
            : null,
          expected.assertions.length
            ? h(
                "div",
                {},
                h("h4", {}, "Assertions"),
                h("ul", {}, ...expected.assertions.map((assertion) => h("li", {}, `[${assertion.kind}] ${assertion.text}${assertion.met === null ? "" : assertion.met ? " ✓" : " ✗"}`))),
              )
            : null,
          expected.rewardBasis ? h("p", {}, h("strong", {}, "Reward basis: "), expected.rewardBasis.join(", ")) : null,
        )
      : h("p", { class: "muted" }, "The results file records no ground truth for this task."),
    criteria ? h("details", {}, h("summary", {}, "Evaluation criteria (as recorded)"), h("pre", {}, pretty(criteria))) : null,
    documents ? h("div", { "data-testid": "required-documents" }, h("h4", {}, "Required documents"), h("pre", {}, pretty(documents))) : null,
    episode.task ? h("details", {}, h("summary", {}, "Task as recorded"), h("pre", {}, pretty(episode.task))) : null,
  );
}

const CHANGE_LABEL: Record<StateRowDiff["change"], string> = { added: "only in this episode's end state", removed: "only in the gold end state", changed: "changed" };

/** One line: "2 rows differ in orders: #W1 (status, items), #W2 (only in the gold end state)". */
export function stateDiffLine(diff: EndStateDiff): string {
  if (diff.status === "unavailable") return `End state vs gold end state: not computed — ${diff.reason ?? "no reason recorded"}.`;
  if (diff.tables.length === 0) return "End state vs gold end state: no difference (every table equal).";
  const total = diff.tables.reduce((sum, table) => sum + table.rows.length + table.omittedRows, 0);
  const tables = diff.tables.map((table) => {
    const rows = table.rows.map((row) => `${row.key} (${row.change === "changed" ? row.fields.map((field) => field.field || "value").join(", ") : CHANGE_LABEL[row.change]})`);
    return `${table.rows.length + table.omittedRows} in ${table.table}: ${rows.join(", ")}${table.omittedRows ? `, … ${table.omittedRows} more` : ""}`;
  });
  return `End state vs gold end state: ${total} row${total === 1 ? " differs" : "s differ"} — ${tables.join("; ")}.`;
}

function valueCell(text: string | null, label: string): Node {
  if (text === null) return h("span", { class: "muted" }, "(absent)");
  return text.length <= 80 ? h("code", {}, text) : folded(text, label);
}

/** The row-level diff of the end state against the gold end state (the suite's replay of both). */
function stateDiffView(diff: EndStateDiff): HTMLElement {
  const rows: Array<Array<Node | string>> = [];
  for (const table of diff.tables)
    for (const row of table.rows)
      for (const field of row.fields)
        rows.push([
          table.table,
          h("code", {}, row.key),
          h("span", { class: row.change === "changed" ? "same" : row.change === "added" ? "plus" : "minus" }, CHANGE_LABEL[row.change]),
          field.field ? h("code", {}, field.field) : "(whole row)",
          valueCell(field.gold, "gold value"),
          valueCell(field.actual, "value"),
        ]);
  return h(
    "div",
    { "data-testid": "state-diff" },
    h("p", { "data-testid": "state-diff-summary", class: diff.status === "unavailable" ? "muted" : "" }, stateDiffLine(diff)),
    diff.compared ? h("p", { class: "muted" }, `Compared: ${diff.compared}.`) : null,
    rows.length ? table(["Table", "Row", "Change", "Field", "Gold end state", "This episode"], rows) : null,
  );
}

/** The database end state against the ground truth: the evaluator's verdict, the row-level diff, and the state-changing calls on each side. */
function databaseView(episode: ViewEpisode): HTMLElement {
  const expected = episode.record.expected;
  const match = episode.facts.databaseMatch;
  const writes = (expected?.actions ?? []).filter((action) => action.toolType !== "read");
  const performed = episode.record.steps.filter((step) => !step.error);
  const key = (name: string, args: unknown) => `${name} ${JSON.stringify(args)}`;
  const performedKeys = new Set(performed.map((step) => key(step.name, step.arguments)));
  const expectedNames = new Set(writes.map((action) => action.name));
  const rows: Array<Array<Node | string>> = [];
  for (const action of writes)
    rows.push([
      h("code", {}, `${action.name}(${JSON.stringify(action.arguments)})`),
      action.matched === false || (action.matched === null && !performedKeys.has(key(action.name, action.arguments)))
        ? h("span", { class: "minus" }, "− expected, not done")
        : h("span", { class: "same" }, "= done"),
    ]);
  for (const step of performed)
    if (expectedNames.has(step.name) && !writes.some((action) => key(action.name, action.arguments) === key(step.name, step.arguments)))
      rows.push([h("code", {}, `${step.name}(${JSON.stringify(step.arguments)})`), h("span", { class: "plus" }, "+ done, not expected")]);
  return h(
    "div",
    { "data-testid": "db-diff" },
    h("h3", {}, "Database end state vs ground truth"),
    h(
      "p",
      { "data-testid": "db-verdict" },
      match === null ? "The file records no database check for this episode." : match ? "The end state matches the ground truth's." : "The end state differs from the ground truth's.",
    ),
    stateDiffView(episode.stateDiff),
    rows.length ? table(["Ground-truth call", "In this episode"], rows) : h("p", { class: "muted" }, "No ground-truth calls recorded."),
  );
}

function noteForm(run: PageRun, episode: PageEpisode, data: PageData, saveNote: SaveNote): HTMLElement {
  const note = episode.note;
  const source = h("select", { name: "source", "data-testid": "note-source" }, ...NOTE_SOURCES.map((value) => h("option", { value, selected: (note?.source ?? "unknown") === value }, value)));
  const type = h(
    "select",
    { name: "type", "data-testid": "note-type" },
    h("option", { value: "" }, "(none)"),
    ...NOTE_TYPES.map((value) => h("option", { value, selected: note?.type === value }, value)),
  );
  const text = h("textarea", { name: "text", rows: 3, "data-testid": "note-text", placeholder: "what went wrong, in your words" });
  text.value = note?.text ?? "";
  const status = h("span", { class: "muted", "data-testid": "note-status" }, note ? `last saved ${note.updatedAt}${data.live ? ` to ${run.notesPath}` : ""}` : "");
  const save = h(
    "button",
    {
      type: "button",
      "data-testid": "note-save",
      onclick: async () => {
        const saved: EpisodeNote = {
          taskId: episode.taskId,
          trial: episode.trial,
          source: source.value as EpisodeNote["source"],
          type: (type.value || null) as EpisodeNote["type"],
          text: text.value,
          updatedAt: new Date().toISOString(),
        };
        try {
          status.textContent = await saveNote(run, saved);
          episode.note = saved;
        } catch (error) {
          status.textContent = `not saved: ${(error as Error).message}`;
        }
      },
    },
    "Save note",
  );
  return h(
    "div",
    { class: "note", "data-testid": "note-form" },
    h("h3", {}, "Note"),
    h("label", {}, "Error source ", source),
    h("label", {}, " Type ", type),
    text,
    h("div", {}, save, " ", status),
    h(
      "p",
      { class: "muted" },
      data.live
        ? `Saved to ${run.notesPath}; taubridge analyze prints it.`
        : `A static page keeps notes in this browser; "Download notes" on the summary writes ${run.notesPath.split(/[\\/]/).pop()}.`,
    ),
  );
}

/** The episode view. */
export function episodeView(data: PageData, state: PageState, navigate: Navigate, saveNote: SaveNote): HTMLElement {
  const run = data.runs[Math.min(state.run, data.runs.length - 1)];
  const index = run.episodes.findIndex((episode) => episode.key === state.episode);
  // A static page runs its script before the browser has parsed the episodes' elements: main re-renders once it has.
  if (index >= 0 && !partsReady()) return h("section", { "data-testid": "episode-loading" }, h("p", {}, "Loading the episode…"));
  if (index < 0)
    return h(
      "section",
      {},
      h("p", {}, `No episode ${state.episode} in ${run.label}.`),
      h("a", { href: "#", onclick: (event: Event) => (event.preventDefault(), navigate({ view: "summary", episode: null })) }, "back to the summary"),
    );
  const row = run.episodes[index];
  const episode: ViewEpisode = { ...episodeDetail(run, row), key: row.key };
  const record = episode.record;
  const shown = filtered(run, state.filters);
  const at = shown.indexOf(row);
  const previous = at > 0 ? shown[at - 1] : null;
  const next = at >= 0 && at < shown.length - 1 ? shown[at + 1] : null;
  const steps = stepsByCall(record.steps);
  const pins = pinsOf(episode);
  return h(
    "section",
    { "data-testid": "episode" },
    h(
      "div",
      { class: "episode-nav" },
      h("a", { href: "#", onclick: (event: Event) => (event.preventDefault(), navigate({ view: "summary", episode: null })) }, "← summary"),
      previous ? h("button", { type: "button", onclick: () => navigate({ episode: previous.key }) }, "‹ previous") : null,
      next ? h("button", { type: "button", "data-testid": "next-episode", onclick: () => navigate({ episode: next.key }) }, "next ›") : null,
      h("span", { class: "muted", "data-testid": "episode-nav-position" }, at >= 0 ? `${at + 1} of ${shown.length} matching the filters` : ""),
    ),
    h(
      "h2",
      { "data-testid": "episode-title" },
      `Task ${record.taskId}, trial ${record.trial} `,
      h("span", { class: "reward", style: `background:${rewardColour(record.reward)}` }, `reward ${record.reward}`),
      h(
        "span",
        { class: "muted" },
        ` ended by ${record.termination ?? "unknown"} · ${record.domain ?? record.suite} · ${record.durationSeconds === null ? "" : `${record.durationSeconds.toFixed(2)} s · `}agent ${money(record.cost.agent)}, user ${money(record.cost.user)}`,
      ),
    ),
    record.error ? h("p", { class: "error-text", "data-testid": "episode-error" }, `${record.error.kind}: ${record.error.message}`) : null,
    h(
      "div",
      { class: "episode-grid" },
      taskView(episode),
      h(
        "div",
        { class: "conversation", "data-testid": "conversation" },
        h("h3", {}, `Conversation (${record.messages.length} messages, ${record.steps.length} tool calls)`),
        ...record.messages.map((message, messageIndex) => messageView(message, messageIndex, steps, pins)),
        record.planned.length > 0
          ? h(
              "div",
              { "data-testid": "planned" },
              h("h3", {}, "Planned, not executed (dry run)"),
              h(
                "ul",
                {},
                ...record.planned.map((step) =>
                  h("li", {}, h("code", {}, `${step.name}(${JSON.stringify(step.arguments)})`), step.frameworkToolName ? ` (framework tool ${step.frameworkToolName})` : ""),
                ),
              ),
            )
          : null,
        record.unmappedTools.length > 0 ? h("div", { "data-testid": "refused" }, h("h3", {}, "Refused by the bridge (not benchmark tools)"), h("p", {}, record.unmappedTools.join(", "))) : null,
      ),
      h(
        "div",
        { class: "side" },
        h("h3", {}, "Reward breakdown"),
        Object.keys(record.rewardBreakdown).length === 0
          ? h("p", { class: "muted" }, "not recorded")
          : table(
              ["Component", "Score"],
              Object.entries(record.rewardBreakdown).map(([component, value]) => [component, fmt(value)]),
              "reward-breakdown",
            ),
        factsView(episode),
        policyView(episode),
        databaseView(episode),
        record.review
          ? h(
              "div",
              { "data-testid": "review" },
              h("h3", {}, "Review"),
              h("p", {}, record.review.summary),
              h("ul", {}, ...record.review.errors.map((error) => h("li", {}, `${error.source}${error.severity ? ` (${error.severity})` : ""}: ${error.reasoning}`))),
            )
          : null,
        noteForm(run, row, data, saveNote),
      ),
    ),
  );
}
