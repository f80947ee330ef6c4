/**
 * An on-disk cache of what taubridge derives, on every start, from input files that rarely change:
 * the index of a task file (where each task's text is and its id), and the texts read from τ²'s
 * Python sources (the tools' messages). Parsing those again on every run was a large part of an
 * offline run's start-up; the cache holds the result, keyed by the SHA-256 of the very bytes it
 * came from, so it can never answer for other input.
 *
 * Location: `$TAUBRIDGE_DERIVED_CACHE_DIR`, else `<cache dir>/derived` (the cache directory of
 * `locations.ts`: `$TAUBRIDGE_CACHE_DIR`, `$XDG_CACHE_HOME/taubridge` or `~/.cache/taubridge`).
 * `TAUBRIDGE_DERIVED_CACHE_DIR=off` turns the cache off. Deleting the folder is always safe.
 *
 * An entry is `<dir>/<kind>/<key>.json`: one header line (`format`, `kind`, `key` and the SHA-256
 * of the rest), then the value as JSON. A read checks all of it and the caller checks the value's
 * shape; anything amiss (a stale, torn or edited entry) reads as a miss, and the caller derives
 * the value again and rewrites the entry. Writes are atomic (a temporary file renamed into place)
 * and best effort: an unwritable cache only costs speed. Keys include the taubridge version, and a
 * kind's name carries its own (`…-v1`): change the name whenever what is derived, or how, changes
 * (code that derives differently under an unchanged version would otherwise read old entries).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultCacheDir } from "./locations.ts";
import { environmentSecrets, redact } from "../secrets/redact.ts";

const FORMAT = 1;

type Env = Readonly<Record<string, string | undefined>>;

/** The cache's folder, or null when it is turned off (`TAUBRIDGE_DERIVED_CACHE_DIR=off`). */
export function derivedCacheDir(env: Env = process.env): string | null {
  const configured = env.TAUBRIDGE_DERIVED_CACHE_DIR;
  if (configured === "off") return null;
  return configured ? configured : join(defaultCacheDir(env), "derived");
}

/**
 * A key from the inputs' parts (their SHA-256 hashes, names, the derivation's options), and the
 * taubridge version: a release that derives differently never reads an older one's entries.
 */
export function derivedCacheKey(...parts: readonly string[]): string {
  const hash = createHash("sha256").update(`taubridge ${packageVersion()}\0`);
  for (const part of parts) hash.update(part).update("\0");
  return hash.digest("hex");
}

let version: string | undefined;

/** The version in the package manifest above this module ("unknown" when there is none). */
function packageVersion(): string {
  if (version !== undefined) return version;
  version = "unknown";
  for (let directory = dirname(fileURLToPath(import.meta.url)); ; directory = dirname(directory)) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as { name?: string; version?: string };
      if (manifest.name === "taubridge" && manifest.version) {
        version = manifest.version;
        break;
      }
    } catch {
      // no manifest here: look further up
    }
    if (dirname(directory) === directory) break;
  }
  return version;
}

function entryPath(directory: string, kind: string, key: string): string {
  if (!/^[a-z0-9-]+$/.test(kind) || !/^[0-9a-f]{64}$/.test(key)) throw new Error(`derived cache: bad kind or key (${kind}, ${key})`);
  return join(directory, kind, `${key}.json`);
}

interface Header {
  format: number;
  kind: string;
  key: string;
  sha256: string;
}

/** The value stored for `(kind, key)`, or undefined when there is none or the entry is not intact. */
export function readDerived(kind: string, key: string, env: Env = process.env): unknown {
  const directory = derivedCacheDir(env);
  if (directory === null) return undefined;
  let text: string;
  try {
    text = readFileSync(entryPath(directory, kind, key), "utf8");
  } catch {
    return undefined;
  }
  const newline = text.indexOf("\n");
  if (newline < 0) return undefined;
  const body = text.slice(newline + 1);
  try {
    const header = JSON.parse(text.slice(0, newline)) as Header;
    if (header?.format !== FORMAT || header.kind !== kind || header.key !== key) return undefined;
    if (createHash("sha256").update(body).digest("hex") !== header.sha256) return undefined;
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** Stores a JSON value for `(kind, key)`, atomically; failures are ignored (the cache is optional). */
export function writeDerived(kind: string, key: string, value: unknown, env: Env = process.env): void {
  const directory = derivedCacheDir(env);
  if (directory === null) return;
  const path = entryPath(directory, kind, key);
  const body = JSON.stringify(value);
  // Nothing secret is written (`src/secrets`): an input that holds a known key or a credential's
  // shape is derived again on every start rather than stored (a redacted value would no longer be
  // what the input gives).
  if (redact(body, { secrets: environmentSecrets(env), content: true }) !== body) return;
  const header: Header = { format: FORMAT, kind, key, sha256: createHash("sha256").update(body).digest("hex") };
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    mkdirSync(join(directory, kind), { recursive: true });
    writeFileSync(temporary, `${JSON.stringify(header)}\n${body}`);
    renameSync(temporary, path);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // nothing was written, or it cannot be removed either: the cache is optional
    }
  }
}

/**
 * The cached value for `(kind, key)` when there is one of the right shape; otherwise `derive()`'s,
 * which is then stored. `isValue` guards against entries of another shape (an older taubridge).
 */
export function cachedDerivation<T>(kind: string, key: string, isValue: (value: unknown) => value is T, derive: () => T, env: Env = process.env): T {
  const cached = readDerived(kind, key, env);
  if (cached !== undefined && isValue(cached)) return cached;
  const value = derive();
  writeDerived(kind, key, value, env);
  return value;
}
