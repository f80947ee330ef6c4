/**
 * τ³'s shell sandbox, as `knowledge/sandbox_manager.py`'s `SandboxManager` builds and runs it: a
 * fresh directory `agentic_search_<8 hex>/knowledge_base` under the system temp directory holding
 * the knowledge base as files (`<id>.md` = `# <title>\n\n<content>`, then `INDEX.md`, written in the
 * original's order), `srt-settings.json` beside it (no network, reads denied for a few secrets,
 * writes allowed only inside `knowledge_base` for terminal_use_write), and every command screened
 * (`..`, absolute paths, `~`, `$HOME` → the original's "Command blocked" text), run by Anthropic's
 * `srt` with the original's arguments and 30 s timeout, its output decoded as Python's text mode
 * decodes it (strict UTF-8, universal newlines) and sanitized (`ls -l` owner, group and date; the
 * home directory's user name). Every text and pattern is read from the pinned source.
 *
 * Deliberate differences, none visible in what the agent reads on a normal command: the sandboxed
 * command gets a minimal environment (PATH, HOME, the user's name, TMPDIR, TZ, and on Linux
 * `LANG=C.UTF-8` as the reference fixtures were made) instead of the whole process environment, so
 * no API key ever reaches it; its stdin is empty instead of the harness's; a timed-out `srt` gets
 * SIGTERM (so it stops its helpers) before SIGKILL; output beyond 64 MiB per stream ends the command
 * (the original would hold it all until the timeout); and the directory is removed when the
 * environment is dropped (the original leaves it behind).
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { constants as osConstants, tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { ConfigError, InfraError, describeError, errorMarker } from "../../../errors/error-tree.ts";
import { PY_RE_MULTILINE, PyException, type PyRePattern, type PyValue, pyCompareStrings, pyDecodeUtf8, pyIsAlnum, pyReCompile, pyReEscape, pyStrip, pyTypeName } from "../../../value/index.ts";
import type { KnowledgeDocument } from "./knowledge-base.ts";
import { readSandboxListingStandIns, sandboxMessages } from "./messages.ts";
import type { SandboxRuntime } from "./sandbox-runtime.ts";

/** `run_command`'s default timeout, in seconds (`ShellMixin.shell` never passes another). */
export const SHELL_TIMEOUT_SECONDS = 30;

/** `(return_code, stdout, stderr)`, as `run_command` returns it. */
export type SandboxCommandResult = readonly [returnCode: number, stdout: string, stderr: string];

/**
 * The original's `SandboxRuntimeError` raised during a run: `srt` reported missing system tools
 * (its "Sandbox dependencies are not available" text in the output). An infrastructure failure of
 * the host, never an answer for the agent: the episode ends as an infrastructure error.
 */
export class SandboxRuntimeError extends InfraError {
  static readonly marker: symbol = errorMarker("SandboxRuntimeError");
}

/** `${HOME}`, which the screening refuses as `$HOME`. */
const BRACED_HOME = "$" + "{HOME}";

/** Output kept per stream before the command is stopped. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Files the export writes between two turns of the event loop. */
const EXPORT_SLICE = 64;
/** After the timeout's SIGTERM, how long `srt` has to stop its helpers before SIGKILL. */
const KILL_GRACE_MS = 2_000;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The environment `srt` and the sandboxed command get: PATH (to find `bwrap`, `rg`, `socat`, `bash`
 * and the agent's commands), HOME (srt expands `~/.ssh` and the other denied paths with it), the
 * user's name, TMPDIR and TZ when set, and the locale the reference outputs were made in (`C.UTF-8`
 * on Linux: `ls` and `sort` order, error texts; elsewhere the user's own). Nothing else, so no key
 * or token of the harness's environment can reach a command or its output.
 */
export function sandboxEnvironment(env: Env = process.env, platform: NodeJS.Platform = process.platform): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "TZ"]) {
    const value = env[name];
    if (value !== undefined) kept[name] = value;
  }
  if (platform === "linux") kept.LANG = "C.UTF-8";
  else for (const name of ["LANG", "LC_ALL", "LC_CTYPE"]) if (env[name] !== undefined) kept[name] = env[name] as string;
  return kept;
}

/** `getpass.getuser()`: LOGNAME, USER, LNAME, USERNAME, then the password database. */
function currentUser(env: Env): string | undefined {
  for (const name of ["LOGNAME", "USER", "LNAME", "USERNAME"]) if (env[name]) return env[name];
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

/** `re.search(pattern, text)`: the match (groups by number), or null. */
function pySearch(pattern: PyRePattern, text: string): RegExpExecArray | null {
  pattern.regExp.lastIndex = 0;
  return pattern.regExp.exec(text);
}

/** `_sanitize_filename`: `/`, `\` and `..` become `_`, then every character not alphanumeric nor in `._-`; at most 255 characters. */
export function sanitizeFilename(name: string): string {
  const replaced = name.split("/").join("_").split("\\").join("_").split("..").join("_");
  let safe = "";
  for (const char of replaced) safe += pyIsAlnum(char) || "._-".includes(char) ? char : "_";
  return [...safe].slice(0, 255).join("");
}

/** `json.dump(settings, f, indent=2)`: two-space indentation, `": "`, non-ASCII as `\uXXXX`. */
function pythonIndentedJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Python's text mode on a subprocess's bytes: strict UTF-8 (UnicodeDecodeError), then `\r\n` and `\r` as `\n`. */
function pythonText(bytes: Uint8Array): string {
  return pyDecodeUtf8(bytes).replaceAll("\r\n", "\n").replaceAll("\r", "\n");
}

/** Every sandbox directory not yet removed: a process that exits (Ctrl-C, an error) still removes them. */
const liveDirectories = new Set<string>();
let exitHookInstalled = false;

function track(directory: string): void {
  liveDirectories.add(directory);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const left of liveDirectories) rmSync(left, { recursive: true, force: true });
  });
}

/** What a sandbox is made of. */
export interface SandboxOptions {
  /** `ShellSpec.allow_writes`: terminal_use_write's agent may write inside `knowledge_base`. */
  readonly allowWrites: boolean;
  /** The τ² data root (the texts are read from its pinned sources). */
  readonly dataRoot: string;
  /** `srt` as located by `checkSandboxAvailability`. */
  readonly runtime: SandboxRuntime;
  /** Default: the system temp directory (`tempfile.gettempdir()`). */
  readonly baseTempDir?: string;
  /** Default: 8 random hex digits (`str(uuid.uuid4())[:8]`). */
  readonly sandboxId?: string;
  /** The harness's environment, from which {@link sandboxEnvironment} keeps a few variables. */
  readonly env?: Env;
}

/** One environment's sandbox (`SandboxManager` with `file_format="md"`, as every `ShellSpec` has it). */
export class SandboxManager {
  readonly sandboxId: string;
  readonly allowWrites: boolean;
  readonly sandboxDir: string;
  readonly kbDir: string;
  readonly settingsPath: string;
  private readonly runtime: SandboxRuntime;
  private readonly commandEnv: Record<string, string>;
  private readonly user: string | undefined;
  private readonly standIns: { user: string; group: string; date: string };
  private readonly running = new Set<AbortController>();
  private removed = false;

  private constructor(options: SandboxOptions) {
    sandboxMessages.load(options.dataRoot);
    this.sandboxId = options.sandboxId ?? randomUUID().slice(0, 8);
    this.allowWrites = options.allowWrites;
    this.runtime = options.runtime;
    const env = options.env ?? process.env;
    this.commandEnv = sandboxEnvironment(env);
    this.user = currentUser(env);
    this.standIns = readSandboxListingStandIns(options.dataRoot);
    this.sandboxDir = join(options.baseTempDir ?? tmpdir(), sandboxMessages.format("sandboxDirectory", { "self.sandbox_id": this.sandboxId }));
    this.kbDir = join(this.sandboxDir, sandboxMessages.text("knowledgeBaseDirectory"));
    this.settingsPath = join(this.sandboxDir, sandboxMessages.text("settingsFile"));
  }

  /**
   * `SandboxManager(allow_writes)` then `export_documents(documents, "md")`, as `_create_sandbox`
   * does: the directories, the srt settings, every document in the given order, then `INDEX.md`.
   */
  static async create(options: SandboxOptions, documents: readonly KnowledgeDocument[]): Promise<SandboxManager> {
    const sandbox = new SandboxManager(options);
    try {
      mkdirSync(sandbox.sandboxDir, { recursive: true });
      track(sandbox.sandboxDir);
      await mkdir(sandbox.kbDir, { recursive: true });
      await writeFile(sandbox.settingsPath, pythonIndentedJson(sandbox.settings()));
      await sandbox.exportDocuments(documents);
    } catch (error) {
      await sandbox.cleanup();
      // The host's problem (a full disk, a temp directory that cannot be written), not the agent's.
      throw new InfraError(`cannot make the shell sandbox ${sandbox.sandboxDir}: ${describeError(error)}`, { cause: error });
    }
    return sandbox;
  }

  /** `_create_srt_settings`: no network, the original's denied reads, writes only inside `knowledge_base` when allowed. */
  private settings(): unknown {
    return {
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: {
        denyRead: ["~/.ssh", "~/.aws", "~/.config", "~/.gnupg", "/etc/passwd", "/etc/shadow"],
        allowWrite: this.allowWrites ? [this.kbDir] : [],
        denyWrite: [this.settingsPath],
      },
    };
  }

  /**
   * `export_documents(documents, "md")`: one file per document, in order (directory listings follow
   * it on file systems that list in creation order), then `_create_index_file`. Written with
   * synchronous calls, as Python does (several times faster than one asynchronous write per file),
   * giving the event loop a turn every {@link EXPORT_SLICE} files so other episodes are not held up.
   */
  private async exportDocuments(documents: readonly KnowledgeDocument[]): Promise<void> {
    for (const [index, document] of documents.entries()) {
      const file = sandboxMessages.format("markdownFile", { safe_filename: sanitizeFilename(document.id) });
      writeFileSync(join(this.kbDir, file), sandboxMessages.format("markdownDocument", { title: document.title, content: document.content }));
      if (index % EXPORT_SLICE === EXPORT_SLICE - 1) await new Promise((resolve) => setImmediate(resolve));
    }
    const sorted = [...documents].sort((left, right) => pyCompareStrings(left.id, right.id));
    const lines = [
      sandboxMessages.text("indexTitle"),
      sandboxMessages.format("indexTotal", { "len(documents)": String(documents.length) }),
      sandboxMessages.text("indexDocuments"),
      ...sorted.map((document) => sandboxMessages.format("indexEntry", { safe_filename: sanitizeFilename(document.id), ext: "md", title: document.title })),
    ];
    writeFileSync(join(this.kbDir, sandboxMessages.format("indexFile", { ext: "md" })), lines.join(""));
  }

  /**
   * `_has_escape_pattern`: the obvious ways out of the directory (`..`, an absolute path, `~`,
   * `$HOME`) outside quotes, or undefined. A command that is not a str raises `re.sub`'s TypeError.
   */
  escapePattern(command: PyValue | undefined): string | undefined {
    if (typeof command !== "string") throw new PyException(`expected string or bytes-like object, got '${pyTypeName(command ?? null)}'`, "TypeError");
    const quoted = sandboxMessages.text("quotedReplacement");
    let stripped = command.replace(pyReCompile(sandboxMessages.text("singleQuoted")).regExp, () => quoted);
    stripped = stripped.replace(pyReCompile(sandboxMessages.text("doubleQuoted")).regExp, () => quoted);
    if (stripped.includes("..")) return "..";
    if (pySearch(pyReCompile(sandboxMessages.text("absolutePathStart")), stripped)) {
      const whole = pySearch(pyReCompile(sandboxMessages.text("absolutePathWhole")), stripped);
      if (whole) return sandboxMessages.format("absolutePath", { "full_match.group(1)": whole[1] });
    }
    if (pyStrip(stripped).startsWith("/")) return sandboxMessages.text("absolutePathAtStart");
    if (stripped.includes("~")) return "~";
    if (stripped.includes("$HOME") || stripped.includes(BRACED_HOME)) return "$HOME";
    return undefined;
  }

  /** `_sanitize_output`: `ls -l` lines with the stand-in owner, group and date; `/home/<user>` (or `/Users/<user>`) as `/home/kb_user`. */
  sanitizeOutput(output: string): string {
    if (output === "") return output;
    const standIns = this.standIns;
    let result = output.replace(pyReCompile(sandboxMessages.text("lsLine"), PY_RE_MULTILINE).regExp, (_match, permsLinks: string, _user, _group, size: string, _date, filename: string) =>
      sandboxMessages.format("lsLineSanitized", { perms_links: permsLinks, _SANDBOX_USER: standIns.user, _SANDBOX_GROUP: standIns.group, size, _SANDBOX_DATE: standIns.date, filename }),
    );
    if (this.user) {
      const home = pyReCompile(sandboxMessages.format("userHome", { "re.escape(real_user)": pyReEscape(this.user) }));
      const replacement = sandboxMessages.text("userHomeSanitized");
      result = result.replace(home.regExp, () => replacement);
    }
    return result;
  }

  /**
   * `run_command(command, timeout=30)`: screened, then `srt --settings <file> <command>` in
   * `knowledge_base`; `(124, "", "Command timed out after 30 seconds")` on timeout, `(1, "",
   * "Command failed: <error>")` for what Python's `subprocess.run` raises on the agent's input (an
   * embedded NUL, an argument too long, output that is not UTF-8). Raises {@link SandboxRuntimeError}
   * when `srt` reports missing system tools, and an infrastructure error when it cannot be started.
   */
  async runCommand(command: PyValue | undefined, timeoutSeconds = SHELL_TIMEOUT_SECONDS): Promise<SandboxCommandResult> {
    if (this.removed) throw new InfraError(`the sandbox ${this.sandboxDir} was removed (its environment was dropped)`);
    const escape = this.escapePattern(command);
    if (escape !== undefined) return [1, "", sandboxMessages.format("blocked", { escape_pattern: escape })];
    const text = command as string;
    const failed = (message: string): SandboxCommandResult => [1, "", sandboxMessages.format("commandFailed", { "str(e)": message })];
    if (text.includes("\0")) return failed("embedded null byte");
    const unencodable = unencodableSurrogate(text);
    if (unencodable) return failed(unencodable);
    const controller = new AbortController();
    this.running.add(controller);
    let result: Awaited<ReturnType<typeof runSrt>>;
    try {
      result = await runSrt(this.runtime, this.settingsPath, text, { cwd: this.kbDir, env: this.commandEnv, timeoutSeconds, signal: controller.signal });
    } finally {
      this.running.delete(controller);
    }
    if (result.timedOut) return [124, "", sandboxMessages.format("timedOut", { timeout: String(timeoutSeconds) })];
    if (result.spawnError === "E2BIG") return failed("[Errno 7] Argument list too long: 'srt'");
    if (result.spawnError !== undefined) throw new InfraError(`cannot start srt (${this.runtime.cli}): ${result.spawnError}`);
    if (result.canceled) throw new InfraError(`the command was stopped: its sandbox ${this.sandboxDir} was removed`);
    if (result.tooMuchOutput) return failed(`output exceeded ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB`);
    let stdout: string;
    let stderr: string;
    try {
      stdout = pythonText(result.stdout);
      stderr = pythonText(result.stderr);
    } catch (error) {
      if (PyException.isInstance(error)) return failed(error.message);
      throw error;
    }
    stdout = this.sanitizeOutput(stdout);
    stderr = this.sanitizeOutput(stderr);
    if (`${stdout}${stderr}`.toLowerCase().includes(sandboxMessages.text("dependenciesMissing"))) {
      throw new SandboxRuntimeError(`srt reported missing system dependencies while running a command (the agent never had a working shell tool): ${pyStrip(stderr || stdout).slice(0, 400)}`);
    }
    return [result.exitCode, stdout, stderr];
  }

  /** `cleanup()`: stops any command still running and removes the directory. */
  async cleanup(): Promise<void> {
    this.removed = true;
    for (const controller of this.running) controller.abort();
    await rm(this.sandboxDir, { recursive: true, force: true });
    liveDirectories.delete(this.sandboxDir);
  }
}

/** The first lone surrogate Python's `os.fsencode` cannot encode (not one of `surrogateescape`'s `\udc80`–`\udcff`), as its UnicodeEncodeError says. */
function unencodableSurrogate(text: string): string | undefined {
  let position = 0;
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code >= 0xd800 && code <= 0xdfff) {
      if (code >= 0xdc80 && code <= 0xdcff) throw new InfraError("the command holds an escaped byte (a lone \\udc80–\\udcff surrogate), which srt cannot be given from Node");
      return `'utf-8' codec can't encode character '\\u${code.toString(16)}' in position ${position}: surrogates not allowed`;
    }
    position++;
  }
  return undefined;
}

interface SrtOutcome {
  exitCode: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  timedOut: boolean;
  canceled: boolean;
  tooMuchOutput: boolean;
  spawnError?: string;
}

/** `subprocess.run(["srt", "--settings", settings, command], capture_output=True, timeout=…, cwd=…)`, with execa. */
async function runSrt(
  runtime: SandboxRuntime,
  settingsPath: string,
  command: string,
  options: { cwd: string; env: Record<string, string>; timeoutSeconds: number; signal: AbortSignal },
): Promise<SrtOutcome> {
  // execa is loaded by the first shell call, not by every τ² run that registers this domain.
  const { execa } = await import("execa");
  const result = await execa(runtime.node, [runtime.cli, "--settings", settingsPath, command], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    stdin: "ignore",
    encoding: "buffer",
    stripFinalNewline: false,
    reject: false,
    timeout: options.timeoutSeconds * 1000,
    killSignal: "SIGTERM",
    forceKillAfterDelay: KILL_GRACE_MS,
    maxBuffer: MAX_OUTPUT_BYTES,
    cancelSignal: options.signal,
  });
  const spawnError =
    result.exitCode === undefined && result.signal === undefined && !result.timedOut && !result.isCanceled ? ((result as { code?: string }).code ?? result.originalMessage) : undefined;
  // A Python return code: the exit status, or minus the signal number when srt itself was killed.
  const signalNumber = result.signal ? (osConstants.signals as Record<string, number>)[result.signal] : undefined;
  return {
    exitCode: result.exitCode ?? (signalNumber !== undefined ? -signalNumber : 1),
    stdout: result.stdout as Uint8Array,
    stderr: result.stderr as Uint8Array,
    timedOut: result.timedOut,
    canceled: result.isCanceled,
    tooMuchOutput: result.isMaxBuffer,
    ...(spawnError !== undefined ? { spawnError } : {}),
  };
}

/** What a caller checks before trusting the sandbox with a run: one command through srt, answered as expected. */
export async function checkSandboxRuns(options: Omit<SandboxOptions, "sandboxId">): Promise<void> {
  const probe = await SandboxManager.create(options, []);
  try {
    const [code, stdout, stderr] = await probe.runCommand("echo sandbox-ok");
    if (code !== 0 || stdout !== "sandbox-ok\n") {
      const said = pyStrip(stderr || stdout).split("\n")[0] || "no output";
      throw new ConfigError(`the srt sandbox cannot run commands on this machine (exit ${code}: ${said}); see "When the sandbox does not start" in docs/tau3-banking-knowledge.md`);
    }
  } finally {
    await probe.cleanup();
  }
}
