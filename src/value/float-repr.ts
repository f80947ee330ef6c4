/**
 * Python `repr(float)` (CPython: Objects/floatobject.c, float_repr). Its own file because the value
 * model's `PyFloat.toString` and the printers both need it, and it needs nothing else.
 */

/** Python `repr(float)`: shortest round-trip digits, positional for 1e-4 ≤ |x| < 1e16, always a fractional part. */
export function pyFloatRepr(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (value === Infinity) return "inf";
  if (value === -Infinity) return "-inf";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const exponential = value.toExponential();
  const eIndex = exponential.indexOf("e");
  const exponent = Number(exponential.slice(eIndex + 1));
  if (exponent >= -4 && exponent < 16) {
    // In this range JavaScript's String() is positional with the same shortest digits.
    const text = String(value);
    return text.includes(".") ? text : `${text}.0`;
  }
  const mantissa = exponential.slice(0, eIndex);
  const sign = exponent < 0 ? "-" : "+";
  const magnitude = Math.abs(exponent);
  return `${mantissa}e${sign}${magnitude < 10 ? "0" : ""}${magnitude}`;
}
