/** Tools shared by every τ-bench-style domain. */
export { calculateTool } from "./calculate.ts";
export { thinkTool, transferToHumanAgentsTool } from "./basic-tools.ts";
