/**
 * An in-process scripted model client: a {@link ModelClient} that answers `complete()` from the
 * same scripts as the scripted HTTP server (`script-format.ts`), without a socket, an SDK or a
 * port. Unit tests of agents, user simulators and judges plug it in where the real client goes and
 * then assert on what was asked; the HTTP server stays for end-to-end tests of the real client and
 * of frameworks that only speak HTTP.
 *
 * It is strict on purpose: a call that no step (and no responder) can answer rejects with
 * {@link UnexpectedModelCallError} and is remembered, and `assertDone()` throws for such calls and
 * for steps never consumed, naming them — so a conversation that went differently from the script
 * fails the test instead of quietly ending the episode early.
 */
import type { ModelClient, ModelClientDescription } from "../model/model-client.ts";
import { ModelCallError } from "../model/errors.ts";
import { computeCost } from "../model/pricing.ts";
import type { PriceTable } from "../model/pricing.ts";
import type { ProviderName } from "../model/providers.ts";
import type { AssistantMessage, CompletionRequest, CompletionResult, ModelRole, ModelUsage } from "../model/types.ts";
import { UsageTotals } from "../model/usage.ts";
import { parseScriptFile, parseScriptStep, type ScriptFile, type ScriptStep } from "./script-format.ts";
import { ScriptBook, stepAnswer, UnconsumedStepsError, UnexpectedModelCallError, type ParsedStep, type PendingStep, type ScriptFailure } from "./script-book.ts";
import type { Responder, ScriptedRequest } from "./scripted-model-server.ts";

type Json = Record<string, unknown>;

/** The base URL scripted clients report (nothing listens there; it only names the double). */
export const SCRIPTED_BASE_URL = "scripted://in-process/v1";

/** One `complete()` call as the scripted client saw it. */
export interface ScriptedCall {
  /** 0-based index among all calls made through the clients of one script book. */
  index: number;
  model: string;
  role: ModelRole;
  /** The script the call was routed to (`"*"` for the default), if any. */
  script: string | undefined;
  /** Request messages as JSON (a copy: later changes by the caller do not show here). */
  messages: Json[];
  /** Tools offered, or undefined when none were. */
  tools: Json[] | undefined;
  temperature: number | undefined;
  toolChoice: CompletionRequest["toolChoice"];
  cacheNamespace: string | undefined;
  /**
   * The chat-completions body the real client would have sent for this call (`model`, `messages`,
   * `tools`, `temperature`, `tool_choice`): the same shape the HTTP server records, so assertions
   * move between the two doubles unchanged.
   */
  body: Json;
  /** Which step answered (`"<script>#<index> (label)"` or `"responder"`), `null` when none did. */
  answeredBy: string | null;
}

/** Options shared by every client of a script book. */
export interface ScriptedModelsOptions {
  /** Steps per model name; `"*"` answers models without their own script. */
  scripts?: Record<string, ScriptStep[]>;
  /** Shorthand for `scripts["*"]`. */
  steps?: ScriptStep[];
  /** Programmatic answers for calls no step matches (the server's responder signature). */
  responder?: Responder;
  /** User prices (`{model: {input, output}}` per 1M tokens); without an entry a call's cost is `null`, as for an unpriced local model. */
  prices?: PriceTable;
  /** Provider name reported by the clients (default `openai-compatible`). */
  provider?: ProviderName;
}

/** Options of {@link createScriptedModelClient}: one client over its own script book. */
export interface ScriptedModelClientOptions extends ScriptedModelsOptions {
  /** The model name that routes calls to a script (default: the only script's name, else `scripted-model`). */
  model?: string;
  role?: ModelRole;
  /** Temperature used when a request gives none (as the real client's configured temperature). */
  temperature?: number;
}

/** What both a script book and each of its clients can check. */
export interface ScriptedAssertions {
  /** Every call made through the book's clients, in order. */
  readonly calls: readonly ScriptedCall[];
  /** Calls no step or responder could answer. */
  readonly failures: readonly ScriptFailure[];
  /** The calls routed for one model name. */
  callsFor(model: string): ScriptedCall[];
  /** Steps not yet used up (`times: "unlimited"` steps never count). */
  pending(): PendingStep[];
  /**
   * Throws {@link UnexpectedModelCallError} if any call could not be answered, then
   * {@link UnconsumedStepsError} if any step was never consumed. Call it at the end of a test.
   */
  assertDone(): void;
  /** Same as {@link assertDone}. */
  verify(): void;
}

/** A {@link ModelClient} answering from a script, with the book's recordings and assertions. */
export interface ScriptedModelClient extends ModelClient, ScriptedAssertions {}

/** A script book shared by several clients (e.g. one model name for the agent, one for the user). */
export interface ScriptedModels extends ScriptedAssertions {
  /** The client for `model` in `role` (one per pair, created on first use). */
  client(model: string, role?: ModelRole, options?: { temperature?: number }): ScriptedModelClient;
  /**
   * Per-role clients in the shape a run takes (`buildRun(config, { models })`): the agent's and the
   * user's model names pick their scripts.
   */
  runModels(names: { agent?: string; user?: string }): { agent(): ModelClient; user(): ModelClient };
}

function jsonCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function abortable(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Every client of one script book: the shared book, the calls made and the failures met. */
class ScriptedCalls {
  readonly calls: ScriptedCall[] = [];
  readonly failures: ScriptFailure[] = [];

  constructor(
    readonly book: ScriptBook,
    readonly provider: ProviderName,
    private readonly options: ScriptedModelsOptions,
  ) {}

  private unexpected(call: ScriptedCall, message: string, code: ScriptFailure["code"] = "script_exhausted"): never {
    const failure: ScriptFailure = { requestIndex: call.index, code, message };
    this.failures.push(failure);
    throw new UnexpectedModelCallError([failure]);
  }

  /** The step that answers a call: the script's, else the responder's; none is a failure naming the script. */
  async chooseStep(call: ScriptedCall, request: ScriptedRequest): Promise<ParsedStep> {
    const selected = this.book.select(call.script, request);
    if (selected) {
      call.answeredBy = selected.answeredBy;
      return selected.step;
    }
    const { responder } = this.options;
    if (responder) {
      let produced: ScriptStep | undefined;
      try {
        produced = await responder(request);
      } catch (error) {
        this.unexpected(call, `the responder threw: ${(error as Error)?.message ?? String(error)}`, "responder_error");
      }
      if (produced !== undefined) {
        call.answeredBy = "responder";
        return parseScriptStep(produced, "step returned by the responder");
      }
    }
    if (call.script === undefined) this.unexpected(call, `no script for model "${call.model}" (scripts: ${this.book.names().join(", ") || "(none)"}) and no default "*" script`, "model_not_found");
    const last = call.messages.at(-1);
    this.unexpected(
      call,
      `script "${call.script}" has no step left that matches call #${call.index} (model "${call.model}", ${call.role}; ${this.book.usedUp(call.script)} step(s) used up` +
        `${responder ? "; the responder returned nothing" : ""}); last message: ${last ? `${String(last.role)}: ${JSON.stringify(last.content ?? null).slice(0, 200)}` : "(none)"}`,
    );
  }

  /** Records a call as a request would reach a server (deep copies, the body it would send). */
  record(model: string, role: ModelRole, request: CompletionRequest, temperature: number | undefined): { call: ScriptedCall; scriptedRequest: ScriptedRequest } {
    const tools = request.tools && request.tools.length > 0 ? (jsonCopy(request.tools) as unknown as Json[]) : undefined;
    const messages = jsonCopy(request.messages) as unknown as Json[];
    const body: Json = {
      model,
      messages,
      ...(tools ? { tools } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(request.toolChoice !== undefined ? { tool_choice: jsonCopy(request.toolChoice) } : {}),
    };
    const call: ScriptedCall = {
      index: this.calls.length,
      model,
      role,
      script: this.book.route(model),
      messages,
      tools,
      temperature,
      toolChoice: request.toolChoice,
      cacheNamespace: request.cacheNamespace,
      body,
      answeredBy: null,
    };
    this.calls.push(call);
    return { call, scriptedRequest: { index: call.index, model, messages, tools: tools ?? [], stream: false, body, script: call.script } };
  }

  price(model: string, recorded: ModelUsage) {
    const { prices } = this.options;
    return computeCost({ provider: this.provider, model, baseURL: SCRIPTED_BASE_URL, catalogue: "none", usage: recorded, ...(prices ? { prices } : {}) });
  }

  /** The assertions every client and the set share. */
  assertions(): ScriptedAssertions {
    const assertions: ScriptedAssertions = {
      calls: this.calls,
      failures: this.failures,
      callsFor: (model) => this.calls.filter((call) => call.model === model),
      pending: () => this.book.pending(),
      assertDone: () => {
        if (this.failures.length > 0) throw new UnexpectedModelCallError([...this.failures]);
        const pending = this.book.pending();
        if (pending.length > 0) throw new UnconsumedStepsError(pending);
      },
      verify: () => assertions.assertDone(),
    };
    return assertions;
  }
}

/** The ModelCallError a scripted error step raises, as the real client would after one attempt. */
function scriptedError(calls: ScriptedCalls, model: string, role: ModelRole, error: NonNullable<ParsedStep["error"]>): ModelCallError {
  const status = error.status;
  const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  return new ModelCallError(`${role} model "${model}" (scripted): HTTP ${status} after 1 attempt: scripted error`, {
    role,
    provider: calls.provider,
    model,
    baseURL: SCRIPTED_BASE_URL,
    status,
    attempts: 1,
    retryable,
    ...(error.body !== undefined ? { responseBody: error.body } : {}),
  });
}

/** One scripted completion: recorded, answered by its step (after the step's delay), priced and summed. */
async function scriptedComplete(
  calls: ScriptedCalls,
  model: string,
  role: ModelRole,
  usage: UsageTotals,
  request: CompletionRequest,
  defaultTemperature: number | undefined,
): Promise<CompletionResult> {
  const started = performance.now();
  if (request.signal?.aborted) throw request.signal.reason;
  const { call, scriptedRequest } = calls.record(model, role, request, request.temperature ?? defaultTemperature);
  const step = await calls.chooseStep(call, scriptedRequest);
  if (step.delayMs) await abortable(step.delayMs, request.signal);
  if (step.error) {
    usage.addFailure();
    throw scriptedError(calls, model, role, step.error);
  }
  const answer = stepAnswer(step, call.index, call.messages);
  const message: AssistantMessage = { role: "assistant", content: answer.content };
  if (answer.toolCalls.length > 0) message.tool_calls = answer.toolCalls;
  const recordedUsage: ModelUsage = { promptTokens: answer.usage.prompt_tokens, completionTokens: answer.usage.completion_tokens };
  const cached = answer.usage.prompt_tokens_details?.cached_tokens;
  if (cached) recordedUsage.cachedPromptTokens = cached;
  const { cost, source } = calls.price(model, recordedUsage);
  const result: CompletionResult = { message, usage: recordedUsage, cost, costSource: source, latencyMs: performance.now() - started, cached: false, attempts: 1, finishReason: answer.finishReason };
  usage.add(result);
  return result;
}

/** A scripted client for one model and role over the set's shared book. */
function makeClient(calls: ScriptedCalls, assertions: ScriptedAssertions, model: string, role: ModelRole, defaultTemperature: number | undefined, userPrices: boolean): ScriptedModelClient {
  const usage = new UsageTotals();
  const { provider } = calls;
  const describe = (): ModelClientDescription => ({
    role,
    provider,
    model,
    baseURL: SCRIPTED_BASE_URL,
    apiKeyEnv: null,
    timeoutMs: 0,
    maxAttempts: 1,
    temperature: defaultTemperature ?? null,
    params: null,
    cacheDirectory: null,
    userPrices,
  });
  return {
    role,
    provider,
    model,
    baseURL: SCRIPTED_BASE_URL,
    usage,
    cache: undefined,
    complete: (request) => scriptedComplete(calls, model, role, usage, request, defaultTemperature),
    describe,
    get calls() {
      return assertions.calls;
    },
    get failures() {
      return assertions.failures;
    },
    callsFor: assertions.callsFor,
    pending: assertions.pending,
    assertDone: assertions.assertDone,
    verify: assertions.verify,
  };
}

/**
 * A script book and the clients over it. Use one book for all roles of a test so that a `"*"`
 * script and the call order are shared, exactly as one scripted server would be.
 */
export function createScriptedModels(options: ScriptedModelsOptions = {}): ScriptedModels {
  const file = parseScriptFile(
    {
      ...(options.scripts !== undefined ? { scripts: options.scripts } : {}),
      ...(options.steps !== undefined ? { steps: options.steps } : {}),
      ...(options.scripts === undefined && options.steps === undefined ? { steps: [] } : {}),
    } satisfies ScriptFile,
    "scripted model script",
  );
  const calls = new ScriptedCalls(new ScriptBook(file), options.provider ?? "openai-compatible", options);
  const assertions = calls.assertions();
  const clients = new Map<string, ScriptedModelClient>();
  const client = (model: string, role: ModelRole = "agent", clientOptions: { temperature?: number } = {}): ScriptedModelClient => {
    const key = `${role}\0${model}`;
    let existing = clients.get(key);
    if (!existing) {
      existing = makeClient(calls, assertions, model, role, clientOptions.temperature, options.prices !== undefined);
      clients.set(key, existing);
    }
    return existing;
  };
  return {
    ...assertions,
    client,
    runModels: (names) => ({
      agent: () => client(names.agent ?? "agent-model", "agent"),
      user: () => client(names.user ?? "user-model", "user"),
    }),
  };
}

/**
 * One scripted client over its own script book: the simplest double for a unit test of one agent
 * or user simulator. Its model name picks the script (`"*"` or `steps` answer any name).
 */
export function createScriptedModelClient(options: ScriptedModelClientOptions = {}): ScriptedModelClient {
  const { model, role, temperature, ...bookOptions } = options;
  const names = Object.keys(options.scripts ?? {});
  const chosen = model ?? (names.length === 1 && names[0] !== "*" ? names[0] : "scripted-model");
  return createScriptedModels(bookOptions).client(chosen, role ?? "agent", temperature !== undefined ? { temperature } : {});
}
