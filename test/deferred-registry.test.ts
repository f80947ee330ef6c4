/**
 * The deferred registry behind `tau2Domains()`: a name's modules load when it is first named, so a
 * telecom run does not load the other τ² domains; lookups behave as the plain registry's.
 */
import { describe, expect, it } from "vitest";
import { loadedTau2Domains, tau2Domains } from "../domains/tau2.ts";
import { DeferredRegistry } from "../src/core/registry.ts";
import { ConfigError, InfraError, UnknownNameError } from "../src/errors/error-tree.ts";

describe("DeferredRegistry", () => {
  it("loads an entry once, on first use, and shares one load between concurrent callers", async () => {
    const registry = new DeferredRegistry<{ value: number }>("thing");
    let loads = 0;
    registry.register("one", async () => ({ value: ++loads }));
    registry.register("two", async () => ({ value: 100 }));
    expect(registry.names()).toEqual(["one", "two"]);
    expect(registry.has("one")).toBe(true);
    expect(loads).toBe(0);
    const [first, second] = await Promise.all([registry.load("one"), registry.load("one")]);
    expect(first).toBe(second);
    expect(loads).toBe(1);
    expect(registry.get("one")).toBe(first);
    expect(() => registry.get("two")).toThrow(InfraError);
    expect(() => registry.get("two")).toThrow('thing "two" is not loaded yet');
  });

  it("names an unknown entry as the plain registry does, and refuses a second registration", async () => {
    const registry = new DeferredRegistry<number>("thing");
    registry.register("one", async () => 1);
    await expect(registry.load("nope")).rejects.toThrow(UnknownNameError);
    await expect(registry.load("nope")).rejects.toThrow('Unknown thing "nope"; known: one');
    expect(() => registry.get("nope")).toThrow('Unknown thing "nope"; known: one');
    expect(() => registry.register("one", async () => 2)).toThrow(ConfigError);
  });

  it("tries a failed load again on the next request", async () => {
    const registry = new DeferredRegistry<number>("thing");
    let attempts = 0;
    registry.register("flaky", async () => {
      attempts++;
      if (attempts === 1) throw new Error("first load failed");
      return 2;
    });
    await expect(registry.load("flaky")).rejects.toThrow("first load failed");
    await expect(registry.load("flaky")).resolves.toBe(2);
  });
});

describe("tau2Domains", () => {
  it("registers τ²'s domain names in the same order as before, loading only the named one", async () => {
    const domains = tau2Domains();
    expect(domains.names()).toEqual(["mock", "airline", "retail", "telecom", "telecom-workflow", "banking_knowledge"]);
    const telecom = await domains.load("telecom");
    expect(telecom.name).toBe("telecom");
    expect(telecom.folder).toBe("telecom");
    expect(() => domains.get("retail")).toThrow(InfraError);
  });

  it("loadedTau2Domains answers get for every name, each definition under its own name", async () => {
    const domains = await loadedTau2Domains();
    for (const name of domains.names()) expect(domains.get(name).name).toBe(name);
  });
});
