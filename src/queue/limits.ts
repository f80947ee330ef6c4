/**
 * Limits every worker of a run shares, kept in Redis and applied to each HTTP request a model
 * client sends (the `fetch` under the SDK, `ModelSettings.fetchFor`), so they count what a
 * provider sees — retries included, cached answers not:
 *
 * - `--provider-limit <provider>=<n>`: at most n requests in flight to that provider, across every
 *   worker. A Redis semaphore (BullMQ's per-group limits are a paid feature): a sorted set of
 *   holders whose entries expire unless renewed, so a worker killed mid-request frees its slot
 *   after a few seconds; a release is published, so waiters retry at once instead of polling hard.
 * - `--rate-limit <endpoint>=<requests>/<seconds>`: a sliding window of request times per endpoint
 *   (a base URL's host, the base URL itself, or a provider name).
 * - a 429 from an endpoint with a `retry-after`: the endpoint is paused for everyone for that long
 *   (a key with that expiry), not only for the request that got it.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { keepAliveFetch, type FetchFunction } from "../model/http-transport.ts";
import { parseRetryAfter } from "../model/retry.ts";
import type { ModelEndpoint } from "../run/model-clients.ts";
import { runKey } from "./names.ts";
import type { RateLimit } from "./run-record.ts";

/** A held slot lapses this long after its last renewal (a killed worker's slot comes back after it). */
const SLOT_TTL_MS = 15_000;
/** How often a held slot is renewed. */
const RENEW_MS = 5_000;
/** Longest wait between two tries when no release is heard. */
const MAX_WAIT_MS = 250;

const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 4)
  return 1
end
return 0`;

const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 4)
return 1`;

/** Returns 0 when a request may go now (and counts it), else how many ms to wait (a pause, or the window's oldest request ageing out). */
const RATE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local paused = redis.call('PTTL', KEYS[2])
if paused > 0 then return paused end
local window = tonumber(ARGV[2])
if tonumber(ARGV[1]) > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    return math.max(1, tonumber(oldest[2]) + window - now)
  end
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window * 2)
end
return 0`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The limits of one run, shared by the workers serving it. */
export class SharedLimits {
  private readonly wakers = new Map<string, Set<() => void>>();
  private subscribed = false;

  constructor(
    private readonly redis: Redis,
    /** A connection of its own for release notices (a subscriber cannot send commands). */
    private readonly subscriber: Redis,
    private readonly run: string,
    private readonly providerLimits: Readonly<Record<string, number>>,
    private readonly rateLimits: Readonly<Record<string, RateLimit>>,
  ) {}

  /** Whether any limit applies to this run (else its clients keep the plain transport). */
  get active(): boolean {
    return Object.keys(this.providerLimits).length > 0 || Object.keys(this.rateLimits).length > 0;
  }

  /** The `fetch` a role's client of this run sends through (`ModelSettings.fetchFor`). */
  fetchFor(endpoint: ModelEndpoint, inner: FetchFunction = keepAliveFetch): FetchFunction {
    const limit = this.providerLimits[endpoint.provider];
    const rateName = this.rateNameOf(endpoint);
    return async (input, init) => {
      const release = limit === undefined ? undefined : await this.acquire(endpoint.provider, limit);
      try {
        await this.waitForRate(endpoint, rateName);
        const response = await inner(input, init);
        if (response.status === 429) await this.pause(endpoint, response);
        return response;
      } finally {
        await release?.();
      }
    };
  }

  /** The `--rate-limit` entry that names this endpoint: its base URL's host, the base URL, or its provider. */
  private rateNameOf(endpoint: ModelEndpoint): string | undefined {
    const host = hostOf(endpoint.baseURL);
    for (const name of [host, endpoint.baseURL, endpoint.provider]) if (name !== undefined && this.rateLimits[name]) return name;
    return undefined;
  }

  /** Which pause key an endpoint shares: its rate-limit name, else its host, else its provider. */
  private pauseName(endpoint: ModelEndpoint): string {
    return this.rateNameOf(endpoint) ?? hostOf(endpoint.baseURL) ?? endpoint.provider;
  }

  private async acquire(provider: string, limit: number): Promise<() => Promise<void>> {
    const key = runKey(this.run, "provider", provider);
    const token = randomUUID();
    await this.subscribe();
    for (let wait = 5; ; wait = Math.min(MAX_WAIT_MS, wait * 2)) {
      if ((await this.redis.eval(ACQUIRE, 1, key, limit, token, SLOT_TTL_MS)) === 1) break;
      await this.released(key, wait);
    }
    const renew = setInterval(() => void this.redis.eval(RENEW, 1, key, token, SLOT_TTL_MS).catch(() => undefined), RENEW_MS);
    renew.unref();
    return async () => {
      clearInterval(renew);
      await this.redis.zrem(key, token);
      await this.redis.publish(key, "free");
    };
  }

  private async waitForRate(endpoint: ModelEndpoint, rateName: string | undefined): Promise<void> {
    const rate = rateName === undefined ? undefined : this.rateLimits[rateName];
    const windowKey = runKey(this.run, "rate", rateName ?? "-");
    const pauseKey = runKey(this.run, "pause", this.pauseName(endpoint));
    for (;;) {
      const wait = Number(await this.redis.eval(RATE, 2, windowKey, pauseKey, rate?.requests ?? 0, Math.round((rate?.seconds ?? 1) * 1000), randomUUID()));
      if (wait <= 0) return;
      // Looked at again at least every second: a pause lifted or a window cleared early is seen soon.
      await sleep(Math.min(wait, 1_000));
    }
  }

  /** A 429: the endpoint pauses for everyone for its `retry-after` (or a second when it names none). */
  private async pause(endpoint: ModelEndpoint, response: Response): Promise<void> {
    const ms = parseRetryAfter(response.headers) ?? 1_000;
    if (ms > 0) await this.redis.set(runKey(this.run, "pause", this.pauseName(endpoint)), String(Date.now() + ms), "PX", Math.ceil(ms));
  }

  private async subscribe(): Promise<void> {
    if (this.subscribed) return;
    this.subscribed = true;
    await this.subscriber.psubscribe(runKey(this.run, "provider", "*"));
    this.subscriber.on("pmessage", (_pattern, channel: string) => {
      for (const wake of [...(this.wakers.get(channel) ?? [])]) wake();
    });
  }

  /** Resolves when a slot of `key` is released, or after `ms`. */
  private released(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.wakers.get(key) ?? new Set();
      this.wakers.set(key, set);
      const wake = () => {
        clearTimeout(timer);
        set.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      set.add(wake);
    });
  }
}

function hostOf(baseURL: string | undefined): string | undefined {
  if (!baseURL) return undefined;
  try {
    return new URL(baseURL).host;
  } catch {
    return undefined;
  }
}
