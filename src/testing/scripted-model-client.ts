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
  const book = new ScriptBook(file);
  const provider: ProviderName = options.provider ?? "openai-compatible";
  const calls: ScriptedCall[] = [];
  const failures: ScriptFailure[] = [];
  const clients = new Map<string, ScriptedModelClient>();

  const assertions: ScriptedAssertions = {
    calls,
    failures,
    callsFor: (model) => calls.filter((call) => call.model === model),
    pending: () => book.pending(),
    assertDone() {
      if (failures.length > 0) throw new UnexpectedModelCallError([...failures]);
      const pending = book.pending();
      if (pending.length > 0) throw new UnconsumedStepsError(pending);
    },
    verify: () => assertions.assertDone(),
  };

  function unexpected(call: ScriptedCall, message: string, code: ScriptFailure["code"] = "script_exhausted"): never {
    const failure: ScriptFailure = { requestIndex: call.index, code, message };
    failures.push(failure);
    throw new UnexpectedModelCallError([failure]);
  }

  async function chooseStep(call: ScriptedCall, request: ScriptedRequest): Promise<ParsedStep> {
    const selected = book.select(call.script, request);
    if (selected) {
      call.answeredBy = selected.answeredBy;
      return selected.step;
    }
    if (options.responder) {
      let produced: ScriptStep | undefined;
      try {
        produced = await options.responder(request);
      } catch (error) {
        unexpected(call, `the responder threw: ${(error as Error)?.message ?? String(error)}`, "responder_error");
      }
      if (produced !== undefined) {
        call.answeredBy = "responder";
        return parseScriptStep(produced, "step returned by the responder");
      }
    }
    if (call.script === undefined) unexpected(call, `no script for model "${call.model}" (scripts: ${book.names().join(", ") || "(none)"}) and no default "*" script`, "model_not_found");
    const last = call.messages.at(-1);
    unexpected(
      call,
      `script "${call.script}" has no step left that matches call #${call.index} (model "${call.model}", ${call.role}; ${book.usedUp(call.script)} step(s) used up` +
        `${options.responder ? "; the responder returned nothing" : ""}); last message: ${last ? `${String(last.role)}: ${JSON.stringify(last.content ?? null).slice(0, 200)}` : "(none)"}`,
    );
  }

  function makeClient(model: string, role: ModelRole, defaultTemperature: number | undefined): ScriptedModelClient {
    const usage = new UsageTotals();
    const prefix = `${role} model "${model}" (scripted)`;
    const price = (recorded: ModelUsage) => computeCost({ provider, model, baseURL: SCRIPTED_BASE_URL, catalogue: "none", usage: recorded, ...(options.prices ? { prices: options.prices } : {}) });

    async function complete(request: CompletionRequest): Promise<CompletionResult> {
      const started = performance.now();
      if (request.signal?.aborted) throw request.signal.reason;
      const temperature = request.temperature ?? defaultTemperature;
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
        index: calls.length,
        model,
        role,
        script: book.route(model),
        messages,
        tools,
        temperature,
        toolChoice: request.toolChoice,
        cacheNamespace: request.cacheNamespace,
        body,
        answeredBy: null,
      };
      calls.push(call);
      const scriptedRequest: ScriptedRequest = { index: call.index, model, messages, tools: tools ?? [], stream: false, body, script: call.script };
      const step = await chooseStep(call, scriptedRequest);
      if (step.delayMs) await abortable(step.delayMs, request.signal);
      if (step.error) {
        usage.addFailure();
        const status = step.error.status;
        const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
        throw new ModelCallError(`${prefix}: HTTP ${status} after 1 attempt: scripted error`, {
          role,
          provider,
          model,
          baseURL: SCRIPTED_BASE_URL,
          status,
          attempts: 1,
          retryable,
          ...(step.error.body !== undefined ? { responseBody: step.error.body } : {}),
        });
      }
      const answer = stepAnswer(step, call.index, messages);
      const message: AssistantMessage = { role: "assistant", content: answer.content };
      if (answer.toolCalls.length > 0) message.tool_calls = answer.toolCalls;
      const recordedUsage: ModelUsage = { promptTokens: answer.usage.prompt_tokens, completionTokens: answer.usage.completion_tokens };
      const cached = answer.usage.prompt_tokens_details?.cached_tokens;
      if (cached) recordedUsage.cachedPromptTokens = cached;
      const { cost, source } = price(recordedUsage);
      const result: CompletionResult = {
        message,
        usage: recordedUsage,
        cost,
        costSource: source,
        latencyMs: performance.now() - started,
        cached: false,
        attempts: 1,
        finishReason: answer.finishReason,
      };
      usage.add(result);
      return result;
    }

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
      userPrices: options.prices !== undefined,
    });

    return {
      role,
      provider,
      model,
      baseURL: SCRIPTED_BASE_URL,
      usage,
      cache: undefined,
      complete,
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

  const client = (model: string, role: ModelRole = "agent", clientOptions: { temperature?: number } = {}): ScriptedModelClient => {
    const key = `${role}\0${model}`;
    let existing = clients.get(key);
    if (!existing) {
      existing = makeClient(model, role, clientOptions.temperature);
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
