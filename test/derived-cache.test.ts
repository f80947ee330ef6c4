/**
 * The derived cache (`src/data/derived-cache.ts`) and what uses it for task files
 * (`src/data/json-array-file.ts`, over `scanPythonJsonArray`): a miss derives and stores, a hit
 * answers without deriving, and a stale, torn or edited entry is never believed. Nothing here
 * depends on a warm cache: every test starts from an empty folder of its own.
 */
import { mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cachedDerivation, derivedCacheDir, derivedCacheKey, readDerived, writeDerived } from "../src/data/derived-cache.ts";
import { openJsonArrayFile } from "../src/data/json-array-file.ts";
import { readJsonRecordFile } from "../src/data/json-record-file.ts";
import { loadTau2BenchManifest, pinnedHashes } from "../src/data/manifest.ts";
import { parsePythonJson, pyDeepCopy, pyJsonDumps, scanPythonJsonArray, scanPythonJsonObject, type PyDict, type PyValue } from "../src/value/index.ts";

const isNumberList = (value: unknown): value is number[] => Array.isArray(value) && value.every((item) => typeof item === "number");

function freshEnv(): Record<string, string> {
  return { TAUBRIDGE_DERIVED_CACHE_DIR: mkdtempSync(join(tmpdir(), "taubridge-derived-")) };
}

/** The one entry file of a kind in a cache folder. */
function entryFile(env: Record<string, string>, kind: string): string {
  const folder = join(env.TAUBRIDGE_DERIVED_CACHE_DIR, kind);
  const files = readdirSync(folder).filter((name) => name.endsWith(".json"));
  expect(files).toHaveLength(1);
  return join(folder, files[0]);
}

describe("derived cache", () => {
  const key = derivedCacheKey("input sha256", "options");

  it("derives and stores on a miss, answers from the entry on a hit", () => {
    const env = freshEnv();
    let calls = 0;
    const derive = () => {
      calls++;
      return [1, 2, 3];
    };
    expect(cachedDerivation("test-kind-v1", key, isNumberList, derive, env)).toEqual([1, 2, 3]);
    expect(calls).toBe(1);
    expect(cachedDerivation("test-kind-v1", key, isNumberList, derive, env)).toEqual([1, 2, 3]);
    expect(calls).toBe(1);
    expect(readDerived("test-kind-v1", key, env)).toEqual([1, 2, 3]);
  });

  it("keeps entries apart by key and by kind", () => {
    const env = freshEnv();
    writeDerived("test-kind-v1", key, [1], env);
    expect(readDerived("test-kind-v1", derivedCacheKey("other input"), env)).toBeUndefined();
    expect(readDerived("test-kind-v2", key, env)).toBeUndefined();
  });

  it("ignores an edited entry (its checksum no longer matches) and rewrites it", () => {
    const env = freshEnv();
    writeDerived("test-kind-v1", key, [1, 2, 3], env);
    const file = entryFile(env, "test-kind-v1");
    writeFileSync(file, readFileSync(file, "utf8").replace("[1,2,3]", "[1,2,4]"));
    expect(readDerived("test-kind-v1", key, env)).toBeUndefined();
    let calls = 0;
    expect(
      cachedDerivation(
        "test-kind-v1",
        key,
        isNumberList,
        () => {
          calls++;
          return [1, 2, 3];
        },
        env,
      ),
    ).toEqual([1, 2, 3]);
    expect(calls).toBe(1);
    expect(readDerived("test-kind-v1", key, env)).toEqual([1, 2, 3]);
  });

  it("ignores a torn entry, an entry filed under another key, and a value of the wrong shape", () => {
    const env = freshEnv();
    writeDerived("test-kind-v1", key, [1, 2, 3], env);
    const file = entryFile(env, "test-kind-v1");
    const whole = readFileSync(file, "utf8");
    writeFileSync(file, whole.slice(0, whole.length - 3));
    expect(readDerived("test-kind-v1", key, env)).toBeUndefined();
    writeFileSync(file, "not json at all");
    expect(readDerived("test-kind-v1", key, env)).toBeUndefined();
    const otherKey = derivedCacheKey("other input");
    writeDerived("test-kind-v1", otherKey, [9], env);
    writeFileSync(file, readFileSync(join(env.TAUBRIDGE_DERIVED_CACHE_DIR, "test-kind-v1", `${otherKey}.json`)));
    expect(readDerived("test-kind-v1", key, env)).toBeUndefined();
    writeDerived("test-kind-v1", key, { not: "a list" }, env);
    expect(cachedDerivation("test-kind-v1", key, isNumberList, () => [7], env)).toEqual([7]);
  });

  it("is off with TAUBRIDGE_DERIVED_CACHE_DIR=off, and lives under the cache directory by default", () => {
    expect(derivedCacheDir({ TAUBRIDGE_DERIVED_CACHE_DIR: "off" })).toBeNull();
    expect(derivedCacheDir({ TAUBRIDGE_CACHE_DIR: "/c/tb" })).toBe(join("/c/tb", "derived"));
    let calls = 0;
    const derive = () => [++calls];
    const off = { TAUBRIDGE_DERIVED_CACHE_DIR: "off" };
    expect(cachedDerivation("test-kind-v1", key, isNumberList, derive, off)).toEqual([1]);
    expect(cachedDerivation("test-kind-v1", key, isNumberList, derive, off)).toEqual([2]);
  });

  it("still derives when the cache folder cannot be written", () => {
    const blocker = join(mkdtempSync(join(tmpdir(), "taubridge-derived-")), "a-file");
    writeFileSync(blocker, "");
    const env = { TAUBRIDGE_DERIVED_CACHE_DIR: join(blocker, "cache") }; // a folder inside a file: nothing can be created
    expect(cachedDerivation("test-kind-v1", key, isNumberList, () => [5], env)).toEqual([5]);
    expect(readDerived("test-kind-v1", key, env)).toBeUndefined();
  });
});

/** What `parsePythonJson` says of a text: its value, or its error message. */
function parseOutcome(text: string): { value: PyValue } | { error: string } {
  try {
    return { value: parsePythonJson(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The same for the scanner: the elements rebuilt from their spans (or the text's value when it is not an array). */
function scanOutcome(text: string): { value: PyValue } | { error: string } {
  try {
    const elements = scanPythonJsonArray(text);
    if (elements === null) return { value: parsePythonJson(text) };
    return { value: elements.map(({ start, end }) => parsePythonJson(text.slice(start, end))) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const SAMPLES = [
  '[{"id": "a", "x": [1, 2.0, -3e2, "s\\u00e9\\n"]}, {"id": "b"}]',
  "  [ ]  ",
  '[NaN, Infinity, -Infinity, true, false, null, {"k": {}}]',
  '[{"id": 5}, {"id": "x", "id": "y"}, "plain", [[]]]',
  '{"not": "an array"}',
  '"text"',
  "[1, 2",
  "[1,, 2]",
  '[{"a" 1}]',
  '[{"a": 1,}]',
  "[{1: 2}]",
  '["\\x"]',
  '["\\u12G4"]',
  '["raw\ttab"]',
  '["unterminated]',
  "[01]",
  "[1.]",
  "[-]",
  "[tru]",
  "[1] x",
  "",
  "[",
  '[{"id": "a"}] ',
  '[{"i\\u0064": "escaped key"}]',
];

describe("scanPythonJsonArray", () => {
  it("accepts and rejects exactly what parsePythonJson does, with the same messages, and its spans rebuild the elements", () => {
    for (const text of SAMPLES) expect(scanOutcome(text), text).toEqual(parseOutcome(text));
  });

  it("agrees with parsePythonJson on thousands of damaged texts", () => {
    const base = '[{"id": "t1", "n": [1, 2.5, -0.0, 1e3], "s": "a\\"b\\\\c\\u0041", "d": {"x": null, "y": true}}, {"id": "t2"}, 3, "x"]';
    const alphabet = ['"', "\\", "{", "}", "[", "]", ",", ":", " ", "1", ".", "e", "-", "u", "n", "\n", "\t", "\u0001", "a"];
    let seed = 7;
    const random = (limit: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % limit;
    };
    for (let round = 0; round < 3000; round++) {
      let text = base;
      for (let edit = 0; edit < 1 + random(3); edit++) {
        const at = random(text.length + 1);
        const kind = random(3);
        const char = alphabet[random(alphabet.length)];
        text = kind === 0 ? text.slice(0, at) + char + text.slice(at) : kind === 1 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + char + text.slice(at + 1);
      }
      expect(scanOutcome(text), text).toEqual(parseOutcome(text));
    }
  });

  it("gives each object element's string id, the last one when repeated", () => {
    expect(scanPythonJsonArray('[{"id": "a"}, {"id": 1}, {"id": "x", "id": "y"}, {"i\\u0064": "z"}, 2]')?.map((element) => element.id)).toEqual(["a", undefined, "y", "z", undefined]);
  });
});

/** Puts back the cache folder the test run had. */
function restore(previous: string | undefined): void {
  if (previous === undefined) delete process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
  else process.env.TAUBRIDGE_DERIVED_CACHE_DIR = previous;
}

describe("openJsonArrayFile", () => {
  const write = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), "taubridge-array-")), "tasks.json");
    writeFileSync(path, text);
    return path;
  };
  const elements = (path: string) => {
    const file = openJsonArrayFile(path, "expected an array");
    return file.ids.map((_, position) => file.element(position));
  };

  it("builds the same elements on a miss and on a hit, for ASCII and non-ASCII files", () => {
    const env = freshEnv();
    const previous = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = env.TAUBRIDGE_DERIVED_CACHE_DIR;
    try {
      for (const text of ['[{"id": "a", "v": 2.0}, {"id": "b", "v": [1]}]', '[{"id": "é", "v": "ü\\u00fc"}, {"id": "b", "v": "😀"}]']) {
        const path = write(text);
        const expected = parsePythonJson(text);
        expect(elements(path)).toEqual(expected); // miss: scanned, then stored
        expect(elements(path)).toEqual(expected); // hit
      }
      expect(readdirSync(join(env.TAUBRIDGE_DERIVED_CACHE_DIR, "json-array-index-v2"))).toHaveLength(2);
    } finally {
      restore(previous);
    }
  });

  it("indexes a changed file again (the entry is keyed by its content) and ignores a corrupt index", () => {
    const env = freshEnv();
    const previous = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = env.TAUBRIDGE_DERIVED_CACHE_DIR;
    try {
      const path = write('[{"id": "a"}, {"id": "b"}]');
      expect(openJsonArrayFile(path, "expected an array").ids).toEqual(["a", "b"]);
      writeFileSync(path, '[{"id": "b"}, {"id": "long id c"}, 3]');
      expect(openJsonArrayFile(path, "expected an array").ids).toEqual(["b", "long id c", undefined]);
      expect(elements(path)).toEqual(parsePythonJson('[{"id": "b"}, {"id": "long id c"}, 3]'));
      for (const name of readdirSync(join(env.TAUBRIDGE_DERIVED_CACHE_DIR, "json-array-index-v2"))) {
        writeFileSync(join(env.TAUBRIDGE_DERIVED_CACHE_DIR, "json-array-index-v2", name), "{}\n[]");
      }
      expect(elements(path)).toEqual(parsePythonJson('[{"id": "b"}, {"id": "long id c"}, 3]'));
    } finally {
      restore(previous);
    }
  });

  it("reads only the elements asked for once the index is cached, and refuses them when the file changed since it was hashed", () => {
    const env = freshEnv();
    const previous = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = env.TAUBRIDGE_DERIVED_CACHE_DIR;
    try {
      const text = '[{"id": "a", "v": 1.0}, {"id": "b", "v": {"k": [2, 3e5]}}, {"id": "c"}]';
      const expected = parsePythonJson(text) as unknown[];
      const path = write(text);
      const missed = openJsonArrayFile(path, "expected an array");
      expect(missed.elements([2, 0])).toEqual([expected[2], expected[0]]);
      const hit = openJsonArrayFile(path, "expected an array");
      expect(hit.sha256).toBe(missed.sha256);
      expect(hit.ids).toEqual(["a", "b", "c"]);
      expect(hit.elements([2, 0, 1])).toEqual([expected[2], expected[0], expected[1]]);
      expect(hit.element(1)).toEqual(expected[1]);
      writeFileSync(path, text.replace('"a"', '"z"'));
      utimesSync(path, new Date(), new Date(Date.now() + 10_000));
      expect(() => hit.elements([0])).toThrow(`${path} changed while it was being read; run again`);
    } finally {
      restore(previous);
    }
  });

  it("names the file in its errors: unreadable, invalid JSON, not an array", () => {
    expect(() => openJsonArrayFile("/no/such/file.json", "expected an array")).toThrow(/cannot read \/no\/such\/file\.json: ENOENT/);
    const broken = write('[{"id": "a"},\n {"id" "b"}]');
    expect(() => openJsonArrayFile(broken, "expected an array")).toThrow(`${broken}: invalid JSON: Expecting ':' delimiter at line 2 column 8`);
    const object = write('{"id": "a"}');
    expect(() => openJsonArrayFile(object, "expected an array")).toThrow(`${object}: expected an array`);
  });
});

describe("pinnedHashes", () => {
  it("gives the manifest's pinned hashes under a prefix, the same from the derived cache, and ignores a damaged entry", () => {
    const previous = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    const env = freshEnv();
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = env.TAUBRIDGE_DERIVED_CACHE_DIR;
    try {
      const prefix = "upstream-src/src/tau2/";
      const expected = new Map(
        loadTau2BenchManifest()
          .files.filter((entry) => entry.target.startsWith(prefix))
          .map((entry) => [entry.target, entry.sha256]),
      );
      expect(expected.size).toBeGreaterThan(10);
      expect(pinnedHashes("tau2-bench", prefix)).toEqual(expected); // miss
      expect(pinnedHashes("tau2-bench", prefix)).toEqual(expected); // hit
      const file = entryFile(env, "manifest-pinned-hashes-v1");
      const stored = readFileSync(file, "utf8");
      const damaged = stored.replace(/"[0-9a-f]{64}"}$/, `"${"0".repeat(64)}"}`);
      expect(damaged).not.toBe(stored);
      writeFileSync(file, damaged);
      expect(pinnedHashes("tau2-bench", prefix)).toEqual(expected);
    } finally {
      restore(previous);
    }
  });
});

/** The same for objects: the members rebuilt from their spans, in the scanned order. */
function scanObjectOutcome(text: string): { value: PyValue } | { error: string } {
  try {
    const members = scanPythonJsonObject(text);
    if (members === null) return { value: parsePythonJson(text) };
    return { value: new Map(members.map(({ key, start, end }) => [key, parsePythonJson(text.slice(start, end))])) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe("scanPythonJsonObject", () => {
  it("accepts and rejects exactly what parsePythonJson does, keeps a repeated key's first place and last value", () => {
    const samples = ['{"a": {"x": [1, 2.0]}, "b": "s", "a": [3]}', " {} ", '{"k": NaN}', '{"a" 1}', '{"a": 1,}', "[1]", '{"a": 1} x', '{"a": "\\u12G4"}', '{"\\u0061": 1, "a": 2}', "{"];
    for (const text of samples) expect(scanObjectOutcome(text), text).toEqual(parseOutcome(text));
    const base = '{"o1": {"id": "o1", "items": [1, 2.5, {"n": null}]}, "o2": {"s": "a\\"b"}, "o1": 3}';
    const alphabet = ['"', "\\", "{", "}", "[", "]", ",", ":", " ", "1", ".", "e", "-", "n"];
    const random = seeded(5);
    for (let round = 0; round < 2000; round++) {
      const at = random(base.length + 1);
      const text = random(2) === 0 ? base.slice(0, at) + alphabet[random(alphabet.length)] + base.slice(at) : base.slice(0, at) + base.slice(at + 1);
      expect(scanObjectOutcome(text), text).toEqual(parseOutcome(text));
    }
  });
});

function seeded(seed: number): (limit: number) => number {
  let state = seed;
  return (limit) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % limit;
  };
}

describe("readJsonRecordFile", () => {
  const text = '{"b": {"name": "B", "n": 2.0}, "a": {"name": "A", "tags": ["x"]}, "10": {"name": "ten"}, "b": {"name": "B2"}}';
  const write = () => {
    const path = join(mkdtempSync(join(tmpdir(), "taubridge-records-")), "records.json");
    writeFileSync(path, text);
    return path;
  };

  it("reads as the whole-file parse does: keys in order, the same value object every time, every way of reading values", () => {
    const previous = process.env.TAUBRIDGE_DERIVED_CACHE_DIR;
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = freshEnv().TAUBRIDGE_DERIVED_CACHE_DIR;
    try {
      const eager = parsePythonJson(text) as PyDict;
      for (let pass = 0; pass < 2; pass++) {
        // pass 0: scanned (a miss); pass 1: the index from the derived cache (a hit)
        const { records } = readJsonRecordFile(write());
        expect([...records.keys()]).toEqual([...eager.keys()]);
        expect(records.size).toBe(3);
        expect(records.has("a") && !records.has("z")).toBe(true);
        expect(records.get("a")).toBe(records.get("a"));
        expect(pyJsonDumps(records)).toBe(pyJsonDumps(eager));
        expect([...records.values()].map((value) => pyJsonDumps(value))).toEqual([...eager.values()].map((value) => pyJsonDumps(value)));
        const seen: string[] = [];
        records.forEach((value, key, map) => seen.push(`${key}=${pyJsonDumps(value)}:${map === records}`));
        expect(seen).toEqual([...eager].map(([key, value]) => `${key}=${pyJsonDumps(value)}:true`));
        expect(pyJsonDumps(pyDeepCopy(records))).toBe(pyJsonDumps(eager));
        expect(pyJsonDumps(new Map(records))).toBe(pyJsonDumps(eager));
        records.set("a", "replaced");
        records.delete("b");
        expect([...records.entries()]).toEqual([
          ["a", "replaced"],
          ["10", eager.get("10")],
        ]);
      }
    } finally {
      restore(previous);
    }
  });

  it("names the file in its errors, as a whole-file parse does", () => {
    const path = join(mkdtempSync(join(tmpdir(), "taubridge-records-")), "bad.json");
    writeFileSync(path, '{"a": 1,\n "b" 2}');
    expect(() => readJsonRecordFile(path)).toThrow(`${path}: invalid JSON: Expecting ':' delimiter at line 2 column 6`);
    writeFileSync(path, "[1]");
    expect(() => readJsonRecordFile(path)).toThrow(`${path}: expected a JSON object at the top level`);
    expect(() => readJsonRecordFile(`${path}.missing`)).toThrow(/cannot read .*ENOENT/);
  });
});
