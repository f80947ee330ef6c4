/**
 * Quick checks of the shapes our zod schemas describe, for the common case of valid input, so
 * that a run never loads zod (see `lazy-zod.ts`). A quick check either builds exactly what the
 * zod schema's `parse` returns (same keys in the same order, defaults as fresh values, new arrays
 * and objects where zod makes them, Maps and unknown values passed through) or answers
 * {@link UNSURE}; the caller then runs the zod schema, which accepts or words the error as before.
 * So a quick check may be stricter than its schema, never looser. Tests compare the two on every
 * task of the shared data and on damaged copies.
 *
 * What is mirrored, as zod 4 does it: an object's output lists the schema's keys in the schema's
 * order; an absent optional key stays absent, one present as `undefined` stays present; a default
 * replaces `undefined`; `.passthrough()` appends the other own keys in input order; numbers must be
 * finite (ints safe); a union takes its first matching option.
 */

/** The answer of a quick check that cannot vouch for a value: run the zod schema. */
export const UNSURE: unique symbol = Symbol("unsure");

/** A quick check: the parsed value, or {@link UNSURE}. */
export type QuickCheck = (value: unknown) => unknown;

/** An object field: its check, and what an `undefined` value means. */
export interface QuickField {
  check: QuickCheck;
  /** `required`: unsure; `optional`: kept absent (or `undefined` when the key is present); a function: the default. */
  absent: "required" | "optional" | (() => unknown);
}

const same: QuickCheck = (value) => value;

/** Plain objects only (what a JSON view or our own code builds); anything else is left to zod. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype;
}

export const quick = {
  /** `z.string()`, with `.min(n)`. */
  string:
    (min = 0): QuickCheck =>
    (value) =>
      typeof value === "string" && value.length >= min ? value : UNSURE,
  /** `z.number()` with `.int()`, `.min()`, `.max()`, `.positive()` (`above`). */
  number:
    (limits: { int?: boolean; min?: number; max?: number; above?: number } = {}): QuickCheck =>
    (value) => {
      if (typeof value !== "number" || !Number.isFinite(value)) return UNSURE;
      if (limits.int && !Number.isSafeInteger(value)) return UNSURE;
      if ((limits.min !== undefined && value < limits.min) || (limits.max !== undefined && value > limits.max) || (limits.above !== undefined && value <= limits.above)) return UNSURE;
      return value;
    },
  boolean: (): QuickCheck => (value) => (typeof value === "boolean" ? value : UNSURE),
  /** `z.literal(x)` and `z.enum([...])`. */
  oneOf:
    (...values: readonly unknown[]): QuickCheck =>
    (value) =>
      values.includes(value) ? value : UNSURE,
  /** `z.unknown()`: anything, passed through. */
  unknown: (): QuickCheck => same,
  /** `z.custom(test)`: the value itself when `test` holds. */
  custom:
    (test: (value: unknown) => boolean): QuickCheck =>
    (value) =>
      test(value) ? value : UNSURE,
  /** `z.array(item)`: a new array. */
  array:
    (item: QuickCheck): QuickCheck =>
    (value) => {
      if (!Array.isArray(value)) return UNSURE;
      const out: unknown[] = [];
      for (let index = 0; index < value.length; index++) {
        const parsed = item(value[index]);
        if (parsed === UNSURE) return UNSURE;
        out.push(parsed);
      }
      return out;
    },
  /** `z.record(z.string(), value)`: a new object with the same keys. */
  record:
    (item: QuickCheck = same): QuickCheck =>
    (value) => {
      if (!isPlainObject(value)) return UNSURE;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const parsed = item(value[key]);
        if (parsed === UNSURE) return UNSURE;
        out[key] = parsed;
      }
      return out;
    },
  /** `.nullish()` of a check, as an object field (null kept, absent allowed). */
  nullish: (check: QuickCheck): QuickField => ({ check: (value) => (value === null ? null : check(value)), absent: "optional" }),
  /** `.optional()` of a check, as an object field. */
  optional: (check: QuickCheck): QuickField => ({ check, absent: "optional" }),
  /** `.default(make())` of a check, as an object field (a fresh default each time, as zod gives). */
  withDefault: (check: QuickCheck, make: () => unknown): QuickField => ({ check, absent: make }),
  /** `z.union([...])`: the first option that vouches for the value. */
  union:
    (...options: QuickCheck[]): QuickCheck =>
    (value) => {
      for (const option of options) {
        const parsed = option(value);
        if (parsed !== UNSURE) return parsed;
      }
      return UNSURE;
    },
  /** `z.discriminatedUnion(key, [...])`: the option named by the value's `key`. */
  byKey:
    (key: string, options: Readonly<Record<string, QuickCheck>>): QuickCheck =>
    (value) => {
      if (!isPlainObject(value)) return UNSURE;
      const tag = value[key];
      return typeof tag === "string" && Object.hasOwn(options, tag) ? options[tag](value) : UNSURE;
    },
  /** `z.object(shape)` (unknown keys dropped), or `.passthrough()` with `passthrough`. */
  object: (shape: Readonly<Record<string, QuickCheck | QuickField>>, options: { passthrough?: boolean } = {}): QuickCheck => {
    const fields = Object.entries(shape).map(([key, field]): [string, QuickField] => [key, typeof field === "function" ? { check: field, absent: "required" } : field]);
    const known = new Set(Object.keys(shape));
    return (value) => {
      if (!isPlainObject(value)) return UNSURE;
      const out: Record<string, unknown> = {};
      for (const [key, field] of fields) {
        const item = value[key];
        if (item === undefined) {
          if (field.absent === "required") return UNSURE;
          if (field.absent !== "optional") out[key] = field.absent();
          else if (Object.hasOwn(value, key)) out[key] = undefined;
          continue;
        }
        const parsed = field.check(item);
        if (parsed === UNSURE) return UNSURE;
        out[key] = parsed;
      }
      if (options.passthrough) for (const key of Object.keys(value)) if (!known.has(key)) out[key] = value[key];
      return out;
    };
  },
};
