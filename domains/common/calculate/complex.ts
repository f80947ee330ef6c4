/**
 * Complex arithmetic as Objects/complexobject.c does it (a negative number to a fractional power is
 * complex in Python 3), with its errno-based error texts.
 */
import { pyError, type Complex } from "./numbers.ts";
import { libmPow } from "./pow.ts";

export const EDOM = 33;
const ERANGE = 34;

export function complexProduct(a: Complex, b: Complex): Complex {
  return { re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re };
}

/** `_Py_c_quot` (Smith's algorithm); `errno.value` becomes EDOM for a zero divisor. */
export function complexQuotient(a: Complex, b: Complex, errno: { value: number }): Complex {
  const absReal = b.re < 0 ? -b.re : b.re;
  const absImag = b.im < 0 ? -b.im : b.im;
  if (absReal >= absImag) {
    if (absReal === 0) {
      errno.value = EDOM;
      return { re: 0, im: 0 };
    }
    const ratio = b.im / b.re;
    const denominator = b.re + b.im * ratio;
    return { re: (a.re + a.im * ratio) / denominator, im: (a.im - a.re * ratio) / denominator };
  }
  if (absImag >= absReal) {
    const ratio = b.re / b.im;
    const denominator = b.re * ratio + b.im;
    return { re: (a.re * ratio + a.im) / denominator, im: (a.im * ratio - a.re) / denominator };
  }
  return { re: NaN, im: NaN };
}

function complexPowerUnsigned(x: Complex, n: number): Complex {
  let result: Complex = { re: 1, im: 0 };
  let power = x;
  for (let mask = 1; mask > 0 && n >= mask; mask *= 2) {
    if (Math.floor(n / mask) % 2 === 1) result = complexProduct(result, power);
    power = complexProduct(power, power);
  }
  return result;
}

export function complexPower(a: Complex, b: Complex): Complex {
  const errno = { value: 0 };
  let result: Complex;
  if (b.im === 0 && b.re === Math.floor(b.re) && Math.abs(b.re) <= 100) {
    const n = b.re;
    result = n > 0 ? complexPowerUnsigned(a, n) : complexQuotient({ re: 1, im: 0 }, complexPowerUnsigned(a, -n), errno);
  } else if (b.re === 0 && b.im === 0) {
    result = { re: 1, im: 0 };
  } else if (a.re === 0 && a.im === 0) {
    if (b.im !== 0 || b.re < 0) errno.value = EDOM;
    result = { re: 0, im: 0 };
  } else {
    const vabs = Math.hypot(a.re, a.im);
    let length = libmPow(vabs, b.re);
    const angle = Math.atan2(a.im, a.re);
    let phase = angle * b.re;
    if (b.im !== 0) {
      length /= Math.exp(angle * b.im);
      phase += b.im * Math.log(vabs);
    }
    if (!Number.isFinite(phase) && !Number.isNaN(phase)) errno.value = EDOM; // cos/sin of ±inf
    result = { re: length * Math.cos(phase), im: length * Math.sin(phase) };
  }
  const infinite = (x: number): boolean => x === Infinity || x === -Infinity;
  if (infinite(result.re) || infinite(result.im)) {
    if (errno.value === 0) errno.value = ERANGE;
  } else if (errno.value === ERANGE) errno.value = 0;
  if (errno.value === EDOM) throw pyError("ZeroDivisionError", "0.0 to a negative or complex power");
  if (errno.value === ERANGE) throw pyError("OverflowError", "complex exponentiation");
  return result;
}
