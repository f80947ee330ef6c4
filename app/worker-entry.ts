/**
 * A `--workers` process: forked by a run's coordinator (`src/local-workers/process-pool.ts`), it
 * serves the worker protocol on its IPC pipe, creating the registry set the run's configuration
 * names — the same composition root the coordinator's run used, so names resolve to the same
 * suites, strategies, adapters (their load-time hooks installed as in a local run) and model layer.
 */
import { ConfigError } from "../src/errors/error-tree.ts";
import { serveWorkerProcess } from "../src/local-workers/serve.ts";
import type { Registries } from "../src/run/registries.ts";

/** The registry sets a worker can create, by the names `registries.ts` and `offline-registries.ts` give them. */
async function registrySet(set: string): Promise<Registries> {
  switch (set) {
    case "bundled":
      return (await import("./registries.ts")).createBundledRegistries();
    case "offline":
      return (await import("./offline-registries.ts")).createOfflineRegistries();
    case "offline-tau2":
      return (await import("./offline-registries.ts")).createOfflineRegistries({ tau2: true });
    default:
      throw new ConfigError(`unknown registry set "${set}" for a worker; known: bundled, offline, offline-tau2`);
  }
}

serveWorkerProcess(registrySet);
