/**
 * Which code may import which (checked by `npm run depcheck`, part of `npm test`, through
 * scripts/check-dependencies.mjs, which also refuses folder-level cycles). The layers, lowest
 * first: src/errors (the one error tree), src/secrets (the one redaction module; imports nothing of
 * ours) < src/value (Python semantics) < src/core (contracts) <
 * src/model, src/metrics, src/data < src/kernel, src/participants, src/a2a/client < src/run <
 * src/report < src/suites/<suite> < src/worker (the worker protocol) < src/local-workers, src/queue
 * (its child-process and BullMQ transports) < src/api, src/a2a/server < src/cli < app/ (the
 * composition root). src/analysis (over src/core and src/metrics) and src/submit (over the
 * leaderboard contract) are read by the CLI and the API only (and src/view, the results viewer over
 * src/analysis, which only the CLI reads). A layer imports only
 * layers below it; no shared layer imports a suite; suites do not import each other; `src/`
 * never imports the domains, bridge, adapters or app/, which pass registries in; the bridge never
 * imports the adapters; published code never imports vitest or test helpers; no file-level cycles.
 */
const TEST_FILE = "(\\.test\\.ts$|(^|/)test/|(^|/)fixtures/|(^|/)test-fixtures/)";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "no file imports itself through others: a cycle means two files are one responsibility, or the arrow points the wrong way",
      severity: "error",
      from: { path: "^(app|src|domains|bridge|adapters)/" },
      to: { circular: true },
    },
    {
      name: "errors-import-nothing-of-ours",
      comment: "src/errors is the bottom layer: the one error tree every other layer throws from",
      severity: "error",
      from: { path: "^src/errors/" },
      to: { path: "^(app|src|domains|bridge|adapters|test|scripts)/", pathNot: "^src/errors/" },
    },
    {
      name: "secrets-import-nothing-of-ours",
      comment: "src/secrets is the one redaction module: every writer and error path imports it, so it stands alone",
      severity: "error",
      from: { path: "^src/secrets/" },
      to: { path: "^(app|src|domains|bridge|adapters|test|scripts)/", pathNot: "^src/secrets/" },
    },
    {
      name: "core-imports-only-value",
      comment: "src/core holds the contracts: it may import src/core, src/value and the error tree of ours, nothing else",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^(app|src|domains|bridge|adapters|test|scripts)/", pathNot: "^src/(core|value|errors)/" },
    },
    {
      name: "shared-layers-not-to-suites",
      comment: "the shared layers serve every suite: they never import one (a suite is a plug-in, registered by app/)",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/suites/" },
      to: { path: "^src/suites/" },
    },
    {
      name: "suites-not-to-each-other",
      comment: "a suite is self-contained: what two suites share belongs in a shared layer",
      severity: "error",
      from: { path: "^src/suites/([^/]+)/" },
      to: { path: "^src/suites/", pathNot: "^src/suites/$1/" },
    },
    {
      name: "model-metrics-data-stay-low",
      comment: "the model clients, the metrics and the data layer sit under the kernel, participants and run layer",
      severity: "error",
      from: { path: "^src/(model|metrics|data)/" },
      to: { path: "^src/(kernel|participants|run|report|api|cli|testing)/" },
    },
    {
      name: "participants-below-run",
      comment: "shared participants build on the contracts (src/core/strategies.ts), never on the run layer, reports, API or CLI",
      severity: "error",
      from: { path: "^src/participants/" },
      to: { path: "^src/(kernel|run|report|api|cli)/" },
    },
    {
      name: "run-below-report-api-cli",
      comment: "the run layer is used by reports, the API and the CLI, never the other way",
      severity: "error",
      from: { path: "^src/run/" },
      to: { path: "^src/(kernel|participants|report|api|cli)/" },
    },
    {
      name: "report-below-api-cli",
      comment: "reports are read by the API and the CLI",
      severity: "error",
      from: { path: "^src/report/" },
      to: { path: "^src/(api|cli|kernel|participants)/" },
    },
    {
      name: "api-not-to-cli",
      comment: "the CLI is one front end of the API's layers; the API never depends on it",
      severity: "error",
      from: { path: "^src/api/" },
      to: { path: "^src/cli/" },
    },
    {
      name: "worker-is-transport-neutral",
      comment:
        "src/worker is the worker protocol and both its ends (coordinator's task source, worker's unit runner): it builds on the contracts, the run layer, the error tree and redaction, knows no transport (no child processes, no queue) and reaches suites only through the Suite contract",
      severity: "error",
      from: { path: "^src/worker/" },
      to: { path: ["^src/(kernel|participants|model|data|testing|report|suites|api|cli|local-workers|queue)/", "^(node:)?(child_process|cluster|worker_threads|net|http)$", "^(bullmq|ioredis)$"] },
    },
    {
      name: "local-workers-are-a-transport",
      comment: "src/local-workers carries the worker protocol over child processes' IPC pipes: the protocol, the run layer and the contracts, nothing of the suites or the front ends",
      severity: "error",
      from: { path: "^src/local-workers/" },
      to: { path: "^src/(kernel|participants|model|data|testing|report|suites|api|cli)/" },
    },
    {
      name: "queue-is-a-transport",
      comment:
        "src/queue carries the worker protocol over a BullMQ queue in Redis (coordinator, worker, shared limits, admin): the protocol, the run layer, the contracts and the model layer's HTTP transport, nothing of the suites, kernel, participants or front ends",
      severity: "error",
      from: { path: "^src/queue/" },
      to: { path: "^src/(kernel|participants|data|testing|report|suites|api|cli|local-workers)/" },
    },
    {
      name: "workers-above-run-and-suites",
      comment: "the workers sit above the run layer and the suites: only the front ends (src/api, src/cli) and app/ start them",
      severity: "error",
      from: { path: "^src/(errors|secrets|value|core|model|metrics|data|kernel|participants|run|report|suites|testing)/" },
      to: { path: "^src/(worker|local-workers|queue)/" },
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
      name: "value-imports-only-errors",
      comment: "src/value is the Python-semantics module: of ours it may use only the error tree",
      severity: "error",
      from: { path: "^src/value/" },
      to: { path: "^(app|src|domains|bridge|adapters|test|scripts)/", pathNot: "^src/(value|errors)/" },
    },
    {
      name: "knowledge-imports-only-value",
      comment:
        "src/suites/tau2/knowledge is τ³'s offline retrieval engine: of ours it may use src/value, the error tree, src/data/lazy-zod.ts (zod loaded on first use, a leaf) and itself; only its messages.ts also reads the original's sentences through the τ² engine's upstream-messages.ts",
      severity: "error",
      from: { path: "^src/suites/tau2/knowledge/(messages(?=\\.ts$))?" },
      to: { path: "^(app|src|domains|bridge|adapters|test|scripts)/", pathNot: "^src/(value/|errors/|data/lazy-zod\\.ts$|suites/tau2/knowledge/|suites/tau2/engine/upstream-$1\\.ts$)" },
    },
    {
      name: "domains-import-only-contracts",
      comment:
        "a domain reads like the original tools: it may use src/core, src/value and its suite's engine, never the run layer, participants, bridge or adapters; τ³ banking_knowledge also builds its KB_search/grep tools and variant table on τ²'s offline retrieval engine (src/suites/tau2/knowledge), which knows nothing of runs either",
      severity: "error",
      from: { path: "^domains/", pathNot: TEST_FILE },
      to: { path: "^(app|src|bridge|adapters|test|scripts)/", pathNot: "^src/(core|value|errors|suites/[^/]+/engine|suites/tau2/knowledge)/" },
    },
    {
      name: "a2a-client-is-a-participant",
      comment:
        "src/a2a/client is an agent strategy like src/participants: it builds on the contracts (core), the value model, the error tree and the redaction module, never on the kernel, the run layer, reports, the API, the CLI, the model layer, a suite or the A2A server",
      severity: "error",
      from: { path: "^src/a2a/client/" },
      to: { path: "^src/", pathNot: "^src/(core|value|errors|secrets|a2a/client)/" },
    },
    {
      name: "a2a-server-is-a-front-end",
      comment:
        "src/a2a/server sits beside the API: it drives runs through src/api and the run layer, reads reports and the contracts, and uses the A2A client's host allow-list; never the CLI, the kernel, participants or a suite (registries come from app/)",
      severity: "error",
      from: { path: "^src/a2a/server/" },
      to: { path: "^src/(cli|kernel|participants|suites|testing|model)/" },
    },
    {
      name: "a2a-is-above-the-layers-it-serves",
      comment: "only the CLI and the composition root use A2A: no lower layer (nor the API) imports src/a2a",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(a2a|cli)/" },
      to: { path: "^src/a2a/" },
    },
    {
      name: "analysis-reads-records-only",
      comment:
        "src/analysis (failure analysis, policy engine, statistics) reads canonical episode records: it may import src/core, src/metrics, src/value and the error tree; models come in through the ChatModel contract and callbacks, results files through the CLI",
      severity: "error",
      from: { path: "^src/analysis/" },
      to: { path: "^(app|src|domains|bridge|adapters|test|scripts)/", pathNot: "^src/(analysis|core|metrics|value|errors)/" },
    },
    {
      name: "submit-over-the-leaderboard-contract",
      comment:
        "src/submit (leaderboard submissions) reaches a suite only through src/core/leaderboard.ts: it may import src/core, src/metrics, src/value, the error tree and the run layer's atomic writes",
      severity: "error",
      from: { path: "^src/submit/" },
      to: { path: "^(app|src|domains|bridge|adapters|test|scripts)/", pathNot: "^src/(submit|core|metrics|value|errors)/|^src/run/atomic-file\\.ts$" },
    },
    {
      name: "view-shows-what-analysis-computes",
      comment:
        "src/view (the results viewer: its data, page and server) shows canonical records and what src/analysis computes from them: it may import src/analysis, src/core, src/value, the error tree, the report's labels, the end-state comparison (src/metrics/state-diff.ts) and the run layer's atomic writes; results files come in through the CLI's reader (never a suite)",
      severity: "error",
      from: { path: "^src/view/" },
      to: {
        path: "^(app|src|domains|bridge|adapters|test|scripts)/",
        pathNot: "^src/(view|analysis|core|value|errors)/|^src/run/atomic-file\\.ts$|^src/report/labels\\.ts$|^src/metrics/state-diff\\.ts$",
      },
    },
    {
      name: "view-serves-front-ends",
      comment: "the viewer is a front end of the CLI (and app/): nothing below it imports it",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(view|cli|api)/" },
      to: { path: "^src/view/" },
    },
    {
      name: "analysis-and-submit-serve-front-ends",
      comment: "analysis and submissions are read by the CLI, the API, the viewer and app/ only: no lower layer and no suite depends on them",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(analysis|submit|cli|api|view)/" },
      to: { path: "^src/(analysis|submit)/" },
    },
    {
      name: "kernel-imports-no-run-layer-or-participants",
      comment: "the episode kernel and the suites' loops get agents, users and evaluators through the contracts",
      severity: "error",
      from: { path: "^src/(kernel|suites/[^/]+/loop\\.ts$)" },
      to: { path: "^src/(run|participants|cli|api)/" },
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
