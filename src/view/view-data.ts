/**
 * Builds the data the viewer's page embeds from results files already read (`SuiteResults` and
 * their canonical records): statistics, facts, policy hits, breakdown and the paired comparison come
 * from `src/analysis` as they are; this module only gathers them per run and per episode.
 */
import type { EpisodeRecord } from "../core/episode-record.ts";
import type { EndStateDiff } from "../core/state-diff.ts";
import { unavailableDiff } from "../metrics/state-diff.ts";
import type { RoleUsage } from "../core/types.ts";
import type { SuiteResults } from "../core/suite.ts";
import { breakdownOf } from "../analysis/breakdown.ts";
import { compareRuns, outcomesOf } from "../analysis/compare.ts";
import { episodeFacts } from "../analysis/facts.ts";
import { type NotesFile, noteKey, notesByEpisode, notesPathOf } from "../analysis/notes.ts";
import { checkPolicy, type PolicyReport } from "../analysis/policy/engine.ts";
import { parsePolicy, type Policy } from "../analysis/policy/rules.ts";
import { runStatistics } from "../analysis/statistics.ts";
import { type RoleRow, VIEW_SCHEMA_VERSION, type ViewData, type ViewEpisode, type ViewRun } from "./view-model.ts";

/** One results file as the viewer receives it. */
export interface ViewInput {
  results: SuiteResults;
  label: string;
  /** Its records, read once. */
  records: EpisodeRecord[];
  notes: NotesFile | null;
  /** Tasks the results file records by id (τ²'s `tasks[]`); τ-bench's come from each record's entry. */
  tasks: ReadonlyMap<string, unknown>;
  partial?: boolean;
  /** Each episode's end state against the gold one, by `taskId#trial` (the suite's `endStateDiffs`); null when not computed. */
  stateDiffs?: ReadonlyMap<string, EndStateDiff> | null;
  /** Why the diffs were not computed (no domain data, a suite that cannot say, a run still being written). */
  stateDiffReason?: string | null;
}

export interface ViewOptions {
  /** A policy file; default: the built-in rules with the shipped domains' profiles. */
  policy?: Policy;
  live?: boolean;
  /** Seed and resamples of the bootstrap intervals (as `compare`). */
  seed?: number;
  resamples?: number;
  now?: Date;
}

/** The policy the viewer checks when none is given: every built-in rule the domain's profile supports. */
export const BUILTIN_POLICY: Policy = parsePolicy({}, "built-in rules");

const sum = (values: ReadonlyArray<number | null>): number | null => (values.some((value) => value === null) ? null : values.reduce<number>((total, value) => total + (value as number), 0));

/**
 * Per-role usage over the records: calls and tokens summed where recorded, cost null when any
 * episode's is unknown; then the roles only the run records as a whole (`runUsage`: τ²'s NL judge,
 * τ³'s reranker and embedder), and the judge's line as text when neither says more.
 */
export function roleRows(records: readonly EpisodeRecord[], fileNotes: readonly string[], runUsage: Readonly<Record<string, RoleUsage>> | null = null): RoleRow[] {
  const durations = records.map((record) => record.durationSeconds).filter((value): value is number => typeof value === "number");
  const meanEpisodeSeconds = durations.length === 0 ? null : durations.reduce((a, b) => a + b, 0) / durations.length;
  const rows: RoleRow[] = (["agent", "user"] as const).map((role) => {
    const usages = records.map((record) => record.usage[role]).filter((usage): usage is RoleUsage => usage !== null);
    const costs = records.map((record) => record.cost[role] ?? record.usage[role]?.cost ?? null);
    return {
      role,
      episodes: usages.length,
      calls: usages.length === 0 ? null : usages.reduce((total, usage) => total + usage.calls, 0),
      promptTokens: usages.length === 0 ? null : usages.reduce((total, usage) => total + usage.promptTokens, 0),
      completionTokens: usages.length === 0 ? null : usages.reduce((total, usage) => total + usage.completionTokens, 0),
      cost: records.length === 0 ? null : sum(costs),
      meanEpisodeSeconds,
      text: null,
    };
  });
  const judged = records.filter((record) => record.expected?.rewardBasis?.includes("NL_ASSERTION") && record.expected.assertions.some((assertion) => assertion.kind === "nl")).length;
  const usage = runUsage ?? {};
  const judge = usage.judge;
  if (judge)
    rows.push({
      role: "judge",
      episodes: judged,
      calls: judge.calls,
      promptTokens: judge.promptTokens,
      completionTokens: judge.completionTokens,
      cost: judge.cost,
      meanEpisodeSeconds: null,
      text: null,
    });
  else {
    const line = fileNotes.find((note) => /judge/i.test(note)) ?? null;
    rows.push({ role: "judge", episodes: 0, calls: null, promptTokens: null, completionTokens: null, cost: null, meanEpisodeSeconds: null, text: line ?? "no judge usage recorded" });
  }
  for (const [role, totals] of Object.entries(usage))
    if (role !== "judge")
      rows.push({ role, episodes: 0, calls: totals.calls, promptTokens: totals.promptTokens, completionTokens: totals.completionTokens, cost: totals.cost, meanEpisodeSeconds: null, text: null });
  return rows;
}

/** The task a record's episode ran: τ-bench keeps it in the entry (`info.task`), τ² in the file's `tasks[]`. */
function taskOf(record: EpisodeRecord, tasks: ReadonlyMap<string, unknown>): unknown {
  const fromFile = tasks.get(record.taskId);
  if (fromFile !== undefined) return fromFile;
  const native = record.native as { info?: { task?: unknown } } | null;
  return native && typeof native === "object" && native.info && typeof native.info === "object" ? (native.info.task ?? null) : null;
}

/** An episode's diff, or why there is none. */
function stateDiffOf(input: ViewInput, key: string): EndStateDiff {
  const diff = input.stateDiffs?.get(key);
  if (diff) return diff;
  if (input.stateDiffs) return unavailableDiff("the suite's replay did not cover this episode");
  return unavailableDiff(input.stateDiffReason ?? "not computed");
}

function viewEpisode(input: ViewInput, record: EpisodeRecord, task: unknown, policy: PolicyReport["episodes"][number] | undefined, notes: ReturnType<typeof notesByEpisode>): ViewEpisode {
  const { native: _native, ...rest } = record;
  const facts = episodeFacts(record);
  const key = noteKey(record.taskId, record.trial);
  return {
    key,
    record: rest,
    task,
    facts,
    policyHits: policy?.hits ?? [],
    adherence: policy?.adherence ?? null,
    toolErrors: facts.toolErrors.length,
    note: notes.get(key) ?? null,
    stateDiff: stateDiffOf(input, key),
  };
}

async function viewRun(input: ViewInput, index: number, policy: Policy, options: ViewOptions): Promise<ViewRun> {
  const { results, records } = input;
  const report = await checkPolicy(records, policy);
  const notes = notesByEpisode(input.notes);
  const episodes = records.map((record, at) => viewEpisode(input, record, taskOf(record, input.tasks), report.episodes[at], notes));
  const terminations: Record<string, number> = {};
  for (const record of records) terminations[record.termination ?? "unknown"] = (terminations[record.termination ?? "unknown"] ?? 0) + 1;
  return {
    index,
    label: input.label,
    path: results.path,
    notesPath: notesPathOf(results.path),
    suite: results.suite,
    title: results.title,
    domain: results.domain,
    partial: input.partial === true,
    completeness: results.completeness,
    statistics: runStatistics(outcomesOf(results), { seed: options.seed ?? 0, resamples: options.resamples ?? 2000 }),
    roles: roleRows(records, results.notes, results.runUsage ?? null),
    terminations,
    infraErrors: records
      .filter((record) => record.termination === "infra_error")
      .map((record) => ({ key: noteKey(record.taskId, record.trial), taskId: record.taskId, trial: record.trial, message: record.error?.message ?? "(no message recorded)" })),
    policy: { file: report.file, strictness: report.strictness, adherence: report.adherence, hitsByRule: report.hitsByRule, skipped: report.skipped },
    breakdown: breakdownOf(records),
    fileNotes: results.notes,
    episodes,
  };
}

/** The page's data: every run, and the paired comparison against the first when there are several. */
export async function buildViewData(inputs: readonly ViewInput[], options: ViewOptions = {}): Promise<ViewData> {
  const policy = options.policy ?? BUILTIN_POLICY;
  const runs: ViewRun[] = [];
  for (const [index, input] of inputs.entries()) runs.push(await viewRun(input, index, policy, options));
  const comparison =
    inputs.length < 2
      ? null
      : compareRuns(
          inputs.map((input) => input.results),
          inputs.map((input) => input.label),
          { seed: options.seed ?? 0, resamples: options.resamples ?? 2000 },
        );
  return { schemaVersion: VIEW_SCHEMA_VERSION, generatedAt: (options.now ?? new Date()).toISOString(), live: options.live === true, runs, comparison };
}
