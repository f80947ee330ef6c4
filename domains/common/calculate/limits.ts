/**
 * The limits of CPython 3.11 that `calculate` reproduces, and the alphabet the tool accepts.
 */

/** The characters the tool accepts (the space is the only whitespace). */
export const CALCULATE_ALPHABET = "0123456789+-*/(). ";

/** Ints up to this many bits are computed exactly; larger ones become inexact (see the file comment). */
export const MAX_EXACT_BITS = 1 << 20;

/** CPython's PEG parser stack limit (`MAXSTACK` in Parser/parser.c, non-debug build). */
export const MAXSTACK = 6000;
/** Deepest AST the 3.11 compiler accepts from a shallow caller (1000 × 3 minus the caller's frames). */
export const MAX_AST_DEPTH = 2991;
/** The tokenizer's limit on nested parentheses (`MAXLEVEL`). */
export const MAX_PAREN_LEVEL = 200;
/** `sys.get_int_max_str_digits()` default. */
export const INT_MAX_STR_DIGITS = 4300;
