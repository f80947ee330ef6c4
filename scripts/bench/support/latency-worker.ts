/**
 * Starts the benchmarks' scripted model server (`latency-server.ts`) in a worker thread, so its CPU
 * work does not share the harness's thread; `count()` is the number of requests it answered.
 */
import { Worker } from "node:worker_threads";

export interface LatencyServer {
  baseURL: string;
  count(): Promise<number>;
  close(): Promise<void>;
}

/** `light`: the same answers from a bare server that records nothing (`light-model-server.ts`). */
export async function startLatencyServer(latencyMs: number, turns: number, { light = false } = {}): Promise<LatencyServer> {
  // Workers do not inherit tsx's loader on Node 20: a tiny ESM bootstrap registers it first.
  const entry = new URL(light ? "./light-model-server.ts" : "./latency-server.ts", import.meta.url).href;
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(entry)});`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { workerData: { latencyMs, turns } });
  const next = () => new Promise<Record<string, unknown>>((resolve) => worker.once("message", resolve));
  const { baseURL } = (await next()) as { baseURL: string };
  return {
    baseURL,
    async count() {
      worker.postMessage("count");
      return ((await next()) as { count: number }).count;
    },
    async close() {
      worker.postMessage("close");
      await new Promise((resolve) => worker.once("exit", resolve));
    },
  };
}
