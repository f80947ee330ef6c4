/**
 * Python's container operations over the value model: `len`, iteration, subscripts and slices,
 * `in`, the list methods the tools call, `sorted` and truthiness.
 *
 * Why: τ-bench passes the model's tool arguments to the tools without any type check, so a wrong
 * type does whatever the Python expression does with it, and the exception text becomes the
 * observation. A str where a list is expected is iterated by character; an int id is simply "not
 * found" (dict lookups are type-strict); a list used as a key raises `unhashable type: 'list'`.
 * Each function is one Python operation with CPython 3.11's result and error text.
 *
 * Python indexes and counts a str by code point, JavaScript by UTF-16 unit; these functions use
 * code points.
 */
import { pyIsOrEquals, pyLessThan } from "./comparison.ts";
import { pyAttributeError, pyIndexError, pyKeyError, pyTypeError } from "./errors.ts";
import { PyFloat, asPyIndex, pyTypeName, type PyValue } from "./values.ts";

type Value = PyValue | undefined;

/** The code points of a Python str. */
function codePoints(text: string): string[] {
  return Array.from(text);
}

/** `hash(key)` as a dict lookup does it: a list or dict raises `unhashable type: '<type>'`. */
export function pyRequireHashable(key: Value): void {
  if (Array.isArray(key) || key instanceof Map) throw pyTypeError(`unhashable type: '${pyTypeName(key)}'`);
}

/** Python `len(value)`, or `object of type '<type>' has no len()`. */
export function pyLen(value: Value): number {
  if (typeof value === "string") return codePoints(value).length;
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  throw pyTypeError(`object of type '${pyTypeName(value)}' has no len()`);
}

/**
 * The items `for x in value` visits: list elements, dict keys, or the characters of a str; anything
 * else raises `'<type>' object is not iterable`. A snapshot array, which is equivalent as long as
 * the loop body does not change the container (no tool does).
 */
export function pyIterate(value: Value): PyValue[] {
  if (Array.isArray(value)) return [...value];
  if (value instanceof Map) return [...value.keys()];
  if (typeof value === "string") return codePoints(value);
  throw pyTypeError(`'${pyTypeName(value)}' object is not iterable`);
}

/** Normalises a Python index against a length; undefined when out of range. */
function resolveIndex(index: number | bigint, length: number): number | undefined {
  if (typeof index === "bigint") {
    if (index > BigInt(Number.MAX_SAFE_INTEGER) || index < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw pyIndexError(`cannot fit 'int' into an index-sized integer`);
    }
    index = Number(index);
  }
  const position = index < 0 ? index + length : index;
  return position >= 0 && position < length ? position : undefined;
}

/** Python `container[key]` for dicts (type-strict keys), lists and strs (int indices), and the TypeErrors of everything else. */
export function pyGetItem(container: Value, key: Value): PyValue {
  if (container instanceof Map) {
    pyRequireHashable(key);
    if (typeof key === "string") {
      const value = container.get(key);
      if (value !== undefined) return value;
    }
    throw pyKeyError(key);
  }
  if (Array.isArray(container)) {
    const index = asPyIndex(key);
    if (index === undefined) throw pyTypeError(`list indices must be integers or slices, not ${pyTypeName(key)}`);
    const position = resolveIndex(index, container.length);
    if (position === undefined) throw pyIndexError("list index out of range");
    return container[position];
  }
  if (typeof container === "string") {
    const index = asPyIndex(key);
    if (index === undefined) throw pyTypeError(`string indices must be integers, not '${pyTypeName(key)}'`);
    const chars = codePoints(container);
    const position = resolveIndex(index, chars.length);
    if (position === undefined) throw pyIndexError("string index out of range");
    return chars[position];
  }
  throw pyTypeError(`'${pyTypeName(container)}' object is not subscriptable`);
}

/** Python `container[key] = value` with a str key (the only keys our dicts hold). */
export function pySetItem(container: Value, key: string, value: PyValue): void {
  if (container instanceof Map) {
    container.set(key, value);
    return;
  }
  if (Array.isArray(container)) throw pyTypeError(`list indices must be integers or slices, not str`);
  throw pyTypeError(`'${pyTypeName(container)}' object does not support item assignment`);
}

/** Python `del container[key]`. */
export function pyDelItem(container: Value, key: Value): void {
  if (container instanceof Map) {
    pyRequireHashable(key);
    if (typeof key !== "string" || !container.has(key)) throw pyKeyError(key);
    container.delete(key);
    return;
  }
  if (Array.isArray(container)) {
    const index = asPyIndex(key);
    if (index === undefined) throw pyTypeError(`list indices must be integers or slices, not ${pyTypeName(key)}`);
    const position = resolveIndex(index, container.length);
    if (position === undefined) throw pyIndexError("list assignment index out of range");
    container.splice(position, 1);
    return;
  }
  throw pyTypeError(`'${pyTypeName(container)}' object does not support item deletion`);
}

/** Clamps a slice bound the way `slice.indices` does for step 1. */
function sliceBound(bound: number | undefined, length: number, fallback: number): number {
  if (bound === undefined) return fallback;
  if (bound < 0) return Math.max(0, bound + length);
  return Math.min(bound, length);
}

/**
 * Python `value[start:stop]` (step 1; omitted bounds as `undefined`), e.g. `date[-2:]` is
 * `pySlice(date, -2)`. A dict raises `unhashable type: 'slice'` (slices became hashable only in 3.12).
 */
export function pySlice(value: Value, start?: number, stop?: number): PyValue {
  if (typeof value === "string" || Array.isArray(value)) {
    const items = typeof value === "string" ? codePoints(value) : value;
    const from = sliceBound(start, items.length, 0);
    const to = sliceBound(stop, items.length, items.length);
    const part = items.slice(from, Math.max(from, to));
    return typeof value === "string" ? (part as string[]).join("") : part;
  }
  if (value instanceof Map) throw pyTypeError("unhashable type: 'slice'");
  throw pyTypeError(`'${pyTypeName(value)}' object is not subscriptable`);
}

/**
 * Python `item in container`: a dict tests its keys (type-strict; an unhashable item raises), a list
 * its elements with {@link pyIsOrEquals}, a str its substrings (the item must be a str). A dict may
 * also be any str-keyed map that stands for one in the original (a toolkit's tools by name).
 */
export function pyContains(container: Value | ReadonlyMap<string, unknown>, item: Value): boolean {
  if (container instanceof Map) {
    pyRequireHashable(item);
    return typeof item === "string" && container.has(item);
  }
  if (Array.isArray(container)) {
    for (const element of container) if (pyIsOrEquals(element, item)) return true;
    return false;
  }
  if (typeof container === "string") {
    if (typeof item !== "string") throw pyTypeError(`'in <string>' requires string as left operand, not ${pyTypeName(item)}`);
    return container.includes(item);
  }
  throw pyTypeError(`argument of type '${pyTypeName(container as Value)}' is not iterable`);
}

/** Python `target.append(item)`. */
export function pyAppend(target: Value, item: PyValue): void {
  if (!Array.isArray(target)) throw pyAttributeError(target, "append");
  target.push(item);
}

/** Python `target.extend(iterable)`. */
export function pyExtend(target: Value, iterable: Value): void {
  if (!Array.isArray(target)) throw pyAttributeError(target, "extend");
  target.push(...pyIterate(iterable));
}

/**
 * Python `container.count(item)`: `list.count` compares with {@link pyIsOrEquals}; `str.count`
 * counts non-overlapping substrings (the item must be a str); other types have no `count`.
 */
export function pyCount(container: Value, item: Value): number {
  if (Array.isArray(container)) {
    let count = 0;
    for (const element of container) if (pyIsOrEquals(element, item)) count++;
    return count;
  }
  if (typeof container === "string") {
    if (typeof item !== "string") throw pyTypeError(`must be str, not ${pyTypeName(item)}`);
    if (item === "") return codePoints(container).length + 1;
    return container.split(item).length - 1;
  }
  throw pyAttributeError(container, "count");
}

/**
 * Python `sorted(iterable)`: a new list in ascending order by `<` (stable). Elements Python cannot
 * order raise its `'<' not supported` TypeError; for a mixed list the type pair named can differ
 * from CPython's, because the two sorts compare elements in a different sequence.
 */
export function pySorted(iterable: Value, options: { key?: (item: PyValue) => PyValue; reverse?: boolean } = {}): PyValue[] {
  const key = options.key ?? ((item: PyValue) => item);
  // reverse=True keeps equal elements in their original order: Python reverses, sorts stably, reverses back.
  const keyed = pyIterate(iterable).map((item) => ({ item, key: key(item) }));
  if (options.reverse) keyed.reverse();
  keyed.sort((a, b) => (pyLessThan(a.key, b.key) ? -1 : pyLessThan(b.key, a.key) ? 1 : 0));
  if (options.reverse) keyed.reverse();
  return keyed.map((entry) => entry.item);
}

/** A slice bound as Python takes it (`x[:limit]`): None is open, an int (or bool) counts, anything else is a TypeError. */
export function pySliceIndex(bound: Value): number | undefined {
  if (bound === null || bound === undefined) return undefined;
  const index = asPyIndex(bound);
  if (index === undefined) throw pyTypeError("slice indices must be integers or None or have an __index__ method");
  if (typeof index === "bigint") return index > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  return index;
}

/** Python `dict.get(key, default)`: unhashable keys raise, other keys are simply not found; a non-dict has no `get`. */
export function pyDictGet(dict: Value, key: Value, fallback: PyValue = null): PyValue {
  if (!(dict instanceof Map) || (dict as { schema?: unknown }).schema !== undefined) throw pyAttributeError(dict, "get");
  pyRequireHashable(key);
  return typeof key === "string" && dict.has(key) ? (dict.get(key) as PyValue) : fallback;
}

/** Python `bool(value)` (truthiness): empty containers, zero and None are false. */
export function pyBool(value: Value): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (value === true) return true;
  if (typeof value === "string") return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Map) return value.size > 0;
  if (value instanceof PyFloat) return value.value !== 0;
  if (typeof value === "bigint") return value !== 0n;
  return value !== 0;
}

/** Python `zip(left, right)` of two iterables, as a list of pairs. */
export function pyZip(left: Value, right: Value): Array<[PyValue, PyValue]> {
  const a = pyIterate(left);
  const b = pyIterate(right);
  const length = Math.min(a.length, b.length);
  return Array.from({ length }, (_, index) => [a[index], b[index]]);
}
