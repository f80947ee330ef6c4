/**
 * The data the viewer's page embeds: what `taubridge view --bundle` writes (view-data.json, and the
 * same JSON inside index.html) against what the analysis commands print for the same results file;
 * a τ-bench run still being written read from its checkpoint; the notes sidecar's format; the HTML
 * carrying nothing that could reach the network or end its script element early.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EpisodeNote, notesPathOf, parseNotes, withNote } from "../../src/analysis/notes.ts";
import type { EpisodeRecord } from "../../src/core/episode-record.ts";
import { scriptSafeJson, viewHtml } from "../../src/view/html.ts";
import { factsLine, pagePayload } from "../../src/view/page-data.ts";
import { restoreDetail } from "../../src/view/page/restore.ts";
import { roleRows } from "../../src/view/view-data.ts";
import type { PageData, PageEpisodeDetail, ViewData } from "../../src/view/view-model.ts";
import { type ScriptedModelServer, startScriptedModelServer } from "../../src/testing/index.ts";
import { byModel, tau2JudgeResponder, tau2PlanTasks } from "../golden/responders.ts";
import { runCli, runTau2 } from "../support/cli.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";

const V1 = join(import.meta.dirname, "..", "fixtures", "results", "v1");
const TOOL_CALLING = "library-test-tool-calling-agent-model-0.0_ids_0-1-2_user-user-model-llm";
const ORACLE = "library-test-oracle-none-0.0_ids_0-6_user-none-scripted";
const TIMEOUT = 400_000;

async function bundle(paths: string[]): Promise<{ data: ViewData; html: string }> {
  const folder = mkdtempSync(join(tmpdir(), "taubridge-view-bundle-"));
  const result = await runCli(["view", ...paths, "--bundle", folder]);
  expect(result.exitCode, result.stderr).toBe(0);
  return { data: JSON.parse(readFileSync(join(folder, "view-data.json"), "utf8")) as ViewData, html: readFileSync(join(folder, "index.html"), "utf8") };
}

/** The text of the script element `id` in a page. */
function element(html: string, id: string): string {
  const text = new RegExp(`<script id="${id}" type="application/json">(.*?)</script>`, "s").exec(html)?.[1];
  expect(text, `element ${id}`).toBeDefined();
  return text as string;
}

/** The page carries `data`: its light part as `pagePayload` makes it, and every episode's details put back whole by the page's own `restoreDetail`. */
function expectPageCarries(html: string, data: ViewData): PageData {
  const page = JSON.parse(element(html, "taubridge-data")) as PageData;
  expect(page).toEqual(pagePayload(data).data);
  for (const [r, run] of data.runs.entries()) {
    expect(page.runs[r].episodes.map((row) => [row.key, row.index, row.reward, row.termination, row.toolErrors, row.policyHits, row.factsLine])).toEqual(
      run.episodes.map((episode, index) => [episode.key, index, episode.record.reward, episode.record.termination, episode.toolErrors, episode.policyHits.length, factsLine(episode.facts)]),
    );
    for (const [index, episode] of run.episodes.entries()) {
      const detail = restoreDetail(JSON.parse(element(html, `taubridge-episode-${r}-${index}`)) as PageEpisodeDetail, page.strings);
      expect(detail).toEqual({ record: episode.record, task: episode.task, facts: episode.facts, policyHits: episode.policyHits, adherence: episode.adherence, stateDiff: episode.stateDiff });
    }
  }
  return page;
}

describe("the viewer's embedded data", () => {
  it(
    "carries the analysis layer's numbers as the commands print them: statistics, facts, policy, infra errors, usage",
    async () => {
      const file = join(V1, `${TOOL_CALLING}.json`);
      const { data, html } = await bundle([file]);
      const [run] = data.runs;
      expect(data.comparison).toBeNull();
      const records = JSON.parse((await runCli(["records", file, "--format", "json"])).stdout) as EpisodeRecord[];
      expect(run.episodes.map((episode) => episode.key)).toEqual(records.map((record) => `${record.taskId}#${record.trial}`));
      for (const episode of run.episodes) expect(episode.record).not.toHaveProperty("native");
      // τ-bench keeps the task in the entry: the page shows it as context.
      expect(run.episodes[0].task).toMatchObject({ user_id: expect.any(String), actions: expect.any(Array) });
      const compared = JSON.parse((await runCli(["compare", file, file, "--format", "json"])).stdout);
      expect(run.statistics).toEqual(compared.baseline.statistics);
      const analysis = JSON.parse((await runCli(["analyze", file, "--format", "json"])).stdout) as { episodes: Array<{ taskId: string; trial: number; facts: unknown }> };
      for (const analysed of analysis.episodes) expect(run.episodes.find((episode) => episode.key === `${analysed.taskId}#${analysed.trial}`)?.facts).toEqual(analysed.facts);
      expect(run.infraErrors).toEqual([{ key: "1#0", taskId: "1", trial: 0, message: expect.stringContaining("503") }]);
      const terminations: Record<string, number> = {};
      for (const record of records) terminations[record.termination ?? "unknown"] = (terminations[record.termination ?? "unknown"] ?? 0) + 1;
      expect(run.terminations).toEqual(terminations);
      const agent = run.roles.find((row) => row.role === "agent");
      expect(agent?.calls).toBe(records.reduce((total, record) => total + (record.usage.agent?.calls ?? 0), 0));
      expect(run.policy.file).toBe("built-in rules");
      // The page embeds exactly this data: the light part, and each episode's details in an element of its own.
      expectPageCarries(html, data);
    },
    TIMEOUT,
  );

  it(
    "two files: the paired comparison of compare, the second against the first",
    async () => {
      const first = join(V1, `${ORACLE}.json`);
      const second = join(V1, `${TOOL_CALLING}.json`);
      const { data } = await bundle([first, second]);
      const compared = JSON.parse((await runCli(["compare", first, second, "--format", "json"])).stdout);
      expect(data.runs.map((run) => run.label)).toEqual([`[1] ${ORACLE}`, `[2] ${TOOL_CALLING}`]);
      expect(data.comparison?.candidates[0].comparison).toEqual(compared.candidates[0].comparison);
    },
    TIMEOUT,
  );

  it(
    "a τ-bench run still being written (a checkpoint, no results file yet) is read from its checkpoint and marked in progress",
    async () => {
      const folder = mkdtempSync(join(tmpdir(), "taubridge-view-live-"));
      copyFileSync(join(V1, `${ORACLE}.checkpoint.jsonl`), join(folder, `${ORACLE}.checkpoint.jsonl`));
      const { data } = await bundle([join(folder, `${ORACLE}.json`)]);
      const complete = await bundle([join(V1, `${ORACLE}.json`)]);
      expect(data.runs[0].partial).toBe(true);
      expect(data.runs[0].path).toBe(join(folder, `${ORACLE}.json`));
      expect(data.runs[0].episodes.map((episode) => episode.key).sort()).toEqual(complete.data.runs[0].episodes.map((episode) => episode.key).sort());
      const missing = await runCli(["view", join(folder, "nothing.json")]);
      expect(missing.exitCode).toBe(2);
      expect(missing.stderr).toContain("nothing.json: no such results file (nor a checkpoint of a run writing it)");
    },
    TIMEOUT,
  );

  it(
    "notes: the sidecar is embedded, and a malformed one is refused naming the file and the field",
    async () => {
      const folder = mkdtempSync(join(tmpdir(), "taubridge-view-notes-"));
      const file = join(folder, "run.json");
      copyFileSync(join(V1, `${TOOL_CALLING}.json`), file);
      const note: EpisodeNote = { taskId: "2", trial: 0, source: "agent", type: "wrong_tool", text: "searched instead of renewing", updatedAt: "2026-11-27T00:00:00.000Z" };
      const sidecar = notesPathOf(file);
      expect(sidecar).toBe(join(folder, "run.notes.json"));
      const { writeFileSync } = await import("node:fs");
      writeFileSync(sidecar, JSON.stringify(withNote(null, basename(file), note)));
      const { data } = await bundle([file]);
      expect(data.runs[0].episodes.find((episode) => episode.key === "2#0")?.note).toEqual(note);
      expect(data.runs[0].episodes.filter((episode) => episode.note !== null)).toHaveLength(1);
      writeFileSync(sidecar, JSON.stringify({ schemaVersion: 1, results: "run.json", notes: [{ ...note, source: "someone" }] }));
      const refused = await runCli(["view", file, "--out", join(folder, "x.html")]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(`${sidecar}: field notes.0.source`);
    },
    TIMEOUT,
  );
});

describe("what the page carries for many episodes", () => {
  it(
    "texts the episodes share are stored once, steps' results once, and a run's search text holds each episode's own words in order",
    async () => {
      // 450 episodes: the fixture's three (a pass with tool calls, an infra error, a failure) under new task ids.
      const entries = JSON.parse(readFileSync(join(V1, `${TOOL_CALLING}.json`), "utf8")) as Array<{ task_id: number }>;
      const folder = mkdtempSync(join(tmpdir(), "taubridge-view-many-"));
      const file = join(folder, "many.json");
      writeFileSync(file, JSON.stringify(Array.from({ length: 450 }, (_, at) => ({ ...entries[at % 3], task_id: entries[at % 3].task_id + 3 * Math.floor(at / 3) }))));
      const { data, html } = await bundle([file]);
      const page = expectPageCarries(html, data);
      const episodes = data.runs[0].episodes;
      expect(episodes).toHaveLength(450);
      // One system prompt, the three tasks as recorded: every copy refers to them.
      const systems = new Set(episodes.flatMap((episode) => episode.record.messages.filter((message) => message.role === "system").map((message) => message.content)));
      expect(systems.size).toBe(1);
      expect(page.strings).toContain([...systems][0]);
      expect(page.strings.length).toBeLessThanOrEqual(1 + 3);
      const detail = JSON.parse(element(html, "taubridge-episode-0-0")) as PageEpisodeDetail;
      expect(detail.record.messages.filter((message) => message.role === "system").every((message) => message.content === null)).toBe(true);
      expect(detail.resultRefs.length).toBe(episodes[0].record.steps.length);
      expect(detail.record.steps.every((step) => step.result === null)).toBe(true);
      // The page is smaller than the same episodes embedded whole.
      expect(html.length).toBeLessThan(JSON.stringify(data).length);
      // The search text: one part per episode, lower case, its task id first; the shared system prompt is not repeated in it.
      const parts = JSON.parse(element(html, "taubridge-search-0")) as string[];
      expect(parts).toHaveLength(450);
      for (const [at, episode] of episodes.entries()) expect(parts[at].split("\n")[0]).toBe(episode.record.taskId.toLowerCase());
      expect(parts[0]).toContain("night ferry");
      expect(parts.some((part) => part.includes("riverside public library"))).toBe(false);
      expect(page.runs[0].episodes[0].shared).toEqual([page.strings.indexOf([...systems][0] as string)]);
    },
    TIMEOUT,
  );
});

describe("notes sidecar format", () => {
  const note = (taskId: string, trial: number, text: string): EpisodeNote => ({ taskId, trial, source: "user", type: null, text, updatedAt: "t" });

  it("adds, replaces and removes notes, sorted by task and trial", () => {
    let file = withNote(null, "run.json", note("b", 1, "second"));
    file = withNote(file, "run.json", note("a", 0, "first"));
    file = withNote(file, "run.json", note("b", 1, "second, edited"));
    expect(file).toEqual({ schemaVersion: 1, results: "run.json", notes: [note("a", 0, "first"), note("b", 1, "second, edited")] });
    file = withNote(file, "run.json", { ...note("a", 0, ""), source: "unknown" });
    expect(file.notes.map((entry) => entry.taskId)).toEqual(["b"]);
    expect(parseNotes(JSON.stringify(file), "x.notes.json")).toEqual(file);
  });

  it("refuses what is not a notes file", () => {
    expect(() => parseNotes("{", "x.notes.json")).toThrow(/x\.notes\.json: not JSON/);
    expect(() => parseNotes(JSON.stringify({ schemaVersion: 2, results: "r", notes: [] }), "x.notes.json")).toThrow(/x\.notes\.json: field schemaVersion/);
    expect(notesPathOf("a/b/run")).toBe("a/b/run.notes.json");
  });
});

describe("the page's HTML", () => {
  const data: ViewData = { schemaVersion: 1, generatedAt: "now", live: false, runs: [], comparison: null };

  it("embeds JSON that cannot end its script element, and references nothing on the network", () => {
    const hostile = { text: "</script><script>alert(1)</script><!--" };
    const json = scriptSafeJson(hostile);
    expect(json).not.toContain("<");
    expect(JSON.parse(json)).toEqual(hostile);
    const html = viewHtml(data, "console.log('</script>')");
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).not.toMatch(/\b(src|href)=["']?https?:/);
    expect(html).toContain("default-src 'none'");
  });

  it("usage by role: cost unknown (null) when any episode's cost is unknown, never 0", () => {
    const record = (cost: number | null) =>
      ({ usage: { agent: { calls: 2, promptTokens: 10, completionTokens: 5, cost }, user: null }, cost: { agent: cost, user: null }, durationSeconds: 1 }) as unknown as EpisodeRecord;
    const [agent, user, judge] = roleRows([record(0.5), record(null)], []);
    expect(agent).toMatchObject({ role: "agent", episodes: 2, calls: 4, promptTokens: 20, completionTokens: 10, cost: null, meanEpisodeSeconds: 1 });
    expect(roleRows([record(0.5), record(0.25)], [])[0].cost).toBe(0.75);
    expect(user).toMatchObject({ role: "user", episodes: 0, calls: null, cost: null });
    expect(judge.text).toBe("no judge usage recorded");
  });
});

describeWithTau2Data("the judge's usage in the per-role table (τ² NL assertions, scripted judge)", (tau2Data) => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({ responder: byModel({ judge: tau2JudgeResponder(tau2PlanTasks(join(tau2Data, "retail", "tasks.json"))) }) });
  });
  afterAll(() => server?.close());

  it(
    "a run whose tasks need the NL judge shows its calls, tokens and cost as the results file records them",
    async () => {
      const folder = mkdtempSync(join(tmpdir(), "taubridge-view-judge-"));
      const results = join(folder, "retail.json");
      const run = await runTau2(
        [
          "--domain",
          "retail",
          "--task-ids",
          "2",
          "--agent",
          "oracle",
          "--user",
          "scripted",
          "--judge-model",
          "judge-model",
          "--judge-provider",
          "openai-compatible",
          "--judge-base-url",
          server.baseURL,
        ],
        {
          data: tau2Data,
          saveTo: results,
        },
      );
      expect(run.exitCode, run.stderr).toBe(0);
      const recorded = (JSON.parse(readFileSync(results, "utf8")) as { taubridge: { judgeUsage: { calls: number; promptTokens: number; completionTokens: number; cost: number | null } } }).taubridge
        .judgeUsage;
      expect(recorded.calls).toBeGreaterThan(0);
      expect(server.requests.filter((request) => request.model === "judge-model")).toHaveLength(recorded.calls);
      const { data } = await bundle([results]);
      const judge = data.runs[0].roles.find((row) => row.role === "judge");
      expect(judge).toEqual({
        role: "judge",
        episodes: 1,
        calls: recorded.calls,
        promptTokens: recorded.promptTokens,
        completionTokens: recorded.completionTokens,
        cost: recorded.cost,
        meanEpisodeSeconds: null,
        text: null,
      });
      expect(recorded.promptTokens).toBeGreaterThan(0);
    },
    TIMEOUT,
  );
});
