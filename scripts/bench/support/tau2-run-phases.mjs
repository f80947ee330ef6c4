// Where the time of one `taubridge tau2 run` goes, measured inside a plain Node process on the built
// code (dist/), the way the CLI runs it (same registries, same builder, same batch). Prints one JSON line.
//   node scripts/bench/support/tau2-run-phases.mjs <dist dir> <results path> <options as JSON>
// options: { domain, dataDir, taskSplitName?, numTasks?, judgeBaseUrl? } (oracle agent, scripted user).
const startedAt = performance.now(); // ≈ Node's own start-up, before any of our code
const [dist, saveTo, optionsJson] = process.argv.slice(2);
const options = JSON.parse(optionsJson);
const moduleStart = performance.now();
const [{ tau2Registries }, { TAU2_RUN_DEFAULTS, buildTau2Run, runTau2Batch }, { createTau2Models }] = await Promise.all([
  import(`${dist}/app/tau2-registries.js`),
  import(`${dist}/src/runner/tau2-run.js`),
  import(`${dist}/src/runner/tau2-models.js`),
]);
const modulesLoaded = performance.now();
const none = { llm: TAU2_RUN_DEFAULTS.agentLlm, llmArgs: { ...TAU2_RUN_DEFAULTS.llmArgs } };
const judge = options.judgeBaseUrl ? { llm: "judge-model", llmArgs: {}, baseUrl: options.judgeBaseUrl, provider: "openai-compatible" } : null;
const models = await createTau2Models({ agent: none, user: none, judge });
const built = await buildTau2Run(
  {
    ...TAU2_RUN_DEFAULTS,
    domain: options.domain,
    agent: "oracle",
    user: "scripted",
    agentLlm: TAU2_RUN_DEFAULTS.agentLlm,
    userLlm: TAU2_RUN_DEFAULTS.userLlm,
    agentLlmArgs: { ...TAU2_RUN_DEFAULTS.llmArgs },
    userLlmArgs: { ...TAU2_RUN_DEFAULTS.llmArgs },
    taskSplitName: options.taskSplitName ?? TAU2_RUN_DEFAULTS.taskSplitName,
    numTasks: options.numTasks,
    timeout: null,
    saveTo,
    dataDir: options.dataDir,
    agentOptions: {},
  },
  tau2Registries,
  { agent: models.agent, user: models.user, ...(judge ? { judge: models.judge } : {}) },
);
const builtAt = performance.now();
const cpuAtStart = process.cpuUsage();
let lastSimulationAt = builtAt;
let simulationsCpu = { user: 0, system: 0 };
const result = await runTau2Batch(built, {
  onProgress: () => {
    lastSimulationAt = performance.now();
    simulationsCpu = process.cpuUsage(cpuAtStart);
  },
});
const batchDone = performance.now();
const rewardSum = result.simulations.reduce((sum, record) => sum + (record.reward_info?.reward ?? 0), 0);
process.stdout.write(
  `${JSON.stringify({
    simulations: result.simulations.length,
    rewardSum,
    nodeStartMs: startedAt,
    moduleLoadingMs: modulesLoaded - moduleStart,
    dataParsingMs: builtAt - modulesLoaded,
    simulationsMs: lastSimulationAt - builtAt,
    simulationsCpuMs: (simulationsCpu.user + simulationsCpu.system) / 1000,
    writingResultsMs: batchDone - lastSimulationAt,
    inProcessTotalMs: batchDone,
  })}\n`,
);
