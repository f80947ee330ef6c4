/**
 * Idempotent, reversible wrapping of object properties.
 *
 * Why: a framework may be loaded twice in one process (its ESM and CJS builds are separate
 * copies, and both our module hooks and the adapter's walk of the user's agent reach the same
 * objects). Every wrapper carries a process-wide symbol pointing at the original, so wrapping an
 * already wrapped property is a no-op, and the original stays reachable for pass-through and for
 * `unwrapProperty` in tests. Symbols are `Symbol.for` so two copies of this module agree.
 */

/** On a wrapper function: the function it wraps. */
export const ORIGINAL = Symbol.for("taubridge.bridge.original");
/** On an object: the set of property keys this bridge has patched on it. */
export const PATCHED_KEYS = Symbol.for("taubridge.bridge.patchedKeys");

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFunction = (this: any, ...args: any[]) => any;

/** True when `value` is a wrapper made by {@link wrapProperty}. */
export function isBridgeWrapper(value: unknown): boolean {
  return typeof value === "function" && Object.hasOwn(value, ORIGINAL);
}

/** The function a wrapper wraps (or `value` itself when it is not a wrapper). */
export function originalOf<T>(value: T): T {
  let current: unknown = value;
  while (typeof current === "function" && Object.hasOwn(current, ORIGINAL)) current = (current as unknown as Record<symbol, unknown>)[ORIGINAL];
  return current as T;
}

function patchedKeys(target: object): Set<PropertyKey> {
  const existing = (target as Record<symbol, unknown>)[PATCHED_KEYS];
  if (existing instanceof Set && Object.hasOwn(target, PATCHED_KEYS)) return existing as Set<PropertyKey>;
  const keys = new Set<PropertyKey>();
  Object.defineProperty(target, PATCHED_KEYS, { value: keys, enumerable: false, configurable: true, writable: false });
  return keys;
}

/**
 * Replaces the function at `target[key]` (own or inherited value) with `makeWrapper(original)`,
 * defined as an own property of `target` that keeps the original's enumerability. Returns false
 * (and changes nothing) when the property is not a function, is already our wrapper, or cannot be
 * redefined (a frozen object, a non-configurable getter).
 */
export function wrapProperty<F extends AnyFunction>(target: object, key: PropertyKey, makeWrapper: (original: F) => F): boolean {
  const current = (target as Record<PropertyKey, unknown>)[key];
  if (typeof current !== "function") return false;
  if (isBridgeWrapper(current)) return false;
  const own = Object.getOwnPropertyDescriptor(target, key);
  if (own && !own.configurable && !own.writable) return false;
  if (!own && !Object.isExtensible(target)) return false;
  const original = current as F;
  const wrapper = makeWrapper(original);
  Object.defineProperty(wrapper, ORIGINAL, { value: original, enumerable: false });
  try {
    Object.defineProperty(wrapper, "name", { value: original.name, configurable: true });
    Object.defineProperty(wrapper, "length", { value: original.length, configurable: true });
  } catch {
    // cosmetic only
  }
  try {
    Object.defineProperty(target, key, {
      value: wrapper,
      writable: own ? (own.writable ?? true) : true,
      enumerable: own ? own.enumerable : false,
      configurable: true,
    });
  } catch {
    return false;
  }
  patchedKeys(target).add(key);
  return true;
}

/** Restores what {@link wrapProperty} replaced (tests and `uninstall`). */
export function unwrapProperty(target: object, key: PropertyKey): boolean {
  const own = Object.getOwnPropertyDescriptor(target, key);
  if (!own || !isBridgeWrapper(own.value)) return false;
  Object.defineProperty(target, key, { ...own, value: (own.value as Record<symbol, unknown>)[ORIGINAL] });
  patchedKeys(target).delete(key);
  return true;
}

/** Marks an object (tool, agent) as handled by an adapter; returns false when it already was. */
export function markOnce(target: object, mark: symbol): boolean {
  if (Object.hasOwn(target, mark)) return false;
  try {
    Object.defineProperty(target, mark, { value: true, enumerable: false, configurable: true });
  } catch {
    return false;
  }
  return true;
}
