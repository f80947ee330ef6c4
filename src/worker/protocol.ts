/**
 * The worker protocol: the messages between a run's coordinator (which leases units, retries them
 * and writes the results) and the workers that run its episodes. Every message is plain JSON and
 * is checked with zod where it is received, so any transport that carries JSON carries it
 * unchanged: the pipe of a local worker process (`--workers`, `src/local-workers`), or a job and
 * its return value on a queue (BullMQ on Redis, workers on other machines).
 *
 * One unit in, one reply out. The coordinator sends the run's configuration once per worker (a
 * queue may send it with every job: it is small and has an id), then units; the worker answers
 * each unit with exactly one reply: its result, the error its attempt threw, or that it was
 * cancelled. Usage the attempt spent outside its result (τ²'s judge, τ³ retrieval's reranker and
 * embedder) rides on every reply.
 *
 * Nothing secret crosses: the configuration holds the run's flags, never a key (a run whose flags
 * hold one is refused: `configuration.ts`); each worker reads keys from its own environment, and
 * redacts what it sends with them.
 */
import { z } from "zod";
import type { WorkUnit } from "../core/run.ts";
import { serializedErrorSchema, WorkerProtocolError } from "./errors.ts";

export { serializedErrorSchema, type SerializedError } from "./errors.ts";

/** Bumped when a message changes shape: a worker refuses a configuration of another version. */
export const WORKER_PROTOCOL_VERSION = 2;

const jsonValue: z.ZodType<unknown> = z.lazy(() => z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(jsonValue), z.record(z.string(), jsonValue)]));

/**
 * What a worker needs to build the run's parts exactly as the coordinator did: the suite, the run
 * flags as they were given (read again by the same flag table), and which registry set the
 * composition root creates for them. `id` names it in every unit (a digest of the rest).
 */
export const runConfigurationSchema = z.object({
  protocol: z.literal(WORKER_PROTOCOL_VERSION),
  id: z.string().min(1),
  /** The coordinator's taubridge version: a worker of another version would run other code. */
  taubridgeVersion: z.string(),
  /** The registry set the worker's composition root creates (e.g. `bundled`, `offline`). */
  registries: z.string().min(1),
  suite: z.string().min(1),
  /** How the flags were given: `cli` (commander's strings) or `api` (typed values); read again the same way. */
  surface: z.enum(["cli", "api"]),
  /** The run flags by option name, as given (no secret: refused before it is sent). */
  settings: z.record(z.string(), jsonValue),
});
export type RunConfiguration = z.infer<typeof runConfigurationSchema>;

export const workUnitSchema: z.ZodType<WorkUnit> = z.object({
  runId: z.string(),
  suite: z.string(),
  domain: z.string(),
  taskId: z.string(),
  taskIndex: z.number().int().nonnegative(),
  trial: z.number().int().nonnegative(),
  seed: z.number().int().nullable(),
  attempt: z.number().int().positive(),
});

const roleUsageSchema = z.object({ calls: z.number(), promptTokens: z.number(), completionTokens: z.number(), cost: z.number().nullable() });
/** Usage spent outside a result, by role (τ²: `judge`; τ³ retrieval: `reranker`, `embedder`). */
export const usageSchema = z.record(z.string(), roleUsageSchema);

/** Which attempt of which unit of which run a reply or a cancel is about. */
const attemptFields = {
  configurationId: z.string(),
  /** The unit's key (`unitKey`: task and trial). */
  key: z.string(),
  attempt: z.number().int().positive(),
};

/** Coordinator → worker. */
export const coordinatorMessageSchema = z.discriminatedUnion("type", [
  /** Build the run's parts (once per configuration id); answered by `ready` or `refused`. */
  z.object({ type: z.literal("configure"), configuration: runConfigurationSchema }),
  /** Run one attempt of a unit of a configured run; answered by `result`, `failed` or `cancelled`. */
  z.object({ type: z.literal("unit"), configurationId: z.string(), unit: workUnitSchema }),
  /** Stop an attempt (the run was interrupted or stopped): it is answered by `cancelled` unless its result was already sent. Without `key`: every attempt of the run. */
  z.object({ type: z.literal("cancel"), configurationId: z.string(), key: z.string().optional() }),
]);
export type CoordinatorMessage = z.infer<typeof coordinatorMessageSchema>;

/** Worker → coordinator. */
export const workerMessageSchema = z.discriminatedUnion("type", [
  /** The configuration is built; `pid` and `host` say which worker this is (for logs and kills). */
  z.object({ type: z.literal("ready"), configurationId: z.string(), pid: z.number().int(), host: z.string() }),
  /** The configuration cannot be built here (a bad option, a missing module, another version): the run stops with this error. */
  z.object({ type: z.literal("refused"), configurationId: z.string(), error: serializedErrorSchema }),
  /** The attempt's result in the suite's wire form. */
  z.object({ type: z.literal("result"), ...attemptFields, result: jsonValue, usage: usageSchema }),
  /** The attempt threw: the coordinator's retry policy classifies the error (markers kept). */
  z.object({ type: z.literal("failed"), ...attemptFields, error: serializedErrorSchema, usage: usageSchema }),
  /** The attempt was cut by a cancel: nothing to record. */
  z.object({ type: z.literal("cancelled"), ...attemptFields, usage: usageSchema }),
  /** A participant's warning while running units (printed once by the coordinator). */
  z.object({ type: z.literal("warning"), message: z.string() }),
]);
export type WorkerMessage = z.infer<typeof workerMessageSchema>;

/** A worker's answer to one unit. */
export type UnitReply = Extract<WorkerMessage, { type: "result" | "failed" | "cancelled" }>;

/**
 * A worker's answer to a unit, with the result's payload left to the suite's wire form, which
 * checks it where it decodes it (`ResultWire.decode`, in `src/run/batch-runner.ts`). A transport
 * whose messages are JSON by construction (a queue's return values) reads replies with this: the
 * whole-message schema would walk every value of a result of tens of kilobytes once more, on the
 * coordinator, which records every reply of the run.
 */
const unitReplySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("refused"), configurationId: z.string(), error: serializedErrorSchema }),
  z.object({ type: z.literal("result"), ...attemptFields, result: z.unknown().refine((value) => value !== undefined, "a result is required"), usage: usageSchema }),
  z.object({ type: z.literal("failed"), ...attemptFields, error: serializedErrorSchema, usage: usageSchema }),
  z.object({ type: z.literal("cancelled"), ...attemptFields, usage: usageSchema }),
]);

/** Reads a worker's answer to a unit (its reply, or a refusal of the run), its result's payload unchecked (see `unitReplySchema`). */
export function parseUnitReply(value: unknown): Extract<WorkerMessage, { type: "result" | "failed" | "cancelled" | "refused" }> {
  return parsed(unitReplySchema, value, "worker") as Extract<WorkerMessage, { type: "result" | "failed" | "cancelled" | "refused" }>;
}

/** Reads a message a coordinator sent; a WorkerProtocolError names what is wrong. */
export function parseCoordinatorMessage(value: unknown): CoordinatorMessage {
  return parsed(coordinatorMessageSchema, value, "coordinator");
}

/** Reads a message a worker sent. */
export function parseWorkerMessage(value: unknown): WorkerMessage {
  return parsed(workerMessageSchema, value, "worker");
}

function parsed<T>(schema: z.ZodType<T>, value: unknown, from: string): T {
  const checked = schema.safeParse(value);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  throw new WorkerProtocolError(`a ${from} message that is not the worker protocol's (${issue.path.join(".") || "message"}: ${issue.message})`);
}
