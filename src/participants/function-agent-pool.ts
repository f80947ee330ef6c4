/**
 * Function agents in worker threads (`--agent-isolation worker`, the default): the user's `respond`
 * runs in a `node:worker_threads` worker that loaded the module, so agent code cannot take the
 * harness down or hide a timeout:
 *
 * - a synchronous infinite loop blocks only its worker: the episode's timeout (or an interrupt)
 *   aborts the turn, the worker gets the abort, and when it does not answer within
 *   {@link ABORT_GRACE_MS} it is terminated and the turn fails with the timeout or interrupt; the
 *   next turn gets a fresh worker. Other episodes run on in their own workers meanwhile;
 * - `process.exit` inside the agent ends only its worker: the turn fails with an
 *   {@link AgentProtocolError} naming the agent;
 * - a turn that can never settle (the worker's event loop empties while it waits) fails at once
 *   with an {@link AgentProtocolError};
 * - a promise the agent rejected and nobody handled is a warning line; the worker goes on.
 *
 * **Module-level state.** Each worker loads its own copy of the module. A worker serves one episode
 * at a time, and is handed back to the pool when the episode ends, so the pool holds as many
 * workers as episodes ever ran at once (`--max-concurrency`), each reused by later episodes.
 * State a module keeps at its top level (a counter, a cache, a client) therefore survives from one
 * episode to the next episode on the same worker, is never shared between episodes running at
 * the same time, and is lost when a worker is replaced (after a turn it had to be terminated for,
 * a `process.exit`, or a crash). With `--agent-isolation none`, one copy in the harness's own
 * thread serves every episode, as before.
 *
 * What crosses the thread boundary is structured-cloned: the request's messages, tools and
 * episode, and the reply. A reply that cannot be cloned (functions in it) fails the turn. The
 * request's `signal` is the worker's own, aborted when the harness aborts the turn.
 *
 * TypeScript: Node 20's workers ignore tsx's `--import` hook in `execArgv` (tsx registers itself
 * only on the main thread), so the worker starts from a small ES module that registers tsx's ESM
 * and CommonJS hooks itself (as `ensureTypeScriptModules` does on the main thread) when the
 * worker file (running from the sources) or the user's module is TypeScript this Node cannot load
 * itself (`typeScriptLoader`: Node 22.18+ and 24 strip the types of most modules), and then imports
 * the worker file: `function-agent-worker.ts` next to this file in the sources,
 * `function-agent-worker.js` in `dist/`.
 */
import { Worker } from "node:worker_threads";
import { AgentProtocolError, ConfigError, errorMarker } from "../errors/error-tree.ts";
import type { SerializedError, WorkerReply, WorkerRequest, WorkerSetup } from "./function-agent-worker.ts";
import { isTypeScriptFile, typeScriptLoader } from "./typescript-modules.ts";

/** How long an aborted turn may take to stop on its own before its worker is terminated. */
export const ABORT_GRACE_MS = 500;

/** The worker file, next to this one: `.ts` in the sources, `.js` in the build. */
const WORKER_URL = new URL(`./function-agent-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);

/** The worker's first module: registers tsx when asked, then loads the worker file. */
const BOOTSTRAP = new URL(
  `data:text/javascript,${encodeURIComponent(`import { workerData } from "node:worker_threads";
const { tsx, entry } = workerData.boot;
if (tsx) {
  const [esm, commonJs] = await Promise.all([import(tsx.esm), import(tsx.commonJs)]);
  commonJs.register();
  esm.register();
}
await import(entry);`)}`,
);

export interface FunctionAgentPoolOptions {
  /** The module's absolute path. */
  modulePath: string;
  /** The path as the user gave it, for messages. */
  displayPath: string;
  exportName: string;
  /** Who the agent is in error messages: `the agent "module"`. */
  agentName: string;
  /** One warning line (default: `[taubridge] warning: …` on stderr). */
  warn?: (message: string) => void;
  abortGraceMs?: number;
}

/** One turn's request as the pool sends it (`WorkerTurnRequest`, which the worker gets with its own signal). */
export interface WorkerTurnRequest {
  messages: unknown[];
  tools: unknown[];
  signal: AbortSignal;
  episode: unknown;
}

/** An episode's hold on one worker: its turns go to that worker; `release` hands it back. */
export interface WorkerLease {
  /** Resolves with what `respond` returned (structured-cloned). */
  respond(request: WorkerTurnRequest): Promise<unknown>;
  release(): void;
}

/** The workers of one function agent; see the file comment. */
export class FunctionAgentPool {
  private readonly idle: AgentWorker[] = [];
  private readonly workers = new Set<AgentWorker>();
  private closed = false;

  private constructor(private readonly options: FunctionAgentPoolOptions) {}

  /** Loads the module in a first worker: a load error is a one-line {@link ConfigError}, as in the harness's own thread. */
  static async open(options: FunctionAgentPoolOptions): Promise<FunctionAgentPool> {
    const pool = new FunctionAgentPool(options);
    pool.idle.push(await pool.start());
    return pool;
  }

  private async start(): Promise<AgentWorker> {
    let started: AgentWorker | undefined;
    started = await AgentWorker.start(this.options, () => {
      if (started) this.workers.delete(started);
    });
    this.workers.add(started);
    return started;
  }

  /** A worker for one episode: an idle one, or a fresh one (started at its first turn). */
  lease(): WorkerLease {
    let held: AgentWorker | undefined;
    let released = false;
    const acquire = async (): Promise<AgentWorker> => {
      if (held?.alive) return held;
      held = undefined;
      while (this.idle.length > 0) {
        const candidate = this.idle.pop()!;
        if (candidate.alive) return (held = candidate);
      }
      if (this.closed) throw new AgentProtocolError(`${this.options.agentName} was closed`);
      held = await this.start();
      if (released) held.terminate(); // the episode ended while the worker started
      return held;
    };
    return {
      respond: async (request) => (await acquire()).call(request),
      release: () => {
        if (released) return;
        released = true;
        const worker = held;
        held = undefined;
        if (!worker?.alive) return;
        // A turn still running here was aborted (the episode timed out or was interrupted): nothing will read its answer.
        if (worker.busy || this.closed) worker.terminate();
        else this.idle.push(worker);
      },
    };
  }

  /** Terminates every worker (the end of the run). */
  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    await Promise.allSettled([...this.workers].map((worker) => worker.terminate()));
  }
}

interface PendingCall {
  resolve(reply: unknown): void;
  reject(error: unknown): void;
  signal: AbortSignal;
}

/** One worker thread with the module loaded. */
class AgentWorker {
  private readonly pending = new Map<number, PendingCall>();
  private nextId = 0;
  private exited = false;
  private terminating = false;
  /** The uncaught exception that ended the thread, if one did. */
  private crash: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly exitState: Int32Array,
    private readonly options: FunctionAgentPoolOptions,
  ) {}

  get alive(): boolean {
    return !this.exited && !this.terminating;
  }

  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** Starts a worker and waits until the module is loaded; rejects with a {@link ConfigError} when it cannot be. */
  static start(options: FunctionAgentPoolOptions, onGone: () => void): Promise<AgentWorker> {
    const exitState = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
    const entry = WORKER_URL.href;
    const needsTsx = entry.endsWith(".ts") || (isTypeScriptFile(options.modulePath) && typeScriptLoader(options.modulePath) === "tsx");
    const tsx = needsTsx ? { esm: import.meta.resolve("tsx/esm/api"), commonJs: import.meta.resolve("tsx/cjs/api") } : null;
    const setup: WorkerSetup & { boot: unknown } = { modulePath: options.modulePath, exportName: options.exportName, exitState, boot: { tsx, entry } };
    const worker = new Worker(BOOTSTRAP, { workerData: setup });
    const agent = new AgentWorker(worker, new Int32Array(exitState), options);
    return new Promise<AgentWorker>((resolve, reject) => {
      let loading = true;
      const failLoad = (error: Error) => {
        if (!loading) return;
        loading = false;
        void worker.terminate();
        reject(error);
      };
      worker.on("message", (message: WorkerReply) => {
        if (loading) {
          if (message.type === "loaded") {
            loading = false;
            worker.unref();
            resolve(agent);
          } else if (message.type === "load-error") {
            failLoad(message.config ? new ConfigError(message.message) : new ConfigError(`cannot load the agent module ${options.displayPath}: ${message.message}`));
          } else if (message.type === "not-a-function") {
            failLoad(new ConfigError(`agent module ${options.displayPath}: "${options.exportName}" must be a function ({messages, tools, signal}) => {content} | {toolCalls}`));
          } else if (message.type === "warning") agent.warnLine(rejectionText(options, message.message));
          return;
        }
        agent.receive(message);
      });
      worker.on("error", (error) => {
        if (loading) failLoad(new ConfigError(`cannot load the agent module ${options.displayPath} in a worker thread: ${oneLine(error.message)}`, { cause: error }));
        else agent.crash = error;
      });
      worker.on("exit", () => {
        agent.exited = true;
        onGone();
        if (loading) failLoad(new ConfigError(`cannot load the agent module ${options.displayPath}: ${agent.exitText() ?? "its worker thread exited while loading it"}`));
        else agent.gone();
      });
    });
  }

  /** One turn: posts the request and waits for the reply, the abort, or the end of the thread. */
  call(request: WorkerTurnRequest): Promise<unknown> {
    const { signal } = request;
    if (signal.aborted) return Promise.reject(signal.reason);
    if (!this.alive) return Promise.reject(new AgentProtocolError(`${this.options.agentName}'s worker thread is gone`));
    const id = ++this.nextId;
    return new Promise<unknown>((resolve, reject) => {
      let grace: NodeJS.Timeout | undefined;
      const onAbort = () => {
        this.post({ type: "abort", id, reason: serialize(signal.reason) });
        grace = setTimeout(() => this.terminate(), this.options.abortGraceMs ?? ABORT_GRACE_MS);
      };
      const settle = () => {
        this.pending.delete(id);
        signal.removeEventListener("abort", onAbort);
        if (grace) clearTimeout(grace);
        if (this.pending.size === 0 && !this.exited) this.worker.unref();
      };
      this.pending.set(id, {
        signal,
        resolve: (reply) => {
          settle();
          resolve(reply);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal.addEventListener("abort", onAbort, { once: true });
      // While a turn runs, the worker keeps the harness's event loop alive (else the in-thread guard would see a turn nothing can settle).
      this.worker.ref();
      try {
        this.worker.postMessage({ type: "respond", id, request: { messages: request.messages, tools: request.tools, episode: request.episode } } satisfies WorkerRequest);
      } catch (error) {
        this.pending.get(id)?.reject(new AgentProtocolError(`cannot pass the conversation to ${this.options.agentName}'s worker thread: ${error instanceof Error ? error.message : String(error)}`));
      }
    });
  }

  /** Ends the thread; every turn still waiting fails (with its abort reason when it was aborted). */
  terminate(): Promise<number> {
    this.terminating = true;
    return this.worker.terminate();
  }

  private post(message: WorkerRequest): void {
    if (this.alive) this.worker.postMessage(message);
  }

  private receive(message: WorkerReply): void {
    if (message.type === "warning") this.warnLine(rejectionText(this.options, message.message));
    if (message.type !== "reply" && message.type !== "error") return;
    const call = this.pending.get(message.id);
    if (!call) return;
    // An aborted turn fails with its abort reason (the timeout, the interrupt), whatever the agent answered.
    if (call.signal.aborted) call.reject(call.signal.reason);
    else if (message.type === "reply") call.resolve(message.reply);
    else call.reject(deserialize(message.error));
  }

  /** `process.exit(…)` when the agent called it, else undefined. */
  private exitText(): string | undefined {
    if (Atomics.load(this.exitState, 0) !== 1) return undefined;
    return `process.exit(${Atomics.load(this.exitState, 1) === 1 ? Atomics.load(this.exitState, 2) : ""})`;
  }

  /** The thread ended: every turn still waiting fails with why. */
  private gone(): void {
    const name = this.options.agentName;
    const exit = this.exitText();
    const waiting = [...this.pending.values()];
    for (const call of waiting) {
      if (call.signal.aborted) call.reject(call.signal.reason);
      else if (exit) call.reject(new AgentProtocolError(`${name} called ${exit}; in its worker thread that ends only the thread (its turn fails instead)`));
      else if (this.crash) call.reject(new AgentProtocolError(`${name} threw outside its turn, which ended its worker thread: ${oneLine(this.crash.message)}`, { cause: this.crash }));
      else if (this.terminating) call.reject(new AgentProtocolError(`${name}'s worker thread was terminated`));
      else call.reject(new AgentProtocolError(`${name}'s turn can never finish: it returned a promise that nothing left in its worker thread could settle (a respond() that never resolves?)`));
    }
    if (waiting.length === 0 && !this.terminating) {
      if (exit) this.warnLine(`${name} called ${exit} between turns; its worker thread is replaced`);
      else if (this.crash) this.warnLine(`${name} threw between turns, which ended its worker thread (replaced): ${oneLine(this.crash.message)}`);
    }
  }

  warnLine(text: string): void {
    if (this.options.warn) this.options.warn(text);
    else process.stderr.write(`[taubridge] warning: ${text}\n`);
  }
}

function rejectionText(options: FunctionAgentPoolOptions, message: string): string {
  return `a promise was rejected and never handled in the agent module ${options.displayPath}: ${message}`;
}

function oneLine(text: string): string {
  return text.split("\n")[0];
}

function serialize(reason: unknown): SerializedError {
  return reason instanceof Error ? { name: reason.name, message: reason.message } : { name: "AbortError", message: String(reason) };
}

/** The worker's error as an Error here, with the taubridge markers it had (an `InfraError` thrown by the agent stays one). */
function deserialize(error: SerializedError): Error {
  const copy = new Error(error.message);
  copy.name = error.name;
  if (error.stack) copy.stack = error.stack;
  for (const marker of error.markers ?? []) {
    if (marker.startsWith("taubridge.error.")) Object.defineProperty(copy, errorMarker(marker.slice("taubridge.error.".length)), { value: true, enumerable: false });
  }
  return copy;
}
