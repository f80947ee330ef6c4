/**
 * Which code may import which (BRIEF design rules; checked by `npm run depcheck`, part of `npm test`):
 * the core contracts import nothing of ours but the value module; `src/` never imports the
 * domains, bridge, adapters or the composition root (`app/`), which pass registries in; the bridge
 * never imports the adapters; published code never imports vitest or test helpers.
 */
const TEST_FILE = "(\\.test\\.ts$|(^|/)test/|(^|/)fixtures/|(^|/)test-fixtures/)";
// Test-support modules that still live among published code. A tooling change is moving both
// into test/; until then they are the only published-tree files allowed to import vitest.
//   adapters/common/adapter-suite.ts, adapters/common/test-support.ts
const TEST_SUPPORT_IN_TREE = "^adapters/common/(adapter-suite|test-support)\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "core-imports-only-value",
      comment: "src/core holds the contracts: it may import src/core and src/value of ours, nothing else",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^(app|src|domains|bridge|adapters|test|scripts)/", pathNot: "^src/(core|value)/" },
    },
    {
      name: "src-not-to-outer-layers",
      comment: "src/ takes domains and strategies as registries; it never imports domains/, bridge/, adapters/ or app/",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(domains|bridge|adapters|app)/" },
    },
    {
      name: "bridge-not-to-adapters",
      comment: "the bridge is framework-neutral; adapters plug into it, never the other way",
      severity: "error",
      from: { path: "^bridge/" },
      to: { path: "^adapters/" },
    },
    {
      name: "published-not-to-tests",
      comment: "published code never imports vitest, test files or test helpers",
      severity: "error",
      from: { path: "^(app|src|domains|bridge|adapters)/", pathNot: [TEST_FILE, TEST_SUPPORT_IN_TREE] },
      to: { path: ["(^|/)node_modules/vitest/", "(^|/)node_modules/@vitest/", TEST_FILE, TEST_SUPPORT_IN_TREE] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^dist/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
  },
};
