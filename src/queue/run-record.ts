/**
 * The record of a queued run, kept in the registry hash workers watch (`taubridge:registry`, run
 * name → JSON): the run's configuration (the worker protocol's — flags as given, never a key), the
 * limits every worker applies to its model calls, and whether the run is still open. A worker finds
 * runs here by itself; `taubridge queue cancel` closes one; `queue clean` removes it.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { runConfigurationSchema, type RunConfiguration } from "../worker/protocol.ts";
import { REGISTRY_CHANNEL, REGISTRY_KEY } from "./names.ts";

const rateSchema = z.object({ requests: z.number().int().positive(), seconds: z.number().positive() });
export type RateLimit = z.infer<typeof rateSchema>;

export const runRecordSchema = z.object({
  run: z.string(),
  configuration: runConfigurationSchema,
  /** Concurrent model calls per provider, across every worker (`--provider-limit`). */
  providerLimits: z.record(z.string(), z.number().int().positive()),
  /** Requests per window per endpoint (`--rate-limit`): a model's base URL host, or its provider. */
  rateLimits: z.record(z.string(), rateSchema),
  /** `open`: workers take its jobs; `cancelled`: they start none and cut what runs. */
  state: z.enum(["open", "cancelled"]),
  /** Which coordinator (host and pid) registered it, and when. */
  coordinator: z.object({ host: z.string(), pid: z.number().int(), at: z.string() }),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

/** The record of a run, or undefined when none (or one this version cannot read). */
export async function readRunRecord(redis: Redis, run: string): Promise<RunRecord | undefined> {
  const text = await redis.hget(REGISTRY_KEY, run);
  return text === null ? undefined : parseRecord(text);
}

/** Every run the registry holds, by name (unreadable records left out). */
export async function readRunRecords(redis: Redis): Promise<Map<string, RunRecord>> {
  const all = await redis.hgetall(REGISTRY_KEY);
  const records = new Map<string, RunRecord>();
  for (const [name, text] of Object.entries(all)) {
    const record = parseRecord(text);
    if (record) records.set(name, record);
  }
  return records;
}

function parseRecord(text: string): RunRecord | undefined {
  try {
    const checked = runRecordSchema.safeParse(JSON.parse(text));
    return checked.success ? (checked.data as RunRecord) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes a run's record and announces it, so workers start (or stop) serving the run without
 * waiting for their next poll. Resolves with the number of workers that heard the announcement.
 */
export async function writeRunRecord(redis: Redis, record: RunRecord): Promise<number> {
  await redis.hset(REGISTRY_KEY, record.run, JSON.stringify(record));
  return await redis.publish(REGISTRY_CHANNEL, record.run);
}

export async function removeRunRecord(redis: Redis, run: string): Promise<void> {
  await redis.hdel(REGISTRY_KEY, run);
  await redis.publish(REGISTRY_CHANNEL, run);
}

/** The configuration a run record holds (what a worker builds). */
export function configurationOf(record: RunRecord): RunConfiguration {
  return record.configuration;
}
