import { describe, expect, it } from "vitest";
import { parsePythonJson, JsonSyntaxError } from "../src/value/lossless-json.ts";
import {
  PyFloat,
  hashableRepr,
  pyAdd,
  pyFloatRepr,
  pyJsonDumps,
  pyJsonDumpsIndented,
  pyNeg,
  pyRound2,
  pyStrRepr,
  pySub,
  roundHalfEven2,
} from "../src/value/python-value.ts";

// Expected texts were produced with CPython 3.11 (repr / json.dumps / round).
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
});

describe("Python arithmetic", () => {
  it("rounds half to even on the exact binary value", () => {
    expect([0.125, 0.375, 2.675, 1.005, 4128.449999].map(roundHalfEven2)).toEqual([0.12, 0.38, 2.67, 1.0, 4128.45]);
    expect(Object.is(roundHalfEven2(-0.0001), -0)).toBe(true);
    // Ties beyond ~9e13, where x*100 is no longer exact in a double (CPython: 906991185404271.1).
    expect(roundHalfEven2(906991185404271.125)).toBe(906991185404271.1);
    expect(roundHalfEven2(-0.125)).toBe(-0.12);
    expect(roundHalfEven2(0.625)).toBe(0.62);
  });

  it("keeps int typing: int+int is int, anything with a float is float, round(int) stays int", () => {
    expect(pyAdd(49, new PyFloat(4079.45))).toEqual(new PyFloat(4128.45));
    expect(pyAdd(2, 3)).toBe(5);
    expect(pyRound2(7)).toBe(7);
    expect(pySub(Number.MAX_SAFE_INTEGER, -10)).toBe(9007199254741001n);
    expect(pyNeg(0)).toBe(0);
    expect(pyFloatRepr((pyNeg(new PyFloat(0)) as PyFloat).value)).toBe("-0.0");
  });
});
