/**
 * The `calculate` tool itself: step 1 (the character check with Python's iteration rules), then
 * `str(round(float(eval(expression)), 2))`. See `index.ts` for what is reproduced and where it
 * deliberately diverges.
 */
import type { EpisodeDatabase } from "../../../src/suites/tau-bench/engine/database.ts";
import type { ToolImplementation } from "../../../src/suites/tau-bench/engine/tool.ts";
import { PyException, pyContains, pyFloat, pyIterate, pyRound, pyStr, type PyValue } from "../../../src/value/index.ts";
import { compileExpression } from "./compile.ts";
import { evaluate, pyFloatOf } from "./evaluate.ts";
import { CALCULATE_ALPHABET } from "./limits.ts";

/**
 * The observation text τ-bench's `calculate` gives, as a thrown {@link PyException} for the error
 * paths (the environment turns it into `Error: {message}`) and the result string otherwise.
 * Accepts any argument value, because τ-bench does not type-check the model's arguments.
 */
export function pythonCalculate(expression: PyValue): string {
  if (!passesCharacterCheck(expression)) throw new PyException("invalid characters in expression", "ValueError");
  if (typeof expression !== "string") {
    throw new PyException("eval() arg 1 must be a string, bytes or code object", "TypeError");
  }
  const tree = compileExpression(expression);
  const value = evaluate(tree);
  return pyStr(pyRound(pyFloat(pyFloatOf(value)), 2));
}

/**
 * `calculate(expression)`: evaluates a Python arithmetic expression and returns
 * `str(round(float(value), 2))`. See {@link pythonCalculate} for the semantics.
 */
export const calculateTool: ToolImplementation = {
  name: "calculate",
  className: "Calculate",
  parameters: ["expression"],
  kind: "generic",
  invoke(_db: EpisodeDatabase, args: Readonly<Record<string, PyValue>>): string {
    return pythonCalculate(args.expression);
  },
};

/**
 * `all(char in ALPHABET for char in expression)`: Python iterates whatever it is given (a str by
 * character, a list by element, a dict by key), `x in "..."` is a substring test for a str and a
 * TypeError for anything else, and `all` stops at the first false element.
 */
function passesCharacterCheck(expression: PyValue): boolean {
  for (const char of pyIterate(expression)) {
    if (!pyContains(CALCULATE_ALPHABET, char)) return false;
  }
  return true;
}
