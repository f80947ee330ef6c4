import type { EpisodeEnvironment, ToolStepResult } from "../../../core/contracts.ts";
import type { Action } from "../../../core/types.ts";
import type { EpisodeDatabase } from "./database.ts";
import type { LoadedDomain } from "./domain.ts";
import { invokeTool } from "./tool.ts";

/**
 * One episode's environment: the domain's tools over the episode's own copy-on-write database.
 * It executes tool actions and renders their observations with the original's texts; it neither
 * talks to the user nor scores (the suite's loop, `src/suites/tau-bench/loop.ts`, routes `respond`
 * to the user simulator; the suite's evaluator scores the end state).
 *
 * Isolation: each environment has its own database view over the domain's shared parse, so
 * concurrent episodes never share mutable state and creating one touches no file.
 */
export class Environment implements EpisodeEnvironment {
  readonly db: EpisodeDatabase;

  constructor(readonly domain: LoadedDomain) {
    this.db = domain.newDatabase();
  }

  /**
   * Runs one tool action: a known tool runs against the episode database (Python-level errors
   * become `Error: ...` observations; a terminate tool reports `done`); an unknown name observes
   * `Unknown action <name>`, as τ-bench does.
   */
  step(action: Action): ToolStepResult {
    const tool = this.domain.toolsByName.get(action.name);
    if (!tool) return { observation: `Unknown action ${action.name}`, done: false, error: true };
    const observation = invokeTool(tool, this.domain.definition.dataSubdirectory, this.db, action.kwargs);
    return { observation, done: this.domain.definition.terminateTools.includes(action.name), error: observation.startsWith("Error:") };
  }

  /** Hash of the episode's current database (τ-bench `get_data_hash`). */
  dataHash(): string {
    return this.db.tauBenchHash();
  }
}
