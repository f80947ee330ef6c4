/**
 * τ-bench's hash index kept in the derived cache (`hash-index-cache.ts`): a run that reads it from
 * the cache hashes exactly as one that rendered it, and an entry that is damaged or belongs to other
 * data is never used. On the bundled library domain, so it needs no shared data.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { libraryDomain } from "../domains/library/index.ts";
import { derivedCacheKey, readDerived, writeDerived } from "../src/data/derived-cache.ts";
import { BaseDatabase, EpisodeDatabase, loadBaseDatabase } from "../src/suites/tau-bench/engine/database.ts";

const directory = libraryDomain.bundledDataDirectory as string;
const KIND = "tau-bench-hash-index-v1";

/** The τ-bench hash of the library data with one member changed (so the hash renders past its base text). */
function changedHash(base: BaseDatabase): string {
  const db = new EpisodeDatabase(base);
  const [firstMember] = db.keys("members");
  db.mutable("members", firstMember).set("name", "Changed Name");
  return db.tauBenchHash();
}

describe("τ-bench hash index in the derived cache", () => {
  let previous: string | undefined;
  let folder: string;
  beforeEach(() => {
    previous = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    folder = mkdtempSync(join(tmpdir(), "taubridge-hash-index-"));
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = folder;
  });
  afterEach(() => {
    if (previous === undefined) delete process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    else process.env.TAUBRIDGE_DERIVED_CACHE_DIR = previous;
  });
  const load = () => loadBaseDatabase(directory, libraryDomain.collections);
  const entries = () => readdirSync(join(folder, KIND)).filter((name) => name.endsWith(".json"));

  it("hashes the same whether the index was rendered (miss), read from the cache (hit) or never cached", () => {
    const rendered = changedHash(load());
    expect(entries()).toHaveLength(libraryDomain.collections.length);
    expect(changedHash(load())).toBe(rendered);
    expect(new EpisodeDatabase(load()).tauBenchHash()).toBe(new EpisodeDatabase(new BaseDatabase(load().collections)).tauBenchHash());
    expect(changedHash(new BaseDatabase(load().collections))).toBe(rendered);
  });

  it("reads a stored index (an entry edited on purpose, with a valid checksum, changes the hash)", () => {
    const rendered = changedHash(load());
    const key = derivedCacheKey(fileSha256("catalog.json"));
    const stored = readDerived(KIND, key) as { text: string };
    writeDerived(KIND, key, { ...stored, text: stored.text.replace("(", "[") });
    expect(changedHash(load())).not.toBe(rendered);
  });

  it("ignores damaged entries and entries of other data, and renders the index again", () => {
    const rendered = changedHash(load());
    for (const name of entries()) {
      const path = join(folder, KIND, name);
      const [header, body] = readFileSync(path, "utf8").split(/\n(.*)/s);
      writeFileSync(path, `${header}\n${body.replace("(", "[")}`);
    }
    expect(changedHash(load())).toBe(rendered);
    writeDerived(KIND, derivedCacheKey(fileSha256("members.json")), { sortedKeys: ["someone else"], text: "('x', 1)", starts: [0], ends: [8] });
    expect(changedHash(load())).toBe(rendered);
  });
});

function fileSha256(name: string): string {
  return createHash("sha256")
    .update(readFileSync(join(directory, name)))
    .digest("hex");
}
