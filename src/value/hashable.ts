/**
 * τ-bench's data hash text: `str(to_hashable(value))` (τ-bench: tau_bench/envs/base.py, to_hashable
 * and consistent_hash), where `to_hashable` turns dicts into tuples of `(key, value)` pairs sorted
 * by key and lists into tuples. Named after τ-bench's function rather than a Python builtin, hence
 * no `py` prefix.
 */
import { pyCompareStrings } from "./comparison.ts";
import { pyRepr, pyStrRepr } from "./printing.ts";
import type { PyValue } from "./values.ts";

function tupleText(items: string[]): string {
  if (items.length === 1) return `(${items[0]},)`;
  return `(${items.join(", ")})`;
}

/** `str(to_hashable(value))`: the text τ-bench's `consistent_hash` digests. */
export function hashableRepr(value: PyValue): string {
  if (Array.isArray(value)) return tupleText(value.map(hashableRepr));
  if (value instanceof Map) {
    const keys = [...value.keys()].sort(pyCompareStrings);
    return tupleText(keys.map((key) => hashableEntry(key, value.get(key)!)));
  }
  return pyRepr(value);
}

/** The text of one `(key, value)` pair of a hashed dict. */
export function hashableEntry(key: string, value: PyValue): string {
  return `(${pyStrRepr(key)}, ${hashableRepr(value)})`;
}
