/**
 * `taubridge view` on a run of a few hundred episodes in a real browser (Debian's Chromium through
 * playwright-core): past 200 rows the grid and the episode list render only the rows in view, a
 * search scans the run's search text, and an episode's details are parsed from its own element when
 * it is opened. The file is the frozen τ-bench fixture (a pass with tool calls, an infra error, a
 * failure) repeated under new task ids; what the page shows is compared with what `records` prints
 * for the same file. No timing is asserted (the benchmark measures it: `npm run bench view`).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EpisodeRecord } from "../../src/core/episode-record.ts";
import { chromiumPath, launchChromium, missingBrowserReason } from "../support/browser.ts";
import { runCli } from "../support/cli.ts";

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "results", "v1", "library-test-tool-calling-agent-model-0.0_ids_0-1-2_user-user-model-llm.json");
const EPISODES = 450;
const TIMEOUT = 400_000;
const POLL = { timeout: 120_000 };

if (!chromiumPath) console.warn(missingBrowserReason);

const passed = (record: EpisodeRecord) => Math.abs(record.reward - 1) <= 1e-6;

describe.skipIf(!chromiumPath)(`taubridge view on ${EPISODES} episodes in Chromium`, () => {
  let browser: Browser;
  let tab: Page;
  let records: EpisodeRecord[];
  const directory = mkdtempSync(join(tmpdir(), "taubridge-view-many-"));
  const page = join(directory, "many.html");

  beforeAll(async () => {
    const entries = JSON.parse(readFileSync(FIXTURE, "utf8")) as Array<{ task_id: number }>;
    const file = join(directory, "many.json");
    writeFileSync(file, JSON.stringify(Array.from({ length: EPISODES }, (_, at) => ({ ...entries[at % 3], task_id: entries[at % 3].task_id + 3 * Math.floor(at / 3) }))));
    const view = await runCli(["view", file, "--out", page]);
    expect(view.exitCode, view.stderr).toBe(0);
    const printed = await runCli(["records", file, "--format", "json"]);
    expect(printed.exitCode, printed.stderr).toBe(0);
    records = JSON.parse(printed.stdout) as EpisodeRecord[];
    expect(records).toHaveLength(EPISODES);
    browser = await launchChromium();
    tab = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    tab.setDefaultTimeout(POLL.timeout);
    const errors: string[] = [];
    tab.on("pageerror", (error) => errors.push(String(error)));
    await tab.goto(pathToFileURL(page).href);
    await tab.getByTestId("summary").waitFor();
    expect(errors).toEqual([]);
  }, TIMEOUT);
  afterAll(async () => {
    await browser?.close();
  });

  const keyOf = (record: EpisodeRecord) => `${record.taskId}#${record.trial}`;
  const rowKeys = () => tab.getByTestId("episode-row").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-key")));
  const scrollList = (to: "top" | "bottom") => tab.locator(".episodes-scroll").evaluate((element, where) => element.scrollTo(0, where === "top" ? 0 : element.scrollHeight), to);

  it(
    "the summary counts every episode while the grid and the list render only the rows in view, and scrolling shows the right rows",
    async () => {
      expect(await tab.getByTestId("card-episodes").innerText()).toContain(String(EPISODES));
      expect(await tab.getByTestId("shown-count").innerText()).toContain(`${EPISODES} episode(s) match`);
      expect(await tab.locator(".episodes-scroll").getAttribute("data-virtual-rows")).toBe(String(EPISODES));
      const top = await rowKeys();
      expect(top.length).toBeGreaterThan(10);
      expect(top.length).toBeLessThan(EPISODES);
      expect(top).toEqual(records.slice(0, top.length).map(keyOf));
      // The grid: one row per task (450 tasks), only some in the DOM; every cell drawn is coloured by its episode's reward.
      expect(await tab.getByTestId("grid").getAttribute("data-virtual-rows")).toBe(String(EPISODES));
      const cells = await tab.getByTestId("grid-cell").evaluateAll((elements) => elements.map((cell) => [cell.getAttribute("data-key"), Number(cell.getAttribute("data-reward"))]));
      expect(cells.length).toBeLessThan(EPISODES);
      for (const [key, reward] of cells) expect(reward).toBe(records.find((record) => keyOf(record) === key)?.reward);
      await scrollList("bottom");
      await expect.poll(async () => (await rowKeys()).at(-1), POLL).toBe(keyOf(records[EPISODES - 1]));
      const bottom = await rowKeys();
      expect(bottom).toEqual(records.slice(EPISODES - bottom.length).map(keyOf));
      await scrollList("top");
      await expect.poll(async () => (await rowKeys())[0], POLL).toBe(keyOf(records[0]));
    },
    TIMEOUT,
  );

  it(
    "filters by reward and by text (the episode's own words, and the shared system prompt) and lists exactly the matching episodes",
    async () => {
      await tab.locator("select[data-filter=reward]").selectOption("fail");
      const failed = records.filter((record) => !passed(record));
      await expect.poll(() => tab.getByTestId("shown-count").innerText(), POLL).toContain(`${failed.length} episode(s) match`);
      expect(tab.url()).toContain("reward=fail");
      await scrollList("bottom");
      await expect.poll(async () => (await rowKeys()).at(-1), POLL).toBe(keyOf(failed[failed.length - 1]));
      // Every run's search text is read once the page is idle, before anyone goes to the search box.
      await tab.locator("html[data-search-ready]").waitFor({ state: "attached" });
      // Words of one episode's conversation (a tool result of the fixture's task 0): its copies only, all of them passed.
      const search = tab.locator("input[data-filter=q]");
      await search.fill("night ferry returns");
      await search.press("Enter");
      await expect.poll(() => tab.getByTestId("shown-count").innerText(), POLL).toContain("0 episode(s) match");
      await tab.locator("select[data-filter=reward]").selectOption("pass");
      const ferry = records.filter((record) => passed(record) && record.messages.some((message) => message.role !== "system" && (message.content ?? "").toLowerCase().includes("night ferry returns")));
      expect(ferry.length).toBe(EPISODES / 3);
      await expect.poll(() => tab.getByTestId("shown-count").innerText(), POLL).toContain(`${ferry.length} episode(s) match`);
      // The policy prompt all conversations share is stored once: a search finds it in every episode that has it.
      await tab.locator("select[data-filter=reward]").selectOption("");
      await search.fill("riverside public library");
      await search.press("Enter");
      const withPrompt = records.filter((record) => record.messages.some((message) => message.role === "system" && (message.content ?? "").toLowerCase().includes("riverside public library")));
      expect(withPrompt.length).toBeGreaterThan(0);
      await expect.poll(() => tab.getByTestId("shown-count").innerText(), POLL).toContain(`${withPrompt.length} episode(s) match`);
      expect(await rowKeys()).toEqual(withPrompt.slice(0, (await rowKeys()).length).map(keyOf));
    },
    TIMEOUT,
  );

  it(
    "opens an episode from the bottom of the list: its own conversation, the shared system prompt and its tool results put back",
    async () => {
      await tab.goto(`${pathToFileURL(page).href}#view=summary&run=0&reward=pass`);
      await tab.getByTestId("summary").waitFor();
      await scrollList("bottom");
      const last = records.filter(passed).at(-1) as EpisodeRecord;
      await expect.poll(async () => (await rowKeys()).at(-1), POLL).toBe(keyOf(last));
      await tab.locator(`[data-testid=episode-row][data-key="${keyOf(last)}"]`).click();
      await tab.getByTestId("conversation").waitFor();
      expect(await tab.getByTestId("episode-title").innerText()).toContain(`Task ${last.taskId}, trial ${last.trial}`);
      expect(await tab.getByTestId("message").count()).toBe(last.messages.length);
      expect(await tab.getByTestId("tool-call").count()).toBe(last.steps.length);
      const system = last.messages.findIndex((message) => message.role === "system");
      expect(await tab.locator(`[data-testid=message][data-index="${system}"] pre`).textContent()).toBe(last.messages[system].content);
      const tool = last.messages.findIndex((message) => message.role === "tool");
      expect(await tab.locator(`[data-testid=message][data-index="${tool}"]`).innerText()).toContain(last.messages[tool].content as string);
      expect(await tab.getByTestId("task-context").innerText()).toContain(last.expected?.instruction as string);
      // Its place among the episodes the filter keeps (passed ones only): the last.
      expect(await tab.getByTestId("episode-nav-position").innerText()).toContain(`${records.filter(passed).length} of ${records.filter(passed).length}`);
    },
    TIMEOUT,
  );
});
