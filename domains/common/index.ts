/**
 * Tools shared by τ-bench's retail and airline domains: both register the same `calculate`,
 * `think` and `transfer_to_human_agents`, so they live here once.
 */
export { calculateTool, pythonCalculate, CALCULATE_ALPHABET, MAX_EXACT_BITS } from "./calculate/index.ts";
export { thinkTool, transferToHumanAgentsTool } from "./basic-tools.ts";
