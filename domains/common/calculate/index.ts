/**
 * τ-bench's `calculate` tool, shared by the retail and airline domains (and our library domain).
 *
 * The original checks that every character of `expression` is in {@link CALCULATE_ALPHABET},
 * evaluates it with Python's `eval` (no builtins), converts the value to a float rounded to two
 * places and returns its text; any exception becomes `Error: {exception}`. So its observable
 * behaviour is "whatever CPython 3.11 does" with that alphabet: the PEG parser's error messages
 * (including the second "invalid_*" pass and tokenizer errors that take priority), unbounded ints,
 * correctly rounded int/int true division, float and complex arithmetic with their exact error
 * texts, `round(x, 2)` half-even and the float repr. This folder re-implements that subset
 * (τ-bench: tau_bench/envs/retail/tools/calculate.py and tau_bench/envs/airline/tools/calculate.py,
 * Calculate.invoke) from CPython's documented semantics; it was checked against CPython 3.11 on
 * many thousands of random expressions over the alphabet.
 *
 * Files, in the order an expression goes through them: `calculate-tool.ts` (character check, the
 * tool), `tokenizer.ts`, `parser.ts`, `compile.ts` (error choice, recursion limit), `evaluate.ts`
 * (dispatch) over `numbers.ts` (the evaluator's values), `integers.ts`, `floats.ts`, `complex.ts`
 * and `pow.ts`; `limits.ts` holds CPython's limits. The final `round` and `str` come from the shared
 * Python-semantics module (`src/value`).
 *
 * Deliberate divergences, all on absurd inputs only:
 * - Ints are exact up to {@link MAX_EXACT_BITS} bits. A result beyond that (e.g. `9**9**9`, which
 *   takes CPython many minutes) is kept as an "inexact int": its sign, parity and log2 bounds. That
 *   is enough to reproduce what CPython would eventually print in the common cases (`float()` of it
 *   is `int too large to convert to float`, `x * 0` is `0`, `1 / x` is `0.0`, `x ** 0` is `1`,
 *   `(-1) ** x` uses the parity, ...). Where the exact value would be needed (e.g. `9**9**9 - 9**9**9`)
 *   we raise `OverflowError("integer too large to evaluate exactly")`, a text CPython never prints;
 *   CPython would answer after a very long time, or raise MemoryError on a smaller machine.
 * - CPython's two recursion limits are reproduced with the values of a shallow caller: the parser's
 *   stack limit (6000 rule frames → MemoryError, observation `Error: `) by mirroring the grammar's
 *   rule nesting, and the compiler's limit (`maximum recursion depth exceeded during compilation`)
 *   for ASTs deeper than 2991 nodes. In CPython the compiler limit shrinks with the caller's stack
 *   depth, so τ-bench's real threshold is a few dozen nodes lower.
 * - `pow` is computed correctly rounded (`pow.ts`); glibc's is correctly rounded except in rare
 *   near-halfway cases (about 0.1% of random non-integral exponents), where the last bit can
 *   differ, visible only for results of 1e15 and more. `hypot`, `atan2`, `exp`, `log`, `cos`, `sin`
 *   (complex powers only) come from V8; they can differ from glibc in the last bit, which only shows
 *   in a complex number printed inside a call's error message.
 */
export { calculateTool, pythonCalculate } from "./calculate-tool.ts";
export { CALCULATE_ALPHABET, MAX_EXACT_BITS } from "./limits.ts";
