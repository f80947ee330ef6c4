/**
 * Int arithmetic as Objects/longobject.c does it: exact (BigInt) up to `MAX_EXACT_BITS` bits, and
 * beyond that an "inexact" int (sign, parity, log2 bounds) that still gives CPython's answer in the
 * usual cases; correctly rounded `int / int`.
 */
import { bitLength, ratioToDouble } from "../../../src/value/index.ts";
import { floatPower } from "./floats.ts";
import { MAX_EXACT_BITS } from "./limits.ts";
import { inexactDivergence, int, overflowToFloat, pyError, type InexactInt, type IntValue, type Value } from "./numbers.ts";

const EXACT_LIMIT = 1n << BigInt(MAX_EXACT_BITS);
const INDEX_MIN = -(1n << 63n);
const INDEX_MAX = (1n << 63n) - 1n;
const SAFE = 1n << 53n;
const EPSILON = 1e-6;

/** log2 |value| for a nonzero bigint, to about 1e-15 relative. */
export function log2Of(value: bigint): number {
  const magnitude = value < 0n ? -value : value;
  const bits = bitLength(magnitude);
  if (bits <= 1000) return Math.log2(Number(magnitude));
  return bits - 60 + Math.log2(Number(magnitude >> BigInt(bits - 60)));
}

/** An exact int, or an inexact one once it passes {@link MAX_EXACT_BITS}. */
function makeInt(value: bigint): IntValue {
  if (value > -EXACT_LIMIT && value < EXACT_LIMIT) return { k: "int", v: value };
  const bits = bitLength(value);
  return inexact(value < 0n ? -1 : 1, bits - 1, bits, (value & 1n) === 1n);
}

function inexact(sign: -1 | 0 | 1, lo: number, hi: number, odd: boolean | null): InexactInt {
  return { k: "inexact", sign, lo, hi, odd };
}

interface Bounds {
  readonly sign: -1 | 0 | 1;
  readonly lo: number;
  readonly hi: number;
  readonly odd: boolean | null;
}

/** Bounds of a nonzero int. */
function bounds(value: IntValue): Bounds {
  if (value.k === "inexact") return value;
  const log = log2Of(value.v);
  return { sign: value.v < 0n ? -1 : 1, lo: log - EPSILON, hi: log + EPSILON, odd: (value.v & 1n) === 1n };
}

const isZero = (value: IntValue): boolean => value.k === "int" && value.v === 0n;

/** `PyLong_AsDouble`: correctly rounded, OverflowError beyond the double range. */
export function toDouble(value: IntValue | Extract<Value, { k: "float" }>): number {
  if (value.k === "float") return value.v;
  if (value.k === "inexact") {
    if (value.lo >= 1024) throw overflowToFloat();
    throw inexactDivergence();
  }
  const result = Number(value.v);
  if (!Number.isFinite(result)) throw overflowToFloat();
  return result;
}

function mulSign(a: -1 | 0 | 1, b: -1 | 0 | 1): -1 | 0 | 1 {
  return (a * b) as -1 | 0 | 1;
}

export function intAdd(a: IntValue, b: IntValue): IntValue {
  if (a.k === "int" && b.k === "int") return makeInt(a.v + b.v);
  if (isZero(a)) return b;
  if (isZero(b)) return a;
  const x = bounds(a);
  const y = bounds(b);
  if (x.sign === 0 || y.sign === 0) throw inexactDivergence();
  const odd = x.odd === null || y.odd === null ? null : x.odd !== y.odd;
  if (x.sign === y.sign) return inexact(x.sign, Math.max(x.lo, y.lo), Math.max(x.hi, y.hi) + 1, odd);
  // Opposite signs: the larger magnitude must dominate for the result to be known.
  const [big, small] = x.lo > y.hi ? [x, y] : y.lo > x.hi ? [y, x] : [undefined, undefined];
  if (!big || !small) throw inexactDivergence();
  const lo = big.lo + Math.log2(1 - Math.pow(2, small.hi - big.lo)) - EPSILON;
  if (!(lo > 64)) throw inexactDivergence();
  return inexact(big.sign, lo, big.hi, odd);
}

export function intNeg(a: IntValue): IntValue {
  if (a.k === "int") return makeInt(-a.v);
  return inexact(mulSign(a.sign, -1), a.lo, a.hi, a.odd);
}

export function intMul(a: IntValue, b: IntValue): IntValue {
  if (isZero(a) || isZero(b)) return { k: "int", v: 0n };
  if (a.k === "int" && b.k === "int") {
    const bits = bitLength(a.v) + bitLength(b.v);
    if (bits - 2 < MAX_EXACT_BITS) return makeInt(a.v * b.v);
  }
  const x = bounds(a);
  const y = bounds(b);
  const odd = x.odd === false || y.odd === false ? false : x.odd === true && y.odd === true ? true : null;
  return inexact(mulSign(x.sign, y.sign), x.lo + y.lo, x.hi + y.hi, odd);
}

/** int / int: correctly rounded, like `long_true_divide`. */
export function intTrueDivide(a: IntValue, b: IntValue): number {
  if (isZero(b)) throw pyError("ZeroDivisionError", "division by zero");
  if (a.k === "int" && b.k === "int") {
    const negative = a.v < 0n !== b.v < 0n;
    const n = a.v < 0n ? -a.v : a.v;
    const d = b.v < 0n ? -b.v : b.v;
    if (n === 0n) return negative ? -0 : 0;
    if (n <= SAFE && d <= SAFE) return Number(a.v) / Number(b.v);
    const magnitude = ratioToDouble(n, d);
    if (magnitude === Infinity) throw pyError("OverflowError", "integer division result too large for a float");
    return negative ? -magnitude : magnitude;
  }
  const y = bounds(b);
  if (isZero(a)) {
    if (y.sign === 0) throw inexactDivergence();
    return y.sign < 0 ? -0 : 0;
  }
  const x = bounds(a);
  if (x.lo - y.hi > 1025) throw pyError("OverflowError", "integer division result too large for a float");
  if (x.hi - y.lo < -1080) {
    const sign = mulSign(x.sign, y.sign);
    if (sign === 0) throw inexactDivergence();
    return sign < 0 ? -0 : 0;
  }
  throw inexactDivergence();
}

/** n / d (both positive) rounded to the nearest double, ties to even, with subnormals; Infinity on overflow. */

export function intFloorDivide(a: IntValue, b: IntValue): IntValue {
  if (isZero(b)) throw pyError("ZeroDivisionError", "integer division or modulo by zero");
  if (a.k === "int" && b.k === "int") {
    const quotient = a.v / b.v;
    const adjust = a.v % b.v !== 0n && a.v < 0n !== b.v < 0n;
    return makeInt(adjust ? quotient - 1n : quotient);
  }
  if (isZero(a)) return { k: "int", v: 0n };
  const x = bounds(a);
  const y = bounds(b);
  const sign = mulSign(x.sign, y.sign);
  if (x.hi < y.lo) {
    // |a| < |b|: 0 for the same signs, -1 otherwise.
    if (sign === 0) throw inexactDivergence();
    return { k: "int", v: sign > 0 ? 0n : -1n };
  }
  const lo = x.lo - y.hi - EPSILON;
  if (lo > MAX_EXACT_BITS) return inexact(sign, lo, x.hi - y.lo + 1, null);
  throw inexactDivergence();
}

export function intPower(a: IntValue, b: IntValue): Value {
  const exponentSign = b.k === "int" ? (b.v < 0n ? -1 : b.v > 0n ? 1 : 0) : b.sign;
  if (b.k === "inexact" && b.sign === 0) throw inexactDivergence();
  if (exponentSign < 0) {
    // A negative exponent makes it float ** float (both converted, base first).
    return floatPower(toDouble(a), toDouble(b));
  }
  if (isZero(b)) return int(1n);
  if (a.k === "int") {
    if (a.v === 0n || a.v === 1n) return a;
    if (a.v === -1n) {
      const odd = b.k === "int" ? (b.v & 1n) === 1n : b.odd;
      if (odd === null) throw inexactDivergence();
      return int(odd ? -1n : 1n);
    }
    if (b.k === "int") {
      const estimate = Number(b.v) * log2Of(a.v);
      if (estimate * (1 - 1e-12) - EPSILON < MAX_EXACT_BITS) return makeInt(a.v ** b.v);
      const odd = (a.v & 1n) === 1n;
      const sign = a.v < 0n && (b.v & 1n) === 1n ? -1 : 1;
      return inexact(sign, estimate * (1 - 1e-12) - EPSILON, estimate * (1 + 1e-12) + EPSILON, odd);
    }
  }
  const x = bounds(a);
  const exponentLo = b.k === "int" ? Number(b.v) : Math.pow(2, b.lo);
  const exponentHi = b.k === "int" ? Number(b.v) : Math.pow(2, b.hi);
  const exponentOdd = b.k === "int" ? (b.v & 1n) === 1n : b.odd;
  const sign: -1 | 0 | 1 = x.sign > 0 ? 1 : x.sign < 0 ? (exponentOdd === null ? 0 : exponentOdd ? -1 : 1) : exponentOdd === false ? 1 : 0;
  return inexact(sign, exponentLo * x.lo, exponentHi * x.hi, x.odd);
}

export function intIndex(value: IntValue): void {
  if (value.k === "inexact" || value.v < INDEX_MIN || value.v > INDEX_MAX) {
    throw pyError("OverflowError", "cannot fit 'int' into an index-sized integer");
  }
}
