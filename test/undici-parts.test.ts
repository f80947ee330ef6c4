/**
 * The model clients load undici's `Client` and redirect handler from their own files instead of
 * the package's index (`src/model/undici-parts.ts`). Those paths are undici's internals: an undici
 * that moves them must fail here, not on a user's first model call, and the parts must stay the very
 * classes the index exports (so behaviour cannot drift from the package's).
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { redirectHandler, undiciClient, undiciPackage } from "../src/model/undici-parts.ts";

const undici = createRequire(import.meta.url)("undici") as typeof import("undici");

describe("undici's parts loaded alone", () => {
  it("are the Client and redirect handler the package exports", () => {
    expect(undiciClient()).toBe(undici.Client);
    expect(redirectHandler()).toBe(undici.RedirectHandler);
    expect(undiciPackage()).toBe(undici);
  });
});
