/**
 * The scripted model server for the model-path benchmark, run in a worker thread so its CPU work does
 * not share the harness's thread: the answers of `bench-answers.ts`, each delayed by `latencyMs`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { startScriptedModelServer } from "../../../src/testing/index.ts";
import { benchAnswer } from "./bench-answers.ts";

const { latencyMs, turns } = workerData as { latencyMs: number; turns: number };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const server = await startScriptedModelServer({
  responder: async (request) => {
    if (latencyMs > 0) await sleep(latencyMs);
    return benchAnswer(request as unknown as Parameters<typeof benchAnswer>[0], turns);
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
