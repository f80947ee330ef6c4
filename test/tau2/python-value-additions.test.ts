import { describe, expect, it } from "vitest";
import {
  PyException,
  pyAssertionError,
  pyContains,
  pyDictGet,
  pyEnumCall,
  pyEnumRepr,
  pyEnumValue,
  pyEnumValues,
  pyFloat,
  pyFormatFixed,
  pyGetAttr,
  pyHasAttr,
  pyJoin,
  pyModelSchema,
  pyModelValidate,
  pySetAttr,
  pySliceIndex,
  pySorted,
  pyStartsWith,
  pyStrEnum,
  pyT,
} from "../../src/value/index.ts";

const message = (action: () => unknown): string => {
  try {
    action();
  } catch (error) {
    if (PyException.isInstance(error)) return `${error.pythonType}: ${error.message}`;
    throw error;
  }
  return "did not raise";
};

// Expected texts from CPython 3.11 / pydantic 2 (f"{x:.2f}", Enum, getattr/setattr, dict.get, sorted, slices).
describe("Python's .Nf format (pyFormatFixed)", () => {
  it("rounds the exact binary value half to even, as CPython does", () => {
    expect(pyFormatFixed(pyFloat(0.125), 2)).toBe("0.12");
    expect(pyFormatFixed(pyFloat(0.375), 2)).toBe("0.38");
    expect(pyFormatFixed(pyFloat(2.675), 2)).toBe("2.67");
    expect(pyFormatFixed(pyFloat(22.000000000000004), 2)).toBe("22.00");
    expect(pyFormatFixed(pyFloat(-0.001), 2)).toBe("-0.00");
    expect(pyFormatFixed(pyFloat(1e22), 2)).toBe("10000000000000000000000.00");
    expect(pyFormatFixed(pyFloat(Number.NaN), 2)).toBe("nan");
    expect(pyFormatFixed(pyFloat(Number.NEGATIVE_INFINITY), 2)).toBe("-inf");
  });

  it("formats ints and bools as floats and refuses other types with Python's errors", () => {
    expect(pyFormatFixed(5, 2)).toBe("5.00");
    expect(pyFormatFixed(true, 2)).toBe("1.00");
    expect(() => pyFormatFixed("x", 2)).toThrow(PyException);
    expect(() => pyFormatFixed("x", 2)).toThrow("Unknown format code 'f' for object of type 'str'");
    expect(() => pyFormatFixed(null, 2)).toThrow("unsupported format string passed to NoneType.__format__");
  });
});

describe("str Enum classes (pyStrEnum)", () => {
  const Level = pyStrEnum("PerformanceLevel", { UNKNOWN: "unknown", POOR: "poor" });

  it("looks members up by value, prints their repr and refuses unknown values as Python does", () => {
    expect(pyEnumValues(Level)).toEqual(["unknown", "poor"]);
    expect(pyEnumCall(Level, "poor")).toBe("poor");
    expect(message(() => pyEnumCall(Level, "bad"))).toBe("ValueError: 'bad' is not a valid PerformanceLevel");
    expect(message(() => pyEnumCall(Level, 5))).toBe("ValueError: 5 is not a valid PerformanceLevel");
    expect(pyEnumRepr(Level, "poor")).toBe("<PerformanceLevel.POOR: 'poor'>");
    expect(pyEnumValue("poor")).toBe("poor");
    expect(message(() => pyEnumValue(3))).toBe("AttributeError: 'int' object has no attribute 'value'");
  });

  it("validates as a pydantic enum field", () => {
    const schema = pyModelSchema("Vpn", [["level", Level.type]]);
    expect(message(() => pyModelValidate(schema, new Map([["level", "bogus"]])))).toContain("Input should be 'unknown' or 'poor' [type=enum");
  });
});

describe("attribute access, dict.get, sorted(key, reverse), slice bounds, startswith, assert", () => {
  const schema = pyModelSchema("AppPermissions", [["sms", pyT.bool, () => false]]);

  it("reads and writes model fields without validation, with Python's and pydantic's errors otherwise", () => {
    const model = pyModelValidate(schema, new Map());
    pySetAttr(model, "sms", "yes");
    expect(pyGetAttr(model, "sms")).toBe("yes");
    expect(message(() => pyGetAttr(model, "phone"))).toBe("AttributeError: 'AppPermissions' object has no attribute 'phone'");
    expect(message(() => pyGetAttr("internet", "apn_name"))).toBe("AttributeError: 'str' object has no attribute 'apn_name'");
    expect(message(() => pySetAttr(model, "copy", false))).toBe('ValueError: "AppPermissions" object has no field "copy"');
    expect(message(() => pySetAttr(null, "x", 1))).toBe("AttributeError: 'NoneType' object has no attribute 'x'");
  });

  it("dict.get finds str keys, misses other hashables, and raises for unhashable keys", () => {
    const dict = new Map([["a", 1]]);
    expect(pyDictGet(dict, "a")).toBe(1);
    expect(pyDictGet(dict, 7, "none")).toBe("none");
    expect(pyDictGet(dict, "b")).toBe(null);
    expect(message(() => pyDictGet(dict, ["x"]))).toBe("TypeError: unhashable type: 'list'");
    expect(message(() => pyDictGet("text", "a"))).toBe("AttributeError: 'str' object has no attribute 'get'");
  });

  it("sorted(key=..., reverse=True) keeps equal keys in their original order", () => {
    const items = [
      new Map<string, number | string>([
        ["k", 1],
        ["id", "a"],
      ]),
      new Map<string, number | string>([
        ["k", 2],
        ["id", "b"],
      ]),
      new Map<string, number | string>([
        ["k", 1],
        ["id", "c"],
      ]),
    ];
    const ids = (list: unknown[]) => list.map((item) => (item as Map<string, unknown>).get("id"));
    expect(ids(pySorted(items, { key: (item) => (item as Map<string, number>).get("k") as number, reverse: true }))).toEqual(["b", "a", "c"]);
    expect(ids(pySorted(items, { key: (item) => (item as Map<string, number>).get("k") as number }))).toEqual(["a", "c", "b"]);
  });

  it("takes slice bounds as Python does", () => {
    expect(pySliceIndex(null)).toBe(undefined);
    expect(pySliceIndex(true)).toBe(1);
    expect(pySliceIndex(-1)).toBe(-1);
    expect(message(() => pySliceIndex("2"))).toBe("TypeError: slice indices must be integers or None or have an __index__ method");
    expect(message(() => pySliceIndex(pyFloat(2)))).toBe("TypeError: slice indices must be integers or None or have an __index__ method");
  });

  it("str.startswith and a bare assert", () => {
    expect(pyStartsWith("L1002", "L")).toBe(true);
    expect(message(() => pyStartsWith(5, "L"))).toBe("AttributeError: 'int' object has no attribute 'startswith'");
    expect(
      message(() => {
        throw pyAssertionError();
      }),
    ).toBe("AssertionError: ");
  });
});

// What a model's wrong-typed tool arguments meet in τ³'s tools (type_probes_banking_knowledge.json):
// `":".join` of id seeds, `hasattr(Class, name)`, and `name in dict` with a list or dict name.
describe("str.join, hasattr/getattr names and dict membership (wrong-typed arguments)", () => {
  it("joins strs and names the first non-str item with its index and type (pyJoin)", () => {
    expect(pyJoin(":", ["referral", "76ad9cc60e", "Platinum Rewards Card"])).toBe("referral:76ad9cc60e:Platinum Rewards Card");
    expect(pyJoin(":", [])).toBe("");
    expect(pyJoin(":", "abc")).toBe("a:b:c");
    expect(
      pyJoin(
        ":",
        new Map([
          ["x", 1],
          ["y", 2],
        ]),
      ),
    ).toBe("x:y");
    expect(message(() => pyJoin(":", ["referral", ["76ad9cc60e"], "x"]))).toBe("TypeError: sequence item 1: expected str instance, list found");
    expect(message(() => pyJoin(":", ["a", null]))).toBe("TypeError: sequence item 1: expected str instance, NoneType found");
    expect(message(() => pyJoin(":", ["a", 7, "b"]))).toBe("TypeError: sequence item 1: expected str instance, int found");
    expect(message(() => pyJoin(":", ["a", pyFloat(1.5)]))).toBe("TypeError: sequence item 1: expected str instance, float found");
    expect(message(() => pyJoin(":", ["a", true]))).toBe("TypeError: sequence item 1: expected str instance, bool found");
    expect(message(() => pyJoin(":", ["a", new Map([["v", 1]])]))).toBe("TypeError: sequence item 1: expected str instance, dict found");
    expect(message(() => pyJoin(":", 7))).toBe("TypeError: can only join an iterable");
    expect(message(() => pyJoin(":", null))).toBe("TypeError: can only join an iterable");
  });

  it("requires a str attribute name before any lookup (pyHasAttr, pyGetAttr)", () => {
    const attributes = new Map([["get_referral_link", {}]]);
    expect(pyHasAttr(attributes, "get_referral_link")).toBe(true);
    expect(pyHasAttr(attributes, "missing")).toBe(false);
    expect(message(() => pyHasAttr(attributes, ["get_referral_link"]))).toBe("TypeError: attribute name must be string, not 'list'");
    expect(message(() => pyHasAttr(attributes, null))).toBe("TypeError: attribute name must be string, not 'NoneType'");
    expect(message(() => pyHasAttr(attributes, 7))).toBe("TypeError: attribute name must be string, not 'int'");
    expect(message(() => pyHasAttr(attributes, pyFloat(1.5)))).toBe("TypeError: attribute name must be string, not 'float'");
    expect(message(() => pyHasAttr(attributes, true))).toBe("TypeError: attribute name must be string, not 'bool'");
    expect(message(() => pyHasAttr(attributes, new Map([["a", 1]])))).toBe("TypeError: attribute name must be string, not 'dict'");
    const Point = pyModelSchema("Point", [["x", pyT.int]]);
    expect(message(() => pyGetAttr(pyModelValidate(Point, new Map([["x", 1]])), null))).toBe("TypeError: attribute name must be string, not 'NoneType'");
  });

  it("tests dict membership by hash: unhashable names raise, other non-strs are not found (pyContains)", () => {
    const tools = new Map([["get_referral_link", {}]]);
    expect(pyContains(tools, "get_referral_link")).toBe(true);
    expect(pyContains(tools, 7)).toBe(false);
    expect(pyContains(tools, null)).toBe(false);
    expect(message(() => pyContains(tools, ["get_referral_link"]))).toBe("TypeError: unhashable type: 'list'");
    expect(message(() => pyContains(tools, new Map([["a", 1]])))).toBe("TypeError: unhashable type: 'dict'");
    expect(message(() => pyDictGet(new Map([["x", 1]]), ["x"]))).toBe("TypeError: unhashable type: 'list'");
  });
});
