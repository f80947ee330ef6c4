/**
 * Step 2c of `calculate`: evaluation of the parsed expression with CPython's number semantics and
 * operator dispatch (Objects/abstract.c), and the final `float()` of the result.
 */
import { pyFloatRepr, type PyException } from "../../../src/value/index.ts";
import { complexPower, complexProduct, complexQuotient, EDOM } from "./complex.ts";
import { floatFloorDivide, floatPower } from "./floats.ts";
import { intAdd, intFloorDivide, intIndex, intMul, intNeg, intPower, intTrueDivide, toDouble } from "./integers.ts";
import { INT_MAX_STR_DIGITS } from "./limits.ts";
import { float, inexactDivergence, int, pyError, typeName, unsupported, type Complex, type IntValue, type Value } from "./numbers.ts";
import type { BinaryOperator, Expr } from "./parser.ts";

const STR_DIGITS_LIMIT = 10n ** BigInt(INT_MAX_STR_DIGITS);
const LOG2_STR_DIGITS_LIMIT = INT_MAX_STR_DIGITS * Math.log2(10);

export function evaluate(node: Expr): Value {
  switch (node.t) {
    case "int":
      return int(node.value);
    case "float":
      return float(node.value);
    case "ellipsis":
      return { k: "ellipsis" };
    case "tuple":
      return { k: "tuple" };
    case "unary":
      return unary(node.op, evaluate(node.operand));
    case "binary": {
      const left = evaluate(node.left);
      const right = evaluate(node.right);
      return binary(node.op, left, right);
    }
    case "call":
      return call(node);
    case "starred":
      // Only reachable inside a call, handled there.
      throw pyError("SyntaxError", "can't use starred expression here");
  }
}

function call(node: Extract<Expr, { t: "call" }>): Value {
  const func = evaluate(node.func);
  const argument = node.argument;
  if (argument) {
    const value = evaluate(argument.value);
    if (argument.kind === "star" && value.k !== "tuple") {
      throw pyError("TypeError", `${pyStrForMessage(func)} argument after * must be an iterable, not ${typeName(value)}`);
    }
    if (argument.kind === "double-star") {
      throw pyError("TypeError", `${pyStrForMessage(func)} argument after ** must be a mapping, not ${typeName(value)}`);
    }
  }
  throw pyError("TypeError", `'${typeName(func)}' object is not callable`);
}

/** `str(x)` as `_PyObject_FunctionStr` uses it in call error messages. */
function pyStrForMessage(value: Value): string {
  switch (value.k) {
    case "int": {
      const magnitude = value.v < 0n ? -value.v : value.v;
      if (magnitude >= STR_DIGITS_LIMIT) throw strDigitsError();
      return value.v.toString();
    }
    case "inexact":
      if (value.lo >= LOG2_STR_DIGITS_LIMIT) throw strDigitsError();
      throw inexactDivergence();
    case "float":
      return pyFloatRepr(value.v);
    case "complex":
      return complexRepr(value);
    case "tuple":
      return "()";
    case "ellipsis":
      return "Ellipsis";
  }
}

function strDigitsError(): PyException {
  return pyError("ValueError", `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit`);
}

/** `repr(complex)`: `1j`, `(1+2j)`, `(-0+0j)`; parts use the float repr without a forced `.0`. */
function complexRepr(value: Complex): string {
  const part = (x: number): string => {
    const text = pyFloatRepr(x);
    return text.endsWith(".0") ? text.slice(0, -2) : text;
  };
  if (value.re === 0 && !Object.is(value.re, -0)) return `${part(value.im)}j`;
  const imaginary = part(value.im);
  const signed = imaginary.startsWith("-") ? imaginary : `+${imaginary}`;
  return `(${part(value.re)}${signed}j)`;
}

/** `float(x)` at the end of the tool. */
export function pyFloatOf(value: Value): number {
  switch (value.k) {
    case "int":
    case "inexact":
      return toDouble(value);
    case "float":
      return value.v;
    default:
      throw pyError("TypeError", `float() argument must be a string or a real number, not '${value.k}'`);
  }
}

function toComplex(value: Value): Complex {
  if (value.k === "complex") return value;
  if (value.k === "float") return { re: value.v, im: 0 };
  return { re: toDouble(value as IntValue), im: 0 };
}

function complexBinary(op: BinaryOperator, left: Value, right: Value): Value {
  if (op === "//") throw unsupported(op, left, right);
  const a = toComplex(left);
  const b = toComplex(right);
  let result: Complex;
  switch (op) {
    case "+":
      result = { re: a.re + b.re, im: a.im + b.im };
      break;
    case "-":
      result = { re: a.re - b.re, im: a.im - b.im };
      break;
    case "*":
      result = complexProduct(a, b);
      break;
    case "/": {
      const errno = { value: 0 };
      result = complexQuotient(a, b, errno);
      if (errno.value === EDOM) throw pyError("ZeroDivisionError", "complex division by zero");
      break;
    }
    case "**":
      result = complexPower(a, b);
      break;
  }
  return { k: "complex", re: result.re, im: result.im };
}

// ----- operator dispatch (Objects/abstract.c) -------------------------------------------------

const isIntValue = (value: Value): value is IntValue => value.k === "int" || value.k === "inexact";
const isNumber = (value: Value): boolean => value.k === "int" || value.k === "inexact" || value.k === "float" || value.k === "complex";

function unary(op: "+" | "-", operand: Value): Value {
  switch (operand.k) {
    case "int":
    case "inexact":
      return op === "-" ? intNeg(operand) : operand;
    case "float":
      return op === "-" ? float(-operand.v) : operand;
    case "complex":
      return op === "-" ? { k: "complex", re: -operand.re, im: -operand.im } : operand;
    default:
      throw pyError("TypeError", `bad operand type for unary ${op}: '${operand.k}'`);
  }
}

/** `seq * n` for the only sequence there is, the empty tuple. */
function repeatTuple(count: Value): Value {
  if (!isIntValue(count)) throw pyError("TypeError", `can't multiply sequence by non-int of type '${typeName(count)}'`);
  intIndex(count);
  return { k: "tuple" };
}

function binary(op: BinaryOperator, left: Value, right: Value): Value {
  if (isNumber(left) && isNumber(right)) {
    if (left.k === "complex" || right.k === "complex") return complexBinary(op, left, right);
    if (left.k === "float" || right.k === "float") {
      const a = toDouble(left as IntValue);
      const b = toDouble(right as IntValue);
      switch (op) {
        case "+":
          return float(a + b);
        case "-":
          return float(a - b);
        case "*":
          return float(a * b);
        case "/":
          if (b === 0) throw pyError("ZeroDivisionError", "float division by zero");
          return float(a / b);
        case "//":
          return float(floatFloorDivide(a, b));
        case "**":
          return floatPower(a, b);
      }
    }
    const a = left as IntValue;
    const b = right as IntValue;
    switch (op) {
      case "+":
        return intAdd(a, b);
      case "-":
        return intAdd(a, intNeg(b));
      case "*":
        return intMul(a, b);
      case "/":
        return float(intTrueDivide(a, b));
      case "//":
        return intFloorDivide(a, b);
      case "**":
        return intPower(a, b);
    }
  }
  if (op === "+" && left.k === "tuple") {
    if (right.k === "tuple") return left;
    throw pyError("TypeError", `can only concatenate tuple (not "${typeName(right)}") to tuple`);
  }
  if (op === "*") {
    if (left.k === "tuple") return repeatTuple(right);
    if (right.k === "tuple") return repeatTuple(left);
  }
  throw unsupported(op, left, right);
}
