/**
 * Exact IEEE-754 helpers for Python's correctly rounded float results (`round(x, n)`, `int / int`,
 * `**`): a double's exact mantissa and exponent, and a correctly rounded quotient of two big ints.
 * Not Python operations themselves, hence no `py` prefix.
 */

const SAFE = 1n << 53n;

/** The number of bits of |value| (`int.bit_length()`). */
export function bitLength(value: bigint): number {
  const magnitude = value < 0n ? -value : value;
  if (magnitude < SAFE) return magnitude === 0n ? 0 : Math.floor(Math.log2(Number(magnitude))) + 1;
  const hex = magnitude.toString(16);
  return (hex.length - 1) * 4 + Math.floor(Math.log2(parseInt(hex[0], 16))) + 1;
}

/** A positive finite double as mantissa · 2^exponent with an integer mantissa. */
export function decomposeDouble(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  return biased === 0 ? { mantissa: fraction, exponent: -1074 } : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** (n / d) · 2^shift for positive bigints, correctly rounded (ties to even, subnormals); Infinity on overflow. */
export function ratioToDouble(n: bigint, d: bigint, shift = 0): number {
  const e = bitLength(n) - bitLength(d);
  const above = e >= 0 ? n >= d << BigInt(e) : n << BigInt(-e) >= d;
  const exponent = (above ? e : e - 1) + shift; // floor(log2(value))
  if (exponent >= 1024) return Infinity;
  if (exponent <= -1076) return 0; // below half the smallest subnormal
  const lsb = Math.max(exponent - 52, -1074);
  const scale = lsb - shift; // quotient = floor(n / (d · 2^scale))
  const numerator = scale >= 0 ? n : n << BigInt(-scale);
  const denominator = scale >= 0 ? d << BigInt(scale) : d;
  let quotient = numerator / denominator;
  const twiceRemainder = (numerator - quotient * denominator) * 2n;
  if (twiceRemainder > denominator || (twiceRemainder === denominator && (quotient & 1n) === 1n)) quotient += 1n;
  if (lsb + bitLength(quotient) > 1024) return Infinity;
  return Number(quotient) * 2 ** lsb;
}

/** n / d for a non-negative n and positive d, rounded half to even to an integer. */
export function divideHalfEven(n: bigint, d: bigint): bigint {
  let quotient = n / d;
  const twiceRemainder = (n - quotient * d) * 2n;
  if (twiceRemainder > d || (twiceRemainder === d && (quotient & 1n) === 1n)) quotient += 1n;
  return quotient;
}
