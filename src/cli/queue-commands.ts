/**
 * `taubridge worker --queue URL` (serve every open run on a Redis, on any machine) and `taubridge
 * queue status|cancel|clean <run> --queue URL`. The queue itself lives in `src/queue`; this module
 * turns flags into calls and prints the answers.
 */
import { type Command, Option } from "commander";
import { ConfigError } from "../errors/error-tree.ts";
import type { Registries } from "../run/registries.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import type { LoadRegistries } from "./registry-needs.ts";
import { printJson } from "./usage.ts";

const QUEUE_HELP = "the Redis of the queue: redis://[user:password@]host:port/db (rediss:// for TLS)";

function positiveInteger(flag: string) {
  return (text: string): number => {
    if (!/^[1-9]\d*$/.test(text)) throw new ConfigError(`${flag} must be a whole number ≥ 1, got ${text}`);
    return Number(text);
  };
}

function positiveSeconds(flag: string) {
  return (text: string): number => {
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${flag} must be a number of seconds > 0, got ${text}`);
    return value;
  };
}

/** The registry set a run's configuration names, from the command's loader (the same sets `--workers` processes create). */
function registrySets(loadRegistries: LoadRegistries): (set: string) => Promise<Registries> {
  return async (set) => {
    const needs = { bundled: undefined, offline: { names: [], models: false, tau2: false }, "offline-tau2": { names: [], models: false, tau2: true } }[set];
    if (needs === undefined && set !== "bundled") throw new ConfigError(`a run names the registry set "${set}", which a worker cannot create; known: bundled, offline, offline-tau2`);
    const registries = await loadRegistries(needs);
    if (registries.workers?.set !== set) throw new ConfigError(`a run names the registry set "${set}", which a worker cannot create here`);
    return registries;
  };
}

/** Adds `worker` and `queue status|cancel|clean`. */
export function registerQueueCommands(program: Command, loadRegistries: LoadRegistries): void {
  program
    .command("worker")
    .description(
      "Run the simulations of queued runs (coordinators started with --queue) on this machine, with the model keys of this machine's environment; Ctrl-C finishes the running ones and stops, a second Ctrl-C stops at once (their jobs run again elsewhere)",
    )
    .requiredOption("--queue <redis-url>", QUEUE_HELP)
    .addOption(new Option("--concurrency <n>", "simulations running at once in this process, per run").default(8).argParser(positiveInteger("--concurrency")))
    .addOption(
      new Option("--lock-duration <seconds>", "how long a job's lock lasts without renewal: a killed worker's jobs run again elsewhere after it (renewed every half of it)")
        .default(30)
        .argParser(positiveSeconds("--lock-duration")),
    )
    .addOption(new Option("--stalled-interval <seconds>", "how often this worker looks for jobs whose worker was lost (default: the lock duration)").argParser(positiveSeconds("--stalled-interval")))
    .action(async (options: { queue: string; concurrency: number; lockDuration: number; stalledInterval?: number }) => {
      const { queueUrl } = await import("../queue/names.ts");
      queueUrl(options.queue);
      const { QueueWorker } = await import("../queue/queue-worker.ts");
      const sets = registrySets(loadRegistries);
      // The bundled registry set's modules load once, before this worker serves: a run's first jobs then wait only for its own build
      // (its data), not for the suites' code (seconds of CPU, paid again by every worker that starts on the same cores). A set that
      // cannot load is reported by the run that names it.
      await sets("bundled").catch(() => undefined);
      // So do the parts of the model path that load on a process's first model call — undici's `Client`
      // (loaded alone, `undici-parts.ts`) and Node's web globals behind the SDK's `Headers` (Node's own
      // undici) — ≈ 0.1–0.2 s of CPU each worker would otherwise pay inside a run, on its first simulations.
      const { undiciClient } = await import("../model/undici-parts.ts");
      undiciClient();
      new Headers();
      const worker = new QueueWorker({
        url: options.queue,
        concurrency: options.concurrency,
        lockDurationMs: options.lockDuration * 1000,
        ...(options.stalledInterval ? { stalledIntervalMs: options.stalledInterval * 1000 } : {}),
        registries: (set) => sets(set),
        log: (line) => process.stderr.write(`${line}\n`),
      });
      await worker.start();
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = () => {
          if (stopping) {
            process.stderr.write("taubridge worker: stopping now; the simulations cut here run again on another worker\n");
            void worker.close(true).finally(() => process.exit(EXIT_CODES.interrupted));
            return;
          }
          stopping = true;
          process.stderr.write("taubridge worker: finishing the running simulations, taking no new ones (Ctrl-C again to stop now)\n");
          void worker.close().finally(resolve);
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
      process.stderr.write(`taubridge worker: stopped after ${worker.finished} simulation(s)\n`);
    });

  const queue = program.command("queue").description("A queued run's jobs, seen and handled from any machine (<run> is the results file's stem)");
  queue
    .command("status <run>")
    .description("jobs of the run by state, its coordinator, its limits and the workers connected")
    .requiredOption("--queue <redis-url>", QUEUE_HELP)
    .addOption(new Option("--format <format>", "text or json").choices(["text", "json"]).default("text"))
    .action(async (run: string, options: { queue: string; format: string }) => {
      const { queueStatus } = await import("../queue/admin.ts");
      const status = await queueStatus(options.queue, run);
      if (options.format === "json") return printJson(status);
      const record = status.record;
      const lines = [
        `run ${status.run}: ${record ? `${record.state} (${record.suite}, coordinator ${record.coordinator.host}:${record.coordinator.pid} since ${record.coordinator.at})` : "no record (its coordinator tidied up, or never registered it)"}`,
        `jobs: ${Object.entries(status.counts)
          .map(([state, count]) => `${state} ${count}`)
          .join(", ")}`,
        ...(record && Object.keys(record.providerLimits).length > 0
          ? [
              `provider limits: ${Object.entries(record.providerLimits)
                .map(([name, n]) => `${name}=${n}`)
                .join(", ")}`,
            ]
          : []),
        ...(record && Object.keys(record.rateLimits).length > 0
          ? [
              `rate limits: ${Object.entries(record.rateLimits)
                .map(([name, rate]) => `${name}=${rate.requests}/${rate.seconds}s`)
                .join(", ")}`,
            ]
          : []),
        `workers connected: ${status.workers.length}`,
      ];
      process.stdout.write(`${lines.join("\n")}\n`);
    });
  queue
    .command("cancel <run>")
    .description("start no new simulation of the run and cut the running ones; its coordinator ends as interrupted (the same command resumes it)")
    .requiredOption("--queue <redis-url>", QUEUE_HELP)
    .action(async (run: string, options: { queue: string }) => {
      const { cancelQueueRun } = await import("../queue/admin.ts");
      const done = await cancelQueueRun(options.queue, run);
      process.stdout.write(`run ${run} cancelled: ${done.removedWaiting} waiting job(s) removed, ${done.active} running simulation(s) told to stop\n`);
    });
  queue
    .command("clean <run>")
    .description("remove every key of the run from Redis (its queue, jobs, events, limits and record)")
    .requiredOption("--queue <redis-url>", QUEUE_HELP)
    .option("--force", "also while simulations run (their results are then never recorded)")
    .action(async (run: string, options: { queue: string; force?: boolean }) => {
      const { cleanQueueRun } = await import("../queue/admin.ts");
      const done = await cleanQueueRun(options.queue, run, options.force === true);
      process.stdout.write(`run ${run} removed from the queue (${done.removedKeys} key(s) of its own besides BullMQ's)\n`);
    });
}
