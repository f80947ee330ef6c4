/**
 * Connections to the Redis a `--queue` URL names. Long-lived connections (a coordinator's queue and
 * events, a worker's consumers) retry every command and reconnect with backoff for as long as it
 * takes, so a Redis restart mid-run costs a pause, not the run; the first contact is a probe that
 * fails fast, in one line, when nothing answers or the server is too old for BullMQ.
 */
import { Redis, type RedisOptions } from "ioredis";
import { ConfigError } from "../errors/error-tree.ts";
import { queueUrl, redactUrl } from "./names.ts";

/** BullMQ needs Redis 6.2 or later. */
const MINIMUM_REDIS = [6, 2] as const;
/** How long the first contact may take before the run is refused. */
const PROBE_TIMEOUT_MS = 5_000;

function optionsOf(url: string): RedisOptions {
  const parsed = queueUrl(url);
  return {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 6379,
    db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
  };
}

/**
 * A connection that outlives Redis restarts: commands wait for the reconnection (BullMQ's
 * requirement for workers, `maxRetriesPerRequest: null`), reconnecting every 0.1–2 s.
 */
export function durableConnection(url: string, name: string): Redis {
  const redis = new Redis({
    ...optionsOf(url),
    connectionName: name,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(100 * times, 2_000),
  });
  // Errors while Redis is away are expected (the connection retries); without a listener ioredis prints each one.
  redis.on("error", () => undefined);
  return redis;
}

/** The Redis a URL names answers and is recent enough for BullMQ; a ConfigError in one line otherwise. */
export async function probeRedis(url: string): Promise<void> {
  const redis = new Redis({ ...optionsOf(url), lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: PROBE_TIMEOUT_MS });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    const info = await redis.info("server");
    const version = /redis_version:(\d+)\.(\d+)/.exec(info);
    if (version && (Number(version[1]) < MINIMUM_REDIS[0] || (Number(version[1]) === MINIMUM_REDIS[0] && Number(version[2]) < MINIMUM_REDIS[1]))) {
      throw new ConfigError(`--queue: Redis at ${redactUrl(url)} is ${version[1]}.${version[2]}; BullMQ needs ${MINIMUM_REDIS.join(".")} or later`);
    }
  } catch (error) {
    if (ConfigError.isInstance(error)) throw error;
    throw new ConfigError(`--queue: cannot reach Redis at ${redactUrl(url)} (${error instanceof Error ? error.message : String(error)}); start it, or check the URL`);
  } finally {
    redis.disconnect();
  }
}
