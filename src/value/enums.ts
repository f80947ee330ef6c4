/**
 * Python `str, Enum` classes, as pydantic models use them for fields. A member is held as its value
 * (a str): that is what it dumps as, what it compares equal to, and what `.value` gives. The class
 * keeps its member names for the two places a member's identity shows: `repr(member)`
 * (`<PerformanceLevel.POOR: 'poor'>`, e.g. inside a printed dict) and the `ValueError` of
 * `Enum(value)` for an unknown value.
 */
import { pyAttributeError, pyValueError } from "./errors.ts";
import { pyRepr } from "./printing.ts";
import type { PyFieldType } from "./pydantic.ts";
import type { PyValue } from "./values.ts";

export interface PyStrEnum {
  name: string;
  /** Member name → value, in definition order. */
  members: Readonly<Record<string, string>>;
  /** The pydantic field type of a field annotated with this enum. */
  type: PyFieldType;
}

/** Declares `class <name>(str, Enum)` with its members (`{ POOR: "poor", … }`). */
export function pyStrEnum(name: string, members: Record<string, string>): PyStrEnum {
  return { name, members, type: { kind: "enum", name, values: Object.values(members) } };
}

/** `[member.value for member in Enum]`. */
export function pyEnumValues(enumClass: PyStrEnum): string[] {
  return Object.values(enumClass.members);
}

/** `Enum(value)`: the member, or `ValueError: <repr> is not a valid <Name>`. */
export function pyEnumCall(enumClass: PyStrEnum, value: PyValue | undefined): string {
  if (typeof value === "string" && pyEnumValues(enumClass).includes(value)) return value;
  throw pyValueError(`${pyRepr(value)} is not a valid ${enumClass.name}`);
}

/** `member.value`; a field that holds something else (assignments are not validated) has no `.value`. */
export function pyEnumValue(value: PyValue | undefined): string {
  if (typeof value === "string") return value;
  throw pyAttributeError(value, "value");
}

/** `repr(member)` (`<PerformanceLevel.POOR: 'poor'>`); a value that is not a member prints as its own repr. */
export function pyEnumRepr(enumClass: PyStrEnum, value: PyValue | undefined): string {
  const member = Object.entries(enumClass.members).find(([, memberValue]) => memberValue === value);
  return member ? `<${enumClass.name}.${member[0]}: ${pyRepr(member[1])}>` : pyRepr(value);
}
