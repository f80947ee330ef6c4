/**
 * Python's fixed-point format spec (`f"{x:.2f}"`, `"%.2f" % x`), which τ² tools use for money
 * and speeds. JavaScript's `toFixed` rounds ties away from zero; Python rounds the exact binary
 * value half to even (`f"{0.125:.2f}"` is `0.12`), so the digits come from `round` first.
 */
import { pyRound } from "./arithmetic.ts";
import { pyTypeError, pyValueError } from "./errors.ts";
import { PyFloat, asPyNumber, pyTypeName, type PyValue } from "./values.ts";

/** `format(value, f".{digits}f")` for an int, bool or float; other types raise Python's TypeError. */
export function pyFormatFixed(value: PyValue | undefined, digits: number): string {
  const number = asPyNumber(value);
  if (number === undefined || typeof value === "boolean") {
    if (typeof value === "boolean") return pyFormatFixed(value ? 1 : 0, digits);
    if (typeof value === "string") throw pyValueError("Unknown format code 'f' for object of type 'str'");
    throw pyTypeError(`unsupported format string passed to ${pyTypeName(value)}.__format__`);
  }
  const x = number instanceof PyFloat ? number.value : Number(number);
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const rounded = (pyRound(new PyFloat(x), digits) as PyFloat).value;
  const sign = rounded < 0 || Object.is(rounded, -0) || x < 0 ? "-" : "";
  const magnitude = Math.abs(rounded);
  if (magnitude < 1e21) return sign + magnitude.toFixed(digits);
  return `${sign}${BigInt(magnitude).toString()}${digits > 0 ? `.${"0".repeat(digits)}` : ""}`;
}
