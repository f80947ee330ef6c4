/**
 * The scripted model server for the model-path benchmark, run in a worker thread so its CPU work does
 * not share the harness's thread: an agent model that always answers, and a user model that stops
 * after a fixed number of agent messages, each answer delayed by `latencyMs`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { startScriptedModelServer } from "../../../src/testing/index.ts";

const { latencyMs, turns } = workerData as { latencyMs: number; turns: number };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const server = await startScriptedModelServer({
  responder: async (request) => {
    if (latencyMs > 0) await sleep(latencyMs);
    const body = request as unknown as { model?: string; messages?: Array<{ role?: string }> };
    if (body.model === "bench-agent") return { content: "Thanks, I am looking into it.", usage: { prompt_tokens: 100, completion_tokens: 10 } };
    // The user simulator sees the agent's words as `user` messages (roles flipped), after the fixed opener.
    const seen = (body.messages ?? []).filter((message) => message.role === "user").length;
    return { content: seen > turns ? "###STOP###" : `Please continue (${seen}).`, usage: { prompt_tokens: 50, completion_tokens: 5 } };
  },
});
parentPort!.postMessage({ baseURL: server.baseURL });
parentPort!.on("message", async (message) => {
  if (message === "count") parentPort!.postMessage({ count: server.requests.length });
  if (message === "close") {
    await server.close();
    process.exit(0);
  }
});
