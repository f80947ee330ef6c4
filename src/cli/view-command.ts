/**
 * `taubridge view`: results files (either suite, ours or the originals') as one self-contained HTML
 * page (`--out`), a folder to publish (`--bundle`), or served on 127.0.0.1 while a run writes
 * (`--serve`). The page, its data and its server live in `src/view`; this module reads the files
 * through the suites and hands them over.
 */
import { statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { ConfigError } from "../errors/error-tree.ts";
import type { LoadRegistries } from "./registry-needs.ts";
import { readResultsFiles } from "./analysis-commands.ts";
import { allSuites, checkOptionsFitSuite, suiteOfFile } from "./results-commands.ts";

type Options = Record<string, string | boolean | undefined>;

/** The default page: `x.json` → `x.html` beside a single results file, else `taubridge-view.html` here. */
function defaultOut(paths: readonly string[]): string {
  return paths.length === 1 && paths[0].endsWith(".json") ? paths[0].replace(/\.json$/, ".html") : "taubridge-view.html";
}

function portOf(value: string | undefined): number {
  const port = Number(value ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`--port ${value}: expected a port number (0–65535; 0 picks a free one)`);
  return port;
}

async function viewAction(loadRegistries: LoadRegistries, given: string[], options: Options): Promise<void> {
  const [{ expandPaths, loadInputs, sourcesVersion }, { buildViewData }, { pageHtmlParts }, { pagePayload }, { pageScript }, { checkOutputPath, writeFileAtomic }] = await Promise.all([
    import("../view/sources.ts"),
    import("../view/view-data.ts"),
    import("../view/html.ts"),
    import("../view/page-data.ts"),
    import("../view/page-bundle.ts"),
    import("../run/atomic-file.ts"),
  ]);
  const policy = options.policy ? (await import("../analysis/policy/rules.ts")).loadPolicyFile(options.policy as string) : undefined;
  const paths = expandPaths(given);
  const read = async (path: string) => (await readResultsFiles(loadRegistries, [path], {}))[0];
  // --serve rebuilds on every change of the sources: a file's diffs (every episode replayed) are kept while it is unchanged.
  const diffCache = new Map<string, { stamp: string; diffs: ReturnType<typeof computeStateDiffs> }>();
  const stateDiffs = (path: string) => {
    const stats = statSync(path, { throwIfNoEntry: false });
    const stamp = stats ? `${stats.mtimeMs}:${stats.size}` : "absent";
    const cached = diffCache.get(path);
    if (cached && cached.stamp === stamp) return cached.diffs;
    const diffs = computeStateDiffs(path);
    // A failure is not kept: the next rebuild tries again.
    const entry = { stamp, diffs };
    diffs.catch(() => diffCache.get(path) === entry && diffCache.delete(path));
    diffCache.set(path, entry);
    return diffs;
  };
  const computeStateDiffs = async (path: string) => {
    const registries = await allSuites(loadRegistries);
    const suite = suiteOfFile(registries, path);
    if (!suite.endStateDiffs) throw new ConfigError(`${suite.title} cannot replay its episodes' end states`);
    // A --data-dir of the other suite's data (several files of both suites): said on this file's episodes.
    checkOptionsFitSuite(registries, suite, path, { env: options.env as string | undefined, dataDir: options.dataDir as string | undefined });
    return suite.endStateDiffs({ path, registries, env: options.env as string | undefined, dataDir: options.dataDir as string | undefined, taskSplit: options.taskSplit as string | undefined });
  };
  const script = await pageScript();
  if (options.serve) {
    const port = portOf(options.port as string | undefined);
    const { serveView } = await import("../view/server.ts");
    const load = async () => buildViewData(await loadInputs(paths, read, { allowMissing: true, stateDiffs }), { policy, live: true });
    let server: Awaited<ReturnType<typeof serveView>>;
    try {
      server = await serveView({ load, version: () => sourcesVersion(paths), script, port, warn: (message) => process.stderr.write(`${message}\n`) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") throw new ConfigError(`--port ${port}: already in use on 127.0.0.1 (pick another, or --port 0 for a free one)`);
      throw error;
    }
    process.stdout.write(`Serving ${paths.length} results file(s) at ${server.url} (refreshes while a run writes; Ctrl-C stops)\n`);
    await new Promise<void>((done) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        void server.close().then(done);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    return;
  }
  const inputs = await loadInputs(paths, read, { stateDiffs });
  const data = await buildViewData(inputs, { policy });
  // The page's parts, written one after the other: a large run's page need not fit in one string.
  const html = pageHtmlParts(pagePayload(data), script);
  const episodes = data.runs.reduce((total, run) => total + run.episodes.length, 0);
  if (options.bundle) {
    const folder = options.bundle as string;
    checkOutputPath(folder, "--bundle", "folder");
    writeFileAtomic(join(folder, "index.html"), html);
    writeFileSync(join(folder, "view-data.json"), `${JSON.stringify(data)}\n`);
    process.stdout.write(`Wrote ${folder}/index.html (${data.runs.length} run(s), ${episodes} episodes; publish the folder as it is): ${pathToFileURL(resolve(folder, "index.html")).href}\n`);
    return;
  }
  const out = (options.out as string | undefined) ?? defaultOut(paths);
  checkOutputPath(out, "--out", "file");
  writeFileAtomic(out, html);
  process.stdout.write(`Wrote ${out} (${data.runs.length} run(s), ${episodes} episodes): open ${pathToFileURL(resolve(out)).href}\n`);
}

/** Adds `view`. */
export function registerViewCommand(program: Command, loadRegistries: LoadRegistries): void {
  program
    .command("view")
    .description(
      "Look at results instead of reading them: one self-contained HTML page (data embedded, no network) with the run summary (pass^k with its confidence band, usage by role, terminations, infrastructure errors, policy adherence, a task × trial grid, filters kept in the URL), every episode (task context beside the conversation, failure facts and policy hits pinned to their messages, reward breakdown, state-changing calls and the end state's database diff against the ground truth, notes), and several runs side by side with the paired comparison. --serve keeps it live while a run writes",
    )
    .argument("<results...>", "results files of either suite, ours or the originals' (a folder: the results files in it); several are compared against the first")
    .option("--out <file.html>", "where to write the page (default: beside a single results file, x.json → x.html; else ./taubridge-view.html)")
    .option("--bundle <dir>", "write a folder to publish instead: index.html (self-contained) and view-data.json")
    .option("--serve", "serve the page on 127.0.0.1 instead of writing it; it refreshes while a run writes its checkpoint or results file, and notes are saved to <results>.notes.json", false)
    .option("--port <n>", "port of --serve (0: a free one, printed)", "0")
    .option(
      "--data-dir <dir>",
      "the domain data the end-state diffs replay on (as rescore; default: TAUBRIDGE_DATA_DIR / TAUBRIDGE_TAU2_DATA_DIR, else the data `taubridge data pull` installed; the library domain ships its own)",
    )
    .option("--env <domain>", "τ-bench: the domain of results files that do not record it (default: the run's checkpoint, else the one domain whose tools the episodes call)")
    .option("--task-split <split>", "τ-bench: the split whose tasks an entry without its task refers to (default: the run's, else the domain's)")
    .option("--policy <file>", "policy rules to check (YAML or JSON, as `report --policy`); default: the built-in rules")
    .action((paths: string[], options) => viewAction(loadRegistries, paths, options));
}
