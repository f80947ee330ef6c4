/**
 * `compile(source, "<string>", "eval")` for `calculate`: runs the parser's two passes, picks the
 * error CPython would report, and applies the compiler's recursion limit.
 */
import { PyException } from "../../../src/value/index.ts";
import { MAX_AST_DEPTH } from "./limits.ts";
import { Parser, type Expr } from "./parser.ts";
import { ParserStackOverflow, SourceError, Tokenizer } from "./tokenizer.ts";

function syntaxError(message: string, line: number): PyException {
  return new PyException(`${message} (<string>, line ${line})`, "SyntaxError");
}

/**
 * `compile(source, "<string>", "eval")`: the two parser passes, CPython's choice of which error to
 * report, and the compiler's recursion limit.
 */
export function compileExpression(expression: string): Expr {
  // eval() strips leading spaces and tabs.
  const source = expression.replace(/^[ \t]+/, "");
  const tokenizer = new Tokenizer(source);
  const parser = new Parser(tokenizer);
  let tree: Expr | undefined;
  try {
    try {
      tree = parser.parse();
    } catch (error) {
      if (!SourceError.isInstance(error)) throw error;
      // The error pass does nothing when the first pass raised. A tokenizer error is final; a parser
      // error (the int-digits limit) gives way to a tokenizer error further on.
      const final = error.fromTokenizer ? error : (tokenizer.remainingError() ?? error);
      throw syntaxError(final.text, 1);
    }
    if (!tree) {
      parser.startErrorPass();
      try {
        parser.parse();
      } catch (error) {
        if (!SourceError.isInstance(error)) throw error;
        const final = error.fromTokenizer ? error : (tokenizer.remainingError() ?? error);
        throw syntaxError(final.text, 1);
      }
      const final = tokenizer.remainingError();
      throw syntaxError(final ? final.text : "invalid syntax", final ? 1 : source.length === 0 ? 0 : 1);
    }
  } catch (error) {
    // MAXSTACK (and, as a backstop, a JavaScript stack overflow on the same kind of input).
    if (ParserStackOverflow.isInstance(error) || error instanceof RangeError) throw new PyException("", "MemoryError");
    throw error;
  }
  if (astDepth(tree, 1) > MAX_AST_DEPTH) {
    throw new PyException("maximum recursion depth exceeded during compilation", "RecursionError");
  }
  return tree;
}

/** The AST optimizer's recursion depth (every expression node counts; `**` keyword wrappers do not). */
function astDepth(node: Expr, depth: number): number {
  // Iterative over the left spine to keep long `a + b + c + ...` chains off the JavaScript stack.
  let deepest = depth;
  let current: Expr | undefined = node;
  let level = depth;
  while (current) {
    if (level > deepest) deepest = level;
    if (deepest > MAX_AST_DEPTH) return deepest;
    switch (current.t) {
      case "unary":
        current = current.operand;
        break;
      case "starred":
        current = current.value;
        break;
      case "binary":
        deepest = Math.max(deepest, astDepth(current.right, level + 1));
        current = current.left;
        break;
      case "call":
        if (current.argument) {
          const extra = current.argument.kind === "star" ? 1 : 0;
          deepest = Math.max(deepest, astDepth(current.argument.value, level + 1 + extra));
        }
        current = current.func;
        break;
      default:
        current = undefined;
    }
    level++;
  }
  return deepest;
}
