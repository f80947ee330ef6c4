/**
 * On-disk response cache (`--cache-dir`). Re-running an evaluation (after a crash, to tweak a
 * metric, in CI) should not pay for the same completions twice, and a cached run must replay
 * exactly. Each entry is one JSON file named by the sha256 of the full request — model,
 * provider, base URL, messages, tools, temperature, tool choice, extra parameters and an optional
 * namespace (e.g. the trial) — but never the API key. Files are written atomically (temp file +
 * rename), so concurrent workers and crashes never leave a half-written entry; an unreadable
 * entry is treated as a miss.
 *
 * Cost of a cached call: the result carries the cost of the recorded usage under the *current*
 * price table (identical to the recorded cost unless prices changed), flagged `cached: true`.
 * Usage totals therefore show what the run would have cost without the cache, and report the
 * cached share separately (`cachedCalls`, `cachedCost`).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { redact } from "../secrets/redact.ts";
import type { AssistantMessage, ModelUsage } from "./types.ts";

/** Bumped when the key derivation or the entry format changes (old entries then simply miss). */
export const CACHE_SCHEMA_VERSION = 1;

/** Everything that determines a response. The API key is deliberately not part of it. */
export interface CacheKeyInput {
  provider: string;
  model: string;
  baseURL: string;
  messages: readonly unknown[];
  tools?: readonly unknown[];
  temperature?: number;
  toolChoice?: unknown;
  /** Extra request-body parameters (reasoning effort, max tokens, seed…). */
  params?: Record<string, unknown>;
  namespace?: string;
}

/** The recorded response: replayed verbatim on a hit. */
export interface CachedResponse {
  message: AssistantMessage;
  usage: ModelUsage;
  /** Cost at recording time (informational; the client re-prices the usage on replay). */
  cost: number | null;
  finishReason: string | null;
  /** Latency of the original call. */
  latencyMs: number;
}

const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const entrySchema = z.object({
  schemaVersion: z.literal(CACHE_SCHEMA_VERSION),
  key: z.string(),
  createdAt: z.string(),
  request: z.object({ provider: z.string(), model: z.string(), baseURL: z.string() }).loose(),
  response: z.object({
    message: z.object({
      role: z.literal("assistant"),
      content: z.string().nullable(),
      tool_calls: z.array(toolCallSchema).optional(),
    }),
    usage: z.object({
      promptTokens: z.number(),
      completionTokens: z.number(),
      cachedPromptTokens: z.number().optional(),
      reported: z.boolean().optional(),
    }),
    cost: z.number().nullable(),
    finishReason: z.string().nullable(),
    latencyMs: z.number(),
  }),
});

/**
 * JSON with object keys sorted at every level, so equal requests hash equally whatever order
 * their fields were built in. `undefined` fields are dropped, as `JSON.stringify` does.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item && typeof item === "object" && !Array.isArray(item)) {
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
      return sorted;
    }
    return item;
  });
}

/** The sha256 cache key of a request. */
export function cacheKey(input: CacheKeyInput): string {
  const material = {
    v: CACHE_SCHEMA_VERSION,
    provider: input.provider,
    model: input.model,
    baseURL: input.baseURL.replace(/\/+$/, ""),
    messages: input.messages,
    tools: input.tools ?? null,
    temperature: input.temperature ?? null,
    toolChoice: input.toolChoice ?? null,
    params: input.params ?? null,
    namespace: input.namespace ?? null,
  };
  return createHash("sha256").update(canonicalJson(material)).digest("hex");
}

/** Hit/miss counters, for the run summary. */
export interface CacheStats {
  hits: number;
  misses: number;
  writes: number;
  /** Entries that existed but could not be read or parsed (treated as misses). */
  corrupt: number;
  /** Writes that failed (the call itself still succeeds; see the model client). */
  writeErrors: number;
}

/** A directory of cached responses; safe to share between clients and processes. */
export class ResponseCache {
  readonly stats: CacheStats = { hits: 0, misses: 0, writes: 0, corrupt: 0, writeErrors: 0 };
  private warnedWrite = false;
  private warnedRead = false;

  /**
   * `secrets`: values known to be secret (the run's keys), replaced wherever they appear in an
   * entry. `warn`: told once when entries cannot be written (a full disk, a folder taken by a
   * file) and once when they cannot be read, in the middle of a run: the calls go on uncached,
   * but the user learns that the cache they asked for is not filling.
   */
  constructor(
    readonly directory: string,
    private readonly options: { secrets?: readonly string[]; warn?: (message: string) => void } = {},
  ) {}

  /** Path of an entry: two-level fan-out so no directory gets huge. */
  pathFor(key: string): string {
    return join(this.directory, key.slice(0, 2), `${key}.json`);
  }

  /** The recorded response for `key`, or `undefined` (missing or unreadable entry). */
  async get(key: string): Promise<CachedResponse | undefined> {
    let text: string;
    try {
      text = await readFile(this.pathFor(key), "utf8");
    } catch (error) {
      this.stats.misses += 1;
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR" && !this.warnedRead) {
        this.warnedRead = true;
        this.options.warn?.(`the response cache ${this.directory} cannot be read (${code ?? String(error)}): its answers are not used; the calls go to the model`);
      }
      return undefined;
    }
    try {
      const parsed = entrySchema.safeParse(JSON.parse(text));
      if (parsed.success && parsed.data.key === key) {
        this.stats.hits += 1;
        const response = parsed.data.response;
        const message: AssistantMessage = { role: "assistant", content: response.message.content };
        if (response.message.tool_calls) message.tool_calls = response.message.tool_calls;
        return { ...response, message };
      }
    } catch {
      // fall through: corrupt entry
    }
    this.stats.corrupt += 1;
    this.stats.misses += 1;
    return undefined;
  }

  /**
   * Stores a response atomically. `request` is kept in the entry for inspection. Nothing secret is
   * written (`src/secrets`): the request's settings are redacted as configuration, its messages and
   * tools and the response as content; `secrets` adds the caller's known secrets (its API key).
   */
  async set(key: string, request: CacheKeyInput, response: CachedResponse, secrets: readonly string[] = []): Promise<void> {
    const path = this.pathFor(key);
    try {
      await mkdir(dirname(path), { recursive: true });
    } catch (error) {
      this.writeFailed(error);
      throw error;
    }
    const known = [...(this.options.secrets ?? []), ...secrets];
    const content = new Set(["messages", "tools"]);
    const entry = {
      schemaVersion: CACHE_SCHEMA_VERSION,
      key,
      createdAt: new Date().toISOString(),
      request: Object.fromEntries(Object.entries(request).map(([name, value]) => [name, redact(value, { secrets: known, content: content.has(name) })])),
      response: redact(response, { secrets: known, content: true }),
    };
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify(entry, null, 2)}\n`, "utf8");
      await rename(temporary, path);
      this.stats.writes += 1;
    } catch (error) {
      await rm(temporary, { force: true });
      this.writeFailed(error);
      throw error;
    }
  }

  /** Counts a failed write and says so once. */
  private writeFailed(error: unknown): void {
    this.stats.writeErrors += 1;
    if (this.warnedWrite) return;
    this.warnedWrite = true;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    this.options.warn?.(`the response cache ${this.directory} cannot be written (${code}): answers from here on are not cached; the run goes on`);
  }
}
