/**
 * Python's `str.split()` / `str.strip()` whitespace, `math.log` and the CPython 3.11 character
 * tables behind them and behind the regex translation. Expected values came from CPython 3.11.7
 * (glibc); the cross-checks regenerate the tables and re-check `math.log` with a local `python3`
 * 3.11 and skip, saying so, when there is none.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { python311 } from "./support/python311.ts";
import { PyException, pyMathLog, pySplitWhitespace, pyStrip } from "../src/value/index.ts";
import { charTables } from "../src/value/char-tables.ts";
import { DECIMAL_TABLE, EXTRA_CASES_TABLE, LOWER_TABLE, SPACE_TABLE, UPPER_TABLE, WORD_TABLE } from "../src/value/unicode-tables.ts";

/** `TypeName: message` of the PyException a thunk raises. */
function raises(thunk: () => unknown): string {
  try {
    thunk();
  } catch (error) {
    if (error instanceof PyException) return `${error.pythonType}: ${error.message}`;
    throw error;
  }
  throw new Error("did not raise");
}

describe("str.split() and str.strip() without arguments", () => {
  it.each([
    ["  a\tb\nc  ", ["a", "b", "c"], "a\tb\nc"],
    ["a\x1cb\x1dc\x1ed\x1fe", ["a", "b", "c", "d", "e"], "a\x1cb\x1dc\x1ed\x1fe"],
    ["a\x85b\xa0c\u2028d\u3000e\u180ef\u200bg\ufeffh", ["a", "b", "c", "d", "e\u180ef\u200bg\ufeffh"], "a\x85b\xa0c\u2028d\u3000e\u180ef\u200bg\ufeffh"],
    ["a\u2029b\u202fc\u205fd\u1680e\u2000f\u200ag", ["a", "b", "c", "d", "e", "f", "g"], "a\u2029b\u202fc\u205fd\u1680e\u2000f\u200ag"],
    ["", [], ""],
    ["   ", [], ""],
    ["x", ["x"], "x"],
    ["tab\tseparated\nnewline query", ["tab", "separated", "newline", "query"], "tab\tseparated\nnewline query"],
    ["fee, fees; fee.", ["fee,", "fees;", "fee."], "fee, fees; fee."],
    [" \u{1F600} \u{10400}\u00a0x\u2003", ["\u{1F600}", "\u{10400}", "x"], "\u{1F600} \u{10400}\u00a0x"],
  ])("%j", (text, words, stripped) => {
    expect(pySplitWhitespace(text)).toEqual(words);
    expect(pyStrip(text)).toBe(stripped);
  });

  it("raise Python's AttributeError on a non-str", () => {
    expect(raises(() => pySplitWhitespace(42))).toBe("AttributeError: 'int' object has no attribute 'split'");
    expect(raises(() => pyStrip(null))).toBe("AttributeError: 'NoneType' object has no attribute 'strip'");
  });
});

describe("math.log", () => {
  it("is correctly rounded where V8's Math.log is one ulp off (values from CPython on glibc)", () => {
    const cases: Array<[number, number]> = [
      [23.5, 3.1570004211501135],
      [41.5, 3.7256934272366524],
      [46.5, 3.8394523125933104],
      [49.5, 3.901972669574645],
      [78.5, 4.363098624788363],
      [107.5, 4.677490847567717],
      [140.5, 4.945207488773801],
      [151.5, 5.020585624949423],
      [178.5, 5.184588601219693],
      [191.5, 5.2548878086207],
      [236.5, 5.465948207931988],
      [333.5, 5.809642865355678],
    ];
    for (const [x, expected] of cases) {
      expect(Math.log(x)).not.toBe(expected); // why the port does not use Math.log
      expect(pyMathLog(x)).toBe(expected);
    }
  });

  it("keeps Python's special cases", () => {
    expect(pyMathLog(1)).toBe(0);
    expect(pyMathLog(1e-300)).toBe(-690.7755278982137);
    expect(pyMathLog(5e-324)).toBe(-744.4400719213812);
    expect(pyMathLog(1.7976931348623157e308)).toBe(709.782712893384);
    expect(pyMathLog(1.0000000000000002)).toBe(2.2204460492503128e-16);
    expect(pyMathLog(0.9999999999999999)).toBe(-1.1102230246251565e-16);
    expect(pyMathLog(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    expect(pyMathLog(Number.NaN)).toBeNaN();
    expect(raises(() => pyMathLog(0))).toBe("ValueError: math domain error");
    expect(raises(() => pyMathLog(-1))).toBe("ValueError: math domain error");
  });

  it("agrees with the local CPython 3.11 for every k + 0.5 up to 20000 (skipped without one)", (context) => {
    if (!python311()) return context.skip();
    const run = spawnSync("python3", ["-c", "import json, math; print(json.dumps([math.log(k + 0.5) for k in range(20001)]))"], { encoding: "utf8", maxBuffer: 1 << 24 });
    expect(run.status, run.stderr).toBe(0);
    const expected = JSON.parse(run.stdout) as number[];
    const differing = expected.map((value, k) => [k + 0.5, value]).filter(([x, value]) => pyMathLog(x) !== value);
    expect(differing).toEqual([]);
  });
});

describe("CPython 3.11's character tables", () => {
  it("decode to the facts the regex engine and str methods use", () => {
    const tables = charTables();
    expect(tables.lower.get(0x130)).toBe(0x69); // İ lowers to i (first character of "i̇")
    expect(tables.lower.get(0x212a)).toBe(0x6b); // Kelvin sign
    expect(tables.upper.get(0xdf)).toBe(0x53); // ß: first character of "SS"
    expect(tables.upper.get(0x17f)).toBe(0x53); // long s
    expect(tables.extraCases.get(0x73)).toEqual([0x17f]);
    expect(tables.extraCases.get(0x3b9)).toEqual([0x345, 0x1fbe]);
    expect(tables.cased.has(0x1c89)).toBe(false); // added after Unicode 14: uncased to Python 3.11
    expect(tables.word.has(0x5f) && tables.word.has(0x661) && tables.word.has(0x4e00)).toBe(true);
    expect(tables.word.has(0x2e) || tables.word.has(0x20)).toBe(false);
    expect(tables.decimal.has(0x661) && !tables.decimal.has(0xb2)).toBe(true); // Arabic-Indic one yes, superscript two no
    expect([0x1c, 0x1f, 0x85, 0xa0, 0x2028, 0x3000].every((code) => tables.space.has(code))).toBe(true);
    expect([0x180e, 0x200b, 0xfeff].some((code) => tables.space.has(code))).toBe(false);
  });

  it("equal what the local CPython 3.11 generates (skipped without one)", (context) => {
    if (!python311()) return context.skip();
    const run = spawnSync("python3", ["-c", GENERATOR], { encoding: "utf8", maxBuffer: 1 << 24 });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ word: WORD_TABLE, decimal: DECIMAL_TABLE, space: SPACE_TABLE, lower: LOWER_TABLE, upper: UPPER_TABLE, extraCases: EXTRA_CASES_TABLE });
  });
});

/** The generator of src/value/unicode-tables.ts (run it with CPython 3.11 to regenerate the tables). */
const GENERATOR = [
  "# Python 3.11's character tables as the regex engine and str methods use them (Unicode 14.0).",
  "import _sre, json, sys",
  "from re._casefix import _EXTRA_CASES",
  "def b36(n):",
  '    digits = "0123456789abcdefghijklmnopqrstuvwxyz"',
  '    if n == 0: return "0"',
  '    sign = "-" if n < 0 else ""',
  '    n = abs(n); out = ""',
  "    while n: out = digits[n % 36] + out; n //= 36",
  "    return sign + out",
  "def ranges(pred):",
  "    out = []; start = None",
  "    for c in range(0x110000):",
  "        if pred(c):",
  "            if start is None: start = c",
  "        elif start is not None:",
  "            out.append((start, c - 1)); start = None",
  "    if start is not None: out.append((start, 0x10FFFF))",
  "    return out",
  "def encode_set(rs):",
  "    prev = 0; parts = []",
  "    for a, b in rs:",
  '        parts.append(b36(a - prev) + "." + b36(b - a)); prev = b + 1',
  '    return ",".join(parts)',
  "def runs(pairs):",
  "    out = []; i = 0",
  "    while i < len(pairs):",
  "        c, t = pairs[i]; d = t - c; n = 1; step = 1",
  "        if i + 1 < len(pairs) and pairs[i + 1][1] - pairs[i + 1][0] == d:",
  "            step = pairs[i + 1][0] - c",
  "            while i + n < len(pairs) and pairs[i + n][0] == c + n * step and pairs[i + n][1] - pairs[i + n][0] == d: n += 1",
  "        out.append((c, n, step, d)); i += n",
  "    return out",
  "def encode_map(pairs):",
  "    prev = 0; parts = []",
  "    for c, n, step, d in runs(pairs):",
  '        parts.append(".".join([b36(c - prev), b36(n), b36(step), b36(d)])); prev = c',
  '    return ",".join(parts)',
  "tables = {",
  '    "word": encode_set(ranges(lambda c: chr(c).isalnum() or c == 0x5F)),',
  '    "decimal": encode_set(ranges(lambda c: chr(c).isdecimal())),',
  '    "space": encode_set(ranges(lambda c: chr(c).isspace())),',
  '    "lower": encode_map([(c, _sre.unicode_tolower(c)) for c in range(0x110000) if _sre.unicode_tolower(c) != c]),',
  '    "upper": encode_map([(c, ord(chr(c).upper()[0])) for c in range(0x110000) if ord(chr(c).upper()[0]) != c]),',
  '    "extraCases": ",".join(b36(k) + ":" + ".".join(b36(v) for v in vs) for k, vs in sorted(_EXTRA_CASES.items())),',
  "}",
  "json.dump(tables, sys.stdout)",
].join("\n");
