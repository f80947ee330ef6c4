/**
 * Client CPU per chat-completion call (issue 28, item 1): the model client's own path over an undici
 * Pool against the `openai` SDK's `chat.completions.create` (the same client otherwise, see
 * `src/model/chat-transport.ts`), in the same process and run, alternating, with the issue's
 * workload: a 21 KB request (a τ² policy-sized system prompt plus 20 messages; each call adds the
 * previous answer, as a conversation does), 50 calls in flight, a loopback server in another
 * process answering at once. CPU is this process's (`process.cpuUsage`) over the calls ÷ calls.
 *
 *   npm run bench model-transport            (default 2,000 calls per round, 3 rounds)
 *   npx tsx scripts/bench/model-transport.ts --calls 4000 --rounds 5
 */
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { ChatMessage } from "../../src/core/types.ts";
import { createModelClient } from "../../src/model/index.ts";
import { ROOT } from "./support/built-cli.ts";

const { values } = parseArgs({
  options: { calls: { type: "string", default: "2000" }, rounds: { type: "string", default: "3" }, "in-flight": { type: "string", default: "50" }, only: { type: "string" } },
  allowPositionals: true,
});
const calls = Number(values.calls);
const rounds = Number(values.rounds);
const inFlight = Number(values["in-flight"]);

const server = spawn(process.execPath, [join(ROOT, "scripts", "bench", "support", "scale-server.mjs")], {
  env: { ...process.env, LATENCY_MS: "0", TURNS: "1000000" },
  stdio: ["ignore", "pipe", "inherit"],
});
const port = await new Promise<number>((resolve) => server.stdout?.once("data", (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { port: number }).port)));
const baseURL = `http://127.0.0.1:${port}/v1`;

/** A conversation of ~21 KB: a 15 KB policy and 20 turns. */
function conversation(seed: number): ChatMessage[] {
  const policy = Array.from({ length: 300 }, (_, line) => `Policy line ${line}: the agent must verify the customer's identity before changing a line (${seed}).`).join("\n");
  const messages: ChatMessage[] = [{ role: "system", content: policy }];
  for (let turn = 0; turn < 10; turn++) {
    messages.push({ role: "user", content: `My mobile data has stopped working since turn ${turn}; I have tried restarting the phone twice.` });
    messages.push({ role: "assistant", content: `I understand. Let me check the status of your line and the roaming settings (step ${turn}).` });
  }
  return messages;
}

const tools = Array.from({ length: 12 }, (_, index) => ({
  type: "function" as const,
  function: {
    name: `tool_${index}`,
    description: `Tool number ${index} of the telecom domain.`,
    parameters: { type: "object", properties: { customer_id: { type: "string" }, line_id: { type: "string" } }, required: ["customer_id"] },
  },
}));

async function round(transport: "pool" | "sdk"): Promise<number> {
  const client = createModelClient({ model: "bench-agent", provider: "openai-compatible", baseURL, maxAttempts: 1 }, { env: {}, transport });
  // Each in-flight slot is one conversation that grows by the answer after every call.
  const slots = Array.from({ length: inFlight }, (_, index) => conversation(index));
  await Promise.all(slots.map((messages) => client.complete({ messages, tools, temperature: 0 }))); // warm: connections, target, JIT
  let next = 0;
  const before = process.cpuUsage();
  await Promise.all(
    slots.map(async (messages) => {
      while (next++ < calls) {
        const result = await client.complete({ messages, tools, temperature: 0, params: { seed: 300 } });
        messages.push(result.message as ChatMessage);
        if (messages.length > 41) messages.splice(1, 2);
      }
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / calls;
}

const samples: Record<"pool" | "sdk", number[]> = { pool: [], sdk: [] };
const loadBefore = loadavg();
for (let index = 0; index < rounds; index++) {
  for (const transport of ["sdk", "pool"] as const) if (!values.only || values.only === transport) samples[transport].push(await round(transport));
}
server.kill("SIGTERM");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const round3 = (value: number) => Number(value.toFixed(3));
console.log(
  JSON.stringify(
    {
      calls,
      rounds,
      inFlight,
      clientCpuPerCallMs: { sdk: samples.sdk.map(round3), pool: samples.pool.map(round3) },
      median: { sdk: round3(median(samples.sdk)), pool: round3(median(samples.pool)) },
      sdkOverPool: round3(median(samples.sdk) / median(samples.pool)),
      load: { before: loadBefore.map((value) => Number(value.toFixed(2))), after: loadavg().map((value) => Number(value.toFixed(2))) },
      node: process.version,
    },
    null,
    2,
  ),
);
