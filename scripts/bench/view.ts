/**
 * The results viewer on a 10,000-episode file (`--episodes N` for another size): the four figures
 * the issue names — time to write the page (`taubridge view`, the whole command as users run it:
 * the compiled CLI), time to first render in headless Chromium, filter latency (a filter changed
 * until the page has re-rendered), the page's memory — plus the page's size, when the browser has
 * parsed all of it (the load event: episodes and search texts follow the summary in the document),
 * and the time to open an episode.
 *
 * The file is the original τ-bench's published gpt-4o airline trajectories (200 episodes: long
 * conversations, failures) repeated with new task ids up to the size; without the data, our frozen
 * library fixture. Copies share their conversations, but the page shares only what episodes of one
 * run share by nature (system prompts, a task's text across trials): its size grows with the
 * episodes as it would for distinct ones. With the data, the end-state diffs are computed too
 * (`--data-dir`: every episode replayed), which is most of the write. The write's figures are
 * printed before the browser starts. Targets (issue): first render under 2 s, filter under 100 ms.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { execa } from "execa";
import { chromium } from "playwright-core";
import { BIN, ROOT, ensureBuilt } from "./support/built-cli.ts";

const { values } = parseArgs({ options: { episodes: { type: "string", default: "10000" }, "keep-files": { type: "boolean", default: false } }, strict: false });
const EPISODES = Number(values.episodes);
if (!Number.isInteger(EPISODES) || EPISODES < 1) throw new Error(`--episodes ${values.episodes}: expected a positive integer`);
const shared = process.env.TAUBRIDGE_SHARED;
const published = shared ? join(shared, "tau-bench", "historical_trajectories", "gpt-4o-airline.json") : "";
const source = existsSync(published) ? published : join(ROOT, "test", "fixtures", "results", "v1", "library-test-tool-calling-agent-model-0.0_ids_0-1-2_user-user-model-llm.json");
const chromiumPath = [process.env.TAUBRIDGE_CHROMIUM, "/usr/bin/chromium"].find((path): path is string => Boolean(path) && existsSync(path as string));

const entries = JSON.parse(readFileSync(source, "utf8")) as Array<{ task_id: number }>;
const maxTask = Math.max(...entries.map((entry) => entry.task_id)) + 1;
const big: unknown[] = [];
for (let copy = 0; big.length < EPISODES; copy++) for (const entry of entries) if (big.length < EPISODES) big.push({ ...entry, task_id: entry.task_id + copy * maxTask });
const folder = mkdtempSync(join(tmpdir(), "taubridge-bench-view-"));
const results = join(folder, "big.json");
writeFileSync(results, JSON.stringify(big));
big.length = 0;
const page = join(folder, "big.html");

ensureBuilt();
const started = performance.now();
const dataDir = existsSync(published) && shared ? ["--data-dir", join(shared, "tau-bench")] : [];
const write = await execa("node", [BIN, "view", results, "--out", page, ...dataDir], { reject: false, cwd: ROOT });
const writeSeconds = (performance.now() - started) / 1000;
if (write.exitCode !== 0) throw new Error(write.stderr);
const report: Record<string, unknown> = {
  source: source.replace(ROOT, "./"),
  episodes: EPISODES,
  resultsMegabytes: Number((statSync(results).size / 1e6).toFixed(1)),
  writeSeconds: Number(writeSeconds.toFixed(2)),
  htmlMegabytes: Number((statSync(page).size / 1e6).toFixed(1)),
  endStateDiffs: dataDir.length > 0 ? "computed (--data-dir)" : "not computed (no data)",
};
process.stdout.write(`${JSON.stringify(report)}\n`);

/** Resident memory of the browser's renderer processes (the page's tab: heap, DOM and the document's text), in MB. */
function rendererMegabytes(ancestor: number): number | null {
  const parents = new Map<number, number>();
  const renderers: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes("--type=renderer")) renderers.push(Number(name));
    } catch {
      // The process ended meanwhile.
    }
  }
  const descends = (pid: number) => {
    for (let at: number | undefined = pid; at && at > 1; at = parents.get(at)) if (at === ancestor) return true;
    return false;
  };
  let kilobytes = 0;
  for (const pid of renderers.filter(descends)) {
    const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    kilobytes += match ? Number(match[1]) : 0;
  }
  return kilobytes === 0 ? null : Number((kilobytes / 1000).toFixed(1));
}

/** Changes the hash and resolves with the milliseconds until the page re-rendered and painted the next frame. */
const timedHash = (hash: string) => `new Promise((done) => {
  const app = document.getElementById("app");
  const before = app.getAttribute("data-rendered");
  const t0 = performance.now();
  const observer = new MutationObserver(() => {
    if (app.getAttribute("data-rendered") !== before) { observer.disconnect(); requestAnimationFrame(() => done(performance.now() - t0)); }
  });
  observer.observe(app, { attributes: true });
  location.hash = ${JSON.stringify(hash)};
})`;

if (!chromiumPath) report.browser = "skipped: no Chromium (/usr/bin/chromium or TAUBRIDGE_CHROMIUM)";
else {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  const tab = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // A loaded machine needs long for a page this size: the figures are measured, not bounded.
  tab.setDefaultTimeout(900_000);
  await tab.goto(pathToFileURL(page).href, { timeout: 900_000, waitUntil: "commit" });
  await tab.getByTestId("summary").waitFor();
  // The page notes when its first view was on screen (performance.now(), from the navigation's start).
  report.firstRenderMs = Number(await tab.locator("#app").getAttribute("data-first-render-ms"));
  await tab.waitForLoadState("load", { timeout: 900_000 });
  report.documentParsedMs = Math.round((await tab.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")) as number);
  // The page reads every run's search text once it is idle after loading (data-search-ready).
  await tab.locator("html[data-search-ready]").waitFor({ state: "attached", timeout: 900_000 });
  report.searchReadyMs = Math.round((await tab.evaluate("performance.now()")) as number);
  const session = await tab.context().newCDPSession(tab);
  await session.send("Performance.enable");
  /** V8's used heap after a garbage collection, in MB. */
  const heapMegabytes = async () => {
    await session.send("HeapProfiler.collectGarbage");
    const metrics = (await session.send("Performance.getMetrics")) as { metrics: Array<{ name: string; value: number }> };
    const heap = metrics.metrics.find((entry) => entry.name === "JSHeapUsedSize")?.value;
    return heap === undefined ? null : Number((heap / 1e6).toFixed(1));
  };
  report.pageHeapMegabytes = { loaded: await heapMegabytes() };
  const filters: Record<string, number> = {};
  for (const [label, hash] of [
    ["reward=fail", "#view=summary&run=0&reward=fail"],
    ["reward=pass", "#view=summary&run=0&reward=pass"],
    ["reward=fail&tools=errors", "#view=summary&run=0&reward=fail&tools=errors"],
    ["q=refund (first search)", "#view=summary&run=0&q=refund"],
    ["q=baggage", "#view=summary&run=0&q=baggage"],
    ["q=baggage&reward=fail", "#view=summary&run=0&q=baggage&reward=fail"],
    ["cleared", "#view=summary&run=0"],
  ] as const)
    filters[label] = Math.round((await tab.evaluate(timedHash(hash))) as number);
  report.filterMs = filters;
  const key = await tab.getByTestId("episode-row").nth(5).getAttribute("data-key");
  report.openEpisodeMs = Math.round((await tab.evaluate(timedHash(`#view=episode&run=0&episode=${encodeURIComponent(key ?? "")}`))) as number);
  await tab.getByTestId("conversation").waitFor();
  await tab.evaluate(timedHash("#view=summary&run=0"));
  // After searching, the run's search text is held too.
  (report.pageHeapMegabytes as Record<string, unknown>).afterSearchesAndAnEpisode = await heapMegabytes();
  const metrics = (await session.send("Performance.getMetrics")) as { metrics: Array<{ name: string; value: number }> };
  report.domNodes = metrics.metrics.find((entry) => entry.name === "Nodes")?.value ?? null;
  // Chromium runs as a child of this process (playwright-core launched it).
  report.rendererRssMegabytes = rendererMegabytes(process.pid);
  await browser.close();
}
report.load = readFileSync("/proc/loadavg", "utf8").trim();
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
if (!values["keep-files"]) rmSync(folder, { recursive: true, force: true });
