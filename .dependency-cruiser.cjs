/**
 * Which code may import which (BRIEF design rules; checked by `npm run depcheck`, part of `npm test`):
 * the core contracts import nothing of ours but the value module; `src/` never imports the
 * domains, bridge, adapters or the composition root (`app/`), which pass registries in; the bridge
 * never imports the adapters; published code never imports vitest or test helpers.
 */
const TEST_FILE = "(\\.test\\.ts$|(^|/)test/|(^|/)fixtures/|(^|/)test-fixtures/)";

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
      from: { path: "^(app|src|domains|bridge|adapters)/", pathNot: TEST_FILE },
      to: { path: ["(^|/)node_modules/vitest/", "(^|/)node_modules/@vitest/", TEST_FILE] },
    },
    {
      name: "value-imports-only-core-errors",
      comment: "src/value is the Python-semantics module: of ours it may use only the error tree",
      severity: "error",
      from: { path: "^src/value/" },
      to: { path: "^(app|src|domains|bridge|adapters|test|scripts)/", pathNot: "^src/(value/|core/errors\\.ts$)" },
    },
    {
      name: "knowledge-imports-only-value",
      comment:
        "src/knowledge is τ³'s offline retrieval engine: of ours it may use src/value and the error tree; only its messages.ts also reads the original's sentences through src/engine/tau2/upstream-messages.ts",
      severity: "error",
      from: { path: "^src/knowledge/(messages(?=\\.ts$))?" },
      to: { path: "^(app|src|domains|bridge|adapters|test|scripts)/", pathNot: "^src/(value/|core/errors\\.ts$|knowledge/|engine/tau2/upstream-$1\\.ts$)" },
    },
    {
      name: "domains-import-only-contracts",
      comment: "a domain reads like the original tools: it may use src/core, src/value and src/engine, never the runner, agents, bridge or adapters",
      severity: "error",
      from: { path: "^domains/", pathNot: TEST_FILE },
      to: { path: "^(app|src|bridge|adapters|test|scripts)/", pathNot: "^src/(core|value|engine)/" },
    },
    {
      name: "orchestrator-imports-no-runner-or-strategies",
      comment: "the orchestrator gets agents, users and evaluators through the contracts",
      severity: "error",
      from: { path: "^src/orchestrator/" },
      to: { path: "^src/(runner|agents|users|cli|api)/" },
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
