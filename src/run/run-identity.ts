import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, errorMarker } from "../errors/error-tree.ts";
import { redact } from "../secrets/redact.ts";

/** Agent options that name files or directories whose content decides the agent's behaviour. */
const FILE_OPTIONS = ["module", "mapping", "workflowPath", "entry"] as const;

/** What decides the outcome of a run's episodes, as comparable values (content hashes, not paths). */
export interface RunIdentity {
  /** The identity format; checkpoints written before it carried only options. */
  identityVersion: 2;
  /** Every outcome-deciding option, with file paths left out (their content is below). */
  options: Record<string, unknown>;
  /** SHA-256 of the task set (the split's task file, or `--task-file`). */
  taskSet: string;
  /** SHA-256 of the domain's data files (collections, policy, tool schemas). */
  data: string;
  /** SHA-256 of each file the agent options and prompt flags name (module, mapping, workflow, templates). */
  files: Record<string, string | null>;
  taubridgeVersion: string;
}

/** Human names of the identity's parts, for the one-line error. */
const PART_NAMES: Record<string, string> = {
  taskSet: "the task set",
  data: "the data files",
  taubridgeVersion: "the taubridge version",
  "files.module": "the agent module",
  "files.mapping": "the mapping file",
  "files.workflowPath": "the workflow",
  "files.entry": "the Python entry",
  "files.agentPromptFile": "the agent prompt template",
  "files.userPromptFile": "the user prompt template",
  "files.fewShotDisplaysPath": "the few-shot examples",
  "files.priceFile": "the price file",
};

/** The checkpoint belongs to another configuration; the message names what changed and the way out. */
export class ResumeMismatchError extends ConfigError {
  static readonly marker: symbol = errorMarker("ResumeMismatchError");

  constructor(
    message: string,
    readonly changed: readonly string[] = [],
  ) {
    super(message);
  }

  /** The refusal for a checkpoint of another run: what changed, and the two ways out. */
  static forCheckpoint(checkpointPath: string, changed: readonly string[]): ResumeMismatchError {
    return new ResumeMismatchError(
      `the checkpoint ${checkpointPath} was written by a different run (changed: ${changed.join(", ")}); --no-resume starts over, --accept-changes keeps its finished episodes anyway`,
      changed,
    );
  }
}

function sha256(...parts: Array<string | Buffer>): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

/** SHA-256 of a file, or of every file under a directory (names and contents, sorted); null when missing. */
function contentHash(path: string): string | null {
  if (!existsSync(path)) return null;
  if (!statSync(path).isDirectory()) return sha256(readFileSync(path));
  const hash = createHash("sha256");
  const walk = (directory: string) => {
    for (const name of readdirSync(directory).sort()) {
      if (name === "__pycache__" || name.startsWith(".")) continue;
      const full = join(directory, name);
      if (statSync(full).isDirectory()) walk(full);
      else
        hash
          .update(`${relative(path, full)}\0`)
          .update(readFileSync(full))
          .update("\0");
    }
  };
  walk(path);
  return hash.digest("hex");
}

/** The file an agent option names: a path, or a Python `module:callable` entry (hashed by its module file when found). */
function optionPath(key: string, value: unknown): string | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  if (key === "entry") return undefined; // a Python import path, not a file: covered as an option
  return resolve(value);
}

/** The taubridge version that wrote a checkpoint (from the package manifest above this module). */
export function taubridgeVersion(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, "package.json");
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (manifest.name === "taubridge" && manifest.version) return manifest.version;
    }
    const parent = dirname(directory);
    if (parent === directory) return "unknown";
    directory = parent;
  }
}

/** What a suite says decides its episodes' outcomes, for {@link identityOf}. */
export interface IdentityParts {
  /** Every outcome-deciding option, with file paths left out (their content is in `files`). */
  options: Record<string, unknown>;
  /** The task set's file(s). */
  taskSet: string | readonly string[];
  /** The SHA-256 of a single task set file when the caller already read it (spares reading it again). */
  taskSetSha256?: string;
  /** The domain's data files, hashed by name and content. */
  data: { directory: string; files: readonly string[] };
  /** Files the options name whose content decides behaviour (agent module, mapping, workflow, prompt templates), by part name. */
  files: Record<string, string | undefined>;
  /** Values the run knows to be secret (`runSecrets`): replaced in the options, as every other secret is. */
  secrets?: readonly string[];
}

/**
 * The identity of a run: every outcome-deciding option, the content of the task set, the data
 * files, the files the options name, and the taubridge version. Resume compares it with the one
 * recorded by the earlier run.
 *
 * The options hold no secret (`src/secrets`: a base URL's credentials, an LLM argument's key, a
 * secret agent option are replaced): the identity is written into checkpoints and run status, and
 * it is compared redacted, so a changed key or password is not a change of run (it decides no
 * outcome) and no hash of a secret is ever stored.
 */
export function identityOf(parts: IdentityParts): RunIdentity {
  const files: Record<string, string | null> = {};
  for (const [key, path] of Object.entries(parts.files)) if (path) files[key] = contentHash(resolve(path));
  const dataFiles = [...parts.data.files].sort();
  const data = sha256(...dataFiles.flatMap((name) => [`${name}\0`, existsSync(join(parts.data.directory, name)) ? readFileSync(join(parts.data.directory, name)) : "(missing)"]));
  const taskFiles = typeof parts.taskSet === "string" ? [parts.taskSet] : parts.taskSet;
  const taskSet = taskFiles.length === 1 ? (parts.taskSetSha256 ?? contentHash(taskFiles[0]) ?? "(missing)") : sha256(...taskFiles.map((file) => contentHash(file) ?? "(missing)"));
  return { identityVersion: 2, options: redact(parts.options, { secrets: parts.secrets }), taskSet, data, files, taubridgeVersion: taubridgeVersion() };
}

/** Agent options as an identity records them: the file paths left out (their content is compared instead). */
export function outcomeAgentOptions(options: Record<string, unknown>): Record<string, unknown> {
  return withoutFileOptions(options);
}

/** The files agent options name (module, mapping, workflow), for an identity's `files`. */
export function agentOptionFiles(options: Record<string, unknown>): Record<string, string | undefined> {
  return Object.fromEntries(FILE_OPTIONS.map((key) => [key, optionPath(key, options[key])]));
}

/**
 * Names what differs between the identity a checkpoint recorded and this run's (empty: same run).
 * A checkpoint from before content hashing recorded only options: those are compared, and the
 * content parts are reported as unknown rather than assumed equal.
 */
export function identityChanges(recorded: unknown, current: RunIdentity): { changed: string[]; unverified: boolean } {
  // Compared as written now: an identity recorded before redaction still matches a run with the same settings.
  const previous = redact((recorded ?? {}) as Record<string, unknown>);
  if (previous.identityVersion !== 2) {
    const changed = Object.keys(previous)
      .filter((key) => !FILE_OPTION_KEYS.has(key))
      .filter((key) => JSON.stringify(comparable(key, previous[key])) !== JSON.stringify(comparable(key, current.options[key])));
    return { changed: changed.map((key) => (key === "agentOptions" ? "--agent-option values" : `--${kebab(key)}`)), unverified: true };
  }
  const changed: string[] = [];
  const previousOptions = (previous.options ?? {}) as Record<string, unknown>;
  for (const key of new Set([...Object.keys(previousOptions), ...Object.keys(current.options)])) {
    if (JSON.stringify(previousOptions[key]) !== JSON.stringify(current.options[key])) changed.push(key === "agentOptions" ? "--agent-option values" : `--${kebab(key)}`);
  }
  for (const part of ["taskSet", "data", "taubridgeVersion"] as const) if (previous[part] !== current[part]) changed.push(PART_NAMES[part]);
  const previousFiles = (previous.files ?? {}) as Record<string, unknown>;
  for (const key of new Set([...Object.keys(previousFiles), ...Object.keys(current.files)])) {
    if (previousFiles[key] !== current.files[key]) changed.push(PART_NAMES[`files.${key}`] ?? key);
  }
  return { changed, unverified: false };
}

const FILE_OPTION_KEYS = new Set(["agentPromptFile", "userPromptFile", "fewShotDisplaysPath", "taskFile", "priceFile"]);

/** An option as identities compare it: agent options without the file paths (their content is compared instead). */
function comparable(key: string, value: unknown): unknown {
  if (key !== "agentOptions") return value;
  return withoutFileOptions((value ?? {}) as Record<string, unknown>);
}

function withoutFileOptions(options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([option]) => option === "entry" || !FILE_OPTIONS.includes(option as (typeof FILE_OPTIONS)[number])));
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`).replace(/-ms$/, "");
}
