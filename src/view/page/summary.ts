/** The run summary: headline numbers, the pass^k plot, usage by role, terminations, infrastructure errors, policy, the task × trial grid, filters and the episode list. */
import type { PageData, PageEpisode, PageRun } from "../view-model.ts";
import { fmt, h, money, rewardColour, virtualRows } from "./dom.ts";
import { passKPlot, RUN_COLOURS } from "./plot.ts";
import { FILTER_KEYS, filtered, type PageState } from "./state.ts";
import { warmSearch } from "./store.ts";

export type Navigate = (change: Partial<PageState>) => void;

const NOTE_TYPES = ["wrong_tool", "wrong_argument", "partial_completion", "policy_violation", "other"];
const NOTE_SOURCES = ["agent", "user", "environment", "unknown"];
/** Fixed row heights of the virtualised grid and list (the style sheet's `.virtual` rules). */
const GRID_ROW = 20;
const LIST_ROW = 26;

function card(label: string, value: string, testId: string, sub?: string): HTMLElement {
  return h("div", { class: "card", "data-testid": testId }, h("div", { class: "card-label" }, label), h("div", { class: "card-value" }, value), sub ? h("div", { class: "card-sub" }, sub) : null);
}

const interval = (low: number | null, high: number | null) => (low === null || high === null ? "" : `95% CI [${fmt(low)}, ${fmt(high)}]`);

/** A table from a head and rows of cells. */
export function table(head: readonly string[], rows: ReadonlyArray<ReadonlyArray<Node | string>>, testId?: string): HTMLElement {
  return h(
    "table",
    { "data-testid": testId },
    h("thead", {}, h("tr", {}, ...head.map((cell) => h("th", {}, cell)))),
    h("tbody", {}, ...rows.map((row) => h("tr", {}, ...row.map((cell) => h("td", {}, cell))))),
  );
}

function headline(run: PageRun): HTMLElement {
  const stats = run.statistics;
  const pass1 = stats.passK[1];
  return h(
    "div",
    { class: "cards" },
    card("Episodes", String(stats.episodes), "card-episodes", `${stats.tasks} tasks × ${stats.trials} trial(s)${run.partial ? " — run in progress" : ""}`),
    card("pass^1", fmt(pass1?.value), "card-pass1", interval(pass1?.low ?? null, pass1?.high ?? null)),
    card("Average reward", fmt(stats.averageReward.value), "card-reward", interval(stats.averageReward.low, stats.averageReward.high)),
    card("Overall score", fmt(stats.overallScore.value), "card-overall", "mean of pass^1…pass^4"),
    card("Policy adherence", fmt(run.policy.adherence), "card-policy", `${run.policy.hitsByRule.reduce((total, row) => total + row.hits, 0)} hit(s) — ${run.policy.file}`),
    card("Infrastructure errors", String(stats.infraErrors), "card-infra", "left out of every metric"),
  );
}

function rolesTable(run: PageRun): HTMLElement {
  return table(
    ["Role", "Episodes with usage", "Calls", "Prompt tokens", "Completion tokens", "Cost", "Mean episode time"],
    run.roles.map((row) =>
      row.text !== null
        ? [row.role, h("span", { class: "muted" }, row.text), "", "", "", "", ""]
        : [
            row.role,
            String(row.episodes),
            row.calls === null ? "not recorded" : String(row.calls),
            row.promptTokens === null ? "—" : String(row.promptTokens),
            row.completionTokens === null ? "—" : String(row.completionTokens),
            money(row.cost),
            row.meanEpisodeSeconds === null ? "—" : `${row.meanEpisodeSeconds.toFixed(2)} s`,
          ],
    ),
    "roles-table",
  );
}

function filtersBar(run: PageRun, state: PageState, navigate: Navigate): HTMLElement {
  const episodes = run.episodes;
  const domains = [...new Set(episodes.map((episode) => episode.domain ?? ""))].filter(Boolean);
  const terminations = [...new Set(episodes.map((episode) => episode.termination ?? "unknown"))];
  const select = (key: (typeof FILTER_KEYS)[number], label: string, options: ReadonlyArray<[string, string]>) =>
    h(
      "label",
      {},
      `${label} `,
      h(
        "select",
        { "data-filter": key, onchange: (event: Event) => navigate({ filters: { ...state.filters, [key]: (event.target as HTMLSelectElement).value || undefined } }) },
        h("option", { value: "" }, "any"),
        ...options.map(([value, text]) => h("option", { value, selected: state.filters[key] === value }, text)),
      ),
    );
  const search = h("input", { type: "search", placeholder: "search messages, tools, task ids", value: state.filters.q ?? "", "data-filter": "q" });
  search.addEventListener("change", () => navigate({ filters: { ...state.filters, q: search.value || undefined } }));
  search.addEventListener("focus", () => warmSearch(run));
  return h(
    "div",
    { class: "filters", "data-testid": "filters" },
    select(
      "domain",
      "Domain",
      domains.map((domain) => [domain, domain]),
    ),
    select("reward", "Reward", [
      ["pass", "passed (1)"],
      ["fail", "failed (< 1)"],
      ["partial", "partial (0 < r < 1)"],
    ]),
    select(
      "termination",
      "Ended by",
      terminations.map((reason) => [reason, reason]),
    ),
    select("tools", "Tool errors", [
      ["errors", "with tool errors"],
      ["none", "without"],
    ]),
    select("policy", "Policy hits", [
      ["hits", "with hits"],
      ["none", "without"],
    ]),
    select("fault", "Fault (notes)", [
      ["noted", "any note"],
      ["unnoted", "no note"],
      ...NOTE_SOURCES.map((source): [string, string] => [source, `source: ${source}`]),
      ...NOTE_TYPES.map((type): [string, string] => [type, `type: ${type}`]),
    ]),
    search,
    h("button", { type: "button", onclick: () => navigate({ filters: {} }) }, "Clear"),
  );
}

/** The task × trial grid, each cell coloured by reward; filtered-out cells faded; a long run renders only the rows in view. */
function grid(run: PageRun, shown: Uint8Array, navigate: Navigate): HTMLElement {
  const byTask = new Map<string, PageEpisode[]>();
  const trialSet = new Set<number>();
  for (const episode of run.episodes) {
    const list = byTask.get(episode.taskId);
    if (list) list.push(episode);
    else byTask.set(episode.taskId, [episode]);
    trialSet.add(episode.trial);
  }
  const trials = [...trialSet].sort((a, b) => a - b);
  const tasks = [...byTask];
  const cell = (taskId: string, list: readonly PageEpisode[], trial: number) => {
    const episode = list.find((candidate) => candidate.trial === trial);
    if (!episode) return h("span", { class: "cell empty" });
    const infra = episode.termination === "infra_error";
    return h("button", {
      class: `cell${shown[episode.index] ? "" : " faded"}${infra ? " infra" : ""}`,
      style: `background:${infra ? "#6c757d" : rewardColour(episode.reward)}`,
      title: `task ${taskId} trial ${trial}: reward ${episode.reward} (${episode.termination ?? "unknown"})`,
      "data-testid": "grid-cell",
      "data-key": episode.key,
      "data-reward": episode.reward,
      onclick: () => navigate({ view: "episode", episode: episode.key }),
    });
  };
  const row = (index: number) => {
    const [taskId, list] = tasks[index];
    return h("div", { class: "grid-row" }, h("span", { class: "grid-task", title: taskId }, taskId), ...trials.map((trial) => cell(taskId, list, trial)));
  };
  const body = h("div", { class: "grid-body" });
  const container = h(
    "div",
    { class: "grid", "data-testid": "grid" },
    h("div", { class: "grid-row grid-head" }, h("span", { class: "grid-task" }, "task \\ trial"), ...trials.map((trial) => h("span", { class: "cell-head" }, String(trial)))),
    body,
  );
  virtualRows(container, body, tasks.length, GRID_ROW, 420, row, (height) => h("div", { style: `height:${height}px` }));
  return container;
}

function episodeList(shown: readonly PageEpisode[], navigate: Navigate): HTMLElement {
  const row = (index: number) => {
    const episode = shown[index];
    return h(
      "tr",
      { "data-testid": "episode-row", "data-key": episode.key, class: "clickable", onclick: () => navigate({ view: "episode", episode: episode.key }) },
      h("td", {}, episode.taskId),
      h("td", {}, String(episode.trial)),
      h("td", {}, h("span", { class: "reward", style: `background:${rewardColour(episode.reward)}` }, String(episode.reward))),
      h("td", {}, episode.termination ?? "unknown"),
      h("td", {}, String(episode.toolErrors)),
      h("td", {}, String(episode.policyHits)),
      h("td", { title: episode.factsLine }, episode.factsLine),
      h("td", {}, episode.note ? `${episode.note.source}${episode.note.type ? ` / ${episode.note.type}` : ""}` : ""),
    );
  };
  const body = h("tbody", {});
  const scroller = h(
    "div",
    { class: "episodes-scroll" },
    h("table", { class: "episodes" }, h("thead", {}, h("tr", {}, ...["Task", "Trial", "Reward", "Ended by", "Tool errors", "Policy hits", "Facts", "Note"].map((cell) => h("th", {}, cell)))), body),
  );
  virtualRows(scroller, body, shown.length, LIST_ROW, 600, row, (height) => h("tr", { class: "spacer" }, h("td", { colspan: 8, style: `height:${height}px` })));
  return h("div", {}, h("p", { "data-testid": "shown-count" }, `${shown.length} episode(s) match`), scroller);
}

/** The summary view of one run. */
export function summaryView(data: PageData, state: PageState, navigate: Navigate): HTMLElement {
  const run = data.runs[Math.min(state.run, data.runs.length - 1)];
  const shown = filtered(run, state.filters);
  const shownSet = new Uint8Array(run.episodes.length);
  for (const episode of shown) shownSet[episode.index] = 1;
  const terminations = Object.entries(run.terminations).sort((a, b) => b[1] - a[1]);
  return h(
    "section",
    { "data-testid": "summary" },
    h("h2", {}, run.label, h("span", { class: "muted" }, ` — ${run.title} (${run.suite}${run.domain ? `, ${run.domain}` : ""})`)),
    h("p", { class: "muted path" }, run.path),
    headline(run),
    h(
      "div",
      { class: "two" },
      passKPlot([{ label: run.label, statistics: run.statistics, colour: RUN_COLOURS[run.index % RUN_COLOURS.length] }]),
      h(
        "div",
        {},
        h("h3", {}, "pass^k"),
        table(
          ["k", "pass^k", "95% interval"],
          Object.entries(run.statistics.passK).map(([k, estimate]) => [k, fmt(estimate.value), interval(estimate.low, estimate.high).replace("95% CI ", "")]),
          "passk-table",
        ),
        h("h3", {}, "Ended by"),
        table(
          ["Termination", "Episodes"],
          terminations.map(([reason, count]) => [
            h("a", { href: "#", onclick: (event: Event) => (event.preventDefault(), navigate({ filters: { ...state.filters, termination: reason } })) }, reason),
            String(count),
          ]),
          "terminations-table",
        ),
      ),
    ),
    h("h3", {}, "Usage by role"),
    rolesTable(run),
    run.infraErrors.length > 0
      ? h(
          "div",
          { "data-testid": "infra-errors" },
          h("h3", {}, `Infrastructure errors (${run.infraErrors.length})`),
          h(
            "ul",
            {},
            ...run.infraErrors.map((error) =>
              h(
                "li",
                {},
                h("a", { href: "#", onclick: (event: Event) => (event.preventDefault(), navigate({ view: "episode", episode: error.key })) }, `task ${error.taskId} trial ${error.trial}`),
                `: ${error.message}`,
              ),
            ),
          ),
        )
      : null,
    h("h3", {}, "Policy"),
    run.policy.hitsByRule.length === 0
      ? h("p", { "data-testid": "policy-rules" }, `No rule of ${run.policy.file} was broken.`)
      : table(
          ["Rule", "Severity", "Hits", "Episodes"],
          run.policy.hitsByRule.map((row) => [row.ruleId, row.severity, String(row.hits), String(row.episodes)]),
          "policy-rules",
        ),
    run.breakdown.byComponent.length > 0
      ? h(
          "div",
          {},
          h("h3", {}, "Reward by component"),
          table(
            ["Component", "Mean", "Episodes"],
            run.breakdown.byComponent.map((row) => [row.component, fmt(row.mean), String(row.episodes)]),
            "components-table",
          ),
        )
      : null,
    run.fileNotes.length > 0 ? h("ul", { class: "muted" }, ...run.fileNotes.map((line) => h("li", {}, line))) : null,
    h("h3", {}, "Tasks × trials"),
    filtersBar(run, state, navigate),
    grid(run, shownSet, navigate),
    h("h3", {}, "Episodes"),
    episodeList(shown, navigate),
  );
}
