/**
 * The evaluator's own values (an int, an "inexact" huge int, a float, a complex, the empty tuple,
 * Ellipsis) and the error helpers every numeric file shares. `calculate` keeps its own tagged
 * representation instead of the shared `PyValue` model because it needs complex numbers, tuples
 * and huge ints that the tools' data never holds.
 */
import { PyException } from "../../../src/value/index.ts";
import type { BinaryOperator } from "./parser.ts";

/** An int too large to keep exactly: sign (0 = unknown), parity (null = unknown), log2 bounds of |value|. */
export interface InexactInt {
  readonly k: "inexact";
  readonly sign: -1 | 0 | 1;
  readonly lo: number;
  readonly hi: number;
  readonly odd: boolean | null;
}

export type Value =
  | { readonly k: "int"; readonly v: bigint }
  | InexactInt
  | { readonly k: "float"; readonly v: number }
  | { readonly k: "complex"; readonly re: number; readonly im: number }
  | { readonly k: "tuple" }
  | { readonly k: "ellipsis" };

export type IntValue = Extract<Value, { k: "int" }> | InexactInt;
export type Complex = { readonly re: number; readonly im: number };

export const int = (v: bigint): Value => ({ k: "int", v });
export const float = (v: number): Value => ({ k: "float", v });

export function typeName(value: Value): string {
  switch (value.k) {
    case "int":
    case "inexact":
      return "int";
    default:
      return value.k;
  }
}

export function pyError(type: string, message: string): PyException {
  return new PyException(message, type);
}

export const overflowToFloat = (): PyException => pyError("OverflowError", "int too large to convert to float");
export const inexactDivergence = (): PyException => pyError("OverflowError", "integer too large to evaluate exactly");

export function unsupported(op: BinaryOperator, left: Value, right: Value): PyException {
  const symbol = op === "**" ? "** or pow()" : op;
  return pyError("TypeError", `unsupported operand type(s) for ${symbol}: '${typeName(left)}' and '${typeName(right)}'`);
}
