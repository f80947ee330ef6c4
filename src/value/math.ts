/**
 * Python's `math.log` of a float. CPython calls the C library's `log`; glibc's is accurate to about
 * half an ulp and gives the correctly rounded result for the arguments τ³'s BM25 index uses
 * (`k + 0.5` for every `k` up to 20000: checked against CPython 3.11 on glibc). V8's `Math.log`
 * is not: it is off by one ulp for 70 of those (e.g. `Math.log(23.5)`), which would change BM25
 * scores in their last bit. So the logarithm is computed here in 160-bit fixed point and rounded
 * once, half to even.
 */
import { pyValueError } from "./errors.ts";
import { bitLength, decomposeDouble, ratioToDouble } from "./float-bits.ts";

const PRECISION = 160n;
const ONE = 1n << PRECISION;

/** atanh(s) for a fixed-point |s| < 1/2: the series s + s³/3 + s⁵/5 + … (each term ~5 bits smaller here). */
function atanhFixed(s: bigint): bigint {
  if (s < 0n) return -atanhFixed(-s);
  const square = (s * s) >> PRECISION;
  let power = s;
  let sum = 0n;
  for (let denominator = 1n; power !== 0n; denominator += 2n) {
    sum += power / denominator;
    power = (power * square) >> PRECISION;
  }
  return sum;
}

let ln2: bigint | undefined;

/** ln 2 = 2·atanh(1/3), fixed point. */
function ln2Fixed(): bigint {
  ln2 ??= 2n * atanhFixed(ONE / 3n);
  return ln2;
}

/**
 * `math.log(x)` for a float `x`: ValueError `math domain error` at or below zero, `nan` for NaN,
 * `inf` for infinity, otherwise ln(x) correctly rounded.
 */
export function pyMathLog(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x <= 0) throw pyValueError("math domain error");
  if (x === Number.POSITIVE_INFINITY) return x;
  const { mantissa, exponent } = decomposeDouble(x);
  // x = m · 2^e with m = mantissa / 2^k in [1/√2, √2): ln x = e·ln 2 + 2·atanh((m − 1) / (m + 1)).
  let k = BigInt(bitLength(mantissa) - 1);
  if (mantissa * mantissa > 2n << (2n * k)) k += 1n;
  const e = BigInt(exponent) + k;
  const unit = 1n << k;
  const s = ((mantissa - unit) << PRECISION) / (mantissa + unit);
  const result = e * ln2Fixed() + 2n * atanhFixed(s);
  if (result === 0n) return 0;
  return result > 0n ? ratioToDouble(result, 1n, -Number(PRECISION)) : -ratioToDouble(-result, 1n, -Number(PRECISION));
}
