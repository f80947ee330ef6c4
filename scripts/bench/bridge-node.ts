/**
 * Per-call cost of the Node bridge: `BridgeSession.handle` on its own, and one intercepted tool call
 * through each framework's real (patched) tool entry point, bridged inside a scope versus native
 * outside it with a tool body that answers at once. The difference of medians is what the bridge
 * adds to a tool call (mapping, Python-faithful kwargs, the environment step, recording).
 *
 * Environment: τ-bench retail `get_user_details` when `$TAUBRIDGE_SHARED/tau-bench` exists, else
 * the bundled library domain's `get_member_details`. No model, no network.
 *
 * Run: `node --import tsx scripts/bench/bridge-node.ts [iterations]` (or `npm run bench bridge-node`).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BridgeSession, NameMapping } from "../../bridge/session.ts";
import { createBridgeScope, runInBridgeScope } from "../../bridge/node/context.ts";
import { installModuleHooks } from "../../bridge/node/hooks.ts";
import { frameworkHooks } from "../../adapters/hooks.ts";
import { bridgedToolSet } from "../../adapters/vercel-ai/patch.ts";
import { loadDomain, type DomainDefinition } from "../../src/suites/tau-bench/engine/domain.ts";
import { Environment } from "../../src/suites/tau-bench/engine/environment.ts";
import { standaloneStepPath } from "../../src/suites/tau-bench/loop.ts";

// Hooks first: the frameworks below are imported dynamically afterwards, as the harness does.
await installModuleHooks(Object.values(frameworkHooks));
const [{ z }, agents, langchain, ai, mastraAgent, mastraTools] = await Promise.all([
  import("zod"),
  import("@openai/agents"),
  import("@langchain/core/tools"),
  import("ai"),
  import("@mastra/core/agent"),
  import("@mastra/core/tools"),
]);

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

interface Stats {
  p50: number;
  p99: number;
  mean: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length };
}

const us = (value: number) => `${value.toFixed(1).padStart(7)} µs`;
function line(name: string, value: Stats): string {
  return `${name.padEnd(46)} p50=${us(value.p50)}  p99=${us(value.p99)}  mean=${us(value.mean)}`;
}

async function time(iterations: number, call: (index: number) => Promise<unknown>): Promise<number[]> {
  for (let index = 0; index < Math.min(200, iterations); index++) await call(-1 - index); // warm-up
  const samples: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const started = process.hrtime.bigint();
    await call(index);
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return samples;
}

async function target(): Promise<{ env: Environment; label: string; toolName: string; parameter: string; value: string }> {
  const shared = process.env.TAUBRIDGE_SHARED;
  if (shared && existsSync(join(shared, "tau-bench"))) {
    const { retailDomain } = await import("../../domains/retail/index.ts");
    const domain = loadDomain(retailDomain, join(shared, "tau-bench"));
    const env = new Environment(domain);
    return { env, label: "retail get_user_details", toolName: "get_user_details", parameter: "user_id", value: "yusuf_rossi_9620" };
  }
  const { libraryDomain } = (await import("../../domains/library/index.ts")) as { libraryDomain: DomainDefinition };
  const domain = loadDomain(libraryDomain, undefined);
  const env = new Environment(domain);
  return { env, label: "library get_member_details", toolName: "get_member_details", parameter: "member_id", value: "mateo_rossi_6152" };
}

const iterations = Number(process.argv[2] ?? 2000);
const { env, label, toolName, parameter, value } = await target();
const steps = standaloneStepPath(env.domain);
const session = new BridgeSession({ steps, mapping: new NameMapping(new Set(env.domain.toolNames)) });
const scope = createBridgeScope({ session, framework: "bench" });
const args = { [parameter]: value };
const raw = JSON.stringify(args);
const inScope = <T>(fn: () => Promise<T>) => runInBridgeScope(scope, fn);
let id = 0;
const nextId = () => `bench_${id++}`;

console.log(`Node bridge per-call cost (${iterations} calls each; ${label}; ids unique so every call steps)`);
const envOnly = stats(await time(iterations, async () => env.step({ name: toolName, kwargs: new Map([[parameter, value]]) })));
console.log(line("env.step alone (the tool itself)", envOnly));
const handle = stats(await time(iterations, () => session.handle({ toolName, params: args, rawArguments: raw, toolCallId: nextId() })));
console.log(line("BridgeSession.handle (incl. env step)", handle));
console.log(line("  → bridge bookkeeping without the env step", { p50: handle.p50 - envOnly.p50, p99: handle.p99 - envOnly.p99, mean: handle.mean - envOnly.mean }));

const native = async () => "native";
const frameworks: Array<{ name: string; call: (index: number) => Promise<unknown> }> = [];

const openaiTool = agents.tool({ name: toolName, description: "bench", parameters: z.object({ [parameter]: z.string() }), execute: native });
const runContext = new agents.RunContext({});
frameworks.push({ name: "openai-agents tool.invoke", call: () => openaiTool.invoke(runContext, raw, { toolCall: { callId: nextId(), arguments: raw } } as never) });

const langchainTool = langchain.tool(native, { name: toolName, description: "bench", schema: z.object({ [parameter]: z.string() }) });
frameworks.push({ name: "langchain tool.invoke(ToolCall)", call: () => langchainTool.invoke({ type: "tool_call", id: nextId(), name: toolName, args }) });

const aiTools = { [toolName]: ai.tool({ description: "bench", inputSchema: z.object({ [parameter]: z.string() }), execute: native }) };
frameworks.push({
  name: "vercel-ai tool.execute (per-call record)",
  call: async () => {
    const tools = bridgedToolSet(aiTools);
    return tools[toolName]!.execute!(args, { toolCallId: nextId(), messages: [] });
  },
});

const mastraTool = mastraTools.createTool({ id: toolName, description: "bench", inputSchema: z.object({ [parameter]: z.string() }), execute: native });
const mastra = new mastraAgent.Agent({ name: "bench", instructions: "bench", model: { specificationVersion: "v2", provider: "bench", modelId: "bench" } as never, tools: { [toolName]: mastraTool } });
frameworks.push({
  name: "mastra getTools() + tool.execute",
  call: async () => {
    const tools = (await mastra.getTools()) as Record<string, { execute: (context: unknown, options: unknown) => Promise<unknown> }>;
    return tools[toolName]!.execute({ context: args }, { toolCallId: nextId(), messages: [] });
  },
});

/** Native and bridged calls interleaved, so JIT warm-up, GC and drift hit both sides alike. */
async function paired(call: (index: number) => Promise<unknown>): Promise<{ outside: Stats; inside: Stats }> {
  for (let index = 0; index < 500; index++) {
    await call(-1);
    await inScope(() => call(-1));
  }
  const outside: number[] = [];
  const inside: number[] = [];
  for (let index = 0; index < iterations; index++) {
    let started = process.hrtime.bigint();
    await call(index);
    outside.push(Number(process.hrtime.bigint() - started) / 1000);
    started = process.hrtime.bigint();
    await inScope(() => call(index));
    inside.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return { outside: stats(outside), inside: stats(inside) };
}

for (const framework of frameworks) {
  const { outside, inside } = await paired(framework.call);
  console.log(line(`${framework.name}: native`, outside));
  console.log(line(`${framework.name}: bridged`, inside));
  console.log(`${"".padEnd(46)} added by the bridge (p50): ${us(inside.p50 - outside.p50)}; without the env step: ${us(inside.p50 - outside.p50 - envOnly.p50)}`);
}
