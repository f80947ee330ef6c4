/**
 * `--light-model` (`npm run bench queue`): the answers of the scripted model server
 * (`latency-server.ts`, {@link benchAnswer}) from a bare HTTP server that keeps nothing, run in a
 * worker thread. The scripted server records every request whole (for the tests' assertions): on
 * τ² telecom's ≈ 30 KB requests that is ≈ 1 ms of CPU per call on the machine's cores — a cost a
 * remote model does not put on the machine under test. Same messages as `latency-server.ts`.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import { benchAnswer } from "./bench-answers.ts";

const { latencyMs, turns } = workerData as { latencyMs: number; turns: number };
let count = 0;
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    count++;
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { model?: string; messages?: Array<{ role?: unknown }> };
    setTimeout(() => {
      const { content, usage } = benchAnswer(body, turns);
      const text = JSON.stringify({
        id: `chatcmpl-light-${count}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop", logprobs: null }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        system_fingerprint: "taubridge-scripted",
      });
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      response.end(text);
    }, latencyMs);
  });
});
server.listen(0, "127.0.0.1", () => parentPort!.postMessage({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }));
parentPort!.on("message", (message) => {
  if (message === "count") parentPort!.postMessage({ count });
  if (message === "close") server.close(() => process.exit(0));
});
