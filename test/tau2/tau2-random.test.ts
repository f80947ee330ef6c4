import { describe, expect, it } from "vitest";
import { DEFAULT_TAU2_SEED, createSeededRandom, randomHex } from "../../src/suites/tau2/engine/random.ts";

describe("the τ² environment's seeded random source", () => {
  it("gives the same stream for the same seed and different streams for different seeds", () => {
    const draw = (seed?: number) => {
      const random = createSeededRandom(seed);
      return Array.from({ length: 5 }, () => random.nextUint32());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    expect(draw()).toEqual(draw(DEFAULT_TAU2_SEED));
    for (const value of draw(1)) expect(Number.isInteger(value) && value >= 0 && value < 2 ** 32).toBe(true);
  });

  it("makes lowercase hex ids of any length, as uuid4().hex[:n] looks", () => {
    expect(randomHex(createSeededRandom(5), 8)).toMatch(/^[0-9a-f]{8}$/);
    expect(randomHex(createSeededRandom(5), 12)).toMatch(/^[0-9a-f]{12}$/);
    expect(randomHex({ nextUint32: () => 1 }, 8)).toBe("00000001");
  });

  it("rejects a seed that is not a safe integer", () => {
    expect(() => createSeededRandom(1.5)).toThrow(/safe integer/);
  });
});
