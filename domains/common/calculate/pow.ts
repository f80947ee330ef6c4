/**
 * Correctly rounded `pow` for floats: C's `pow(x, y)` as glibc computes it, which V8's `Math.pow`
 * does not match for large results. Exact for integral exponents up to 2048, 192-bit fixed-point
 * logarithm and exponential otherwise.
 */
import { bitLength, decomposeDouble, ratioToDouble } from "../../../src/value/index.ts";

/**
 * C `pow(x, y)` for the cases `float_pow` leaves to libm: x > 0, x ≠ 1, both finite, y ≠ 0.
 * CPython gets glibc's pow, which is correctly rounded in all but rare near-halfway cases; V8's
 * `Math.pow` can be hundreds of ulps off for large results. So this computes the correctly rounded
 * value: exactly for integral exponents up to 2048 (x^n = m^n · 2^(e·n) with BigInt), and with
 * 192-bit fixed-point logarithm and exponential otherwise.
 */
export function accuratePow(x: number, y: number): number {
  const { mantissa, exponent } = decomposeDouble(x);
  if (Number.isInteger(y) && Math.abs(y) <= 2048) {
    const power = mantissa ** BigInt(Math.abs(y));
    return y > 0 ? ratioToDouble(power, 1n, exponent * y) : ratioToDouble(1n, power, exponent * y);
  }
  const t = multiplyByDouble(lnFixed(mantissa, exponent), y);
  if (t > 800n * FIXED_ONE) return Infinity;
  if (t < -800n * FIXED_ONE) return 0;
  return expFixed(t);
}

/** pow() as the complex code calls it: any inputs (the special cases are IEEE's, like C's). */
export function libmPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (x > 0 && Number.isFinite(x) && Number.isFinite(y)) return accuratePow(x, y);
  return Math.pow(x, y);
}

const FIXED_BITS = 192n;
const FIXED_ONE = 1n << FIXED_BITS;
let fixedLn2: bigint | undefined;

/** ln 2 as a fixed-point number (2·atanh(1/3)). */
function ln2Fixed(): bigint {
  if (fixedLn2 === undefined) {
    let term = FIXED_ONE / 3n;
    let sum = 0n;
    for (let k = 1n; term > 0n; k += 2n) {
      sum += term / k;
      term /= 9n;
    }
    fixedLn2 = 2n * sum;
  }
  return fixedLn2;
}

/** A positive finite double as mantissa · 2^exponent with an integer mantissa. */

/** ln(mantissa · 2^exponent) in fixed point. */
function lnFixed(mantissa: bigint, exponent: number): bigint {
  const bits = bitLength(mantissa);
  let e = exponent + bits - 1;
  // m in [1, 2) as fixed point, then moved to [√½, √2) for a fast atanh series.
  let m = (mantissa << FIXED_BITS) >> BigInt(bits - 1);
  if (m * m > 2n * FIXED_ONE * FIXED_ONE) {
    m >>= 1n;
    e += 1;
  }
  const s = ((m - FIXED_ONE) << FIXED_BITS) / (m + FIXED_ONE);
  const s2 = (s * s) / FIXED_ONE;
  let sum = 0n;
  let term = s;
  for (let k = 1n; term !== 0n; k += 2n) {
    sum += term / k;
    term = (term * s2) / FIXED_ONE; // truncates towards zero, so the series ends for negative s
  }
  return 2n * sum + BigInt(e) * ln2Fixed();
}

/** fixed · y for a double y, exactly up to the final truncation. */
function multiplyByDouble(fixed: bigint, y: number): bigint {
  const { mantissa, exponent } = decomposeDouble(Math.abs(y));
  const product = fixed * mantissa;
  const scaled = exponent >= 0 ? product << BigInt(exponent) : product >> BigInt(-exponent);
  return y < 0 ? -scaled : scaled;
}

/** e^t for a fixed-point t (|t| ≤ 800), rounded to a double. */
function expFixed(t: bigint): number {
  const ln2 = ln2Fixed();
  let k = t / ln2;
  let r = t - k * ln2;
  const half = ln2 / 2n;
  if (r > half) {
    r -= ln2;
    k += 1n;
  } else if (r < -half) {
    r += ln2;
    k -= 1n;
  }
  let sum = FIXED_ONE;
  let term = FIXED_ONE;
  for (let n = 1n; term !== 0n; n += 1n) {
    term = (term * r) / FIXED_ONE / n;
    sum += term;
  }
  return ratioToDouble(sum, 1n, Number(k) - Number(FIXED_BITS));
}
