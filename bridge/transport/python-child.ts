import { delimiter } from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { JSONRPCClient, JSONRPCErrorException, JSONRPCServer, JSONRPCServerAndClient } from "json-rpc-2.0";
import { PythonAgentError, PythonBridgeError, PythonBridgeSetupError } from "./errors.ts";
import { PROTOCOL_VERSION, RPC_ERROR, type BridgeReady, type EndpointEvidenceData } from "./protocol.ts";

/** `bridge/python`: the directory holding `taubridge_bridge/` and `sitecustomize.py`. */
export const BRIDGE_PYTHON_DIRECTORY = fileURLToPath(new URL("../python", import.meta.url));

/** A handler for a request the Python side sends to the harness (`tool.execute`). */
export type ParentMethod = (params: unknown) => unknown;

/** How to start the child and talk to it. Every field has a working default. */
export interface PythonChildOptions {
  /** The interpreter (default: `$TAUBRIDGE_PYTHON`, else `python3`). */
  python?: string;
  /**
   * `module` (default): `python -m taubridge_bridge serve`, the bridge drives the agent.
   * `sitecustomize`: `python <program...>` with our `sitecustomize.py` first on `PYTHONPATH` and
   * `TAUBRIDGE_BRIDGE=1`: the user's command line, unchanged, bridged from start-up.
   */
  launch?: "module" | "sitecustomize";
  /** Arguments after the interpreter (sitecustomize) or after `-m taubridge_bridge` (module; default `serve`). */
  program?: readonly string[];
  /**
   * `stdio` (default): protocol on the child's stdin/stdout, which the child moves out of the way
   * of library prints. `fd`: a dedicated bidirectional fd 3, for programs that use stdin/stdout.
   */
  channel?: "stdio" | "fd";
  /** Extra `PYTHONPATH` entries, after the bridge's own directory. */
  pythonPath?: readonly string[];
  /** Extra environment variables for the child. */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** How long to wait for `bridge.ready` (default 20 s: interpreter start-up on a cold machine). */
  readyTimeoutMs?: number;
  /** Default per-request timeout (default 10 min: a FastWorkflow turn can make many LLM calls). */
  requestTimeoutMs?: number;
  /** How many stderr lines to keep for error reports (default 40). */
  stderrLines?: number;
  /** Sees every stderr line (and stdout, in `fd` mode). `TAUBRIDGE_BRIDGE_STDERR=inherit` prints them. */
  onStderr?: (line: string) => void;
  /** Enables the child's test-only `debug.*` methods. */
  debug?: boolean;
  /** Requests the child may send (registered before it starts, so its first call never races). */
  methods?: Readonly<Record<string, ParentMethod>>;
  /** Notifications other than `bridge.ready` (e.g. `bridge.patched`). */
  onNotification?: (method: string, params: unknown) => void;
}

/** How the child ended. */
export interface ChildExit {
  exitCode: number | undefined;
  signal: string | undefined;
}

const DEFAULT_READY_TIMEOUT_MS = 20_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;

function clip(text: string, length = 200): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

/**
 * One Python bridge child: spawned per episode (isolation: nothing survives an episode), spoken to
 * with JSON-RPC 2.0 over newline-delimited JSON in both directions.
 *
 * Failure model: the channel is all-or-nothing. If the child exits, writes a line that is not a
 * JSON-RPC message, or misses the ready handshake, every pending and later request rejects with a
 * {@link PythonBridgeError} (an InfraError) carrying the child's last stderr lines, and the child
 * is killed. A request timeout rejects only that request; the caller decides whether to go on
 * (the FastWorkflow adapter does not: it ends the episode and kills the child).
 */
/** The RPC peer with the methods the child may call back (their failures as JSON-RPC errors with the error's name). */
function rpcWithMethods(methods: Readonly<Record<string, ParentMethod>>, send: (payload: object) => void): JSONRPCServerAndClient {
  const server = new JSONRPCServer({ errorListener: () => undefined });
  const client = new JSONRPCClient((payload) => send(payload));
  const rpc = new JSONRPCServerAndClient(server, client, { errorListener: () => undefined });
  for (const [name, method] of Object.entries(methods)) {
    rpc.addMethod(name, async (params: unknown) => {
      try {
        return await method(params);
      } catch (error) {
        if (error instanceof JSONRPCErrorException) throw error;
        const message = error instanceof Error ? error.message : String(error);
        throw new JSONRPCErrorException(message, RPC_ERROR.bridge, { name: error instanceof Error ? error.name : "Error" });
      }
    });
  }
  return rpc;
}

/** The interpreter, arguments and environment the child starts with (the bridge package on its PYTHONPATH). */
function childCommand(options: PythonChildOptions): { python: string; args: string[]; env: Record<string, string>; channel: "stdio" | "fd" } {
  const launch = options.launch ?? "module";
  const channel = options.channel ?? "stdio";
  const python = options.python ?? process.env.TAUBRIDGE_PYTHON ?? "python3";
  const args = launch === "module" ? ["-m", "taubridge_bridge", ...(options.program ?? ["serve"])] : [...(options.program ?? ["-c", "pass"])];
  const inherited = options.env?.PYTHONPATH ?? process.env.PYTHONPATH;
  const pythonPath = [BRIDGE_PYTHON_DIRECTORY, ...(options.pythonPath ?? []), ...(inherited ? [inherited] : [])];
  const env: Record<string, string> = {
    ...options.env,
    PYTHONPATH: pythonPath.join(delimiter),
    PYTHONUNBUFFERED: "1",
    PYTHONIOENCODING: "utf-8",
    TAUBRIDGE_BRIDGE_CHANNEL: channel === "fd" ? "fd:3" : "stdio",
    TAUBRIDGE_BRIDGE: launch === "sitecustomize" ? "1" : "0",
    TAUBRIDGE_BRIDGE_DEBUG: options.debug ? "1" : "0",
  };
  return { python, args, env, channel };
}

export class PythonBridgeChild {
  /** Filled by the ready handshake. */
  ready!: BridgeReady;
  /** Targets the child reported as patched (from `bridge.ready` and later `bridge.patched`). */
  readonly patched = new Set<string>();
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<ChildExit>;

  private readonly rpc: JSONRPCServerAndClient;
  private readonly stderrTailLines: string[] = [];
  private readonly maxStderrLines: number;
  private readonly requestTimeoutMs: number;
  private readonly subprocess: ReturnType<typeof execa>;
  private readonly input: Writable;
  private failure: PythonBridgeError | undefined;
  private failed!: Promise<never>;
  private rejectFailed!: (error: PythonBridgeError) => void;
  private resolveReady!: (ready: BridgeReady) => void;
  private closing = false;
  private exitInfo: ChildExit | undefined;

  private constructor(private readonly options: PythonChildOptions) {
    this.maxStderrLines = options.stderrLines ?? 40;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.failed = new Promise<never>((_, reject) => {
      this.rejectFailed = reject;
    });
    this.failed.catch(() => undefined);
    this.rpc = rpcWithMethods(options.methods ?? {}, (payload) => this.send(payload));
    const command = childCommand(options);
    this.subprocess = execa(command.python, command.args, {
      env: command.env,
      cwd: options.cwd,
      stdio: command.channel === "fd" ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
      buffer: false,
      reject: false,
      encoding: "utf8",
    });
    const stdio = this.subprocess.stdio as unknown as Array<Readable & Writable>;
    this.input = command.channel === "fd" ? stdio[3]! : (this.subprocess.stdin as Writable);
    const diagnosticsDrained = this.wireStreams(command.channel);
    this.exited = this.watchExit(command.python, diagnosticsDrained);
  }

  /**
   * Connects the protocol channel (stdout, or fd 3) to the RPC peer and the diagnostic streams to
   * the stderr tail; returns a wait for the diagnostics to drain after an exit.
   */
  private wireStreams(channel: "stdio" | "fd"): () => Promise<void> {
    const stdio = this.subprocess.stdio as unknown as Array<Readable & Writable>;
    const protocolIn = channel === "fd" ? stdio[3]! : (this.subprocess.stdout as Readable);
    this.input.on("error", () => undefined); // EPIPE after a crash: the exit handler reports it
    protocolIn.on("error", () => undefined);
    createInterface({ input: protocolIn, crlfDelay: Infinity }).on("line", (line) => this.onLine(line));
    const diagnostics: Readable[] = [this.subprocess.stderr as Readable];
    if (channel === "fd") diagnostics.push(this.subprocess.stdout as Readable);
    const drained: Array<Promise<void>> = [];
    for (const stream of diagnostics) {
      stream.on("error", () => undefined);
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      lines.on("line", (line) => this.onDiagnostic(line));
      drained.push(new Promise<void>((resolve) => lines.once("close", () => resolve())));
    }
    // After an exit, the last stderr lines (the traceback) may still be in the pipe: wait for the
    // streams to end, briefly, before reporting anything.
    return () => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([
        Promise.all(drained).then(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, 500);
        }),
      ]).finally(() => clearTimeout(timer));
    };
  }

  /** Resolves with the child's exit (never rejects), failing every pending call with what happened. */
  private watchExit(python: string, diagnosticsDrained: () => Promise<void>): Promise<ChildExit> {
    const exited = Promise.resolve(this.subprocess).then(
      async (result) => {
        await diagnosticsDrained();
        const exit: ChildExit = { exitCode: result.exitCode, signal: result.signal };
        if (result.failed && result.exitCode === undefined && !result.signal) {
          // Never started (ENOENT, EACCES, ...).
          this.fail(`cannot start the python bridge with ${python}: ${result.shortMessage ?? result.message}`);
        }
        return exit;
      },
      (error: unknown) => {
        this.fail(`python bridge child failed: ${error instanceof Error ? error.message : String(error)}`);
        return { exitCode: undefined, signal: undefined };
      },
    );
    void exited.then((exit) => {
      this.exitInfo = exit;
      if (!this.closing) {
        const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.exitCode}`;
        this.fail(`python bridge child (pid ${this.subprocess.pid ?? "?"}) ${how} unexpectedly`);
      } else {
        this.fail("python bridge child has exited");
      }
    });
    return exited;
  }

  /**
   * Spawns the child and waits for its `bridge.ready`. Rejects with {@link PythonBridgeError} if it
   * does not come within `readyTimeoutMs`, if the child dies first, or if the protocol differs.
   */
  static async start(options: PythonChildOptions = {}): Promise<PythonBridgeChild> {
    const child = new PythonBridgeChild(options);
    const timeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const ready = new Promise<BridgeReady>((resolve) => {
      child.resolveReady = resolve;
    });
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.fail(`python bridge did not say bridge.ready within ${timeoutMs} ms`);
        reject(child.failure);
      }, timeoutMs);
    });
    try {
      child.ready = await Promise.race([ready, child.failed, timeout]);
    } catch (error) {
      child.kill();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (child.ready.protocol !== PROTOCOL_VERSION) {
      child.fail(`python bridge speaks protocol ${child.ready.protocol}; this harness speaks ${PROTOCOL_VERSION}`);
      throw child.failure;
    }
    return child;
  }

  /** The child's process id. */
  get pid(): number | undefined {
    return this.subprocess.pid;
  }

  /** True once the channel has failed or closed; every request then rejects. */
  get isClosed(): boolean {
    return this.failure !== undefined;
  }

  /** The child's last stderr lines (its traceback after a crash). */
  stderrTail(): string[] {
    return [...this.stderrTailLines];
  }

  /** Calls a method in the child. Python errors become typed errors (see {@link PythonAgentError}). */
  async request<T>(method: string, params?: unknown, options: { timeoutMs?: number } = {}): Promise<T> {
    if (this.failure) throw this.failure;
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    const call = Promise.resolve(this.rpc.request(method, params));
    call.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new PythonBridgeError(`python bridge request ${method} timed out after ${timeoutMs} ms`, { stderrTail: this.stderrTail() })), timeoutMs);
    });
    try {
      return (await Promise.race([call, this.failed, timeout])) as T;
    } catch (error) {
      throw this.translate(method, error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends a notification (no answer). */
  notify(method: string, params?: unknown): void {
    if (!this.failure) this.rpc.notify(method, params);
  }

  /**
   * Orderly shutdown: `bridge.shutdown` (the child closes its session and exits), then SIGTERM and
   * SIGKILL if it lingers. Never throws.
   */
  async close(options: { timeoutMs?: number } = {}): Promise<ChildExit> {
    const timeoutMs = options.timeoutMs ?? 5_000;
    if (!this.exitInfo && !this.failure) {
      this.closing = true;
      try {
        await this.request("bridge.shutdown", undefined, { timeoutMs });
      } catch {
        // a dead or stuck child is handled below
      }
    }
    this.closing = true;
    this.input.end();
    if (!(await this.waitForExit(timeoutMs))) {
      this.subprocess.kill("SIGTERM");
      if (!(await this.waitForExit(1_000))) this.subprocess.kill("SIGKILL");
    }
    const exit = await this.exited;
    this.exitInfo = exit;
    this.fail("python bridge child has been closed");
    return exit;
  }

  /** Kills the child at once (abort, timeout). Pending requests reject with PythonBridgeError. */
  kill(): void {
    this.closing = true;
    if (!this.exitInfo) this.subprocess.kill("SIGKILL");
    this.fail("python bridge child was stopped by the harness");
  }

  private async waitForExit(ms: number): Promise<boolean> {
    if (this.exitInfo) return true;
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
    clearTimeout(timer);
    return result;
  }

  private send(payload: unknown): void {
    if (this.failure) throw this.failure;
    this.input.write(`${JSON.stringify(payload)}\n`);
  }

  private onLine(line: string): void {
    if (this.failure) return;
    const text = line.trim();
    if (!text) return;
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      this.fail(`python bridge wrote a non-protocol line on its protocol stream: ${JSON.stringify(clip(text))}`);
      return;
    }
    if (payload && typeof payload === "object" && !Array.isArray(payload) && "method" in payload && !("id" in payload)) {
      const { method, params } = payload as { method: unknown; params?: unknown };
      if (method === "bridge.ready") {
        const ready = params as BridgeReady;
        for (const target of ready?.patched ?? []) this.patched.add(target);
        this.resolveReady?.(ready);
        return;
      }
      if (method === "bridge.patched") {
        const target = (params as { target?: unknown } | undefined)?.target;
        if (typeof target === "string") this.patched.add(target);
      }
      if (typeof method === "string") this.options.onNotification?.(method, params);
      return;
    }
    this.rpc.receiveAndSend(payload).catch(() => {
      this.fail(`python bridge wrote a message that is not JSON-RPC 2.0: ${JSON.stringify(clip(text))}`);
    });
  }

  private onDiagnostic(line: string): void {
    this.stderrTailLines.push(line);
    if (this.stderrTailLines.length > this.maxStderrLines) this.stderrTailLines.shift();
    this.options.onStderr?.(line);
    if (process.env.TAUBRIDGE_BRIDGE_STDERR === "inherit") process.stderr.write(`[python ${this.subprocess.pid ?? "?"}] ${line}\n`);
  }

  /** Marks the channel failed (once), rejects everything pending, and kills the child. */
  private fail(message: string): void {
    if (this.failure) return;
    this.failure = new PythonBridgeError(message, { stderrTail: this.stderrTail() });
    this.rejectFailed(this.failure);
    this.rpc.rejectAllPendingRequests(message);
    if (!this.exitInfo) {
      try {
        this.subprocess.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  private translate(method: string, error: unknown): Error {
    if (PythonBridgeError.isInstance(error)) return error;
    if (this.failure) return this.failure;
    if (error instanceof JSONRPCErrorException) {
      const traceback = typeof error.data?.traceback === "string" ? (error.data.traceback as string) : undefined;
      if (error.code === RPC_ERROR.agent) {
        const endpoint = error.data?.endpoint as EndpointEvidenceData | undefined;
        const cause = endpoint && typeof endpoint === "object" ? { name: endpoint.type, message: endpoint.message, status: endpoint.status, code: endpoint.code } : undefined;
        return new PythonAgentError(`the Python agent raised during ${method}: ${error.message}`, traceback, cause ? { cause } : {});
      }
      if (error.code === RPC_ERROR.setup) return new PythonBridgeSetupError(`python bridge could not set up the session: ${error.message}`, { stderrTail: this.stderrTail() });
      return new PythonBridgeError(`python bridge ${method} failed (code ${error.code}): ${error.message}${traceback ? `\n${traceback}` : ""}`, {
        stderrTail: this.stderrTail(),
      });
    }
    return new PythonBridgeError(`python bridge ${method} failed: ${error instanceof Error ? error.message : String(error)}`, {
      stderrTail: this.stderrTail(),
      cause: error,
    });
  }
}
