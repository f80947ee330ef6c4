/**
 * The tests' build check (`test/support/cli-build-setup.ts`) starts the built CLI only while no file
 * the build reads has changed since. It reads that list from the build's own configuration; this
 * checks the list really covers the build: every file in `dist/` (but the CLI bundle, made from
 * `src/`) comes from a watched path, so an edit to any of its sources makes the build stale.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { buildInputs } from "./support/cli-build-setup.js";

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");

function files(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(folder, entry.name)) : [relative(dist, join(folder, entry.name)).split(sep).join("/")]));
}

describe("the build check's inputs", () => {
  it("name the build's compiled folders, copied assets and configuration", () => {
    const inputs = buildInputs();
    for (const expected of ["app", "src", "domains", "bridge", "adapters", "domains/library/data", "tasks/manifests", "package.json", "tsconfig.build.json"]) {
      expect(inputs).toContain(expected);
    }
  });

  it.skipIf(!existsSync(join(dist, "cli", "cli.js")))("cover the source of every file in dist/", () => {
    const inputs = buildInputs().map((input) => input.split(sep).join("/"));
    const built = files(dist).filter((file) => !file.startsWith("cli/"));
    expect(built.length).toBeGreaterThan(100);
    const unwatched = built.filter((file) => !inputs.some((input) => file === input || file.startsWith(`${input}/`)));
    expect(unwatched).toEqual([]);
  });
});
