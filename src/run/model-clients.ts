import { readFileSync } from "node:fs";
import PQueue from "p-queue";
import type { RunModels } from "../core/strategies.ts";
import { ConfigError, fileErrorText } from "../errors/error-tree.ts";
import { ModelEndpointRefusedError, ModelEndpointUnreachableError } from "../model/errors.ts";
import { createModelClient, type ModelClient } from "../model/model-client.ts";
import { parsePriceTable, type PriceTable } from "../model/pricing.ts";
import { ResponseCache } from "../model/response-cache.ts";
import { runSecrets } from "../secrets/redact.ts";
import type { CompletionRequest, CompletionResult } from "../model/types.ts";

/** Which flag sets each role's endpoint, for the run-stopping message (a suite may name its own). */
const BASE_URL_FLAGS: Record<ModelRoleName, string> = { agent: "--base-url", user: "--user-base-url", judge: "--judge-base-url" };

type ModelRoleName = "agent" | "user" | "judge";

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
  /** τ²'s NL-assertion judge. */
  judgeModel?: string;
  judgeProvider?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  /** What the user changes to point a role elsewhere, when the suite spells it differently (τ²: `api_base` in `--agent-llm-args`). */
  endpointSettings?: Partial<Record<ModelRoleName, string>>;
  /** The agent's sampling temperature (τ-bench's `--temperature`; τ²'s is in its LLM arguments). */
  temperature?: number;
  modelTimeoutMs: number;
  modelMaxAttempts: number;
  priceFile?: string;
  cacheDir?: string;
  /** Calls in flight per endpoint (the run's concurrency). */
  maxConcurrency: number;
  /** What the run knows to be secret beyond these settings (τ²: its LLM arguments), never written to the cache (`src/secrets`). */
  secrets?: readonly string[];
  /** Where the run's warnings go (a response cache that stops working in the middle of the run). */
  warn?: (message: string) => void;
}

/** Builds the per-role clients from the run's model settings (validated before the first episode). */
export function createRunModels(config: ModelSettings): RunModels {
  const prices = loadPrices(config.priceFile);
  // The cache writes every answer to disk: it is told what the run knows to be secret (src/secrets).
  const cache = config.cacheDir ? new ResponseCache(config.cacheDir, { secrets: [...runSecrets(config), ...(config.secrets ?? [])], ...(config.warn ? { warn: config.warn } : {}) }) : undefined;
  const queues = new Map<string, PQueue>();
  const clients = new Map<string, ModelClient>();
  let unreachable: ModelEndpointUnreachableError | undefined;
  const onRefused = (error: ModelEndpointRefusedError) => {
    if (unreachable || !error.neverAnswered) return;
    const role = error.role as ModelRoleName;
    const setting = config.endpointSettings?.[role] ?? (BASE_URL_FLAGS[role] as string | undefined);
    unreachable = new ModelEndpointUnreachableError(error, setting ?? `the ${error.role} model's base URL`);
  };
  const make = (role: ModelRoleName): ModelClient => {
    const cached = clients.get(role);
    if (cached) return cached;
    const client = createModelClient({
      ...roleConfig(config, role),
      timeoutMs: config.modelTimeoutMs,
      maxAttempts: config.modelMaxAttempts,
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
  return { agent: () => make("agent"), user: () => make("user"), judge: () => make("judge"), unreachable: () => unreachable };
}

/** One role's client settings from the run's model settings (a role without a model is a one-line error naming the flag). */
function roleConfig(config: ModelSettings, role: ModelRoleName) {
  const byRole = {
    agent: { model: config.model, provider: config.modelProvider, baseURL: config.baseUrl, apiKeyEnv: config.apiKeyEnv, missing: "this agent strategy needs --model" },
    user: { model: config.userModel, provider: config.userModelProvider, baseURL: config.userBaseUrl, apiKeyEnv: config.userApiKeyEnv, missing: "this user strategy needs --user-model" },
    judge: { model: config.judgeModel, provider: config.judgeProvider, baseURL: config.judgeBaseUrl, apiKeyEnv: config.judgeApiKeyEnv, missing: "the NL-assertion judge needs --judge-model" },
  }[role];
  if (!byRole.model) throw new ConfigError(byRole.missing);
  return {
    role,
    model: byRole.model,
    provider: byRole.provider ?? "openai",
    baseURL: byRole.baseURL,
    apiKeyEnv: byRole.apiKeyEnv,
    ...(role === "agent" ? { temperature: config.temperature } : {}),
  };
}
