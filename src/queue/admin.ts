/**
 * `taubridge queue status|cancel|clean <run> --queue URL`: a run's queue seen and handled from any
 * machine. `<run>` is the results file's stem (the queue's name).
 *
 * - status: jobs by state, the run's record (open or cancelled, its coordinator, its limits) and
 *   the workers connected to its queue;
 * - cancel: the run's record is closed (workers start none of its jobs), its waiting jobs are taken
 *   off the queue, and running simulations are cut (`cancelled` replies, never recorded); its
 *   coordinator ends the run as interrupted (exit 130), and the same command resumes it;
 * - clean: every key of the run (its queue, jobs, events, limits, record) is removed.
 */
import { Queue } from "bullmq";
import { ConfigError } from "../errors/error-tree.ts";
import { durableConnection, probeRedis } from "./connection.ts";
import { CANCEL_CHANNEL, checkedRunName, KEY_PREFIX } from "./names.ts";
import { readRunRecord, readRunRecords, removeRunRecord, type RunRecord, writeRunRecord } from "./run-record.ts";

/** The job states `status` counts. */
export const JOB_STATES = ["waiting", "active", "delayed", "prioritized", "completed", "failed"] as const;

export interface QueueStatus {
  run: string;
  /** The run's record: undefined when no coordinator registered it (or it finished and tidied up). */
  record: (Omit<RunRecord, "configuration"> & { suite: string; configurationId: string }) | undefined;
  counts: Record<(typeof JOB_STATES)[number], number>;
  /** Workers connected to the run's queue (name and address as Redis reports them). */
  workers: Array<{ name: string; addr: string }>;
}

async function withQueue<T>(url: string, run: string, action: (queue: Queue, redis: ReturnType<typeof durableConnection>) => Promise<T>): Promise<T> {
  await probeRedis(url);
  const redis = durableConnection(url, "taubridge-queue-command");
  const queue = new Queue(checkedRunName(run), { connection: redis, prefix: KEY_PREFIX });
  try {
    return await action(queue, redis);
  } finally {
    await queue.close();
    redis.disconnect();
  }
}

/** The runs the registry holds (for the error that names a run the queue does not know). */
async function knownRuns(redis: ReturnType<typeof durableConnection>): Promise<string> {
  const names = [...(await readRunRecords(redis)).keys()];
  return names.length > 0 ? names.join(", ") : "none";
}

/** Refuses a run the Redis holds nothing of, before anything is written (opening a BullMQ queue writes its meta key). */
async function checkKnown(url: string, run: string, needRecord: boolean): Promise<void> {
  await probeRedis(url);
  const redis = durableConnection(url, "taubridge-queue-command");
  try {
    const record = await readRunRecord(redis, checkedRunName(run));
    if (record) return;
    if (needRecord) throw new ConfigError(`the queue has no open run "${run}" (runs it has: ${await knownRuns(redis)})`);
    if ((await redis.exists(`${KEY_PREFIX}:${run}:meta`, `${KEY_PREFIX}:${run}:id`)) === 0) {
      throw new ConfigError(`the queue has no run "${run}" (runs it has: ${await knownRuns(redis)}); a finished run leaves nothing behind`);
    }
  } finally {
    redis.disconnect();
  }
}

export async function queueStatus(url: string, run: string): Promise<QueueStatus> {
  await checkKnown(url, run, false);
  return withQueue(url, run, async (queue, redis) => {
    const counts = (await queue.getJobCounts(...JOB_STATES)) as QueueStatus["counts"];
    const record = await readRunRecord(redis, run);
    const workers = (await queue.getWorkers()).map((worker) => ({ name: String(worker.name ?? ""), addr: String(worker.addr ?? "") }));
    const { configuration, ...rest } = record ?? ({} as RunRecord);
    return { run, record: record ? { ...rest, suite: configuration.suite, configurationId: configuration.id } : undefined, counts, workers };
  });
}

/** Cancels a run: no new simulation starts, running ones are cut; its coordinator ends as interrupted. */
export async function cancelQueueRun(url: string, run: string): Promise<{ removedWaiting: number; active: number }> {
  await checkKnown(url, run, true);
  return withQueue(url, run, async (queue, redis) => {
    const record = await readRunRecord(redis, run);
    if (!record) throw new ConfigError(`the queue has no open run "${run}" (runs it has: ${await knownRuns(redis)})`);
    // Counted before the record says cancelled: workers hear that at once and cut their running
    // simulations, whose jobs may then complete before a later count (they were told to stop all the same).
    const counts = await queue.getJobCounts("waiting", "delayed", "prioritized", "active");
    await writeRunRecord(redis, { ...record, state: "cancelled" });
    await queue.drain(true);
    await redis.publish(CANCEL_CHANNEL, JSON.stringify({ run }));
    return { removedWaiting: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0), active: counts.active ?? 0 };
  });
}

/** Removes every key of a run. Refused while jobs are running unless `force` (their workers' replies are then lost, never recorded). */
export async function cleanQueueRun(url: string, run: string, force = false): Promise<{ removedKeys: number }> {
  await checkKnown(url, run, false);
  await withQueue(url, run, async (queue, redis) => {
    const active = (await queue.getJobCounts("active")).active ?? 0;
    if (active > 0 && !force) throw new ConfigError(`the run "${run}" has ${active} simulation(s) running; cancel it first (taubridge queue cancel ${run}), or clean with --force`);
    await queue.obliterate({ force: true });
    await removeRunRecord(redis, run);
  });
  // Then every key left under the run's name: our own (limits, pauses), and the meta key opening the queue wrote.
  const redis = durableConnection(url, "taubridge-queue-command");
  try {
    let removed = 0;
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${KEY_PREFIX}:${run.replace(/[*?[\]\\]/g, "\\$&")}:*`, "COUNT", 500);
      cursor = next;
      if (keys.length > 0) removed += await redis.del(...keys);
    } while (cursor !== "0");
    return { removedKeys: removed };
  } finally {
    redis.disconnect();
  }
}
