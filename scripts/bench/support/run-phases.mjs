// Where the time of one `taubridge run` goes, measured inside a plain Node process on the built
// code (dist/), phase by phase, the way the CLI runs it (the same registries, settings parser and
// suite plug-in). Prints one JSON line.
//   node scripts/bench/support/run-phases.mjs <dist dir> <log dir> [run flags as JSON]
// With `"suite": "tau2"` in the flags, <log dir> is the results file (τ²'s --save-to).
const startedAt = performance.now(); // ≈ Node's own start-up, before any of our code
const [dist, out, flagsJson] = process.argv.slice(2);
const flags = JSON.parse(flagsJson ?? "{}");
const tau2 = flags.suite === "tau2";
const moduleStart = performance.now();
const [{ createOfflineRegistries }, { parseRunSettings }, { buildReport, leaderboardText }] = await Promise.all([
  import(`${dist}/app/offline-registries.js`),
  import(`${dist}/src/run/run-settings.js`),
  import(`${dist}/src/report/leaderboard.js`),
]);
const registries = await createOfflineRegistries({ tau2 });
const modulesLoaded = performance.now();
const settings = parseRunSettings({ ...flags, ...(tau2 ? { saveTo: out } : { logDir: out }), resume: false, quiet: true }, "api");
let builtAt = 0;
let lastEpisodeAt = 0;
let cpuAtStart = process.cpuUsage();
let episodesCpu = { user: 0, system: 0 };
const outcome = await registries.suites.get(settings.suite).run({
  settings,
  registries,
  progress: {
    start: () => {
      builtAt = performance.now();
      lastEpisodeAt = builtAt;
      cpuAtStart = process.cpuUsage();
    },
    episodeDone: () => {
      lastEpisodeAt = performance.now();
      episodesCpu = process.cpuUsage(cpuAtStart);
    },
  },
});
const batchDone = performance.now();
const text = leaderboardText([buildReport(outcome.title, outcome.summaries, undefined, { metrics: outcome.metrics })]);
const reportDone = performance.now();
process.stdout.write(
  `${JSON.stringify({
    episodes: outcome.summaries.length,
    passK1: outcome.metrics.passK[1],
    rewardSum: outcome.summaries.reduce((sum, summary) => sum + summary.reward, 0),
    nodeStartMs: startedAt,
    moduleLoadingMs: modulesLoaded - moduleStart,
    // building the run: data, tasks, participants, checkpoint set-up
    dataParsingMs: builtAt - modulesLoaded,
    episodesMs: lastEpisodeAt - builtAt,
    // CPU (user + system) over the same span: less disturbed than wall clock on a shared machine
    episodesCpuMs: (episodesCpu.user + episodesCpu.system) / 1000,
    writingResultsMs: batchDone - lastEpisodeAt,
    reportMs: reportDone - batchDone + (text.length > 0 ? 0 : 0),
    inProcessTotalMs: reportDone,
  })}\n`,
);
