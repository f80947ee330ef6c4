/**
 * Where a `--workers` process starts: this build's worker entry (a file URL), `worker-entry.ts` in
 * the sources and `worker-entry.js` in `dist/`. The registry sets name it (`Registries.workers`)
 * so a run can fork it; a module of its own so that naming it never runs it.
 */
export const WORKER_ENTRY = new URL(`./worker-entry${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url).href;
