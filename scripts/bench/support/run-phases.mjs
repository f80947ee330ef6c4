// Where the time of one `taubridge run` goes, measured inside a plain Node process on the built
// code (dist/), phase by phase, the way the CLI runs it. Prints one JSON line.
//   node scripts/bench/support/run-phases.mjs <dist dir> <log dir> [run flags as JSON]
const startedAt = performance.now(); // ≈ Node's own start-up, before any of our code
const [dist, logDir, flagsJson] = process.argv.slice(2);
const flags = JSON.parse(flagsJson ?? "{}");
const moduleStart = performance.now();
const [{ offlineRegistries }, { buildRun, runBatch }, { parseRunFlags, runConfigFromFlags }, { buildReport, leaderboardText }] = await Promise.all([
  import(`${dist}/app/offline-registries.js`),
  import(`${dist}/src/run/batch.js`),
  import(`${dist}/src/run/run-flags.js`),
  import(`${dist}/src/report/leaderboard.js`),
]);
const modulesLoaded = performance.now();
const input = runConfigFromFlags(parseRunFlags({ ...flags, logDir, resume: false, quiet: true }, "api"), offlineRegistries.defaultDomain);
const built = buildRun(input, { registries: offlineRegistries });
const dataParsed = performance.now();
let firstEpisodeAt = 0;
let lastEpisodeAt = 0;
let cpuAtStart = process.cpuUsage();
let episodesCpu = { user: 0, system: 0 };
const outcome = await runBatch(built, {
  start: () => {
    firstEpisodeAt = performance.now();
    cpuAtStart = process.cpuUsage();
  },
  episodeDone: () => {
    lastEpisodeAt = performance.now();
    episodesCpu = process.cpuUsage(cpuAtStart);
  },
});
const batchDone = performance.now();
const text = leaderboardText([buildReport("oracle", outcome.summaries)]);
const reportDone = performance.now();
process.stdout.write(
  `${JSON.stringify({
    episodes: outcome.summaries.length,
    passK1: outcome.metrics.passK[1],
    nodeStartMs: startedAt,
    moduleLoadingMs: modulesLoaded - moduleStart,
    dataParsingMs: dataParsed - modulesLoaded,
    checkpointSetupMs: firstEpisodeAt - dataParsed,
    episodesMs: lastEpisodeAt - firstEpisodeAt,
    // CPU (user + system) over the same span: less disturbed than wall clock on a shared machine
    episodesCpuMs: (episodesCpu.user + episodesCpu.system) / 1000,
    writingResultsMs: batchDone - lastEpisodeAt,
    reportMs: reportDone - batchDone + (text.length > 0 ? 0 : 0),
    inProcessTotalMs: reportDone,
  })}\n`,
);
