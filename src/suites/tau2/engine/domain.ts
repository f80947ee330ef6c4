/**
 * τ²-bench domains: what a domain declares (toolkits, data model, data files, policy) and how it
 * is loaded from a τ² data directory (`<data root>/<folder>/…`, as `data/tau2/domains/` upstream).
 *
 * A loaded domain parses and validates its databases once; every environment gets its own deep
 * copy, so episodes never share state (τ² builds a fresh environment per simulation).
 */
import { TAU2_ENGINE_MESSAGES } from "./engine-messages.ts";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml, TomlDate } from "smol-toml";
import { DataError } from "../../../errors/error-tree.ts";
import { PyException, PyFloat, type PyDict, type PyModel, type PyModelSchema, type PyValue, normalizeInt, pyJsonDumps, pyModelSchemaFingerprint, pyModelValidate } from "../../../value/index.ts";
import { cachedDerivation, derivedCacheKey } from "../../../data/derived-cache.ts";
import { rememberFileSha256 } from "../../../data/pinned-files.ts";
import { decodeUtf8, parsePythonJsonText, readUtf8File } from "../../../data/data-files.ts";
import { type Tau2Databases, Tau2Environment, type Tau2EnvironmentSpec } from "./environment.ts";
import { prepareShared, shareDatabase } from "./shared-records.ts";
import { lazyValidatedDatabase, rememberDatabaseLayout } from "./database-layout.ts";
import { createSeededRandom } from "./random.ts";
import type { Tau2EnvironmentContext, Tau2ToolkitDefinition } from "./toolkit.ts";
import type { Tau2Task } from "../tasks.ts";

/** Reads a policy file of the domain's data folder. */
export type Tau2PolicyReader = (fileName: string) => string;

/** What a τ² domain module exports (one per registry name: `telecom` and `telecom-workflow` are two). */
export interface Tau2DomainDefinition extends Tau2EnvironmentSpec {
  /** The name `--domain` takes. */
  name: string;
  /** The data folder under the τ² data root. */
  folder: string;
  /** Database files and the model each validates against. */
  databases: { agent: { file: string; schema: PyModelSchema }; user?: { file: string; schema: PyModelSchema } };
  /** The agent's policy text; `solo` selects the solo-mode policy. */
  policy(read: Tau2PolicyReader, solo: boolean): string;
  /** Whether the domain has solo-mode policies (mock, telecom). */
  supportsSolo: boolean;
  /** The tools' sentences, read from τ²'s sources when the domain loads (see upstream-messages.ts). */
  messages?: readonly { load(dataRoot: string): void }[];
  /** τ³ banking: the user toolkit works on the agent's database object (`get_environment` passes one `db` to both). */
  userSharesAgentDatabase?: boolean;
  /** The retrieval variant a run without `--retrieval-config` gets (τ³ banking: `alltools`), so the run can build its backends. */
  defaultRetrievalConfig?: string;
  /**
   * Domains whose environment depends on the run's domain configuration (τ³ banking: the retrieval
   * variant decides the agent's tools and policy) build it here, once per loaded domain. A
   * ConfigError names what is wrong with the configuration (an unknown variant, a missing backend).
   */
  configure?(config: Tau2DomainConfig, context: Tau2DomainContext): Tau2DomainSetup;
}

/**
 * The run's domain configuration (`tau2 run --retrieval-config … --retrieval-config-kwargs …`); only
 * domains with {@link Tau2DomainDefinition.configure} read it. `services` carries optional backends
 * a domain may use (τ³ banking: embedders and rerankers), typed by that domain.
 */
export interface Tau2DomainConfig {
  retrievalConfig?: string | null;
  retrievalConfigKwargs?: PyDict | null;
  services?: unknown;
  /**
   * Only to score recorded trajectories (rescore): the evaluator replays no read tool, so a domain
   * may leave out tools whose backend is missing instead of refusing the configuration.
   */
  scoringOnly?: boolean;
}

/** What `configure` may read: the domain's folder, its files, the τ² data root (sources). */
export interface Tau2DomainContext {
  directory: string;
  dataRoot: string;
  read: Tau2PolicyReader;
}

/** A configured domain: the variant's agent toolkit, policy, per-environment kwargs and what a results file records. */
export interface Tau2DomainSetup {
  agentToolkit: Tau2ToolkitDefinition;
  /** The agent's policy for a task (τ³ golden_retrieval inlines the task's documents). */
  policy(task: Tau2Task | undefined): string;
  /** The policy recorded in a results file's `info` (τ²'s `get_info_policy_override`). */
  infoPolicy: string;
  /** τ²'s env kwargs for an environment serving `task` (or none: tool probes, replays without a task). */
  environmentContext(task: Tau2Task | undefined): Tau2EnvironmentContext;
  /** `RunConfig.retrieval_config` / `retrieval_config_kwargs` as recorded. */
  recorded: { retrievalConfig: string | null; retrievalConfigKwargs: PyDict | null };
  /** The Python classes the model-facing schemas are read from (module path, class name). */
  toolSources?: { agent: Tau2ToolSource; user?: Tau2ToolSource };
  /** Releases what an environment of this setup holds outside memory (τ³ banking: its sandbox), when the environment is dropped. */
  disposeEnvironment?(environment: Tau2Environment): Promise<void>;
  /**
   * Work a run awaits before its first episode (τ³ banking's embedding variants: every document
   * embedded, or read from the cache), so a dead endpoint stops the run instead of failing each
   * episode. Rescore and replay never call it.
   */
  prepare?(): Promise<void>;
}

/** A toolkit class in τ²'s sources, e.g. `tau2.domains.banking_knowledge.tools` / `KnowledgeUserTools`. */
export interface Tau2ToolSource {
  module: string;
  className: string;
}

/** A domain loaded from a data directory. */
export interface LoadedTau2Domain {
  definition: Tau2DomainDefinition;
  /** The domain's folder (`<data root>/<folder>`). */
  directory: string;
  /** The τ² data root it was loaded from (τ²'s sources are under it). */
  dataRoot: string;
  /** The agent's policy; a configured domain's may depend on the task. */
  policy(solo?: boolean, task?: Tau2Task): string;
  /** The configured setup (domains with `configure`), else undefined. */
  setup?: Tau2DomainSetup;
  /**
   * A fresh environment over copies of the pristine databases. `seed` seeds the environment's
   * random source (the ids the original draws at random); the same seed gives the same ids.
   * `task` is the task it serves (τ²'s env kwargs: a configured domain derives its context from it).
   * Whoever creates one calls its `dispose()` when done with it.
   */
  createEnvironment(options?: { solo?: boolean; seed?: number; task?: Tau2Task }): Tau2Environment;
}

/** τ-bench's installed data (`taubridge data pull tau-bench`) has task files τ²'s never has. */
function looksLikeTauBenchData(dataRoot: string): boolean {
  return ["retail", "airline"].some((domain) => existsSync(join(dataRoot, domain, "tasks_test.json")));
}

/**
 * The domain's folder under a τ² data root, after checking the data is there: its database file
 * exists. Otherwise a DataError in one line that says τ²-bench data was not found, what is missing,
 * whether the folder holds τ-bench's data instead, and how to get τ²'s. A run checks this before
 * anything else reads the data root (the judge's templates, the retrieval set-up), so an empty or
 * wrong `--data-dir` is named as such rather than by the first file that happened to be missing.
 */
export function tau2DomainDirectory(definition: Pick<Tau2DomainDefinition, "folder" | "databases">, dataRoot: string): string {
  const directory = join(dataRoot, definition.folder);
  const database = definition.databases.agent.file;
  if (existsSync(join(directory, database))) return directory;
  const missing = existsSync(directory) ? `${definition.folder}/${database} is missing` : `no ${definition.folder}/ folder`;
  const tauBench = looksLikeTauBenchData(dataRoot) ? "; this is τ-bench's data, which τ² cannot read" : "";
  throw new DataError(`τ²-bench data not found in ${dataRoot} (${missing}${tauBench}): run \`taubridge data pull tau2-bench\` or pass --data-dir <τ²-bench data folder>`);
}

/** Loads a domain's databases from `<dataRoot>/<folder>`; errors name the file. */
export function loadTau2Domain(definition: Tau2DomainDefinition, dataRoot: string, config: Tau2DomainConfig = {}): LoadedTau2Domain {
  const directory = tau2DomainDirectory(definition, dataRoot);
  const agent = loadDatabase(join(directory, definition.databases.agent.file), definition.databases.agent.schema, true);
  const user = definition.databases.user ? loadDatabase(join(directory, definition.databases.user.file), definition.databases.user.schema, true) : null;
  prepareShared(agent.db, agent.cacheKey);
  if (user !== null) prepareShared(user.db, user.cacheKey);
  for (const messages of [...TAU2_ENGINE_MESSAGES, ...(definition.messages ?? [])]) messages.load(dataRoot);
  const policies = new Map<boolean, string>();
  const read: Tau2PolicyReader = (fileName) => readUtf8File(join(directory, fileName));
  const setup = definition.configure?.(config, { directory, dataRoot, read });
  const spec = setup ? { ...definition, agentToolkit: setup.agentToolkit, ...(setup.disposeEnvironment ? { dispose: setup.disposeEnvironment } : {}) } : definition;
  return {
    definition,
    directory,
    dataRoot,
    setup,
    policy(solo = false, task?: Tau2Task) {
      if (setup) return setup.policy(task);
      if (!policies.has(solo)) policies.set(solo, definition.policy(read, solo));
      return policies.get(solo) as string;
    },
    createEnvironment(options = {}) {
      const agentDb = shareDatabase(agent.db);
      const userDb = definition.userSharesAgentDatabase ? agentDb : user === null ? null : shareDatabase(user.db);
      const databases: Tau2Databases = { agent: agentDb, user: userDb };
      return new Tau2Environment(spec, databases, options.solo ?? false, createSeededRandom(options.seed), setup?.environmentContext(options.task) ?? {});
    },
  };
}

/** Reads a `.json` or `.toml` database and validates it against its model. */
export function readDatabase(path: string, schema: PyModelSchema): PyModel {
  return loadDatabase(path, schema).db;
}

/**
 * {@link readDatabase}, with the key under which what is derived from the validated database
 * (its records' hash texts) is kept in the derived cache: the file's SHA-256 and the schema's
 * fingerprint, which together decide every validated value.
 */
function loadDatabase(path: string, schema: PyModelSchema, shared = false): { db: PyModel; cacheKey: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const text = decodeUtf8(bytes, path);
  // A database shared by a domain's environments (`prepareShared`) validates its records on first
  // use once this file has been validated whole under this model (`database-layout.ts`).
  const json = shared && !path.endsWith(".toml");
  let db = json ? lazyValidatedDatabase(text, path, schema, sha256) : undefined;
  if (db === undefined) {
    db = validatedDatabase(text, path, schema, sha256);
    if (json) rememberDatabaseLayout(text, schema, sha256);
  }
  rememberFileSha256(path, sha256);
  return { db, cacheKey: derivedCacheKey(sha256, pyModelSchemaFingerprint(schema)) };
}

function validatedDatabase(text: string, path: string, schema: PyModelSchema, sha256: string): PyModel {
  const raw = path.endsWith(".toml") ? cachedTomlToPython(text, path, sha256) : parsePythonJsonText(text, path);
  try {
    return pyModelValidate(schema, raw);
  } catch (error) {
    if (PyException.isInstance(error)) throw new DataError(`${path}: ${error.message}`, { cause: error });
    throw error;
  }
}

const TOML_KIND = "tau2-toml-values-v1";

/**
 * {@link tomlToPython} through the derived cache: the values as Python's JSON text (ints, floats and
 * key order kept; dates are already text), under the TOML file's SHA-256. Parsing telecom's two
 * TOML databases (10 KB) took ~13 ms of a whole oracle run; reading their JSON back ~1 ms.
 */
function cachedTomlToPython(text: string, path: string, sha256: string): PyValue {
  const stored = cachedDerivation(
    TOML_KIND,
    derivedCacheKey(sha256),
    (value): value is string => typeof value === "string",
    () => pyJsonDumps(tomlToPython(text, path)),
  );
  try {
    return parsePythonJsonText(stored, path);
  } catch {
    // An entry that is not the JSON it should be (a damaged cache) is not the file's fault: the TOML is read as without a cache.
    return tomlToPython(text, path);
  }
}

function tomlToPython(text: string, path: string): PyValue {
  try {
    return fromToml(parseToml(text, { integersAsBigInt: true }));
  } catch (error) {
    throw new DataError(`${path}: invalid TOML: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** TOML values in the value model: integers stay ints, floats floats, dates their ISO text. */
function fromToml(value: unknown): PyValue {
  if (typeof value === "bigint") return normalizeInt(value);
  if (typeof value === "number") return new PyFloat(value);
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (value instanceof TomlDate) return value.toISOString();
  if (Array.isArray(value)) return value.map(fromToml);
  const dict: PyDict = new Map();
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) dict.set(key, fromToml(item));
  return dict;
}

/** τ²'s task as a configured domain sees it (re-exported so domains need not import the suite's task module). */
export type { Tau2Task as Tau2DomainTask } from "../tasks.ts";
