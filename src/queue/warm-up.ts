/**
 * A lap of one scratch job through the queue's code when a coordinator or a worker starts, before
 * any run's jobs exist. Why: the first jobs a process adds or takes otherwise pay every one-time cost
 * on their own path — BullMQ's, msgpackr's and ioredis's functions running for the first time
 * (compiled, their caches filled), the zod schemas of a job and a reply compiling their parsers,
 * and each Lua script's first use on a connection, which ioredis sends as an `EVAL` of the script's
 * text (Redis compiles it) before later uses go as `EVALSHA`. On a 32-job run that was about half of
 * each job's queue overhead (`npm run bench queue`, `overheadMsP50`). A coordinator's lap runs while
 * it builds the run, on the connection it adds the run's jobs on; a worker's before it serves runs.
 *
 * The scratch queue has a name of its own (`warm-up-<uuid>`, never a run's: workers find runs in
 * the registry only, so none serves it) and is removed at the end of the lap (a lap cut by a crash
 * leaves a few keys that `taubridge queue clean warm-up-<uuid>` removes). A lap that fails (Redis
 * away) costs nothing but the warm-up, and none keeps its caller waiting more than a few seconds.
 */
import { randomUUID } from "node:crypto";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { type JobData, jobDataSchema } from "./job.ts";
import { KEY_PREFIX } from "./names.ts";
import { parseUnitReply } from "../worker/protocol.ts";

/**
 * How long a lap may keep its caller waiting: a lap is only a warm-up, and one caught by a Redis
 * restart (its commands wait for the reconnection, a BullMQ close may wait on a parked connection)
 * must not hold a run's first jobs or a worker's start; it finishes, or fails, on its own.
 */
const LAP_BOUND_MS = 5_000;

/** The lap, or nothing once the bound has passed. */
async function bounded(lap: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    lap.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, LAP_BOUND_MS);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}

/** A scratch queue's name, one per lap. */
const scratchName = () => `warm-up-${randomUUID()}`;

/** One job for `Queue.addBulk`. */
type BulkJob = Parameters<Queue["addBulk"]>[0][number];

/**
 * The coordinator's lap: a job like the run's own is added (`addBulk`, as the run's jobs are),
 * removed as a recorded unit's job is, and the scratch queue obliterated; a reply like a worker's
 * is read as replies are.
 */
export function warmUpAdding(connection: Redis, job: BulkJob, reply: unknown): Promise<void> {
  return bounded(addingLap(connection, job, reply));
}

async function addingLap(connection: Redis, job: BulkJob, reply: unknown): Promise<void> {
  const queue = new Queue(scratchName(), { connection, prefix: KEY_PREFIX });
  queue.on("error", () => undefined);
  try {
    await queue.addBulk([job]);
    if (job.opts?.jobId) await queue.remove(job.opts.jobId);
    parseUnitReply(reply);
  } finally {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close().catch(() => undefined);
  }
}

/**
 * A worker's lap: a job like the run's is added, taken as the run consumer takes jobs (a fetch
 * with a token, no blocking wait), its data read with the job schema, and completed with a reply
 * through the worker's backend, as `RunConsumer.complete` does; then the scratch queue goes.
 */
export function warmUpTaking(connection: Redis, data: JobData, reply: unknown): Promise<void> {
  return bounded(takingLap(connection, data, reply));
}

async function takingLap(connection: Redis, data: JobData, reply: unknown): Promise<void> {
  const name = scratchName();
  const queue = new Queue(name, { connection, prefix: KEY_PREFIX });
  const worker = new Worker(name, null, { connection, prefix: KEY_PREFIX, autorun: false });
  queue.on("error", () => undefined);
  worker.on("error", () => undefined);
  try {
    await queue.add("warm-up", data, { jobId: "warm-up", attempts: 1, removeOnComplete: false, removeOnFail: false });
    const token = randomUUID();
    const job = await worker.getNextJob(token, { block: false });
    if (!job) return;
    jobDataSchema.safeParse(job.data);
    await worker.backend.moveToCompleted(job, reply, false, token, false);
  } finally {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await worker.close(true).catch(() => undefined);
    await queue.close().catch(() => undefined);
  }
}
