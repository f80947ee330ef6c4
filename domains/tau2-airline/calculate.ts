/**
 * τ²'s `calculate(expression)` (the airline toolkit's own copy, identical to τ²'s `GenericToolKit`).
 *
 * It evaluates like τ-bench's tool: the same character check over Python iteration, `eval` of an
 * expression that cannot name anything (so τ²'s empty `__builtins__` changes nothing), and
 * `str(round(float(value), 2))`. The one visible difference is the check's message, which τ²
 * capitalizes. So the check runs here with τ²'s text (each domain reads it from its own tools' source)
 * and the rest is the shared evaluator of `domains/common`.
 */
import { CALCULATE_ALPHABET, pythonCalculate } from "../common/index.ts";
import { type PyValue, pyContains, pyIterate, pyValueError } from "../../src/value/index.ts";

/** The observation text of τ²'s `calculate`; raises a `PyException` as the original raises (`invalidCharacters`: its message). */
export function tau2Calculate(expression: PyValue, invalidCharacters: string): string {
  for (const char of pyIterate(expression)) {
    if (!pyContains(CALCULATE_ALPHABET, char)) throw pyValueError(invalidCharacters);
  }
  return pythonCalculate(expression);
}
