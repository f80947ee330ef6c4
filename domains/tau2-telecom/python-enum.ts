/**
 * Python `str, Enum` classes of the telecom models. A member is held as its value (a str), which is
 * what it dumps as and compares equal to; the class keeps the member names for the one place the
 * original prints a member's repr (`<PerformanceLevel.POOR: 'poor'>` inside `check_vpn_status`)
 * and the `ValueError` that `Enum(value)` raises for an unknown value.
 */
import { type PyFieldType, type PyValue, pyRepr, pyT, pyValueError } from "../../src/value/index.ts";

export interface PyStrEnum {
  name: string;
  /** Member name → value, in definition order. */
  members: Readonly<Record<string, string>>;
  /** The pydantic field type of a field annotated with this enum. */
  type: PyFieldType;
}

export function pyStrEnum(name: string, members: Record<string, string>): PyStrEnum {
  return { name, members, type: pyT.enumOf(name, Object.values(members)) };
}

/** The member values in definition order (`[m.value for m in Enum]`). */
export function enumValues(enumClass: PyStrEnum): string[] {
  return Object.values(enumClass.members);
}

/** `Enum(value)`: the member (its value), or `ValueError: <repr> is not a valid <Name>`. */
export function enumLookup(enumClass: PyStrEnum, value: PyValue | undefined): string {
  if (typeof value === "string" && enumValues(enumClass).includes(value)) return value;
  throw pyValueError(`${pyRepr(value)} is not a valid ${enumClass.name}`);
}

/** `repr(member)` (`<PerformanceLevel.POOR: 'poor'>`); a value that is not a member prints as its own repr. */
export function enumRepr(enumClass: PyStrEnum, value: PyValue | undefined): string {
  const member = Object.entries(enumClass.members).find(([, memberValue]) => memberValue === value);
  return member ? `<${enumClass.name}.${member[0]}: ${pyRepr(member[1])}>` : pyRepr(value);
}
