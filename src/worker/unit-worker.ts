/**
 * The worker side of the protocol, whatever carries it: a configuration is built into the suite's
 * unit runner once (the same build, kernel, model clients, response cache and bridge as a local
 * run), and each unit is run as one attempt whose outcome is exactly one reply — its result, the
 * error it threw, or `cancelled` when a cancel cut it. A transport (a local process's pipe, a queue
 * consumer) only moves messages in and out of this class.
 */
import { hostname } from "node:os";
import { unitKey, type WorkUnit } from "../core/run.ts";
import type { SuiteUnitRunner } from "../core/suite.ts";
import { ConfigError } from "../errors/error-tree.ts";
import { suiteOf, type Registries } from "../run/registries.ts";
import { suiteNamed } from "../run/run-flags.ts";
import { taubridgeVersion } from "../run/run-identity.ts";
import { parseRunSettings, type RunSettings } from "../run/run-settings.ts";
import { redactText, runSecrets } from "../secrets/redact.ts";
import { serializeError, WorkerProtocolError } from "./errors.ts";
import type { RunConfiguration, UnitReply, WorkerMessage } from "./protocol.ts";

export interface UnitWorkerOptions {
  /** The registry set a configuration names, created by the composition root (`app/worker-entry.ts`). */
  registries(set: string, settings: RunSettings): Promise<Registries>;
  /** A participant's warning while it runs units, to send to the coordinator. */
  warn(message: string): void;
}

/** A configured run: its unit runner, once built. */
interface ConfiguredRun {
  runner: Promise<SuiteUnitRunner>;
  /** Attempts running now, by unit key: a cancel aborts them. */
  attempts: Map<string, AbortController>;
}

/** One worker: builds configurations, runs their units, answers every unit once. */
export class UnitWorker {
  private readonly runs = new Map<string, ConfiguredRun>();
  private closed = false;

  constructor(private readonly options: UnitWorkerOptions) {}

  /**
   * Builds the run's parts for a configuration (once per id; later calls wait for the same build)
   * and answers `ready`, or `refused` with what stops the run (a bad option, a missing module, a
   * worker of another taubridge version).
   */
  async configure(configuration: RunConfiguration): Promise<Extract<WorkerMessage, { type: "ready" | "refused" }>> {
    let run = this.runs.get(configuration.id);
    if (!run) {
      run = { runner: this.build(configuration), attempts: new Map() };
      run.runner.catch(() => undefined); // the refusal is answered below, to every caller
      this.runs.set(configuration.id, run);
    }
    try {
      await run.runner;
      return { type: "ready", configurationId: configuration.id, pid: process.pid, host: hostname() };
    } catch (error) {
      return { type: "refused", configurationId: configuration.id, error: serializeError(error, runSecrets(configuration.settings)) };
    }
  }

  private async build(configuration: RunConfiguration): Promise<SuiteUnitRunner> {
    if (this.closed) throw new WorkerProtocolError("the worker is closing");
    const version = taubridgeVersion();
    if (configuration.taubridgeVersion !== version) {
      throw new ConfigError(`a worker runs taubridge ${version} but the run's coordinator runs ${configuration.taubridgeVersion}: run the same version everywhere`);
    }
    const settings = parseRunSettings(configuration.settings, configuration.surface, suiteNamed(configuration.suite));
    const registries = await this.options.registries(configuration.registries, settings);
    const suite = suiteOf(registries, settings.suite);
    if (!suite.unitRunner) throw new ConfigError(`the ${suite.title} suite cannot run episodes in worker processes`);
    const secrets = runSecrets(settings.values);
    return await suite.unitRunner({ settings, registries, warn: (message) => this.options.warn(redactText(message, secrets)) });
  }

  /**
   * Runs one attempt of a unit of a configured run and resolves with its one reply (never
   * rejects). The attempt is registered before anything is awaited, so a cancel that follows the
   * unit on the same channel always finds it.
   */
  async run(configurationId: string, unit: WorkUnit): Promise<UnitReply> {
    const key = unitKey(unit);
    const ids = { configurationId, key, attempt: unit.attempt };
    const run = this.runs.get(configurationId);
    if (!run) return { type: "failed", ...ids, error: serializeError(new WorkerProtocolError(`unit for configuration ${configurationId}, which this worker was never sent`)), usage: {} };
    const controller = new AbortController();
    run.attempts.get(key)?.abort(); // a unit's attempts never overlap; a stale one is stopped
    run.attempts.set(key, controller);
    let runner: SuiteUnitRunner | undefined;
    try {
      runner = await run.runner;
      // An endpoint that refused the run's first call: every attempt would fail the same way.
      const dead = runner.unreachable?.();
      if (dead) throw dead;
      const result = await runner.execute(unit, controller.signal);
      if (controller.signal.aborted) return { type: "cancelled", ...ids, usage: runner.usage?.() ?? {} };
      const stop = runner.unreachable?.();
      if (stop) return { type: "failed", ...ids, error: serializeError(stop, runner.secrets), usage: runner.usage?.() ?? {} };
      return { type: "result", ...ids, result, usage: runner.usage?.() ?? {} };
    } catch (error) {
      const usage = runner?.usage?.() ?? {};
      if (controller.signal.aborted) return { type: "cancelled", ...ids, usage };
      return { type: "failed", ...ids, error: serializeError(runner?.unreachable?.() ?? error, runner?.secrets ?? []), usage };
    } finally {
      if (run.attempts.get(key) === controller) run.attempts.delete(key);
    }
  }

  /** Cuts the attempts of a run (one unit's, or all): each is answered `cancelled`, unless its result was already made. */
  cancel(configurationId: string, key?: string): void {
    const run = this.runs.get(configurationId);
    if (!run) return;
    for (const [attemptKey, controller] of run.attempts) if (key === undefined || attemptKey === key) controller.abort();
  }

  /** Cuts every attempt and releases every run's participants. */
  async close(): Promise<void> {
    this.closed = true;
    const runners = [...this.runs.values()];
    for (const run of runners) for (const controller of run.attempts.values()) controller.abort();
    this.runs.clear();
    await Promise.allSettled(runners.map(async (run) => (await run.runner).close()));
  }
}
