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
import { PyException, PyFloat, type PyDict, type PyModel, type PyModelSchema, type PyValue, normalizeInt, pyModelSchemaFingerprint, pyModelValidate } from "../../../value/index.ts";
import { derivedCacheKey } from "../../../data/derived-cache.ts";
import { parsePythonJsonText } from "../../../data/data-files.ts";
import { type Tau2Databases, Tau2Environment, type Tau2EnvironmentSpec } from "./environment.ts";
import { prepareShared, shareDatabase } from "./shared-records.ts";
import { createSeededRandom } from "./random.ts";

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
}

/** A domain loaded from a data directory. */
export interface LoadedTau2Domain {
  definition: Tau2DomainDefinition;
  /** The domain's folder (`<data root>/<folder>`). */
  directory: string;
  /** The τ² data root it was loaded from (τ²'s sources are under it). */
  dataRoot: string;
  policy(solo?: boolean): string;
  /**
   * A fresh environment over copies of the pristine databases. `seed` seeds the environment's
   * random source (the ids the original draws at random); the same seed gives the same ids.
   */
  createEnvironment(options?: { solo?: boolean; seed?: number }): Tau2Environment;
}

/** Loads a domain's databases from `<dataRoot>/<folder>`; errors name the file. */
export function loadTau2Domain(definition: Tau2DomainDefinition, dataRoot: string): LoadedTau2Domain {
  const directory = join(dataRoot, definition.folder);
  if (!existsSync(directory)) throw new DataError(`τ²-bench data folder not found: ${directory} (run \`taubridge data pull tau2-bench\` or pass --data-dir)`);
  const agent = loadDatabase(join(directory, definition.databases.agent.file), definition.databases.agent.schema);
  const user = definition.databases.user ? loadDatabase(join(directory, definition.databases.user.file), definition.databases.user.schema) : null;
  prepareShared(agent.db, agent.cacheKey);
  if (user !== null) prepareShared(user.db, user.cacheKey);
  for (const messages of [...TAU2_ENGINE_MESSAGES, ...(definition.messages ?? [])]) messages.load(dataRoot);
  const policies = new Map<boolean, string>();
  const read: Tau2PolicyReader = (fileName) => readText(join(directory, fileName));
  return {
    definition,
    directory,
    dataRoot,
    policy(solo = false) {
      if (!policies.has(solo)) policies.set(solo, definition.policy(read, solo));
      return policies.get(solo) as string;
    },
    createEnvironment(options = {}) {
      const databases: Tau2Databases = { agent: shareDatabase(agent.db), user: user === null ? null : shareDatabase(user.db) };
      return new Tau2Environment(definition, databases, options.solo ?? false, createSeededRandom(options.seed));
    },
  };
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
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
function loadDatabase(path: string, schema: PyModelSchema): { db: PyModel; cacheKey: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  const db = validatedDatabase(bytes.toString("utf8"), path, schema);
  return { db, cacheKey: derivedCacheKey(createHash("sha256").update(bytes).digest("hex"), pyModelSchemaFingerprint(schema)) };
}

function validatedDatabase(text: string, path: string, schema: PyModelSchema): PyModel {
  const raw = path.endsWith(".toml") ? tomlToPython(text, path) : parsePythonJsonText(text, path);
  try {
    return pyModelValidate(schema, raw);
  } catch (error) {
    if (PyException.isInstance(error)) throw new DataError(`${path}: ${error.message}`, { cause: error });
    throw error;
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
