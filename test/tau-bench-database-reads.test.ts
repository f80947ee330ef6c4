/**
 * Reading a τ-bench database the way its tools and reward read it: a lazily built record file
 * iterates the same pairs before and after every record is built (`src/data/json-record-file.ts`),
 * an episode's `entries` walk sees a record changed during the walk as changed, a replaced one
 * replaced, and ends with added ones (`EpisodeDatabase.entries`), and `sameStateAs` agrees with comparing the
 * `to_hashable` texts (`src/suites/tau-bench/engine/database.ts`).
 */
import { describe, expect, it } from "vitest";
import { LazyRecordDict } from "../src/data/json-record-file.ts";
import { BaseDatabase, EpisodeDatabase } from "../src/suites/tau-bench/engine/database.ts";
import { hashableRepr, type PyDict, type PyValue, parsePythonJson, scanPythonJsonObject } from "../src/value/index.ts";

const TEXT = '{"b": {"n": 1}, "a": {"n": 2.0}, "c": {"n": [1, {"z": 1, "y": 2}]}}';

function lazyDict(): LazyRecordDict {
  const members = (scanPythonJsonObject(TEXT) ?? []).map(({ key, start, end }): [string, number, number] => [key, start, end]);
  return new LazyRecordDict(TEXT, members);
}

const record = (text: string) => parsePythonJson(text);

const texts = (pairs: Iterable<[string, PyValue]>) => [...pairs].map(([key, value]) => `${key}=${hashableRepr(value)}`);

describe("a lazily built record dict", () => {
  it("iterates the same pairs, in the file's order, before and after every record is built", () => {
    const whole = parsePythonJson(TEXT) as PyDict;
    const dict = lazyDict();
    expect(dict.get("a")).toBe(dict.get("a"));
    expect(texts(dict.entries())).toEqual(texts(whole.entries()));
    // Every record is built now: the same pairs, the same objects.
    const first = dict.get("c");
    expect(texts(dict)).toEqual(texts(whole.entries()));
    expect([...dict.values()][2]).toBe(first);
  });

  it("counts a member replaced or deleted before it was built as no longer waiting", () => {
    const dict = lazyDict();
    dict.set("b", "replaced");
    dict.delete("c");
    expect([...dict.entries()].map(([key]) => key)).toEqual(["b", "a"]);
    expect(dict.get("b")).toBe("replaced");
    expect(hashableRepr([...dict.values()][1])).toBe("(('n', 2.0),)");
  });
});

describe("an episode's view of a τ-bench collection", () => {
  const base = () => new BaseDatabase(new Map([["users", lazyDict() as PyDict]]));

  it("sees a record changed during a walk as changed, a replaced one replaced, and ends with added ones", () => {
    const db = new EpisodeDatabase(base());
    db.set("users", "d", record('{"n": 4}'));
    db.set("users", "a", "replaced");
    const seen: string[] = [];
    for (const [key, value] of db.entries("users")) {
      seen.push(`${key}=${hashableRepr(value)}`);
      if (key === "b") db.mutable("users", "c").set("n", 9);
    }
    expect(seen).toEqual(["b=(('n', 1),)", "a='replaced'", "c=(('n', 9),)", "d=(('n', 4),)"]);
  });

  it("decides the same state as the to_hashable texts do", () => {
    const left = new EpisodeDatabase(base());
    const right = new EpisodeDatabase(left.base);
    // Dict order does not matter (to_hashable sorts keys); a float never equals an int; list order matters.
    left.set("users", "c", record('{"n": [1, {"y": 2, "z": 1}]}'));
    expect(left.sameStateAs(right)).toBe(true);
    left.set("users", "a", record('{"n": 2}'));
    expect(left.sameStateAs(right)).toBe(false);
    right.set("users", "a", record('{"n": 2}'));
    expect(left.sameStateAs(right)).toBe(true);
    right.set("users", "b", record('{"n": 1.0}'));
    expect(left.sameStateAs(right)).toBe(false);
    left.set("users", "b", record('{"n": 1.0}'));
    expect(left.sameStateAs(right)).toBe(true);
    left.set("users", "c", record('{"n": [{"y": 2, "z": 1}, 1]}'));
    expect(left.sameStateAs(right)).toBe(false);
  });
});
