import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { DataError, UnknownNameError } from "../../../errors/error-tree.ts";
import { RESPOND_ACTION_NAME, type Task } from "../../../core/types.ts";
import { loadTaskFile, type TaskFileDomain } from "../tasks.ts";
import { pyJsonDumps, toJs, type PyValue } from "../../../value/index.ts";
import { BaseDatabase, EpisodeDatabase, loadBaseDatabase } from "./database.ts";
import { readPythonJsonFile, readUtf8File } from "../../../data/data-files.ts";
import type { ToolImplementation } from "../../../core/contracts.ts";

export type { DomainDefinition, DomainSuite } from "../../../core/contracts.ts";
import type { DomainDefinition } from "../../../core/contracts.ts";

/** A task's ground-truth end state: its database (for equality checks) and its τ-bench hash (reported). */
export interface GroundTruthState {
  readonly db: EpisodeDatabase;
  readonly hash: string;
}

/** A tool schema exactly as the model receives it (plus the lossless form for Python-exact dumps). */
export interface ToolSchemas {
  /** Plain JSON, for the model API. */
  readonly json: readonly Record<string, unknown>[];
  /** Python `json.dumps(tools_info)`, for the act/react prompts. */
  readonly pythonJson: string;
}

/** A domain with its data loaded: one per (domain, data directory), shared by all episodes. */
export class LoadedDomain {
  readonly toolsByName: ReadonlyMap<string, ToolImplementation>;
  private readonly taskCache = new Map<string, Task[]>();
  /** Ground-truth hashes by task identity; the replay is deterministic, so trials share it. */
  readonly groundTruthHashes = new Map<string, GroundTruthState>();
  /** The same, by task object: avoids re-serialising the actions on every reward. */
  groundTruthByTask = new WeakMap<Task, GroundTruthState>();
  private cachedInitialHash: string | undefined;

  constructor(
    readonly definition: DomainDefinition,
    readonly dataDirectory: string,
    readonly base: BaseDatabase,
    readonly policy: string,
    readonly toolSchemas: ToolSchemas,
  ) {
    this.toolsByName = new Map(definition.tools.map((tool) => [tool.name, tool]));
  }

  get name(): string {
    return this.definition.name;
  }

  /** Benchmark tool names in the original's order. */
  get toolNames(): readonly string[] {
    return this.definition.tools.map((tool) => tool.name);
  }

  /** A fresh episode database (copy-on-write over the shared parse; no file I/O). */
  newDatabase(): EpisodeDatabase {
    return new EpisodeDatabase(this.base);
  }

  /** Forgets the ground-truth hashes (benchmarks measure the replay the original does per reward). */
  clearGroundTruthCache(): void {
    this.groundTruthHashes.clear();
    this.groundTruthByTask = new WeakMap();
  }

  /** Hash of the unmodified data. */
  initialHash(): string {
    this.cachedInitialHash ??= this.newDatabase().tauBenchHash();
    return this.cachedInitialHash;
  }

  /** The tasks of a split, loaded once. */
  tasks(split: string = this.definition.defaultSplit): Task[] {
    const fileName = this.definition.splits[split];
    if (!fileName) {
      throw new UnknownNameError(`task split for ${this.name}`, split, Object.keys(this.definition.splits));
    }
    let tasks = this.taskCache.get(split);
    if (!tasks) {
      tasks = loadTaskFile(join(this.dataDirectory, fileName), this.taskFileDomain());
      this.taskCache.set(split, tasks);
    }
    return tasks;
  }

  /** What task files of this domain are checked against (ground-truth actions must name its tools). */
  private taskFileDomain(): TaskFileDomain {
    return { name: this.name, actionNames: new Set([...this.toolNames, RESPOND_ACTION_NAME]) };
  }

  /** Tasks from a user-supplied file, validated the same way. */
  tasksFromFile(path: string): Task[] {
    const key = `file:${resolve(path)}`;
    let tasks = this.taskCache.get(key);
    if (!tasks) {
      tasks = loadTaskFile(path, this.taskFileDomain());
      this.taskCache.set(key, tasks);
    }
    return tasks;
  }
}

function loadToolSchemas(path: string, definition: DomainDefinition): ToolSchemas {
  const value = readPythonJsonFile(path);
  if (!Array.isArray(value)) throw new DataError(`${path}: expected a JSON array of tool schemas`);
  const json = value.map((entry) => toJs(entry) as Record<string, unknown>);
  const names = json.map((entry) => (entry.function as { name?: string } | undefined)?.name);
  const expected = definition.tools.map((tool) => tool.name);
  if (names.join(",") !== expected.join(",")) {
    throw new DataError(`${path}: tool schemas do not match the ${definition.name} tools (expected ${expected.join(", ")}; found ${names.join(", ")})`);
  }
  return { json, pythonJson: pyJsonDumps(value as PyValue) };
}

const loaded = new Map<string, LoadedDomain>();

/** Resolves the directory holding a domain's files for a data root (or the bundled copy). */
export function domainDirectory(definition: DomainDefinition, dataRoot: string | undefined): string {
  if (dataRoot) {
    const nested = join(dataRoot, definition.dataSubdirectory);
    if (existsSync(nested)) return nested;
    if (existsSync(join(dataRoot, definition.policyFile))) return dataRoot;
    throw new DataError(
      `data directory ${dataRoot} has no ${definition.dataSubdirectory}/ folder for domain ${definition.name}` +
        (definition.suite === "tau-bench" ? " (run `taubridge data pull tau-bench`, or pass --data-dir pointing at a τ-bench data export)" : ""),
    );
  }
  if (definition.bundledDataDirectory) return definition.bundledDataDirectory;
  throw new DataError(`domain ${definition.name} needs its data: pass --data-dir, or run \`taubridge data pull ${definition.suite}\` to fill the cache`);
}

/**
 * Loads a domain's data once per (domain, directory); later calls (every reset) reuse the parse.
 */
export function loadDomain(definition: DomainDefinition, dataRoot: string | undefined): LoadedDomain {
  const directory = resolve(domainDirectory(definition, dataRoot));
  const key = `${definition.name}\0${directory}`;
  const cached = loaded.get(key);
  if (cached) return cached;
  const base = loadBaseDatabase(directory, definition.collections);
  const policy = readUtf8File(join(directory, definition.policyFile));
  const schemas = loadToolSchemas(join(directory, definition.toolsInfoFile), definition);
  const domain = new LoadedDomain(definition, directory, base, policy, schemas);
  loaded.set(key, domain);
  return domain;
}
