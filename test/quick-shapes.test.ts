/**
 * The quick checks (`src/data/quick-shapes.ts`) against the zod schemas they stand in for: on
 * every task of the shared data (τ²: every domain's task files, telecom's 2,285; τ-bench: every
 * split) and on thousands of damaged copies, a quick check that vouches for a value must build
 * exactly what zod's `parse` builds (same keys in the same order, the same Maps passed through),
 * and zod must accept it. A quick check that is unsure is always allowed (zod then decides).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UNSURE, quick, type QuickCheck } from "../src/data/quick-shapes.ts";
import { parseRunSettings } from "../src/run/run-settings.ts";
import { quickRunConfigCheck, runConfigFromSettings, runConfigSchema } from "../src/suites/tau-bench/run-config.ts";
import { quickTaskFileEntry, taskFileEntrySchema } from "../src/suites/tau-bench/tasks.ts";
import { tau2Quick, tau2Schemas } from "../src/suites/tau2/task-schemas.ts";
import { plainView } from "../src/suites/tau2/tasks.ts";
import { parsePythonJson, toJs, type PyValue } from "../src/value/index.ts";
import { tau2BenchDirectory, tauBenchDirectory } from "./support/shared-data.ts";

/** A value's text with keys in their order, `undefined` spelled out and Maps named by identity (so pass-through is checked too). */
function ordered(value: unknown, maps = new Map<object, number>()): string {
  if (value === undefined) return "undefined";
  if (value instanceof Map) {
    if (!maps.has(value)) maps.set(value, maps.size);
    return `Map#${maps.get(value)}`;
  }
  if (Array.isArray(value)) return `[${value.map((item) => ordered(item, maps)).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${ordered(item, maps)}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

interface SafeParser {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false };
}

/** When the quick check vouches for `value`, zod accepts it and builds the same value. */
function agrees(check: QuickCheck, schema: SafeParser, value: unknown): boolean {
  const fast = check(value);
  if (fast === UNSURE) return true;
  const slow = schema.safeParse(value);
  if (!slow.success) return false;
  const maps = new Map<object, number>();
  return ordered(fast, maps) === ordered(slow.data, maps);
}

/** A seeded random source, so a failure repeats. */
function seeded(seed: number): (limit: number) => number {
  let state = seed;
  return (limit) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % limit;
  };
}

const REPLACEMENTS: unknown[] = [undefined, null, "", "x", 0, -1, 1.5, Number.NaN, true, [], {}, ["x"], { role: "tool" }, new Map(), "assistant", "user"];

/** A copy of a plain value with one random change at a random place (a key deleted, replaced, added, or an item dropped). */
function damaged(value: unknown, random: (limit: number) => number): unknown {
  const copy = structuredCloneKeepingMaps(value);
  const places: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach((item, index) => (places.push({ parent: node, key: index }), walk(item)));
    else if (node !== null && typeof node === "object" && !(node instanceof Map))
      for (const key of Object.keys(node)) places.push({ parent: node as Record<string, unknown>, key }), walk((node as Record<string, unknown>)[key]);
  };
  walk(copy);
  if (places.length === 0) return copy;
  const { parent, key } = places[random(places.length)];
  const change = random(4);
  if (change === 0 && !Array.isArray(parent)) delete parent[key as string];
  else if (change === 1 && Array.isArray(parent)) parent.splice(key as number, 1);
  else if (change === 2 && !Array.isArray(parent)) parent[`extra_${random(3)}`] = REPLACEMENTS[random(REPLACEMENTS.length)];
  else (parent as Record<string | number, unknown>)[key] = REPLACEMENTS[random(REPLACEMENTS.length)];
  return copy;
}

function structuredCloneKeepingMaps(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(structuredCloneKeepingMaps);
  if (value instanceof Map || value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, structuredCloneKeepingMaps(item)]));
}

function checkAll(check: QuickCheck, schema: SafeParser, values: unknown[], damages: number): void {
  const disagreements: string[] = [];
  for (const value of values) {
    if (check(value) === UNSURE) disagreements.push(`unsure of a valid entry: ${ordered(value).slice(0, 200)}`);
    else if (!agrees(check, schema, value)) disagreements.push(`differs on ${ordered(value).slice(0, 200)}`);
  }
  const random = seeded(11);
  for (let round = 0; round < damages && values.length > 0; round++) {
    const value = damaged(values[random(values.length)], random);
    if (!agrees(check, schema, value)) disagreements.push(`differs on a damaged entry: ${ordered(value).slice(0, 300)}`);
  }
  expect(disagreements.slice(0, 5)).toEqual([]);
}

const tau2Data = tau2BenchDirectory;
const tauData = tauBenchDirectory;

describe.skipIf(!tau2Data)("τ² task shapes: quick checks against zod", () => {
  const taskViews = (path: string) => (parsePythonJson(readFileSync(path, "utf8")) as PyValue[]).map((task) => plainView(task));
  const data = tau2Data as string;

  it("agrees on every task of every τ² domain, and on damaged copies", () => {
    const files = ["mock", "airline", "retail"].map((domain) => join(data, domain, "tasks.json"));
    const views = files.flatMap(taskViews);
    const banking = join(data, "banking_knowledge", "tasks");
    for (const name of readdirSync(banking).sort()) views.push(plainView(parsePythonJson(readFileSync(join(banking, name), "utf8"))));
    checkAll(tau2Quick.task, tau2Schemas().task, views, 4000);
  });

  it("agrees on all 2,285 telecom tasks", () => {
    checkAll(tau2Quick.task, tau2Schemas().task, taskViews(join(data, "telecom", "tasks.json")), 500);
  });

  it("agrees on messages with histories, and on split files", () => {
    const history = taskViews(join(data, "mock", "tasks.json")).flatMap(
      (task) => ((task as { initial_state?: { message_history?: unknown[] } | null }).initial_state?.message_history ?? []) as unknown[],
    );
    const made = [
      { role: "assistant", content: "hi", tool_calls: [{ name: "f", arguments: new Map() }], cost: 0.5, turn_idx: 2, raw_data: undefined },
      { role: "user", content: null, extra: 1 },
      { role: "tool", id: "t", content: "ok", error: true },
      { role: "system", content: "s", timestamp: "2025-01-01" },
    ];
    checkAll(tau2Quick.message, tau2Schemas().message, [...history, ...made], 2000);
    const splits = ["mock", "airline", "retail", "telecom"].map((domain) => JSON.parse(readFileSync(join(data, domain, "split_tasks.json"), "utf8")) as unknown);
    checkAll(tau2Quick.splits, tau2Schemas().splits, splits, 300);
  });
});

describe("τ-bench shapes: quick checks against zod", () => {
  it.skipIf(!tauData)("agrees on every τ-bench task entry, and on damaged copies", () => {
    const data = tauData as string;
    const views: unknown[] = [];
    for (const domain of ["retail", "airline"]) {
      for (const name of readdirSync(join(data, domain)).filter((file) => /^tasks_\w+\.json$/.test(file))) {
        views.push(...(parsePythonJson(readFileSync(join(data, domain, name), "utf8")) as PyValue[]).map((entry) => toJs(entry)));
      }
    }
    checkAll(quickTaskFileEntry, taskFileEntrySchema(), views, 3000);
  });

  it("agrees on run configurations built from run settings, and on damaged ones", () => {
    const flagSets: Array<Record<string, unknown>> = [
      {},
      { env: "retail", agentStrategy: "oracle", userStrategy: "scripted", dataDir: "/data" },
      { env: "airline", numTrials: 3, taskIds: [1, 2], maxConcurrency: 4, shuffle: true, seed: 7, temperature: 0.7 },
      { env: "retail", model: "m", modelProvider: "openai-compatible", userModel: "u" },
      { env: "retail", endIndex: 5, startIndex: 2 },
    ];
    const configs = flagSets.map((flags) => runConfigFromSettings(parseRunSettings({ quiet: true, ...flags }, "api"), "library"));
    configs.push(
      { env: "retail", agentStrategy: "oracle", userStrategy: "scripted" },
      { env: "retail", agentStrategy: "module", userStrategy: "scripted", agentOptions: { module: "./agent.ts", n: 2 } },
    );
    checkAll(quickRunConfigCheck(), runConfigSchema(), configs, 3000);
    // URLs are left to zod: a configuration naming an endpoint is always checked by the schema.
    const withUrl = runConfigFromSettings(parseRunSettings({ quiet: true, model: "m", baseUrl: "http://127.0.0.1:9/v1" }, "api"), "library");
    expect(quickRunConfigCheck()(withUrl)).toBe(UNSURE);
  });
});

describe("quick checks", () => {
  it("mirror zod's object rules: order, absent and undefined keys, defaults as fresh values, passthrough", () => {
    const check = quick.object(
      { a: quick.string(), b: quick.optional(quick.string()), c: quick.nullish(quick.number()), d: quick.withDefault(quick.array(quick.string()), () => ["x"]) },
      { passthrough: true },
    );
    expect(ordered(check({ z: 1, c: null, a: "s" }))).toBe('{"a":"s","c":null,"d":["x"],"z":1}');
    expect(ordered(check({ a: "s", b: undefined }))).toBe('{"a":"s","b":undefined,"d":["x"]}');
    expect((check({ a: "s" }) as { d: unknown }).d).not.toBe((check({ a: "s" }) as { d: unknown }).d);
    expect(check({ b: "s" })).toBe(UNSURE);
    expect(check(Object.create({ a: "s" }))).toBe(UNSURE);
    expect(quick.number({ int: true })(2 ** 53)).toBe(UNSURE);
    expect(quick.number()(Number.POSITIVE_INFINITY)).toBe(UNSURE);
    expect(quick.string(1)("")).toBe(UNSURE);
  });
});
