// Where the time of one `taubridge tau2 run` goes (oracle agent, scripted user), measured by
// run-phases.mjs on the same suite path the CLI takes. Prints run-phases.mjs's JSON line with
// τ²'s names for the loop fields (simulations, simulationsMs, simulationsCpuMs).
//   node scripts/bench/support/tau2-run-phases.mjs <dist dir> <results path> <options as JSON>
// options: { domain, dataDir, taskSplitName?, numTasks?, judgeBaseUrl? }.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const [dist, saveTo, optionsJson] = process.argv.slice(2);
const { judgeBaseUrl, ...options } = JSON.parse(optionsJson);
const flags = {
  suite: "tau2",
  agent: "oracle",
  user: "scripted",
  ...options,
  ...(judgeBaseUrl ? { judgeModel: "judge-model", judgeProvider: "openai-compatible", judgeBaseUrl } : {}),
};
const script = fileURLToPath(new URL("./run-phases.mjs", import.meta.url));
const phases = JSON.parse(execFileSync(process.execPath, [script, dist, saveTo, JSON.stringify(flags)], { encoding: "utf8" }));
process.stdout.write(`${JSON.stringify({ ...phases, simulations: phases.episodes, simulationsMs: phases.episodesMs, simulationsCpuMs: phases.episodesCpuMs })}\n`);
