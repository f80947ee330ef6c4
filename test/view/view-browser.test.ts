/**
 * `taubridge view` in a real browser (Debian's Chromium through playwright-core), on results files
 * made by real runs in this file's setup: τ²'s mock domain with the offline oracle (seeded failures
 * in one run, none in the other) and the scripted user, τ-bench's bundled library domain with the
 * oracle, and the frozen τ-bench fixture of a tool-calling agent (a pass, a failure, an infra
 * error). The assertions read the rendered page and compare it with what the CLI's own commands
 * (`compare`, `records`, `analyze`) print for the same files.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EpisodeRecord } from "../../src/core/episode-record.ts";
import { createOfflineRegistries } from "../../app/offline-registries.ts";
import { chromiumPath, launchChromium, missingBrowserReason } from "../support/browser.ts";
import { runCli, runTau2 } from "../support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory, tauBenchDirectory } from "../support/shared-data.ts";

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "results", "v1", "library-test-tool-calling-agent-model-0.0_ids_0-1-2_user-user-model-llm.json");
const TIMEOUT = 400_000;
/** What a poll waits at most for the page (the machine may be loaded; a pass is usually immediate). */
const POLL = { timeout: 120_000 };

if (!chromiumPath) console.warn(missingBrowserReason);
if (!tau2BenchDirectory) console.warn(missingTau2Reason);

async function records(path: string): Promise<EpisodeRecord[]> {
  const result = await runCli(["records", path, "--format", "json"]);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as EpisodeRecord[];
}

/** Counts pixels near each colour in a PNG, decoded by the browser itself (a canvas); the function runs in the page. */
const COUNT_COLOURS = `async ({ data, colours }) => {
  const image = new Image();
  image.src = "data:image/png;base64," + data;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, image.width, image.height).data;
  const counts = Object.fromEntries(Object.keys(colours).map((name) => [name, 0]));
  for (let at = 0; at < pixels.length; at += 4)
    for (const [name, [r, g, b]] of Object.entries(colours))
      if (Math.abs(pixels[at] - r) < 12 && Math.abs(pixels[at + 1] - g) < 12 && Math.abs(pixels[at + 2] - b) < 12) counts[name]++;
  return counts;
}`;

/** A tab that waits as long as a loaded machine needs for the page (actions and waits; a pass is usually immediate). */
async function newTab(browser: Browser, options?: Parameters<Browser["newPage"]>[0]): Promise<Page> {
  const tab = await browser.newPage(options);
  tab.setDefaultTimeout(POLL.timeout);
  return tab;
}

async function colourCounts(page: Page, png: Buffer, colours: Record<string, [number, number, number]>): Promise<Record<string, number>> {
  return (await page.evaluate(`(${COUNT_COLOURS})(${JSON.stringify({ data: png.toString("base64"), colours })})`)) as Record<string, number>;
}

describe.skipIf(!chromiumPath)("taubridge view in Chromium", () => {
  let browser: Browser;
  const directory = mkdtempSync(join(tmpdir(), "taubridge-view-"));

  beforeAll(async () => {
    browser = await launchChromium();
  }, TIMEOUT);
  afterAll(async () => {
    await browser?.close();
  });

  describe.skipIf(!tau2BenchDirectory)("two τ² runs of the mock domain (seeded failures against none)", () => {
    const failing = join(directory, "mock-failing.json");
    const clean = join(directory, "mock-clean.json");
    const page = join(directory, "mock.html");
    let failingRecords: EpisodeRecord[];
    let comparison: {
      baseline: { statistics: { passK: Record<string, { value: number; low: number; high: number }> } };
      candidates: Array<{ comparison: { verdict: string; perTask: Array<{ taskId: string; difference: number }> } }>;
    };

    beforeAll(async () => {
      const common = ["--domain", "mock", "--agent", "oracle", "--user", "scripted", "--num-trials", "2"];
      const a = await runTau2([...common, "--agent-llm-args", JSON.stringify({ failure_rate: 0.4, cost_per_turn: 0.001 })], { data: tau2BenchDirectory as string, saveTo: failing });
      expect(a.exitCode, a.stderr).toBe(0);
      const b = await runTau2(common, { data: tau2BenchDirectory as string, saveTo: clean });
      expect(b.exitCode, b.stderr).toBe(0);
      const view = await runCli(["view", failing, clean, "--out", page, "--data-dir", tau2BenchDirectory as string]);
      expect(view.exitCode, view.stderr).toBe(0);
      expect(view.stdout).toContain(pathToFileURL(page).href);
      failingRecords = await records(failing);
      const compared = await runCli(["compare", failing, clean, "--format", "json"]);
      expect(compared.exitCode, compared.stderr).toBe(0);
      comparison = JSON.parse(compared.stdout);
    }, TIMEOUT);

    it(
      "renders the summary from file:// without network: the numbers compare prints, the pass^k plot with its band, a screenshot whose grid shows the failures",
      async () => {
        const tab = await newTab(browser, { viewport: { width: 1400, height: 1000 } });
        const requests: string[] = [];
        tab.on("request", (request) => {
          if (!request.url().startsWith("file:") && !request.url().startsWith("data:")) requests.push(request.url());
        });
        const errors: string[] = [];
        tab.on("pageerror", (error) => errors.push(String(error)));
        await tab.goto(pathToFileURL(page).href);
        await tab.getByTestId("summary").waitFor();
        expect(await tab.getByTestId("card-episodes").innerText()).toContain(String(failingRecords.length));
        const pass1 = comparison.baseline.statistics.passK["1"];
        expect(await tab.getByTestId("card-pass1").innerText()).toContain(pass1.value.toFixed(3));
        expect(await tab.getByTestId("card-pass1").innerText()).toContain(`[${pass1.low.toFixed(3)}, ${pass1.high.toFixed(3)}]`);
        const points = await tab.locator("[data-testid=passk-plot] circle").evaluateAll((circles) => circles.map((circle) => [circle.getAttribute("data-k"), circle.getAttribute("data-value")]));
        expect(points).toEqual(Object.entries(comparison.baseline.statistics.passK).map(([k, estimate]) => [k, estimate.value.toFixed(4)]));
        expect(await tab.getByTestId("passk-band").count()).toBe(1);
        expect(await tab.getByTestId("roles-table").innerText()).toMatch(/agent\s+20/);
        expect(await tab.getByTestId("terminations-table").innerText()).toContain("user_stop");
        expect(await tab.getByTestId("grid-cell").count()).toBe(failingRecords.length);
        // The screenshot shows as many red cells as there are failed episodes (each cell is 18×18 px).
        const grid = await tab.getByTestId("grid").screenshot();
        const counts = await colourCounts(tab, grid, { red: [0xd6, 0x45, 0x41], green: [0x2e, 0x9e, 0x4f] });
        const failed = failingRecords.filter((record) => record.reward < 1).length;
        expect(failed).toBeGreaterThan(0);
        expect(Math.round(counts.red / (18 * 18 - 8))).toBe(failed);
        expect(Math.round(counts.green / (18 * 18 - 8))).toBe(failingRecords.length - failed);
        expect(requests).toEqual([]);
        expect(errors).toEqual([]);
        await tab.close();
      },
      TIMEOUT,
    );

    it(
      "filters the episodes, keeps the filters in the URL, and a shared URL opens the same view",
      async () => {
        const tab = await newTab(browser);
        await tab.goto(pathToFileURL(page).href);
        await tab.locator("select[data-filter=reward]").selectOption("fail");
        await tab.waitForFunction('location.hash.includes("reward=fail")');
        const failed = failingRecords.filter((record) => record.reward < 1);
        await expect.poll(() => tab.getByTestId("episode-row").count(), POLL).toBe(failed.length);
        expect(await tab.getByTestId("shown-count").innerText()).toContain(`${failed.length} episode(s)`);
        const keys = await tab.getByTestId("episode-row").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-key")));
        expect(keys.sort()).toEqual(failed.map((record) => `${record.taskId}#${record.trial}`).sort());
        const search = tab.locator("input[data-filter=q]");
        await search.fill("update_task_1");
        await search.press("Enter");
        await tab.waitForFunction('location.hash.includes("q=update_task_1")');
        const shared = tab.url();
        const expected = failed.filter((record) => record.taskId.includes("update_task_1") || JSON.stringify(record.messages).includes("update_task_1")).length;
        await expect.poll(() => tab.getByTestId("episode-row").count(), POLL).toBe(expected);
        const second = await newTab(browser);
        await second.goto(shared);
        await second.getByTestId("summary").waitFor();
        expect(await second.locator("select[data-filter=reward]").inputValue()).toBe("fail");
        expect(await second.locator("input[data-filter=q]").inputValue()).toBe("update_task_1");
        expect(await second.getByTestId("episode-row").count()).toBe(expected);
        await second.close();
        await tab.close();
      },
      TIMEOUT,
    );

    it(
      "opens a failed episode: task context, the conversation, facts pinned to messages, reward breakdown, the database verdict, the ground-truth calls and the end state's row-level diff against the gold end state",
      async () => {
        const record = failingRecords.find((candidate) => candidate.reward < 1 && candidate.expected?.databaseMatch === false) as EpisodeRecord;
        expect(record).toBeDefined();
        const tab = await newTab(browser);
        await tab.goto(`${pathToFileURL(page).href}#view=summary&run=0&reward=fail`);
        await tab.locator(`[data-testid=episode-row][data-key="${record.taskId}#${record.trial}"]`).click();
        await tab.getByTestId("episode").waitFor();
        expect(tab.url()).toContain(`episode=${encodeURIComponent(`${record.taskId}#${record.trial}`)}`);
        expect(await tab.getByTestId("episode-title").innerText()).toContain(`Task ${record.taskId}, trial ${record.trial}`);
        expect(await tab.getByTestId("task-context").innerText()).toContain(record.expected?.instruction as string);
        expect(await tab.getByTestId("message").count()).toBe(record.messages.length);
        expect(await tab.getByTestId("tool-call").count()).toBe(record.messages.reduce((total, message) => total + (message.toolCalls?.length ?? 0), 0));
        const facts = await tab.getByTestId("facts").innerText();
        const analysis = JSON.parse((await runCli(["analyze", failing, "--format", "json"])).stdout) as {
          episodes: Array<{ taskId: string; trial: number; facts: { missingActions: Array<{ name: string }> } }>;
        };
        const analysed = analysis.episodes.find((episode) => episode.taskId === record.taskId && episode.trial === record.trial);
        expect(analysed?.facts.missingActions.length).toBeGreaterThan(0);
        for (const action of analysed?.facts.missingActions ?? []) expect(facts).toMatch(new RegExp(`missing action #\\d+: ${action.name}\\(`));
        expect(await tab.getByTestId("db-verdict").innerText()).toBe("The end state differs from the ground truth's.");
        expect(await tab.getByTestId("db-diff").innerText()).toContain("expected, not done");
        // The row-level diff of the end state against the gold end state: what the suite's replay says, row by row and field by field.
        const registries = await createOfflineRegistries({ tau2: true });
        const diffs = await registries.suites.get("tau2").endStateDiffs!({ path: failing, registries, dataDir: tau2BenchDirectory });
        const diff = diffs.episodes.get(`${record.taskId}#${record.trial}`);
        expect(diff?.status).toBe("computed");
        expect(diff?.tables.length).toBeGreaterThan(0);
        const summary = await tab.getByTestId("state-diff-summary").innerText();
        const rowCount = diff!.tables.reduce((total, table) => total + table.rows.length, 0);
        expect(summary).toContain(`End state vs gold end state: ${rowCount} row${rowCount === 1 ? " differs" : "s differ"}`);
        const shown = await tab
          .locator("[data-testid=state-diff] tbody tr")
          .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll("td")].map((cell) => (cell as unknown as { innerText: string }).innerText.trim())));
        // A long value is folded: the cell shows its label until opened.
        const cell = (value: string | null, label: string) => (value === null ? "(absent)" : value.length <= 80 ? value : `${label} (${value.length} characters)`);
        const expectedRows = diff!.tables.flatMap((table) =>
          table.rows.flatMap((row) => row.fields.map((field) => [table.table, row.key, field.field || "(whole row)", cell(field.gold, "gold value"), cell(field.actual, "value")])),
        );
        expect(shown.map((cells) => [cells[0], cells[1], cells[3], cells[4], cells[5]])).toEqual(expectedRows);
        for (const table of diff!.tables) expect(summary).toContain(`in ${table.table}: ${table.rows[0].key}`);
        for (const [component, value] of Object.entries(record.rewardBreakdown))
          expect(await tab.getByTestId("reward-breakdown").innerText()).toMatch(new RegExp(`${component}\\s+${value.toFixed(3)}`));
        await tab.close();
      },
      TIMEOUT,
    );

    it(
      "compares the two runs: the paired comparison's verdict, and exactly the tasks whose pass rates differ highlighted",
      async () => {
        const tab = await newTab(browser);
        await tab.goto(pathToFileURL(page).href);
        await tab.getByTestId("compare-tab").click();
        await tab.getByTestId("compare").waitFor();
        expect(tab.url()).toContain("view=compare");
        expect(await tab.getByTestId("verdict").innerText()).toBe(comparison.candidates[0].comparison.verdict);
        const differing = comparison.candidates[0].comparison.perTask.filter((task) => task.difference !== 0).map((task) => task.taskId);
        expect(differing.length).toBeGreaterThan(0);
        const highlighted = await tab.locator("[data-testid=compare-row][data-differs=yes] td:first-child").allInnerTexts();
        expect(highlighted.sort()).toEqual(differing.sort());
        await tab.getByTestId("only-differing").check();
        await expect.poll(() => tab.getByTestId("compare-row").count(), POLL).toBe(differing.length);
        expect(await tab.locator("[data-testid=passk-plot] polygon").count()).toBe(2);
        await tab.close();
      },
      TIMEOUT,
    );
  });

  it.skipIf(!tauBenchDirectory)(
    "opens the original τ-bench's published gpt-4o airline trajectories with their pass^1..4",
    async () => {
      const file = join(tauBenchDirectory as string, "historical_trajectories", "gpt-4o-airline.json");
      const out = join(directory, "gpt-4o-airline.html");
      expect((await runCli(["view", file, "--out", out])).exitCode).toBe(0);
      const compared = JSON.parse((await runCli(["compare", file, file, "--format", "json"])).stdout) as { baseline: { statistics: { passK: Record<string, { value: number }> } } };
      expect(Object.keys(compared.baseline.statistics.passK)).toEqual(["1", "2", "3", "4"]);
      const tab = await newTab(browser);
      await tab.goto(pathToFileURL(out).href);
      await tab.getByTestId("summary").waitFor();
      expect(await tab.getByTestId("card-episodes").innerText()).toContain("200");
      const rows = await tab.locator("[data-testid=passk-table] tbody tr").allInnerTexts();
      expect(rows.map((row) => row.split("\t").slice(0, 2))).toEqual(Object.entries(compared.baseline.statistics.passK).map(([k, estimate]) => [k, estimate.value.toFixed(3)]));
      // An episode: the policy prompt is folded, the tool calls are there.
      await tab.getByTestId("episode-row").first().click();
      await tab.getByTestId("conversation").waitFor();
      expect(await tab.locator("[data-testid=message] details summary").first().innerText()).toContain("system prompt");
      await tab.close();
    },
    TIMEOUT,
  );

  it(
    "serves a run while it is written, and a note saved on the page lands in the sidecar that analyze reads back",
    async () => {
      const logDir = join(directory, "live");
      const results = join(logDir, "library-test-oracle-none-0.0_ids_0-1_user-none-scripted.json");
      const fixture = join(directory, "tool-calling.json");
      copyFileSync(FIXTURE, fixture);
      const server = runCli(["view", fixture, results, "--serve", "--port", "0"]);
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = "";
          server.stdout?.on("data", (chunk: Buffer) => {
            out += chunk.toString();
            const match = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
            if (match) resolve(match[0]);
          });
          server.once("exit", (code) => reject(new Error(`view --serve exited ${code}: ${out}`)));
        });
        const tab = await newTab(browser);
        await tab.goto(url);
        await tab.getByTestId("summary").waitFor();
        expect(await tab.getByTestId("run-tab").count()).toBe(1);
        expect(await tab.getByTestId("live-status").innerText()).toContain("live");
        // The run starts after the page is open: the page picks it up without a reload.
        const run = await runCli(["run", "--env", "library", "--agent-strategy", "oracle", "--user-strategy", "scripted", "--task-ids", "0", "1", "--log-dir", logDir, "--quiet"]);
        expect(run.exitCode, run.stderr).toBe(0);
        expect(existsSync(results)).toBe(true);
        await expect.poll(() => tab.getByTestId("run-tab").count(), { timeout: 240_000 }).toBe(2);
        expect(await tab.getByTestId("live-status").innerText()).toContain("updated");

        // A note on the fixture's failed episode (task 2), saved through the server.
        const fixtureRecords = await records(fixture);
        const failed = fixtureRecords.find((record) => record.reward < 1 && record.termination !== "infra_error") as EpisodeRecord;
        await tab.goto(`${url}#view=episode&run=0&episode=${encodeURIComponent(`${failed.taskId}#${failed.trial}`)}`);
        await tab.getByTestId("note-form").waitFor();
        await tab.getByTestId("note-source").selectOption("agent");
        await tab.getByTestId("note-type").selectOption("wrong_argument");
        await tab.getByTestId("note-text").fill("looked up the wrong book");
        await tab.getByTestId("note-save").click();
        const sidecar = join(directory, "tool-calling.notes.json");
        await expect.poll(() => tab.getByTestId("note-status").innerText(), POLL).toContain(sidecar);
        const saved = JSON.parse(readFileSync(sidecar, "utf8"));
        expect(saved).toMatchObject({
          schemaVersion: 1,
          results: "tool-calling.json",
          notes: [{ taskId: failed.taskId, trial: failed.trial, source: "agent", type: "wrong_argument", text: "looked up the wrong book" }],
        });
        // Read back: by a fresh page, and by analyze.
        await tab.reload();
        await tab.getByTestId("note-form").waitFor();
        expect(await tab.getByTestId("note-text").inputValue()).toBe("looked up the wrong book");
        const analysis = await runCli(["analyze", fixture]);
        expect(analysis.exitCode, analysis.stderr).toBe(0);
        expect(analysis.stdout).toContain("note: agent (wrong_argument) — looked up the wrong book");
        const json = JSON.parse((await runCli(["analyze", fixture, "--format", "json"])).stdout);
        expect(json.summary.notes).toEqual({ noted: 1, bySource: { agent: 1 }, byType: { wrong_argument: 1 } });
        // The note filter finds it on the summary.
        await tab.goto(`${url}#view=summary&run=0&fault=wrong_argument`);
        await expect.poll(() => tab.getByTestId("episode-row").count(), POLL).toBe(1);
        // The infra error is listed, and the episode shows its message.
        expect(await tab.getByTestId("infra-errors").innerText()).toContain(fixtureRecords.find((record) => record.termination === "infra_error")?.taskId as string);
        await tab.close();
      } finally {
        server.kill("SIGINT");
        await server;
      }
    },
    TIMEOUT,
  );

  it(
    "a static page keeps notes in the browser and downloads them as the sidecar analyze reads",
    async () => {
      const fixture = join(directory, "static.json");
      copyFileSync(FIXTURE, fixture);
      const out = join(directory, "static.html");
      expect((await runCli(["view", fixture, "--out", out])).exitCode).toBe(0);
      const fixtureRecords = await records(fixture);
      const failed = fixtureRecords.find((record) => record.reward < 1 && record.termination !== "infra_error") as EpisodeRecord;
      const context = await browser.newContext({ acceptDownloads: true });
      const tab = await context.newPage();
      tab.setDefaultTimeout(POLL.timeout);
      await tab.goto(`${pathToFileURL(out).href}#view=episode&run=0&episode=${encodeURIComponent(`${failed.taskId}#${failed.trial}`)}`);
      await tab.getByTestId("note-source").selectOption("user");
      await tab.getByTestId("note-text").fill("the user gave a wrong id");
      await tab.getByTestId("note-save").click();
      await expect.poll(() => tab.getByTestId("note-status").innerText(), POLL).toContain("saved in this browser");
      await tab.reload();
      // The page fills the episode's note once it has read its data after the reload: wait for it.
      await expect.poll(() => tab.getByTestId("note-text").inputValue(), POLL).toBe("the user gave a wrong id");
      const download = tab.waitForEvent("download");
      await tab.getByTestId("download-notes").click();
      const file = await download;
      expect(file.suggestedFilename()).toBe("static.notes.json");
      await file.saveAs(join(directory, "static.notes.json"));
      const analysis = await runCli(["analyze", fixture]);
      expect(analysis.stdout).toContain("note: user — the user gave a wrong id");
      await context.close();
    },
    TIMEOUT,
  );
});

if (!chromiumPath) describe("taubridge view in Chromium", () => it.skip(missingBrowserReason, () => undefined));
