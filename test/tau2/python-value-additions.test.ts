import { describe, expect, it } from "vitest";
import {
  PyException,
  pyAssertionError,
  pyDictGet,
  pyEnumCall,
  pyEnumRepr,
  pyEnumValue,
  pyEnumValues,
  pyFloat,
  pyFormatFixed,
  pyGetAttr,
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
