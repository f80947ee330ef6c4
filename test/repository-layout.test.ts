/**
 * The house rules a reviewer cannot see in one diff: `npm test` type-checks every TypeScript file
 * of the repository (tests, scripts, the adapters' example agents and the test fixtures included),
 * and the published folders hold no tests, test fixtures or stand-ins (they live under `test/`, so
 * nothing published can resolve to them: a stand-in beside published code is found by an
 * `import` of the real package).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const SKIPPED_DIRECTORIES = new Set(["node_modules", "dist", ".git", "__pycache__"]);
/** The folders whose code is published (package.json `files` ships their build) or imported by it. */
const PUBLISHED = ["app", "src", "domains", "bridge", "adapters", "bin"];

/** Every file under `directory`, as paths relative to the repository with `/` separators. */
function filesUnder(directory: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (SKIPPED_DIRECTORIES.has(entry.name)) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path));
    else if (entry.isFile()) found.push(relative(root, path).split(sep).join("/"));
  }
  return found;
}

describe("npm test type-checks everything", () => {
  it("runs the type-check (tsc over tsconfig.json, no emit) before the tests", () => {
    const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    // tsconfig.json, then the viewer's browser code under its own config (DOM library).
    expect(scripts.typecheck.split("&&").map((step) => step.trim())).toEqual(["tsc -p tsconfig.json --noEmit", "tsc -p src/view/page/tsconfig.json --noEmit"]);
    const steps = scripts.test.split("&&").map((step) => step.trim());
    expect(steps).toContain("npm run typecheck");
    expect(steps.indexOf("npm run typecheck")).toBeLessThan(steps.findIndex((step) => step.startsWith("vitest")));
  });

  it("tsconfig.json covers every TypeScript file: sources, tests, fixtures, scripts, the example agents and the docs walkthrough files", () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(root, "tsconfig.json"),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => expect.fail(String(diagnostic.messageText)) },
    );
    expect(config?.errors ?? []).toEqual([]);
    // The viewer's page code has its own config (DOM library), run by the same typecheck script.
    const page = ts.getParsedCommandLineOfConfigFile(
      join(root, "src", "view", "page", "tsconfig.json"),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => expect.fail(String(diagnostic.messageText)) },
    );
    expect(page?.errors ?? []).toEqual([]);
    const checked = new Set([...config!.fileNames, ...page!.fileNames].map((file) => relative(root, file).split(sep).join("/")));
    const typescript = filesUnder(root).filter((file) => /\.(ts|mts|cts|tsx)$/.test(file) && !file.endsWith(".d.ts"));
    // The ones a reader would most expect to be covered, named so that a config that lost them fails loudly.
    expect(typescript).toEqual(
      expect.arrayContaining([
        "adapters/vercel-ai/example/library-agent.ts",
        "test/fixtures/function-agent/broken-agent.ts",
        "test/fixtures/bridge/preload-entry.ts",
        "docs/examples/own-agent/agent.ts",
        "vitest.config.ts",
      ]),
    );
    expect(typescript.filter((file) => !checked.has(file))).toEqual([]);
  });
});

describe("published folders hold no tests or test fixtures", () => {
  const TEST_PATH = /(^|\/)(test|tests|__tests__|fixtures|test-fixtures)\/|\.test\.[cm]?[jt]s$|(^|\/)test_[^/]*\.py$|_test\.py$/;

  it("every test, fixture and stand-in is under test/ (or scripts/ for benchmarks)", () => {
    const misplaced = PUBLISHED.flatMap((folder) => filesUnder(join(root, folder))).filter((file) => TEST_PATH.test(file));
    expect(misplaced).toEqual([]);
  });
});
