/**
 * Float floor division and power as Objects/floatobject.c does them, with its error texts.
 */
import { complexPower } from "./complex.ts";
import { float, pyError, type Value } from "./numbers.ts";
import { accuratePow } from "./pow.ts";

const isOddInteger = (x: number): boolean => Math.abs(x) % 2 === 1;
const copySign = (magnitude: number, sign: number): number => (sign < 0 || Object.is(sign, -0) ? -Math.abs(magnitude) : Math.abs(magnitude));

export function floatFloorDivide(vx: number, wx: number): number {
  if (wx === 0) throw pyError("ZeroDivisionError", "float floor division by zero");
  let mod = vx % wx;
  let div = (vx - mod) / wx;
  if (mod !== 0) {
    if (wx < 0 !== mod < 0) {
      mod += wx;
      div -= 1.0;
    }
  }
  if (div !== 0) {
    let floordiv = Math.floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
    return floordiv;
  }
  return copySign(0, vx / wx);
}

export function floatPower(iv: number, iw: number): Value {
  if (iw === 0) return float(1);
  if (Number.isNaN(iv)) return float(iv);
  if (Number.isNaN(iw)) return float(iv === 1 ? 1 : iw);
  if (!Number.isFinite(iw)) {
    const magnitude = Math.abs(iv);
    if (magnitude === 1) return float(1);
    return float(iw > 0 === magnitude > 1 ? Math.abs(iw) : 0);
  }
  if (!Number.isFinite(iv)) {
    const odd = isOddInteger(iw);
    if (iw > 0) return float(odd ? iv : Math.abs(iv));
    return float(odd ? copySign(0, iv) : 0);
  }
  if (iv === 0) {
    const odd = isOddInteger(iw);
    if (iw < 0) throw pyError("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    return float(odd ? iv : 0);
  }
  let negate = false;
  if (iv < 0) {
    if (iw !== Math.floor(iw)) {
      // A negative number to a fractional power is complex.
      const result = complexPower({ re: iv, im: 0 }, { re: iw, im: 0 });
      return { k: "complex", re: result.re, im: result.im };
    }
    iv = -iv;
    negate = isOddInteger(iw);
  }
  if (iv === 1) return float(negate ? -1 : 1);
  let ix = accuratePow(iv, iw);
  if (negate) ix = -ix;
  if (!Number.isFinite(ix)) throw pyError("OverflowError", "(34, 'Numerical result out of range')");
  return float(ix);
}
