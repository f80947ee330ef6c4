import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CheckpointWriter } from "../src/run/checkpoint.ts";
import { compactLineBytes, pyJsonDumpsIndentedPieces } from "../src/value/printing.ts";
import {
  JsonSyntaxError,
  PyException,
  PyFloat,
  hashableRepr,
  parsePythonJson,
  pyAdd,
  pyContains,
  pyCount,
  pyEquals,
  pyFloat,
  pyFloatRepr,
  pyGetItem,
  pyGreaterOrEqual,
  pyGreaterThan,
  pyIAdd,
  pyInt,
  pyIsOrEquals,
  pyIterate,
  pyJsonDumps,
  pyJsonDumpsIndented,
  pyJsonDumpsLine,
  pyJsonString,
  printedJson,
  pyLen,
  pyLessOrEqual,
  pyLessThan,
  pyMax,
  pyMul,
  pyNeg,
  pyNotEquals,
  pyRepr,
  pyRound,
  pySlice,
  pySorted,
  pyStrRepr,
  pySub,
  pySum,
  type PyValue,
  type PyFieldType,
  type PyModelSchema,
  pyModelSchema,
  pyModelSchemaFingerprint,
  pyModelValidate,
  pyT,
} from "../src/value/index.ts";

// Expected texts were produced with CPython 3.11 (repr / json.dumps / round).

/** `TypeName: message` of the PyException a thunk raises (the way a traceback's last line reads). */
function raises(thunk: () => unknown): string {
  try {
    thunk();
  } catch (error) {
    if (error instanceof PyException) return `${error.pythonType}: ${error.message}`;
    throw error;
  }
  throw new Error("did not raise");
}
describe("Python float repr", () => {
  it.each([
    [1e16, "1e+16"],
    [1e-5, "1e-05"],
    [0.0001, "0.0001"],
    [123456789012345.6, "123456789012345.6"],
    [-0, "-0.0"],
    [1.5e300, "1.5e+300"],
    [2.5e-7, "2.5e-07"],
    [100, "100.0"],
    [0.1 + 0.2, "0.30000000000000004"],
    [Infinity, "inf"],
  ])("repr(%s) = %s", (value, expected) => {
    expect(pyFloatRepr(value)).toBe(expected);
  });
});

describe("lossless JSON reader", () => {
  it("keeps ints and floats apart, including integral floats", () => {
    const value = parsePythonJson('{"a": 247.0, "b": 247, "c": 1e2, "d": 12345678901234567890}') as Map<string, unknown>;
    expect(value.get("a")).toBeInstanceOf(PyFloat);
    expect(pyJsonDumps(value as never)).toBe('{"a": 247.0, "b": 247, "c": 100.0, "d": 12345678901234567890}');
  });

  it("keeps insertion order for integer-like keys and the last value of a repeated key in its first position", () => {
    const value = parsePythonJson('{"9": 1, "10": 2, "x": 3, "9": 4}');
    expect(pyJsonDumps(value)).toBe('{"9": 4, "10": 2, "x": 3}');
  });

  it("accepts Python's NaN and Infinity literals", () => {
    expect(pyJsonDumps(parsePythonJson("[NaN, Infinity, -Infinity]"))).toBe("[NaN, Infinity, -Infinity]");
  });

  it("reports line and column of a syntax error", () => {
    expect(() => parsePythonJson('{\n  "a": 1,\n  "b" 2\n}')).toThrow(JsonSyntaxError);
    expect(() => parsePythonJson('{\n  "a": 1,\n  "b" 2\n}')).toThrow(/line 3 column 7/);
  });

  it("decodes strings with escapes as json.loads does, in one flat piece, and reports a malformed one where Python does", () => {
    const [text] = parsePythonJson(String.raw`["\ud83d\ude00 \ud800 \/\b\f\r\t\"\\ \u00e9 x"]`) as string[];
    expect(text).toBe('😀 \ud800 /\b\f\r\t"\\ é x');
    const long = parsePythonJson(JSON.stringify(["line\n".repeat(5_000)])) as string[];
    expect(long[0]).toBe("line\n".repeat(5_000));
    // Each message and column as Python 3's json.loads gives it.
    expect(() => parsePythonJson(String.raw`["ab\x"]`)).toThrow(/Invalid \\escape at line 1 column 5/);
    expect(() => parsePythonJson('["a\\nb\tc"]')).toThrow(/Invalid control character at line 1 column 7/);
    expect(() => parsePythonJson(String.raw`["a\u12G4"]`)).toThrow(/Invalid \\uXXXX escape at line 1 column 5/);
    expect(() => parsePythonJson(String.raw`["a\n`)).toThrow(/Unterminated string starting at line 1 column 2/);
  });
});

describe("json.dumps and repr texts", () => {
  it("escapes like json.dumps with ensure_ascii", () => {
    const value = parsePythonJson(JSON.stringify({ a: 'é"\\\n\u007f😀', b: [1, 2, null, true] }).replace('"b":[1,2,', '"b":[1,2.0,'));
    expect(pyJsonDumps(value)).toBe('{"a": "\\u00e9\\"\\\\\\n\\u007f\\ud83d\\ude00", "b": [1, 2.0, null, true]}');
  });

  it("chooses quotes and escapes like repr(str)", () => {
    expect(pyStrRepr("it's")).toBe(`"it's"`);
    expect(pyStrRepr(`say "hi" it's`)).toBe(`'say "hi" it\\'s'`);
    expect(pyStrRepr("tab\there\u0001é\u2028")).toBe("'tab\\there\\x01é\\u2028'");
  });

  it("renders to_hashable tuples with sorted keys and the one-element comma", () => {
    expect(hashableRepr(parsePythonJson('{"b": [1], "a": {}, "c": [1.0, "x"]}'))).toBe("(('a', ()), ('b', (1,)), ('c', (1.0, 'x')))");
  });

  it("writes indented results like json.dump(indent=2)", () => {
    expect(pyJsonDumpsIndented({ reward: new PyFloat(1), list: [], ids: [1, 2] })).toBe('{\n  "reward": 1.0,\n  "list": [],\n  "ids": [\n    1,\n    2\n  ]\n}');
  });

  it("prints mixed values as json.dumps does: undefined keys left out, empty containers, nesting, indent 0 and a start level", () => {
    const value = { a: undefined, b: new Map<string, unknown>([["x", [new Map(), {}, { gone: undefined }]]]), c: 2.5, d: 3n, e: null };
    expect(pyJsonDumpsLine(value)).toBe('{"b": {"x": [{}, {}, {}]}, "c": 2.5, "d": 3, "e": null}');
    expect(pyJsonDumpsIndented(value, 2)).toBe('{\n  "b": {\n    "x": [\n      {},\n      {},\n      {}\n    ]\n  },\n  "c": 2.5,\n  "d": 3,\n  "e": null\n}');
    expect(pyJsonDumpsIndented([[1], "é"], 0)).toBe('[\n[\n1\n],\n"\\u00e9"\n]');
    expect(pyJsonDumpsIndented([1], 2, 1)).toBe("[\n    1\n  ]");
    expect(pyJsonDumpsIndented({ only: undefined })).toBe("{}");
    expect(pyJsonDumpsIndented([1, { k: [] }], null)).toBe('[1, {"k": []}]');
  });

  it("places a value printed once as the printers would print it: indented where it lands, on one line, or again elsewhere", () => {
    const entry = {
      task_id: 3,
      reward: new PyFloat(1),
      info: new Map<string, unknown>([
        ["note", "a,\nb: [x]"],
        ["empty", []],
        ["nested", { k: [1, { deep: null }], e: {} }],
      ]),
      traj: [{ role: "user", content: "hi, there" }],
    };
    const printed = printedJson(entry, 2, 1);
    expect(pyJsonDumpsIndented([entry, printed], 2)).toBe(pyJsonDumpsIndented([entry, entry], 2));
    expect(pyJsonDumpsLine({ type: "episode", entry: printed })).toBe(pyJsonDumpsLine({ type: "episode", entry }));
    expect(printed.line).toBe(pyJsonDumpsLine(entry));
    expect(pyJsonDumpsIndented({ deeper: [printed] }, 2)).toBe(pyJsonDumpsIndented({ deeper: [entry] }, 2));
    expect(pyJsonDumpsIndented([printed], 4)).toBe(pyJsonDumpsIndented([entry], 4));
  });

  it("makes a printed value's one-line bytes from its indented text, as the line printer prints them", () => {
    const entry = {
      task_id: 3,
      info: new Map<string, unknown>([
        ["note", "a,\nb: [x], \u00e9 \u2028"],
        ["empty", []],
        ["emptyMap", new Map()],
        ["nested", { k: [1, { deep: null }, [[]]], e: {}, "key,": ",  " }],
      ]),
      traj: [{ role: "user", content: "hi, there" }, "  spaced  "],
    };
    for (const level of [0, 1, 2]) {
      const printed = printedJson(entry, 2, level);
      const bytes = printed.lineBytes(Buffer.from("<<"), Buffer.from(">>\n"));
      expect(bytes.toString("utf8")).toBe(`<<${pyJsonDumpsLine(entry)}>>\n`);
    }
    expect(printedJson([], 2, 2).lineBytes(Buffer.alloc(0), Buffer.alloc(0)).toString()).toBe("[]");
    expect(printedJson("x", 2, 2).lineBytes(Buffer.alloc(0), Buffer.alloc(0)).toString()).toBe('"x"');
  });

  it("makes a line from pieces of a printed text, in memory reused line after line, and prints a document in pieces", () => {
    const entry = { task_id: "t, 1", policy: "long,\n  policy \u00e9", messages: [{ role: "user", content: "hi,\n there \u2028" }], empty: [] };
    const { indented } = printedJson(entry, 2, 2);
    const policyJson = pyJsonString(entry.policy);
    const start = indented.indexOf(policyJson);
    const pieces = [indented.slice(0, start), "null", indented.slice(start + policyJson.length)];
    const expected = `<<${pyJsonDumpsLine({ ...entry, policy: null })}>>\n`;
    const first = compactLineBytes(pieces, Buffer.from("<<"), Buffer.from(">>\n")).toString("utf8");
    expect(first).toBe(expected);
    // A longer line and then the first again: the reused memory holds nothing of the line before.
    const longer = printedJson({ ...entry, extra: "x".repeat(5000) }, 2, 2);
    expect(compactLineBytes([longer.indented], Buffer.alloc(0), Buffer.alloc(0)).toString("utf8")).toBe(pyJsonDumpsLine({ ...entry, extra: "x".repeat(5000) }));
    expect(compactLineBytes(pieces, Buffer.from("<<"), Buffer.from(">>\n")).toString("utf8")).toBe(expected);
    // lineBytes is a buffer of its own: the next line does not change it.
    const own = printedJson(entry, 2, 2).lineBytes(Buffer.alloc(0), Buffer.alloc(0));
    compactLineBytes([longer.indented], Buffer.alloc(0), Buffer.alloc(0));
    expect(own.toString("utf8")).toBe(pyJsonDumpsLine(entry));
    const document = { head: 1, simulations: [printedJson(entry, 2, 2), printedJson({ b: [] }, 2, 2), 3], tail: printedJson("t", 2, 1) };
    const printedPieces = pyJsonDumpsIndentedPieces(document, 2);
    expect(printedPieces.join("")).toBe(pyJsonDumpsIndented(document, 2));
    expect(printedPieces).toContain(printedJson(entry, 2, 2).indented);
    expect(pyJsonDumpsIndentedPieces(printedJson([], 2, 0), 2)).toEqual(["[]"]);
    expect(pyJsonDumpsIndentedPieces({}, 2)).toEqual(["{}"]);
  });

  it("writes a printed checkpoint entry as the line printer would", () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-checkpoint-line-"));
    try {
      const entry = {
        task_id: "t, 1",
        messages: [
          { role: "assistant", content: "ok,\n  fine" },
          { role: "user", content: null },
        ],
        reward_info: new Map([["reward", new PyFloat(1)]]),
      };
      const path = join(directory, "c.jsonl");
      const writer = new CheckpointWriter(path);
      writer.open({ identity: {} }, true);
      writer.append(printedJson(entry, 2, 2));
      writer.append(entry);
      writer.close();
      const lines = readFileSync(path, "utf8").split("\n");
      expect(lines[1]).toBe(pyJsonDumpsLine({ type: "episode", entry }));
      expect(lines[2]).toBe(lines[1]);
      expect(lines[3]).toBe("");
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("fingerprints a model schema by everything that decides validated values", () => {
    const make = (amount: PyFieldType, defaultName = "x") => {
      const item = pyModelSchema("Item", [["amount", amount]]);
      return pyModelSchema("Db", [
        ["items", pyT.dict(pyT.model(() => item))],
        ["name", pyT.str, () => defaultName],
      ]);
    };
    expect(pyModelSchemaFingerprint(make(pyT.float))).toBe(pyModelSchemaFingerprint(make(pyT.float)));
    expect(pyModelSchemaFingerprint(make(pyT.float))).not.toBe(pyModelSchemaFingerprint(make(pyT.int)));
    expect(pyModelSchemaFingerprint(make(pyT.float))).not.toBe(pyModelSchemaFingerprint(make(pyT.float, "y")));
    const node: PyModelSchema = pyModelSchema("Node", [["children", pyT.list(pyT.model(() => node))]]);
    expect(pyModelSchemaFingerprint(node)).toContain('"Node"');
  });

  it("writes a long string the same every time (long strings are remembered)", () => {
    const long = `${"policy line\n".repeat(200)}café \u2028 "quoted" \\`;
    const first = pyJsonString(long);
    expect(JSON.parse(first)).toBe(long);
    expect(first).toContain('caf\\u00e9 \\u2028 \\"quoted\\" \\\\');
    for (let index = 0; index < 100; index++) pyJsonString(`${long}${index}`);
    expect(pyJsonString(long)).toBe(first);
    expect(pyJsonString(`${long}`.slice(0))).toBe(first);
  });
});

describe("Python arithmetic", () => {
  it("rounds half to even on the exact binary value", () => {
    const round2 = (x: number): number => (pyRound(pyFloat(x), 2) as PyFloat).value;
    expect([0.125, 0.375, 2.675, 1.005, 4128.449999].map(round2)).toEqual([0.12, 0.38, 2.67, 1.0, 4128.45]);
    expect(Object.is(round2(-0.0001), -0)).toBe(true);
    // Ties beyond ~9e13, where x*100 is no longer exact in a double (CPython: 906991185404271.1).
    expect(round2(906991185404271.125)).toBe(906991185404271.1);
    expect(round2(-0.125)).toBe(-0.12);
    expect(round2(0.625)).toBe(0.62);
  });

  // Expected texts from CPython 3.11: repr(round(x, n)).
  it.each([
    [2.5, 0, "2.0"],
    [3.5, 0, "4.0"],
    [25.0, -1, "20.0"],
    [35.0, -1, "40.0"],
    [1234.5678, 3, "1234.568"],
    [1e300, 2, "1e+300"],
    [1.7e308, -309, "0.0"],
    [2.5, 400, "2.5"],
    [Infinity, 2, "inf"],
  ])("round(%s, %s) = %s", (x, ndigits, expected) => {
    expect(pyRepr(pyRound(pyFloat(x), ndigits))).toBe(expected);
  });

  it("rounds ints to ints, and raises Python's errors", () => {
    expect(pyRound(5, 2)).toBe(5);
    expect(pyRound(15, -1)).toBe(20);
    expect(pyRound(25, -1)).toBe(20);
    expect(pyRound(-25, -1)).toBe(-20);
    expect(pyRound(true, 2)).toBe(1);
    expect(raises(() => pyRound("a", 2))).toBe("TypeError: type str doesn't define __round__ method");
    expect(raises(() => pyRound(pyFloat(1.7e308), -308))).toBe("OverflowError: rounded value too large to represent");
  });

  it("keeps int typing: int+int is int, anything with a float is float, round(int) stays int", () => {
    expect(pyAdd(49, new PyFloat(4079.45))).toEqual(new PyFloat(4128.45));
    expect(pyAdd(2, 3)).toBe(5);
    expect(pySub(Number.MAX_SAFE_INTEGER, -10)).toBe(9007199254741001n);
    expect(pyNeg(0)).toBe(0);
    expect(pyFloatRepr((pyNeg(new PyFloat(0)) as PyFloat).value)).toBe("-0.0");
  });
});

describe("Python operators and builtins", () => {
  it("int() follows Python's literal rules", () => {
    expect(pyInt("20")).toBe(20);
    expect(pyInt(" 5")).toBe(5);
    expect(pyInt("-5")).toBe(-5);
    expect(pyInt("1_5")).toBe(15);
    expect(pyInt("\u0663\u0663")).toBe(33);
    expect(pyInt("\uff11\uff12")).toBe(12);
    expect(pyInt(pyFloat(-2.7))).toBe(-2);
    expect(raises(() => pyInt("_5"))).toBe("ValueError: invalid literal for int() with base 10: '_5'");
    expect(raises(() => pyInt(""))).toBe("ValueError: invalid literal for int() with base 10: ''");
    expect(raises(() => pyInt("\u00b2"))).toBe("ValueError: invalid literal for int() with base 10: '²'");
  });

  it("arithmetic keeps Python's types and texts", () => {
    expect(pyAdd(1, new PyFloat(0.5))).toEqual(new PyFloat(1.5));
    expect(pyAdd(true, true)).toBe(2);
    expect(pyMul(50, "ab")).toBe("ab".repeat(50));
    expect(pySum([1, 2, new PyFloat(0.5)])).toEqual(new PyFloat(3.5));
    expect(pyNeg(true)).toBe(-1);
    expect(raises(() => pyIAdd(0, "x"))).toBe("TypeError: unsupported operand type(s) for +=: 'int' and 'str'");
    expect(raises(() => pyMul(new PyFloat(1.5), "x"))).toBe("TypeError: can't multiply sequence by non-int of type 'float'");
    expect(raises(() => pyAdd("x", 1))).toBe('TypeError: can only concatenate str (not "int") to str');
    expect(raises(() => pyNeg("x"))).toBe("TypeError: bad operand type for unary -: 'str'");
    expect(raises(() => pyMax(0, "x"))).toBe("TypeError: '>' not supported between instances of 'str' and 'int'");
    expect(raises(() => pyAdd(10n ** 400n, pyFloat(1)))).toBe("OverflowError: int too large to convert to float");
  });

  it("containers: len, iteration, subscripts, slices and membership", () => {
    expect(pyLen("café😀")).toBe(5);
    expect(pyIterate(new Map([["a", 1]]))).toEqual(["a"]);
    expect(pySlice("2024-05-07", -2)).toBe("07");
    expect(pySlice([1, 2, 3], 1)).toEqual([2, 3]);
    expect(raises(() => pySlice(new Map(), -2))).toBe("TypeError: unhashable type: 'slice'");
    expect(raises(() => pyGetItem("abc", "x"))).toBe("TypeError: string indices must be integers, not 'str'");
    expect(raises(() => pyGetItem(null, "x"))).toBe("TypeError: 'NoneType' object is not subscriptable");
    expect(raises(() => pyGetItem(new Map(), true))).toBe("KeyError: True");
    expect(raises(() => pyGetItem(new Map(), ["a"]))).toBe("TypeError: unhashable type: 'list'");
    expect(raises(() => pyContains(5, "x"))).toBe("TypeError: argument of type 'int' is not iterable");
    expect(raises(() => pyContains("abc", 1))).toBe("TypeError: 'in <string>' requires string as left operand, not int");
    expect(raises(() => pyLen(new PyFloat(1)))).toBe("TypeError: object of type 'float' has no len()");
    expect(pyCount("aaaa", "aa")).toBe(2);
    expect(pyCount("ab", "")).toBe(3);
    expect(raises(() => pyCount(new Map(), "a"))).toBe("AttributeError: 'dict' object has no attribute 'count'");
  });
});

/**
 * `==`, `is`-then-`==` (containers), ordering and `max`, against CPython 3.11. The expected texts
 * were produced by evaluating the Python column in CPython 3.11.7 with
 * `x = float('nan'); y = float('nan'); a = json.loads('[NaN, NaN]'); big = 2**53 + 1`;
 * the last test re-checks them against a local `python3` when there is one.
 */
describe("Python comparison semantics (NaN, identity, mixed types)", () => {
  const x = pyFloat(NaN);
  const y = pyFloat(NaN);
  const a = parsePythonJson("[NaN, NaN]") as PyValue[];
  const big = 2n ** 53n + 1n;
  const dict = (entries: Array<[string, PyValue]>): PyValue => new Map(entries);
  const cases: Array<[string, () => PyValue, string]> = [
    ["x == x", () => pyEquals(x, x), "False"],
    ["x != x", () => pyNotEquals(x, x), "True"],
    ["[x] == [x]", () => pyEquals([x], [x]), "True"],
    ["[x] == [y]", () => pyEquals([x], [y]), "False"],
    ["{'k': x} == {'k': x}", () => pyEquals(dict([["k", x]]), dict([["k", x]])), "True"],
    ["{'k': x} == {'k': y}", () => pyEquals(dict([["k", x]]), dict([["k", y]])), "False"],
    ["x in [x]", () => pyContains([x], x), "True"],
    ["x in [y]", () => pyContains([y], x), "False"],
    ["[x, y, x].count(x)", () => pyCount([x, y, x], x), "2"],
    ["a[0] == a[1]", () => pyEquals(a[0], a[1]), "False"],
    ["[a[0]] == [a[1]]", () => pyEquals([a[0]], [a[1]]), "True"],
    ["a.count(a[0])", () => pyCount(a, a[0]), "2"],
    ["a[0] in [a[1]]", () => pyContains([a[1]], a[0]), "True"],
    ["x < 1", () => pyLessThan(x, 1), "False"],
    ["x > 1", () => pyGreaterThan(x, 1), "False"],
    ["x <= x", () => pyLessOrEqual(x, x), "False"],
    ["x >= x", () => pyGreaterOrEqual(x, x), "False"],
    ["[x] < [x]", () => pyLessThan([x], [x]), "False"],
    ["[x] <= [x]", () => pyLessOrEqual([x], [x]), "True"],
    ["[x, 1] < [y, 2]", () => pyLessThan([x, 1], [y, 2]), "False"],
    ["max(0, x)", () => pyMax(0, x), "0"],
    ["max(x, 0)", () => pyMax(x, 0), "nan"],
    ["max(0, 0.0)", () => pyMax(0, pyFloat(0)), "0"],
    ["max(1, 2.5, 2)", () => pyMax(1, pyFloat(2.5), 2), "2.5"],
    ["1 == 1.0", () => pyEquals(1, pyFloat(1)), "True"],
    ["True == 1", () => pyEquals(true, 1), "True"],
    ["True == 1.0", () => pyEquals(true, pyFloat(1)), "True"],
    ["'1' == 1", () => pyEquals("1", 1), "False"],
    ["None == None", () => pyEquals(null, null), "True"],
    ["None == 0", () => pyEquals(null, 0), "False"],
    ["[1, 2] == [1.0, 2]", () => pyEquals([1, 2], [pyFloat(1), 2]), "True"],
    ["{'a': 1} == {'a': True}", () => pyEquals(dict([["a", 1]]), dict([["a", true]])), "True"],
    [
      "{'a': 1, 'b': 2} == {'b': 2, 'a': 1}",
      () =>
        pyEquals(
          dict([
            ["a", 1],
            ["b", 2],
          ]),
          dict([
            ["b", 2],
            ["a", 1],
          ]),
        ),
      "True",
    ],
    ["[1, [2, 3]] == [1, [2, 3]]", () => pyEquals([1, [2, 3]], [1, [2, 3]]), "True"],
    ["big == 2.0**53", () => pyEquals(big, pyFloat(2 ** 53)), "False"],
    ["big > 2.0**53", () => pyGreaterThan(big, pyFloat(2 ** 53)), "True"],
    ["2**53 == 2.0**53", () => pyEquals(2 ** 53, pyFloat(2 ** 53)), "True"],
    ["10**400 > float('inf')", () => pyGreaterThan(10n ** 400n, pyFloat(Infinity)), "False"],
    ["10**400 < float('inf')", () => pyLessThan(10n ** 400n, pyFloat(Infinity)), "True"],
    ["float('inf') == float('inf')", () => pyEquals(pyFloat(Infinity), pyFloat(Infinity)), "True"],
    ["-0.0 == 0", () => pyEquals(pyFloat(-0), 0), "True"],
    ["'a' < 'b'", () => pyLessThan("a", "b"), "True"],
    ["'\\U0001F600' > '\\uffff'", () => pyGreaterThan("\u{1F600}", "\uffff"), "True"],
    ["[1, 2] < [1, 3]", () => pyLessThan([1, 2], [1, 3]), "True"],
    ["[1] < [1, 0]", () => pyLessThan([1], [1, 0]), "True"],
    ["[1, 'a'] < [2, 0]", () => pyLessThan([1, "a"], [2, 0]), "True"],
    ["[1, 'a'] < [1, 0]", () => pyLessThan([1, "a"], [1, 0]), "TypeError: '<' not supported between instances of 'str' and 'int'"],
    ["None < 1", () => pyLessThan(null, 1), "TypeError: '<' not supported between instances of 'NoneType' and 'int'"],
    ["{} < {}", () => pyLessThan(new Map(), new Map()), "TypeError: '<' not supported between instances of 'dict' and 'dict'"],
    ["1 <= 'a'", () => pyLessOrEqual(1, "a"), "TypeError: '<=' not supported between instances of 'int' and 'str'"],
    ["'a' >= 1", () => pyGreaterOrEqual("a", 1), "TypeError: '>=' not supported between instances of 'str' and 'int'"],
    ["True < 2", () => pyLessThan(true, 2), "True"],
    ["[] < [None]", () => pyLessThan([], [null]), "True"],
    ["sorted(['b', 'a', 'C'])", () => pySorted(["b", "a", "C"]), "['C', 'a', 'b']"],
    ["sorted([[2], [1, 5], [1]])", () => pySorted([[2], [1, 5], [1]]), "[[1], [1, 5], [2]]"],
  ];

  const outcome = (thunk: () => PyValue): string => {
    try {
      return pyRepr(thunk());
    } catch (error) {
      if (error instanceof PyException) return `${error.pythonType}: ${error.message}`;
      throw error;
    }
  };

  it.each(cases)("%s", (_python, thunk, expected) => {
    expect(outcome(thunk)).toBe(expected);
  });

  it("tells `==` from `is`-then-`==`: only the same NaN object passes the identity shortcut", () => {
    expect(pyIsOrEquals(x, x)).toBe(true);
    expect(pyIsOrEquals(x, y)).toBe(false);
    expect(pyEquals(x, x)).toBe(false);
    // json.loads returns one shared object for every NaN literal, across calls too.
    expect(a[0]).toBe(a[1]);
    expect(parsePythonJson("NaN")).toBe(a[0]);
  });

  it("agrees with the local CPython 3.11 on every case (skipped without one)", (context) => {
    const probe = spawnSync("python3", ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" });
    if (probe.status !== 0 || probe.stdout.trim() !== "3.11") {
      console.log(`python comparison cross-check skipped: no python3 3.11 on PATH (${probe.error?.message ?? probe.stdout.trim()})`);
      context.skip();
      return;
    }
    const script = [
      "import json, sys",
      "x = float('nan'); y = float('nan'); a = json.loads('[NaN, NaN]'); big = 2**53 + 1",
      "out = []",
      "for expression in json.load(sys.stdin):",
      "    try: out.append(repr(eval(expression)))",
      "    except Exception as error: out.append(f'{type(error).__name__}: {error}')",
      "print(json.dumps(out))",
    ].join("\n");
    const run = spawnSync("python3", ["-c", script], { input: JSON.stringify(cases.map(([python]) => python)), encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(cases.map(([, , expected]) => expected));
  });
});

describe("pydantic validation errors", () => {
  it("lists missing, wrong and extra fields at every depth, in pydantic's order (fields, then extra keys)", () => {
    const inner = pyModelSchema(
      "Item",
      [
        ["id", pyT.int],
        ["tags", pyT.list(pyT.str)],
      ],
      "forbid",
    );
    const outer = pyModelSchema(
      "Outer",
      [
        ["name", pyT.str],
        ["items", pyT.list(pyT.model(() => inner))],
        ["count", pyT.int, () => 0],
        ["by_id", pyT.dict(pyT.model(() => inner))],
      ],
      "forbid",
    );
    expect(() =>
      pyModelValidate(outer, parsePythonJson('{"zzz": 1, "items": [{"id": 1.5, "tags": ["a", 2], "x": null}, {"tags": []}], "by_id": {"k": {"id": "7", "tags": [], "extra": true}}}')),
    ).toThrow(
      "7 validation errors for Outer\nname\n  Field required [type=missing, input_value={'zzz': 1, 'items': [{'id...s': [], 'extra': True}}}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.12/v/missing\nitems.0.id\n  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=1.5, input_type=float]\n    For further information visit https://errors.pydantic.dev/2.12/v/int_from_float\nitems.0.tags.1\n  Input should be a valid string [type=string_type, input_value=2, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.12/v/string_type\nitems.0.x\n  Extra inputs are not permitted [type=extra_forbidden, input_value=None, input_type=NoneType]\n    For further information visit https://errors.pydantic.dev/2.12/v/extra_forbidden\nitems.1.id\n  Field required [type=missing, input_value={'tags': []}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.12/v/missing\nby_id.k.extra\n  Extra inputs are not permitted [type=extra_forbidden, input_value=True, input_type=bool]\n    For further information visit https://errors.pydantic.dev/2.12/v/extra_forbidden\nzzz\n  Extra inputs are not permitted [type=extra_forbidden, input_value=1, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.12/v/extra_forbidden",
    );
    expect(pyRepr(pyModelValidate(outer, parsePythonJson('{"name": "n", "items": [{"id": 2.0, "tags": []}], "by_id": {"k": {"id": "7", "tags": ["t"]}}}')))).toBe(
      "{'name': 'n', 'items': [{'id': 2, 'tags': []}], 'count': 0, 'by_id': {'k': {'id': 7, 'tags': ['t']}}}",
    );
  });
});
