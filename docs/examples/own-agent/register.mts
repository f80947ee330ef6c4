// register.mts
import { createBundledRegistries, FunctionAgent, formatReport, runBenchmarkWith } from "taubridge";
import { respond } from "./agent.ts";

const registries = await createBundledRegistries();
registries.agentStrategies.register("my-agent", {
  description: "our help-desk agent",
  requiresModel: false,
  create: () => new FunctionAgent(respond),
});
const result = await runBenchmarkWith(registries, { agentStrategy: "my-agent", numTrials: 2 });
console.log(formatReport(result));
