/**
 * `npm ci` is quiet: no `ERESOLVE` peer warnings. Mastra 0.24 (a dev dependency, for its adapter)
 * brings its legacy `ai@4` and `@ai-sdk/*` v1 packages, which declare `zod@^3` peers while the
 * project's one zod is 4, and an OpenRouter provider declaring an `ai@^5` peer while Mastra
 * depends on `ai@4`; `overrides` in package.json states how those peers resolve, leaving the
 * installed tree exactly as it was (package-lock.json did not change; the Mastra adapter's tests run
 * on it). Checked with the same resolution `npm ci` does, offline and without installing anything:
 * `npm ci --dry-run --offline` on a copy of package.json and package-lock.json.
 */
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

describe("npm ci", () => {
  it("resolves every peer dependency without a warning", async () => {
    const project = mkdtempSync(join(tmpdir(), "taubridge-npm-ci-"));
    for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(root, file), join(project, file));
    const result = await execa("npm", ["ci", "--dry-run", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: project, reject: false, env: { npm_config_loglevel: "warn" } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr.split("\n").filter((line) => line.startsWith("npm warn"))).toEqual([]);
  }, 300_000);
});
