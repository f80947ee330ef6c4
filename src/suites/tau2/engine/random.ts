/**
 * The random source of one τ² environment.
 *
 * τ² tools are deterministic except where the original draws a random id (telecom's `refuel_data`
 * names a new bill `"B" + uuid4().hex[:8]`). Reproducing that randomness would make hashes and
 * results differ between runs (and between an episode and the evaluator's replay), so every
 * environment carries a small seeded generator instead: the same seed gives the same ids.
 */

/** A stream of 32-bit unsigned integers; one per environment, shared by its two toolkits. */
export interface Tau2RandomSource {
  nextUint32(): number;
}

/** The seed used when a caller gives none: environments are deterministic by default. */
export const DEFAULT_TAU2_SEED = 0;

/**
 * A seeded generator (mulberry32: tiny, fast, good enough for ids). Not cryptographic, and not
 * Python's generator: only determinism matters, the original's ids are random anyway.
 */
export function createSeededRandom(seed: number = DEFAULT_TAU2_SEED): Tau2RandomSource {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`random seed must be a safe integer, got ${String(seed)}`);
  let state = seed >>> 0;
  return {
    nextUint32() {
      state = (state + 0x6d2b79f5) >>> 0;
      let mixed = Math.imul(state ^ (state >>> 15), state | 1);
      mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
      return (mixed ^ (mixed >>> 14)) >>> 0;
    },
  };
}

/** `digits` lowercase hex digits from the source (as `uuid4().hex[:digits]` gives, for digits ≤ 32). */
export function randomHex(source: Tau2RandomSource, digits: number): string {
  let text = "";
  while (text.length < digits) text += source.nextUint32().toString(16).padStart(8, "0");
  return text.slice(0, digits);
}
