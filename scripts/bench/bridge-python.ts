/**
 * Latency of one intercepted tool call over the Python channel: the time from the moment the
 * patched Python function sends its planned call to the moment it holds the tool result — Python →
 * JSON-RPC over the pipe → Node's handler → back. Measured inside the child with
 * `time.perf_counter_ns` around `runtime.execute_tool` (the exact call every patch makes).
 *
 * Two handlers:
 * - `channel`: the handler answers at once (the channel's own cost);
 * - `bridge`: a real BridgeSession stepping a real environment (`get_user_details`, a read), when
 *   the τ-bench retail data is present (`$TAUBRIDGE_SHARED/tau-bench`), else the bundled library
 *   domain's `get_member_details`.
 *
 * Target: p50 < 1 ms. Run: `npx tsx scripts/bench/bridge-python.ts [iterations]`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BridgeSession, NameMapping } from "../../bridge/session.ts";
import { PythonBridgeChild, type ToolExecuteParams, type ToolExecuteResult } from "../../bridge/transport/index.ts";
import { loadDomain, type DomainDefinition } from "../../src/suites/tau-bench/engine/domain.ts";
import { Environment } from "../../src/suites/tau-bench/engine/environment.ts";
import { standaloneStepPath } from "../../src/suites/tau-bench/loop.ts";

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

function summary(name: string, microseconds: number[]): string {
  const sorted = [...microseconds].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  const ms = (value: number) => `${(value / 1000).toFixed(3)} ms`;
  return `${name.padEnd(34)} n=${sorted.length}  p50=${ms(percentile(sorted, 50))}  p90=${ms(percentile(sorted, 90))}  p99=${ms(percentile(sorted, 99))}  mean=${ms(mean)}  max=${ms(sorted[sorted.length - 1]!)}`;
}

async function measure(handler: (params: unknown) => ToolExecuteResult | Promise<ToolExecuteResult>, call: { toolName: string; rawArguments: string }, iterations: number) {
  const child = await PythonBridgeChild.start({ debug: true, methods: { "tool.execute": handler } });
  try {
    // warm-up: JIT on the Node side, first-use costs on both
    await child.request("debug.call_tool", { ...call, repeat: 200 });
    const result = await child.request<{ microseconds: number[] }>("debug.call_tool", { ...call, repeat: iterations }, { timeoutMs: 600_000 });
    return result.microseconds;
  } finally {
    await child.close();
  }
}

async function environmentFor(): Promise<{ env: Environment; label: string; call: { toolName: string; rawArguments: string } }> {
  const shared = process.env.TAUBRIDGE_SHARED;
  if (shared && existsSync(join(shared, "tau-bench"))) {
    const { retailDomain } = await import("../../domains/retail/index.ts");
    const domain = loadDomain(retailDomain, join(shared, "tau-bench"));
    const env = new Environment(domain);
    return { env, label: "retail get_user_details", call: { toolName: "get_user_details", rawArguments: '{"user_id": "yusuf_rossi_9620"}' } };
  }
  const { libraryDomain } = (await import("../../domains/library/index.ts")) as { libraryDomain: DomainDefinition };
  const domain = loadDomain(libraryDomain, undefined);
  const env = new Environment(domain);
  return { env, label: "library get_member_details", call: { toolName: "get_member_details", rawArguments: '{"member_id": "mateo_rossi_6152"}' } };
}

async function main(): Promise<void> {
  const iterations = Number(process.argv[2] ?? 2000);
  console.log(`Python bridge round trip (${iterations} calls each, measured in the child around execute_tool)`);

  const channel = await measure(() => ({ output: "ok" }), { toolName: "noop", rawArguments: "{}" }, iterations);
  console.log(summary("channel only (immediate answer)", channel));

  let bridged: number[] | undefined;
  let label = "";
  try {
    const target = await environmentFor();
    label = target.label;
    const steps = standaloneStepPath(target.env.domain);
    const session = new BridgeSession({ steps, mapping: new NameMapping(new Set(target.env.domain.toolNames)) });
    bridged = await measure(
      async (params) => {
        const call = params as ToolExecuteParams;
        const outcome = await session.handle({ toolName: call.toolName, rawArguments: call.rawArguments, params: JSON.parse(call.rawArguments), toolCallId: call.toolCallId });
        return outcome.kind === "passthrough" ? { passthrough: true } : { output: outcome.output };
      },
      target.call,
      iterations,
    );
    console.log(summary(`BridgeSession + env step (${label})`, bridged));
  } catch (error) {
    console.log(`BridgeSession + env step: skipped (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`);
  }
  const p50 =
    percentile(
      [...(bridged ?? channel)].sort((a, b) => a - b),
      50,
    ) / 1000;
  console.log(`target p50 < 1 ms: ${p50 < 1 ? "met" : "NOT met"} (${p50.toFixed(3)} ms${bridged ? ", with the env step" : ", channel only"})`);
}

await main();
