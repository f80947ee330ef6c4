/** The CLI refuses a Node.js older than it supports in one line, before loading anything that could fail on it. */
import { describe, expect, it } from "vitest";
import { execa } from "execa";
import { join } from "node:path";
// @ts-expect-error: plain JavaScript (checked by the tests, not by tsc), so that an old Node can run it.
import { MINIMUM_NODE, nodeVersionProblem } from "../bin/node-version.js";

describe("Node.js version check", () => {
  it("accepts 20.19 and later, refuses anything older in one line naming both versions", () => {
    expect(MINIMUM_NODE).toEqual([20, 19, 0]);
    for (const version of ["20.19.0", "v20.19.1", "20.20.2", "22.0.0", "22.23.3", "24.21.0", "26.1.0"]) expect(nodeVersionProblem(version), version).toBeUndefined();
    for (const version of ["20.18.3", "v20.0.0", "18.20.4", "16.20.2"]) {
      const problem = nodeVersionProblem(version) as string;
      expect(problem, version).toContain("taubridge needs Node.js 20.19.0 or newer");
      expect(problem).toContain(`this is Node.js ${version.replace(/^v/, "")}`);
      expect(problem).not.toContain("\n");
    }
  });

  it("matches package.json's engines, and the CLI starts on this Node", async () => {
    const manifest = (await import("../package.json", { with: { type: "json" } })).default as { engines: { node: string }; version: string };
    expect(manifest.engines.node).toBe(`>=${MINIMUM_NODE[0]}.${MINIMUM_NODE[1]}`);
    const result = await execa("node", [join(import.meta.dirname, "..", "bin", "taubridge.js"), "--version"], { reject: false });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(manifest.version);
  });

  it("answers --version without loading the CLI, exactly as the full CLI (commander) does", async () => {
    const fast = await execa("node", [join(import.meta.dirname, "..", "bin", "taubridge.js"), "-V"], { reject: false });
    const full = await execa("node", ["--import", "tsx", join(import.meta.dirname, "..", "app", "cli.ts"), "--version"], { reject: false });
    expect(full.exitCode, full.stderr).toBe(0);
    expect(fast.exitCode).toBe(0);
    expect(fast.stdout).toBe(full.stdout);
    expect(fast.stderr).toBe("");
  }, 300_000);
});
