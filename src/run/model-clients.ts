import { readFileSync } from "node:fs";
import PQueue from "p-queue";
import type { ChatModel } from "../core/contracts.ts";
import { ConfigError, fileErrorText } from "../core/errors.ts";
import { ModelEndpointRefusedError, ModelEndpointUnreachableError } from "../model/errors.ts";
import { createModelClient, type ModelClient } from "../model/model-client.ts";
import { parsePriceTable, type PriceTable } from "../model/pricing.ts";
import { ResponseCache } from "../model/response-cache.ts";
import type { CompletionRequest, CompletionResult } from "../model/types.ts";

/** The model clients of a run, one per role, created on first use. */
export interface RunModels {
  agent(): ChatModel;
  user(): ChatModel;
  /**
   * Set once a role's endpoint refused a call before it had ever answered (wrong `--base-url`, server
   * not started): the batch layer stops the run with this error instead of failing every episode.
   */
  unreachable?(): ModelEndpointUnreachableError | undefined;
}

/** Which flag sets each role's endpoint, for the run-stopping message. */
const BASE_URL_FLAGS: Record<string, string> = { agent: "--base-url", user: "--user-base-url" };

function loadPrices(path: string | undefined): PriceTable | undefined {
  if (!path) return undefined;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read price file ${path}: ${fileErrorText(error)}`, { cause: error });
  }
  try {
    return parsePriceTable(JSON.parse(text), path);
  } catch (error) {
    throw new ConfigError(`${path}: ${(error as Error).message}`);
  }
}

/**
 * Limits concurrent calls per model endpoint (base URL + model): agent and user calls to the same
 * server share one queue, so `--max-concurrency` bounds the load each server sees.
 */
function limited(client: ModelClient, queue: PQueue, onRefused: (error: ModelEndpointRefusedError) => void): ModelClient {
  const complete = async (request: CompletionRequest): Promise<CompletionResult> => {
    try {
      return (await queue.add(() => client.complete(request))) as CompletionResult;
    } catch (error) {
      if (ModelEndpointRefusedError.isInstance(error)) onRefused(error);
      throw error;
    }
  };
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === "complete") return complete;
      return Reflect.get(target, property, receiver);
    },
  });
}

/** What the per-role clients are made from: the model flags of a run (the same for both suites). */
export interface ModelSettings {
  model?: string;
  modelProvider?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  userModel?: string;
  userModelProvider?: string;
  userBaseUrl?: string;
  userApiKeyEnv?: string;
  /** The agent's sampling temperature (τ-bench's `--temperature`; τ²'s is in its LLM arguments). */
  temperature?: number;
  modelTimeoutMs: number;
  modelMaxAttempts: number;
  priceFile?: string;
  cacheDir?: string;
  /** Calls in flight per endpoint (the run's concurrency). */
  maxConcurrency: number;
}

/** Builds the per-role clients from the run's model settings (validated before the first episode). */
export function createRunModels(config: ModelSettings): RunModels {
  const prices = loadPrices(config.priceFile);
  const cache = config.cacheDir ? new ResponseCache(config.cacheDir) : undefined;
  const queues = new Map<string, PQueue>();
  const clients = new Map<string, ModelClient>();
  let unreachable: ModelEndpointUnreachableError | undefined;
  const onRefused = (error: ModelEndpointRefusedError) => {
    if (unreachable || !error.neverAnswered) return;
    const flag = BASE_URL_FLAGS[error.role] as string | undefined;
    unreachable = new ModelEndpointUnreachableError(error, flag ?? `the ${error.role} model's base URL`);
  };
  const make = (role: "agent" | "user"): ModelClient => {
    const cached = clients.get(role);
    if (cached) return cached;
    const model = role === "agent" ? config.model : config.userModel;
    if (!model) throw new ConfigError(role === "agent" ? "this agent strategy needs --model" : "this user strategy needs --user-model");
    const client = createModelClient({
      role,
      model,
      provider: (role === "agent" ? config.modelProvider : config.userModelProvider) ?? "openai",
      baseURL: role === "agent" ? config.baseUrl : config.userBaseUrl,
      apiKeyEnv: role === "agent" ? config.apiKeyEnv : config.userApiKeyEnv,
      timeoutMs: config.modelTimeoutMs,
      maxAttempts: config.modelMaxAttempts,
      ...(role === "agent" ? { temperature: config.temperature } : {}),
      ...(cache ? { cache } : {}),
      ...(prices ? { prices } : {}),
    });
    const endpoint = `${client.baseURL}\0${client.model}`;
    let queue = queues.get(endpoint);
    if (!queue) {
      queue = new PQueue({ concurrency: config.maxConcurrency });
      queues.set(endpoint, queue);
    }
    const wrapped = limited(client, queue, onRefused);
    clients.set(role, wrapped);
    return wrapped;
  };
  return { agent: () => make("agent"), user: () => make("user"), unreachable: () => unreachable };
}
