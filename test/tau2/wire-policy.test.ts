/**
 * A worker's simulation names the run's policy by digest (`src/suites/tau2/wire-policy.ts`): the
 * coordinator's text must be byte for byte the one the worker would have sent whole, and a policy
 * that is not the coordinator's must stop the run, never be written.
 */
import { describe, expect, it } from "vitest";
import { ConfigError, DataError } from "../../src/errors/error-tree.ts";
import { PolicyPrinter, withSharedPolicy } from "../../src/suites/tau2/wire-policy.ts";
import { pyJsonDumpsIndented } from "../../src/value/index.ts";

/** A simulation-shaped object printed as the results file holds a simulation (level 2, indent 2). */
function printed(policy: string | null): string {
  const simulation = {
    id: "sim-1",
    task_id: "task-1",
    messages: [
      // A message whose content looks like the field: strings never hold a raw line break, so it cannot be taken for it.
      { role: "user", content: '\n      "policy": null' },
      { role: "assistant", content: "ok" },
    ],
    trial: 0,
    seed: 7,
    policy,
    info: null,
  };
  return pyJsonDumpsIndented(simulation, 2, 2);
}

const POLICY = '# Policy\n\nBe "kind" — à bientôt, 🙂\tand\\or <tabs>.';

describe("a simulation's policy on the wire", () => {
  it("is put back byte for byte from the digest", () => {
    const worker = new PolicyPrinter();
    const coordinator = new PolicyPrinter();
    const digest = worker.printed(POLICY).digest;
    const text = withSharedPolicy(printed(null), digest, POLICY, coordinator, "task-1");
    expect(text).toBe(printed(POLICY));
    // The digest names the printed JSON, not the string object: an equal text from elsewhere matches.
    expect(new PolicyPrinter().printed(`${POLICY.slice(0, 3)}${POLICY.slice(3)}`).digest).toBe(digest);
  });

  it("stops the run when the worker's policy is not the coordinator's", () => {
    const digest = new PolicyPrinter().printed(`${POLICY} (changed)`).digest;
    expect(() => withSharedPolicy(printed(null), digest, POLICY, new PolicyPrinter(), "task-1")).toThrow(ConfigError);
    expect(() => withSharedPolicy(printed(null), digest, POLICY, new PolicyPrinter(), "task-1")).toThrow(/task "task-1".*read different data/);
  });

  it("refuses a text that has no null policy field", () => {
    const digest = new PolicyPrinter().printed(POLICY).digest;
    expect(() => withSharedPolicy(printed(POLICY), digest, POLICY, new PolicyPrinter(), "task-1")).toThrow(DataError);
  });

  it("prints and hashes a policy once while it stays the same text", () => {
    const printer = new PolicyPrinter();
    const first = printer.printed(POLICY);
    expect(printer.printed(POLICY)).toBe(first);
    expect(printer.printed("another").digest).not.toBe(first.digest);
  });
});
