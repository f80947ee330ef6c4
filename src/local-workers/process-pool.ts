/**
 * `--workers N`: N local worker processes behind the worker protocol's transport contract. Each
 * process is the composition root's worker entry (`app/worker-entry.ts`), forked with an IPC pipe
 * that carries the protocol's JSON messages; it builds the run from its configuration and answers
 * every unit once. The pool sends each attempt to the ready worker with the fewest attempts in
 * flight, tells it to cancel when the run's signal aborts, and when a process dies, fails its
 * attempts with a `WorkerLostError` (the suite's retry policy retries them, on a replacement it
 * starts at once). A worker that refuses the configuration stops the run with its error.
 *
 * `TAUBRIDGE_WORKER_LOG=<file>` appends every message that crosses a pipe to that file, one JSON
 * line each (direction, worker, pid, message): what the coordinator and its workers said.
 */
import { type ChildProcess, fork } from "node:child_process";
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { unitKey, type WorkUnit } from "../core/run.ts";
import { ConfigError, describeError } from "../errors/error-tree.ts";
import { restoreError, WorkerLostError } from "../worker/errors.ts";
import { type CoordinatorMessage, parseWorkerMessage, type RunConfiguration, type UnitReply, type WorkerMessage } from "../worker/protocol.ts";
import type { WorkerTransport } from "../worker/remote-source.ts";

export interface LocalWorkerPoolOptions {
  /** How many processes. */
  count: number;
  /** The worker entry module (a file URL: `.ts` from the sources, `.js` from the build). */
  entry: string;
  configuration: RunConfiguration;
  /** A worker's warning (each distinct text once). */
  warn(message: string): void;
  /** The protocol log (default: `TAUBRIDGE_WORKER_LOG`). */
  logFile?: string;
}

/** How many workers may die before they are ready, beyond one per slot, before the pool gives up. */
const SPARE_START_FAILURES = 2;
/** How long a closing worker gets to release its participants before it is killed. */
const CLOSE_GRACE_MS = 5_000;

interface InFlight {
  unit: WorkUnit;
  resolve(reply: UnitReply): void;
  reject(error: unknown): void;
}

/** One worker process and the attempts it runs. */
class WorkerProcess {
  ready = false;
  exited = false;
  readonly inFlight = new Map<string, InFlight>();

  constructor(
    readonly slot: number,
    readonly child: ChildProcess,
  ) {}

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How it ended, for the error of the attempts it took with it. */
  exitText(code: number | null, signal: NodeJS.Signals | null): string {
    return `worker ${this.slot + 1} (pid ${this.pid ?? "?"}) ${signal ? `was killed by ${signal}` : `exited with code ${code}`}`;
  }
}

/** The `--workers` processes of one run. */
export class LocalWorkerPool implements WorkerTransport {
  private readonly workers: Array<WorkerProcess | undefined> = [];
  private readonly waiting = new Set<() => void>();
  private readonly warned = new Set<string>();
  private refusal: Error | undefined;
  private closing = false;
  private startFailures = 0;
  private readonly logFile: string | undefined;

  constructor(private readonly options: LocalWorkerPoolOptions) {
    this.logFile = options.logFile ?? (process.env.TAUBRIDGE_WORKER_LOG || undefined);
    for (let slot = 0; slot < options.count; slot++) this.spawn(slot);
  }

  /** The pids of the live worker processes, by slot (for logs and tests). */
  pids(): Array<number | undefined> {
    return this.workers.map((worker) => (worker && !worker.exited ? worker.pid : undefined));
  }

  private spawn(slot: number): void {
    const entry = this.options.entry;
    const typescript = entry.endsWith(".ts");
    // From the sources, the child loads TypeScript through tsx as this process does (an --import in execArgv, or tsx registered by bin/taubridge.js).
    const needsTsx = typescript && !process.execArgv.some((argument) => argument.includes("tsx"));
    const execArgv = needsTsx ? [...process.execArgv, "--import", import.meta.resolve("tsx")] : process.execArgv;
    const child = fork(fileURLToPath(entry), [], { execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"], serialization: "json" });
    const worker = new WorkerProcess(slot, child);
    this.workers[slot] = worker;
    child.on("message", (raw) => this.receive(worker, raw));
    child.on("exit", (code, signal) => this.exited(worker, code, signal));
    child.on("error", () => undefined); // a failed send or spawn: the exit event says the rest
    this.send(worker, { type: "configure", configuration: this.options.configuration });
  }

  async dispatch(unit: WorkUnit, signal: AbortSignal): Promise<UnitReply> {
    const key = unitKey(unit);
    const cancelled = (): UnitReply => ({ type: "cancelled", configurationId: this.options.configuration.id, key, attempt: unit.attempt, usage: {} });
    const worker = await this.readyWorker(signal);
    if (!worker) return cancelled();
    return new Promise<UnitReply>((resolve, reject) => {
      const onAbort = () => this.send(worker, { type: "cancel", configurationId: this.options.configuration.id, key });
      const settle = () => {
        worker.inFlight.delete(key);
        signal.removeEventListener("abort", onAbort);
      };
      worker.inFlight.set(key, {
        unit,
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
      this.send(worker, { type: "unit", configurationId: this.options.configuration.id, unit });
    });
  }

  /** The ready worker with the fewest attempts in flight; waits for one; undefined when `signal` aborts first. */
  private async readyWorker(signal: AbortSignal): Promise<WorkerProcess | undefined> {
    for (;;) {
      if (this.refusal) throw this.refusal;
      if (this.closing) throw new WorkerLostError("the worker processes were closed");
      if (signal.aborted) return undefined;
      let best: WorkerProcess | undefined;
      for (const worker of this.workers) if (worker?.ready && !worker.exited && (!best || worker.inFlight.size < best.inFlight.size)) best = worker;
      if (best) return best;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiting.delete(wake);
          signal.removeEventListener("abort", wake);
          resolve();
        };
        this.waiting.add(wake);
        signal.addEventListener("abort", wake, { once: true });
      });
    }
  }

  private wakeAll(): void {
    for (const wake of [...this.waiting]) wake();
  }

  private receive(worker: WorkerProcess, raw: unknown): void {
    let message: WorkerMessage;
    try {
      message = parseWorkerMessage(raw);
    } catch (error) {
      this.log("from", worker, raw);
      this.options.warn(`worker ${worker.slot + 1}: ${error instanceof Error ? error.message : String(error)}; it is replaced`);
      worker.child.kill("SIGKILL");
      return;
    }
    this.log("from", worker, message);
    switch (message.type) {
      case "ready":
        worker.ready = true;
        this.wakeAll();
        return;
      case "refused":
        this.refuse(restoreError(message.error));
        return;
      case "warning":
        if (!this.warned.has(message.message)) {
          this.warned.add(message.message);
          this.options.warn(message.message);
        }
        return;
      default: {
        const attempt = worker.inFlight.get(message.key);
        if (attempt && attempt.unit.attempt === message.attempt) attempt.resolve(message);
      }
    }
  }

  /** A worker could not build the run: the run stops with its error (a ConfigError, whatever it was there). */
  private refuse(error: Error): void {
    if (this.refusal) return;
    this.refusal = ConfigError.isInstance(error) ? error : new ConfigError(`a worker process could not build the run: ${describeError(error)}`, { cause: error });
    for (const worker of this.workers) for (const attempt of worker?.inFlight.values() ?? []) attempt.reject(this.refusal);
    this.wakeAll();
  }

  private exited(worker: WorkerProcess, code: number | null, signal: NodeJS.Signals | null): void {
    worker.exited = true;
    this.log("exit", worker, { code, signal });
    const lost = new WorkerLostError(`${worker.exitText(code, signal)} while it ran this episode`);
    for (const attempt of [...worker.inFlight.values()]) attempt.reject(lost);
    if (this.closing || this.refusal) return;
    if (!worker.ready && ++this.startFailures > this.options.count + SPARE_START_FAILURES) {
      this.refuse(new ConfigError(`the worker processes exit before they are ready (last: ${worker.exitText(code, signal)}); see their output above, or run without --workers`));
      return;
    }
    this.spawn(worker.slot);
  }

  private send(worker: WorkerProcess, message: CoordinatorMessage): void {
    if (worker.exited || !worker.child.connected) return;
    this.log("to", worker, message);
    // A pipe that broke is followed by the exit event, which fails the worker's attempts.
    worker.child.send(message, (error) => {
      if (error) worker.child.kill("SIGKILL");
    });
  }

  private log(direction: "to" | "from" | "exit", worker: WorkerProcess, message: unknown): void {
    if (!this.logFile) return;
    appendFileSync(this.logFile, `${JSON.stringify({ at: new Date().toISOString(), direction, worker: worker.slot + 1, pid: worker.pid, message })}\n`);
  }

  /** Ends every worker: disconnected, each releases its participants and exits; one that does not within a few seconds is killed. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.wakeAll();
    const live = this.workers.filter((worker): worker is WorkerProcess => worker !== undefined && !worker.exited);
    await Promise.all(
      live.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.exited) return resolve();
            const timer = setTimeout(() => worker.child.kill("SIGKILL"), CLOSE_GRACE_MS);
            worker.child.once("exit", () => {
              clearTimeout(timer);
              resolve();
            });
            if (worker.child.connected) worker.child.disconnect();
            else worker.child.kill("SIGKILL");
          }),
      ),
    );
  }
}
