/**
 * The worker thread a function agent's `respond` runs in (see `function-agent-pool.ts`): it loads
 * the user's module once, answers each request, and reports what would otherwise take the
 * harness down or hang it:
 *
 * - `process.exit` ends only this thread; before it does, the call is marked in the shared
 *   `exitState` (read by the harness once the thread is gone: a message posted now might not
 *   arrive);
 * - a promise nobody handled is forwarded as a warning (and does not end the thread);
 * - a turn that can never settle: while a turn is waiting, the port does not keep the thread
 *   alive, so when nothing else is left in the thread's event loop the thread exits and the
 *   harness knows at once. While no turn is waiting, the port keeps the thread alive for the next
 *   request.
 *
 * The harness terminates the thread when a turn does not stop within a short grace after its
 * abort (a synchronous infinite loop cannot see any message).
 */
import { parentPort, workerData } from "node:worker_threads";
import { ConfigError } from "../errors/error-tree.ts";
import { loadUserAgentModule } from "./user-module.ts";

/** What the harness sends. */
export type WorkerRequest = { type: "respond"; id: number; request: { messages: unknown[]; tools: unknown[]; episode: unknown } } | { type: "abort"; id: number; reason: SerializedError };

/** What the worker answers. */
export type WorkerReply =
  | { type: "loaded" }
  | { type: "load-error"; message: string; config: boolean }
  | { type: "not-a-function" }
  | { type: "reply"; id: number; reply: unknown }
  | { type: "error"; id: number; error: SerializedError }
  | { type: "warning"; message: string };

/** An error as it crosses the thread boundary: the taubridge error markers travel by name. */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  markers?: string[];
}

/** What the pool gives the worker. */
export interface WorkerSetup {
  modulePath: string;
  exportName: string;
  /** [0] = 1 once the agent called process.exit, [1] = 1 when it named a code, [2] = the code. */
  exitState: SharedArrayBuffer;
}

function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const markers = Object.getOwnPropertySymbols(error)
    .map((symbol) => Symbol.keyFor(symbol))
    .filter((key): key is string => typeof key === "string" && key.startsWith("taubridge.error."));
  return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}), ...(markers.length > 0 ? { markers } : {}) };
}

const port = parentPort;
const setup = workerData as WorkerSetup | null;
// Only as the pool's worker (a harness that itself runs in a worker thread may import this file's types).
if (port && setup?.exitState instanceof SharedArrayBuffer) {
  const exitState = new Int32Array(setup.exitState);
  const realExit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => {
    Atomics.store(exitState, 0, 1);
    if (code !== undefined && code !== null) {
      Atomics.store(exitState, 1, 1);
      Atomics.store(exitState, 2, Number(code) | 0);
    }
    return realExit(code ?? undefined);
  }) as typeof process.exit;
  process.on("unhandledRejection", (reason) => {
    const message = reason instanceof Error ? reason.message : String(reason);
    port.postMessage({ type: "warning", message: message.split("\n")[0] } satisfies WorkerReply);
  });

  const controllers = new Map<number, AbortController>();
  /** The port keeps the thread alive only while no turn is waiting: a turn alone on an empty event loop can never settle. */
  const keepAlive = () => {
    if (controllers.size > 0) port.unref();
    else port.ref();
  };
  const send = (id: number, message: WorkerReply) => {
    try {
      port.postMessage(message);
    } catch (error) {
      // A reply holding functions or other values that cannot cross threads.
      const reason = error instanceof Error ? error.message : String(error);
      port.postMessage({
        type: "error",
        id,
        error: {
          name: "AgentProtocolError",
          message: `respond() returned a value that cannot be passed to the harness: ${reason}`,
          markers: ["taubridge.error.TaubridgeError", "taubridge.error.AgentProtocolError"],
        },
      } satisfies WorkerReply);
    }
  };

  const main = async () => {
    let respond: (request: unknown) => unknown;
    try {
      const source = await loadUserAgentModule(setup.modulePath, setup.exportName);
      if (typeof source.value !== "function") {
        port.postMessage({ type: "not-a-function" } satisfies WorkerReply);
        return;
      }
      respond = source.value as (request: unknown) => unknown;
    } catch (error) {
      port.postMessage({ type: "load-error", message: error instanceof Error ? error.message : String(error), config: ConfigError.isInstance(error) } satisfies WorkerReply);
      return;
    }
    port.on("message", (message: WorkerRequest) => {
      if (message.type === "abort") {
        const reason = Object.assign(new Error(message.reason.message), { name: message.reason.name });
        controllers.get(message.id)?.abort(reason);
        return;
      }
      const controller = new AbortController();
      controllers.set(message.id, controller);
      keepAlive();
      Promise.resolve()
        .then(() => respond({ ...message.request, signal: controller.signal }))
        .then(
          (reply) => send(message.id, { type: "reply", id: message.id, reply }),
          (error: unknown) => send(message.id, { type: "error", id: message.id, error: serializeError(error) }),
        )
        .finally(() => {
          controllers.delete(message.id);
          keepAlive();
        });
    });
    port.postMessage({ type: "loaded" } satisfies WorkerReply);
  };
  void main();
}
