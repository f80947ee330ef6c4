/**
 * Domains as code: the tools an environment runs, the database view they read and write, and the
 * environment of one episode as the kernel drives it. The data itself (database, policy, tasks,
 * tool schemas) is loaded from a data directory at run time, never compiled in.
 */
import type { PyDict, PyValue } from "../value/index.ts";
import type { Action } from "./types.ts";

/** The database view tools read and write (an episode's copy-on-write database implements it). */
export interface ToolDatabase {
  get(collection: string, key: string): PyValue | undefined;
  has(collection: string, key: unknown): boolean;
  /** The record, copied into the episode on first write, for in-place mutation. */
  mutable(collection: string, key: string): PyDict;
  set(collection: string, key: string, value: PyValue): void;
}

/**
 * One domain tool as the environment runs it. The schema the model sees is not here: it is loaded
 * from the data directory so the original authors' text stays data.
 */
export interface ToolImplementation<Database extends ToolDatabase = ToolDatabase> {
  /** The tool name the model calls. */
  readonly name: string;
  /** The Python class name, as it appears in argument-binding TypeError texts. */
  readonly className: string;
  /** The Python module (file) name; defaults to {@link name}. Used in one fully qualified error text. */
  readonly module?: string;
  /** Parameter names in the Python signature's order (after `data`). */
  readonly parameters: readonly string[];
  /** Read-only tools never change the database (used for reporting, not for behaviour). */
  readonly kind?: "read" | "write" | "think" | "generic";
  /**
   * Runs the tool. Arguments are bound by name and not type-checked, as in the original. Throw a
   * Python exception (the value module's `PyException`) for the Python error paths; any other
   * exception is a harness bug. Return `null` only to reproduce a None return.
   */
  invoke(db: Database, args: Readonly<Record<string, PyValue>>): string | null;
}

/** Which benchmark's rules a domain follows (hash, reward, result file shape). */
export type DomainSuite = "tau-bench" | "tau2-bench" | "taubridge";

/**
 * A domain as code: its tools and how to find its data. The data itself (database, policy, tasks,
 * tool schemas) is loaded from a data directory at run time, never compiled in.
 */
export interface DomainDefinition {
  readonly name: string;
  readonly suite: DomainSuite;
  /** One line for `--help` and error messages. */
  readonly description: string;
  /** Sub-directory of the data root holding this domain's files (`retail`). */
  readonly dataSubdirectory: string;
  /** A directory shipped inside the package, used when no data root is given (our own domain). */
  readonly bundledDataDirectory?: string;
  /** Collection files (`<name>.json`) in the order of the original's data dict. */
  readonly collections: readonly string[];
  /** Tools in the original's registration order (the order of `tools_info.json`). */
  readonly tools: readonly ToolImplementation[];
  /** Tools that end the episode (τ-bench: `transfer_to_human_agents`). */
  readonly terminateTools: readonly string[];
  /** Task split → task file name. */
  readonly splits: Readonly<Record<string, string>>;
  readonly defaultSplit: string;
  readonly policyFile: string;
  readonly toolsInfoFile: string;
}

/** The result of one tool step in an environment. */
export interface ToolStepResult {
  observation: string;
  /** A terminate tool ran. */
  done: boolean;
  /** The observation reports an error (`Error: …`, or τ²'s error flag). */
  error: boolean;
}

/**
 * An episode's environment as its suite's loop (`src/suites/<suite>/loop.ts`) drives it: it
 * executes tool actions on the episode's own database and renders observations. It neither talks to
 * the user nor scores.
 */
export interface EpisodeEnvironment {
  step(action: Action): ToolStepResult;
  /** The suite's hash of the current database. */
  dataHash(): string;
}
