/**
 * The tools shared by both τ-bench domains: `calculate`, `think`, `transfer_to_human_agents`.
 *
 * (a) With the shared data: every call of these tools in `fixtures/tool_probes.json`, run through
 *     `invokeTool` exactly as the environment does.
 * (b) Without it: examples and CPython error texts of `Calculate.invoke` (τ-bench:
 *     tau_bench/envs/retail/tools/calculate.py), rounding ties, big ints, the parser's error
 *     choice, non-string arguments, and a table of expressions whose expected observations were
 *     produced by CPython 3.11 running τ-bench's `Calculate.invoke` body.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BaseDatabase, EpisodeDatabase } from "../src/suites/tau-bench/engine/database.ts";
import { invokeTool, type ToolImplementation } from "../src/suites/tau-bench/engine/tool.ts";
import { parsePythonJson, pyFloat, pyRound, type PyDict, type PyFloat, type PyValue } from "../src/value/index.ts";
import { calculateTool, pythonCalculate, thinkTool, transferToHumanAgentsTool } from "../domains/common/index.ts";
import { tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";

warnIfMissingShared();

const SHARED_TOOLS: readonly ToolImplementation[] = [calculateTool, thinkTool, transferToHumanAgentsTool];
const toolsByName = new Map(SHARED_TOOLS.map((tool) => [tool.name, tool]));
const emptyDatabase = (): EpisodeDatabase => new EpisodeDatabase(new BaseDatabase(new Map()));

/** The observation the environment would give for `calculate(**kwargs)`. */
function observe(kwargs: PyDict | Array<[string, PyValue]>, tool: ToolImplementation = calculateTool, domain = "retail"): string {
  return invokeTool(tool, domain, emptyDatabase(), kwargs instanceof Map ? kwargs : new Map(kwargs));
}

const calc = (expression: PyValue): string => observe([["expression", expression]]);

function field<T extends PyValue | undefined>(value: PyValue, key: string): T {
  if (!(value instanceof Map)) throw new Error(`expected an object with ${key}`);
  return value.get(key) as T;
}

describe.skipIf(!tauBenchDirectory)("shared tools against fixtures/tool_probes.json", () => {
  const probes = tauBenchDirectory ? (parsePythonJson(readFileSync(join(tauBenchDirectory, "fixtures", "tool_probes.json"), "utf8")) as PyValue[]) : [];
  const calls: Array<{ id: string; domain: string; name: string; kwargs: PyDict; observation: string }> = [];
  for (const probe of probes) {
    for (const call of field<PyValue[]>(probe, "calls")) {
      const name = field<string>(call, "name");
      if (!toolsByName.has(name)) continue;
      calls.push({
        id: field<string>(probe, "id"),
        domain: field<string>(probe, "domain"),
        name,
        kwargs: field<PyDict>(call, "kwargs"),
        observation: field<string>(call, "observation"),
      });
    }
  }

  it("finds the 47 calculate probes and the think/transfer ones", () => {
    expect(calls.filter((call) => call.name === "calculate")).toHaveLength(47);
    expect(calls.some((call) => call.name === "think")).toBe(true);
    expect(calls.some((call) => call.name === "transfer_to_human_agents")).toBe(true);
  });

  it("reproduces every observation exactly", () => {
    const mismatches = calls
      .map((call) => ({ ...call, actual: observe(call.kwargs, toolsByName.get(call.name)!, call.domain) }))
      .filter((call) => call.actual !== call.observation)
      .map((call) => `${call.id} ${call.name}(${JSON.stringify([...call.kwargs])}): expected ${JSON.stringify(call.observation)}, got ${JSON.stringify(call.actual)}`);
    expect(mismatches).toEqual([]);
  });
});

describe("tool registration", () => {
  it("has the Python class names and signatures", () => {
    expect(SHARED_TOOLS.map((tool) => [tool.name, tool.className, tool.parameters])).toEqual([
      ["calculate", "Calculate", ["expression"]],
      ["think", "Think", ["thought"]],
      ["transfer_to_human_agents", "TransferToHumanAgents", ["summary"]],
    ]);
  });

  it("binds arguments with Python's TypeError texts", () => {
    expect(observe([])).toBe("Error: Calculate.invoke() missing 1 required positional argument: 'expression'");
    expect(
      observe([
        ["expression", "1"],
        ["precision", 2],
      ]),
    ).toBe("Error: Calculate.invoke() got an unexpected keyword argument 'precision'");
    expect(observe([], thinkTool)).toBe("Error: Think.invoke() missing 1 required positional argument: 'thought'");
    expect(observe([["reason", "x"]], transferToHumanAgentsTool)).toBe("Error: TransferToHumanAgents.invoke() got an unexpected keyword argument 'reason'");
  });

  it("think returns the empty string and transfer its fixed text, whatever the argument", () => {
    for (const value of ["hmm", "", 5, null, ["a"], new Map([["k", 1]])] as PyValue[]) {
      expect(observe([["thought", value]], thinkTool)).toBe("");
      expect(observe([["summary", value]], transferToHumanAgentsTool)).toBe("Transfer successful");
    }
  });
});

describe("calculate: examples and error texts of τ-bench's Calculate.invoke", () => {
  it.each([
    ["2 + 2", "4.0"],
    ["1/3", "0.33"],
    ["0.1+0.2", "0.3"],
    ["1000000 * 1000000 * 10000", "1e+16"],
    ["-0.0001", "-0.0"],
    ["2 ** 0.5", "1.41"],
    ["0.125", "0.12"],
    ["-2**2", "-4.0"],
    ["2**-1", "0.5"],
    ["2 ** 3 ** 2", "512.0"],
    ["5.", "5.0"],
    [".5", "0.5"],
    ["7 // 2", "3.0"],
  ])("%s → %s", (expression, expected) => {
    expect(calc(expression)).toBe(expected);
  });

  it.each([
    ["1e5", "Error: invalid characters in expression"],
    ["3 % 2", "Error: invalid characters in expression"],
    ["1_000", "Error: invalid characters in expression"],
    ["1,2", "Error: invalid characters in expression"],
    ["1\t+ 2", "Error: invalid characters in expression"],
    ["abc", "Error: invalid characters in expression"],
    ["2 / 0", "Error: division by zero"],
    ["5 / (2 - 2.0)", "Error: float division by zero"],
    ["2 // 0", "Error: integer division or modulo by zero"],
    ["2.0 // 0", "Error: float floor division by zero"],
    ["0.0 ** -1", "Error: 0.0 cannot be raised to a negative power"],
    ["10 ** 400", "Error: int too large to convert to float"],
    ["10.0 ** 400", "Error: (34, 'Numerical result out of range')"],
    ["1 2", "Error: invalid syntax (<string>, line 1)"],
    ["", "Error: invalid syntax (<string>, line 0)"],
    ["(1+2", "Error: '(' was never closed (<string>, line 1)"],
    ["1+2)", "Error: unmatched ')' (<string>, line 1)"],
    ["01 + 2", "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"],
    ["()", "Error: float() argument must be a string or a real number, not 'tuple'"],
    ["(-8)**0.5", "Error: float() argument must be a string or a real number, not 'complex'"],
    ["(1)(2)", "Error: 'int' object is not callable"],
  ])("%s → %s", (expression, expected) => {
    expect(calc(expression)).toBe(expected);
  });
});

describe("calculate: numbers", () => {
  it("rounds the exact binary value half-even, like round(x, 2)", () => {
    expect(calc("0.125")).toBe("0.12");
    expect(calc("0.375")).toBe("0.38");
    expect(calc("2.675")).toBe("2.67");
    expect(calc("1.005")).toBe("1.0");
    expect(calc("-0.125")).toBe("-0.12");
    expect(calc("0.00001")).toBe("0.0");
    // Beyond 2^53 / 100, x * 100 is inexact in floating point; round(x, 2) is still exact.
    const round2 = (x: number): number => (pyRound(pyFloat(x), 2) as PyFloat).value;
    expect(round2(906991185404271.125)).toBe(906991185404271.125);
    expect(calc("906991185404271.1")).toBe("906991185404271.1");
    expect(round2(-0.004)).toBe(-0);
    expect(Object.is(round2(-0.004), -0)).toBe(true);
  });

  it("keeps ints exact and unbounded, with correctly rounded int / int", () => {
    expect(calc("123456789012345678")).toBe("1.2345678901234568e+17");
    expect(calc("10**400 / 10**399")).toBe("10.0");
    expect(calc("10**400 // 10**398")).toBe("100.0");
    expect(calc("10**400 - 10**400 + 1")).toBe("1.0");
    expect(calc("1 / 10**400")).toBe("0.0");
    expect(calc("-1 / 10**400")).toBe("-0.0");
    expect(calc("10**400 / 1")).toBe("Error: integer division result too large for a float");
    expect(calc("(2**1100) * 1.0")).toBe("Error: int too large to convert to float");
    expect(calc("(10**17 + 1) / 3")).toBe("3.3333333333333332e+16");
    expect(calc("2**-1074")).toBe("0.0");
  });

  it("evaluates pow like glibc (correctly rounded), not like Math.pow", () => {
    expect(calc("19**8**2.5")).toBe("3.013892316432925e+231");
    expect(calc("814.0739148849914**11")).toBe("1.0406441065516652e+32");
    expect(calc("1.05 ** 12")).toBe("1.8");
  });

  it("bounds exponent work: 9**9**9 answers promptly with what CPython eventually prints", () => {
    const started = performance.now();
    expect(calc("9**9**9")).toBe("Error: int too large to convert to float");
    expect(calc("9**9**9 * 0")).toBe("0.0");
    expect(calc("1 / 9**9**9")).toBe("0.0");
    expect(calc("1 / (-9)**9**9")).toBe("-0.0");
    expect(calc("(-1) ** 9**9**9")).toBe("-1.0");
    expect(calc("-7 // 9**9**9")).toBe("-1.0");
    expect(calc("9**9**9 / 2")).toBe("Error: integer division result too large for a float");
    expect(calc("9**9**9 * ()")).toBe("Error: cannot fit 'int' into an index-sized integer");
    // Where the exact value would be needed, a deliberate divergence (CPython would take hours).
    expect(calc("9**9**9 - 9**9**9")).toBe("Error: integer too large to evaluate exactly");
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("calculate: CPython's choice of syntax error", () => {
  it("prefers a tokenizer error anywhere over a parser error", () => {
    expect(calc("1 2 07")).toBe("Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)");
    expect(calc("1 2 )")).toBe("Error: unmatched ')' (<string>, line 1)");
    expect(calc("(1 2")).toBe("Error: '(' was never closed (<string>, line 1)");
  });

  it("reports the second-pass messages", () => {
    expect(calc("(1 2)")).toBe("Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)");
    expect(calc("(1) 2")).toBe("Error: invalid syntax (<string>, line 1)");
    expect(calc("(*1)")).toBe("Error: cannot use starred expression here (<string>, line 1)");
    expect(calc("(**1)")).toBe("Error: cannot use double starred expression here (<string>, line 1)");
  });

  it("applies the parser stack and compiler recursion limits", () => {
    expect(calc("(".repeat(199) + "-".repeat(400) + "1" + ")".repeat(199))).toBe("1.0");
    expect(calc("(".repeat(201) + "1" + ")".repeat(201))).toBe("Error: too many nested parentheses (<string>, line 1)");
    expect(calc("-".repeat(2990) + "1")).toBe("1.0");
    expect(calc("-".repeat(2991) + "1")).toBe("Error: maximum recursion depth exceeded during compilation");
    expect(calc("1**".repeat(2900) + "1")).toBe("1.0");
    expect(calc("-".repeat(5976) + "1")).toBe("Error: ");
    expect(calc("1" + "1".repeat(4300))).toBe(
      "Error: Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use " +
        "sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals " +
        "to avoid decimal conversion limits. (<string>, line 1)",
    );
  });
});

describe("calculate: arguments that are not strings", () => {
  it("does what Python's `for char in expression` and eval() do", () => {
    expect(calc(5)).toBe("Error: 'int' object is not iterable");
    expect(calc(pyFloat(2.5))).toBe("Error: 'float' object is not iterable");
    expect(calc(null)).toBe("Error: 'NoneType' object is not iterable");
    expect(calc(true)).toBe("Error: 'bool' object is not iterable");
    expect(calc(["1", "+", "2"])).toBe("Error: eval() arg 1 must be a string, bytes or code object");
    expect(calc(["12", ""])).toBe("Error: eval() arg 1 must be a string, bytes or code object");
    expect(calc(["a", 1])).toBe("Error: invalid characters in expression");
    expect(calc([1, "a"])).toBe("Error: 'in <string>' requires string as left operand, not int");
    expect(calc(new Map([["1", 2]]))).toBe("Error: eval() arg 1 must be a string, bytes or code object");
    expect(calc(new Map([["x", 2]]))).toBe("Error: invalid characters in expression");
  });

  it("is reachable as a plain function too", () => {
    expect(pythonCalculate("2 + 2")).toBe("4.0");
    expect(() => pythonCalculate("2 / 0")).toThrow("division by zero");
  });
});

/** Observations produced by CPython 3.11.7 running the body of τ-bench's `Calculate.invoke`. */
const CPYTHON_TABLE: ReadonlyArray<readonly [string, string]> = [
  ["2 + 2", "4.0"],
  ["1/3", "0.33"],
  ["0.1+0.2", "0.3"],
  ["1000000 * 1000000 * 10000", "1e+16"],
  ["-0.0001", "-0.0"],
  ["2 ** 0.5", "1.41"],
  ["0.125", "0.12"],
  ["0.375", "0.38"],
  ["2.675", "2.67"],
  ["1.005", "1.0"],
  ["0.625", "0.62"],
  ["0.875", "0.88"],
  ["-0.125", "-0.12"],
  ["10 / 4", "2.5"],
  ["2**10", "1024.0"],
  ["7 // 2", "3.0"],
  ["-7 // 2", "-4.0"],
  ["7 // -2.0", "-4.0"],
  ["-7.5 // 2", "-4.0"],
  ["-2**2", "-4.0"],
  ["(-2)**2", "4.0"],
  ["2 ** -1", "0.5"],
  ["2 ** 3 ** 2", "512.0"],
  ["2**0.5**2", "1.19"],
  ["4 -- 2", "6.0"],
  ["+3", "3.0"],
  ["-(3)", "-3.0"],
  ["((2))", "2.0"],
  ["8 / 2 / 2", "2.0"],
  ["1 / 3 * 3", "1.0"],
  ["0.1 * 3", "0.3"],
  ["1 - 1", "0.0"],
  ["0.00001", "0.0"],
  ["5.", "5.0"],
  [".5 + .5", "1.0"],
  ["00", "0.0"],
  ["0", "0.0"],
  ["00.5", "0.5"],
  ["007.5", "7.5"],
  ["007.", "7.0"],
  ["466.75 + 288.82 + 135.24 + 193.38 + 46.66", "1130.85"],
  ["99999999999999999999.0", "1e+20"],
  ["123456789012345678", "1.2345678901234568e+17"],
  ["906991185404271.1", "906991185404271.1"],
  ["4503599627370495.5", "4503599627370495.5"],
  ["0/-5", "-0.0"],
  ["-0/5", "0.0"],
  ["0.0/-5", "-0.0"],
  ["10**400/10**399", "10.0"],
  ["1/10**400", "0.0"],
  ["-1/10**400", "-0.0"],
  ["(-1) ** (10**400)", "1.0"],
  ["1 ** (10**400)", "1.0"],
  ["0 ** (10**400)", "0.0"],
  ["(-8.0) ** 2", "64.0"],
  ["1.05 ** 12", "1.8"],
  ["19**8**2.5", "3.013892316432925e+231"],
  ["1.0000001**(10**9)", "2.6881038582144647e+43"],
  ["0.5**1074", "0.0"],
  ["10.0**308*10", "inf"],
  ["10.0**308*10 - 10.0**308*10", "nan"],
  ["() + ()", "Error: float() argument must be a string or a real number, not 'tuple'"],
  ["() * 3", "Error: float() argument must be a string or a real number, not 'tuple'"],
  ["()*(2**63-1)", "Error: float() argument must be a string or a real number, not 'tuple'"],
  [" 1", "1.0"],
  ["   ", "Error: invalid syntax (<string>, line 0)"],
  ["(1 -2)", "-1.0"],
  ["2 / 0", "Error: division by zero"],
  ["7/0", "Error: division by zero"],
  ["5 / (2 - 2.0)", "Error: float division by zero"],
  ["2 // 0", "Error: integer division or modulo by zero"],
  ["2.0 // 0", "Error: float floor division by zero"],
  ["2 // 0.0", "Error: float floor division by zero"],
  ["1/0.0", "Error: float division by zero"],
  ["0.0/0", "Error: float division by zero"],
  ["0 ** -1", "Error: 0.0 cannot be raised to a negative power"],
  ["0.0 ** -1", "Error: 0.0 cannot be raised to a negative power"],
  ["10 ** 400", "Error: int too large to convert to float"],
  ["10**400*1.0", "Error: int too large to convert to float"],
  ["2.0 ** (10**400)", "Error: int too large to convert to float"],
  ["2 ** -(10**400)", "Error: int too large to convert to float"],
  ["10.0 ** 400", "Error: (34, 'Numerical result out of range')"],
  ["10**400/1", "Error: integer division result too large for a float"],
  ["()", "Error: float() argument must be a string or a real number, not 'tuple'"],
  ["...", "Error: float() argument must be a string or a real number, not 'ellipsis'"],
  ["(...)", "Error: float() argument must be a string or a real number, not 'ellipsis'"],
  ["(-8)**0.5", "Error: float() argument must be a string or a real number, not 'complex'"],
  ["(-8) ** (1/3)", "Error: float() argument must be a string or a real number, not 'complex'"],
  ["(-1)**0.5 - (-1)**0.5", "Error: float() argument must be a string or a real number, not 'complex'"],
  ["1/((-1)**0.5 - (-1)**0.5)", "Error: complex division by zero"],
  ["((-1)**0.5)//2", "Error: unsupported operand type(s) for //: 'complex' and 'int'"],
  ["(0*(-1)**0.5)**-1", "Error: 0.0 to a negative or complex power"],
  ["((-1)**0.5*10.0**308*10)**0.5", "Error: complex exponentiation"],
  ["(1)(2)", "Error: 'int' object is not callable"],
  ["1(2)", "Error: 'int' object is not callable"],
  ["(1)(2)(3)", "Error: 'int' object is not callable"],
  ["()()", "Error: 'tuple' object is not callable"],
  ["...()", "Error: 'ellipsis' object is not callable"],
  ["(1)(*())", "Error: 'int' object is not callable"],
  ["(1)(*1)", "Error: 1 argument after * must be an iterable, not int"],
  ["(1)(**1)", "Error: 1 argument after ** must be a mapping, not int"],
  ["(1)(**())", "Error: 1 argument after ** must be a mapping, not tuple"],
  ["(1.5)(*1)", "Error: 1.5 argument after * must be an iterable, not int"],
  ["()(*1)", "Error: () argument after * must be an iterable, not int"],
  ["(...)(*1)", "Error: Ellipsis argument after * must be an iterable, not int"],
  ["(2*(-1)**0.5)(*1)", "Error: (1.2246467991473532e-16+2j) argument after * must be an iterable, not int"],
  ["(-0.0-(-1)**0.5*0)(*1)", "Error: (-0+0j) argument after * must be an iterable, not int"],
  ["(1)(1/0)", "Error: division by zero"],
  ["(1/0)(1)", "Error: division by zero"],
  ["(10**5000)(*1)", "Error: Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"],
  ["-...", "Error: bad operand type for unary -: 'ellipsis'"],
  ["+()", "Error: bad operand type for unary +: 'tuple'"],
  ["1 + ...", "Error: unsupported operand type(s) for +: 'int' and 'ellipsis'"],
  ["1 + ()", "Error: unsupported operand type(s) for +: 'int' and 'tuple'"],
  ["() + 1", 'Error: can only concatenate tuple (not "int") to tuple'],
  ["() * ()", "Error: can't multiply sequence by non-int of type 'tuple'"],
  ["() * 2.0", "Error: can't multiply sequence by non-int of type 'float'"],
  ["() ** 2", "Error: unsupported operand type(s) for ** or pow(): 'tuple' and 'int'"],
  ["()*(2**63)", "Error: cannot fit 'int' into an index-sized integer"],
  ["", "Error: invalid syntax (<string>, line 0)"],
  ["1 2", "Error: invalid syntax (<string>, line 1)"],
  ["1.2.3", "Error: invalid syntax (<string>, line 1)"],
  ["1..2", "Error: invalid syntax (<string>, line 1)"],
  ["1 . 2", "Error: invalid syntax (<string>, line 1)"],
  ["....", "Error: invalid syntax (<string>, line 1)"],
  ["0 0", "Error: invalid syntax (<string>, line 1)"],
  ["1 +", "Error: invalid syntax (<string>, line 1)"],
  ["+", "Error: invalid syntax (<string>, line 1)"],
  ["/", "Error: invalid syntax (<string>, line 1)"],
  ["*1", "Error: invalid syntax (<string>, line 1)"],
  ["**1", "Error: invalid syntax (<string>, line 1)"],
  ["2 ** * 3", "Error: invalid syntax (<string>, line 1)"],
  ["1 // // 2", "Error: invalid syntax (<string>, line 1)"],
  ["(1+2", "Error: '(' was never closed (<string>, line 1)"],
  ["((((", "Error: '(' was never closed (<string>, line 1)"],
  ["(()", "Error: '(' was never closed (<string>, line 1)"],
  ["(1 2", "Error: '(' was never closed (<string>, line 1)"],
  ["))", "Error: unmatched ')' (<string>, line 1)"],
  ["())", "Error: unmatched ')' (<string>, line 1)"],
  [")(", "Error: unmatched ')' (<string>, line 1)"],
  ["1 2 )", "Error: unmatched ')' (<string>, line 1)"],
  ["(1 2)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["((1) 2)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["1 (2 3)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(1)(2 3)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(*1 2)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
  ["(1) 2", "Error: invalid syntax (<string>, line 1)"],
  ["(*1)", "Error: cannot use starred expression here (<string>, line 1)"],
  ["(**1)", "Error: cannot use double starred expression here (<string>, line 1)"],
  ["(1)(*)", "Error: invalid syntax (<string>, line 1)"],
  ["01 + 2", "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"],
  ["09", "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"],
  ["007", "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"],
  ["1 2 07", "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"],
  ["(1 2 07", "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"],
  ["(1 2) 07", "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"],
];

describe("calculate: CPython 3.11 reference table", () => {
  it.each(CPYTHON_TABLE)("%j → %j", (expression, expected) => {
    expect(calc(expression)).toBe(expected);
  });
});
