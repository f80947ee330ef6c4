/**
 * The results viewer on a 10,000-episode file: time to write the page (`taubridge view`, the whole
 * command), its size, time to first render in headless Chromium, filter latency (a filter changed
 * until the page has re-rendered), and the page's JavaScript heap. The file is the original
 * τ-bench's published gpt-4o airline trajectories (200 episodes: long conversations, failures)
 * repeated with new task ids up to 10,000 episodes; without the data, our frozen library fixture.
 * With the data, the page's end-state diffs are computed too (`--data-dir`: every episode replayed).
 * The write's figures are printed before the browser starts. Targets (issue): first render under
 * 2 s, filter under 100 ms.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { chromium } from "playwright-core";

const EPISODES = 10_000;
const root = join(import.meta.dirname, "..", "..");
const shared = process.env.TAUBRIDGE_SHARED;
const published = shared ? join(shared, "tau-bench", "historical_trajectories", "gpt-4o-airline.json") : "";
const source = existsSync(published) ? published : join(root, "test", "fixtures", "results", "v1", "library-test-tool-calling-agent-model-0.0_ids_0-1-2_user-user-model-llm.json");
const chromiumPath = [process.env.TAUBRIDGE_CHROMIUM, "/usr/bin/chromium"].find((path): path is string => Boolean(path) && existsSync(path as string));

const entries = JSON.parse(readFileSync(source, "utf8")) as Array<{ task_id: number }>;
const maxTask = Math.max(...entries.map((entry) => entry.task_id)) + 1;
const big: unknown[] = [];
for (let copy = 0; big.length < EPISODES; copy++) for (const entry of entries) if (big.length < EPISODES) big.push({ ...entry, task_id: entry.task_id + copy * maxTask });
const folder = mkdtempSync(join(tmpdir(), "taubridge-bench-view-"));
const results = join(folder, "big.json");
writeFileSync(results, JSON.stringify(big));
const page = join(folder, "big.html");

const started = performance.now();
const dataDir = existsSync(published) && shared ? ["--data-dir", join(shared, "tau-bench")] : [];
const write = await execa("node", ["--import", "tsx", join(root, "app", "cli.ts"), "view", results, "--out", page, ...dataDir], { reject: false, cwd: root });
const writeSeconds = (performance.now() - started) / 1000;
if (write.exitCode !== 0) throw new Error(write.stderr);
const report: Record<string, unknown> = {
  source: source.replace(root, "."),
  episodes: big.length,
  resultsMegabytes: Number((statSync(results).size / 1e6).toFixed(1)),
  writeSeconds: Number(writeSeconds.toFixed(2)),
  htmlMegabytes: Number((statSync(page).size / 1e6).toFixed(1)),
  endStateDiffs: dataDir.length > 0 ? "computed (--data-dir)" : "not computed (no data)",
};
process.stdout.write(`${JSON.stringify(report)}\n`);
if (!chromiumPath) report.browser = "skipped: no Chromium (/usr/bin/chromium or TAUBRIDGE_CHROMIUM)";
else {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  const tab = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // A loaded machine needs long for a page this size: the figure is measured, not bounded.
  tab.setDefaultTimeout(900_000);
  await tab.goto(pathToFileURL(page).href, { timeout: 900_000 });
  await tab.getByTestId("summary").waitFor();
  report.firstRenderMs = Math.round((await tab.evaluate("performance.now()")) as number);
  const filterMs: number[] = [];
  for (const hash of ["#view=summary&run=0&reward=fail", "#view=summary&run=0&reward=pass", "#view=summary&run=0&q=refund", "#view=summary&run=0"]) {
    const elapsed = (await tab.evaluate(`new Promise((done) => {
      const app = document.getElementById("app");
      const before = app.getAttribute("data-rendered");
      const t0 = performance.now();
      const observer = new MutationObserver(() => {
        if (app.getAttribute("data-rendered") !== before) { observer.disconnect(); requestAnimationFrame(() => done(performance.now() - t0)); }
      });
      observer.observe(app, { attributes: true });
      location.hash = ${JSON.stringify(hash)};
    })`)) as number;
    filterMs.push(Math.round(elapsed));
  }
  report.filterMs = filterMs;
  const session = await tab.context().newCDPSession(tab);
  await session.send("Performance.enable");
  const metrics = (await session.send("Performance.getMetrics")) as { metrics: Array<{ name: string; value: number }> };
  const heap = metrics.metrics.find((metric) => metric.name === "JSHeapUsedSize")?.value ?? null;
  report.pageHeapMegabytes = heap === null ? null : Number((heap / 1e6).toFixed(1));
  await browser.close();
}
report.load = readFileSync("/proc/loadavg", "utf8").trim();
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
