/**
 * A scripted, OpenAI-compatible model server on loopback. It lets the whole stack — our model
 * client, the real `openai` SDK, and third-party agent frameworks that only speak HTTP — be tested
 * end to end with no network and no paid API: every answer, error, delay and token count comes
 * from a script (or a responder function), and every request is recorded for assertions.
 *
 * Endpoints: `POST /v1/chat/completions` (also `/chat/completions`), with `stream: true` support
 * (SSE chunks in OpenAI's format, tool-call deltas, optional final usage chunk), and
 * `GET /v1/models` (also `/models`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { TaubridgeError, errorMarker } from "../core/errors.ts";
import { withoutSecretHeaders } from "../model/redact.ts";
import {
  DEFAULT_SCRIPT,
  parseScriptFile,
  parseScriptStep,
  scriptStepSchema,
  type ScriptFile,
  type ScriptStep,
  type StepMatch,
} from "./script-format.ts";
import type { z } from "zod";

type ParsedStep = z.output<typeof scriptStepSchema>;
type Json = Record<string, unknown>;

/** A chat-completions request as the responder and match conditions see it. */
export interface ScriptedRequest {
  /** 0-based index among all requests this server received. */
  index: number;
  model: string;
  messages: Json[];
  tools: Json[];
  stream: boolean;
  /** The full parsed request body. */
  body: Json;
  /** The script this request was routed to (`"*"` for the default), if any. */
  script: string | undefined;
}

/**
 * Programmatic answers: called when no scripted step matches a request. Return a step (response,
 * error and/or delay) or `undefined` to let the server report the script as exhausted.
 */
export type Responder = (request: ScriptedRequest) => ScriptStep | undefined | Promise<ScriptStep | undefined>;

export interface ScriptedModelServerOptions {
  /** Steps per model name; `"*"` answers models without their own script. */
  scripts?: Record<string, ScriptStep[]>;
  /** Shorthand for `scripts["*"]`. */
  steps?: ScriptStep[];
  responder?: Responder;
  /** Default `"requested"`: a usage chunk only when the client sends `stream_options.include_usage`. */
  streamUsage?: "requested" | "always";
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
}

/** One request as recorded (credential headers removed). */
export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  /** Request headers without authorization / api-key / cookie headers. */
  headers: Record<string, string>;
  /** Whether an Authorization header was sent (its value is never stored). */
  hadAuthorization: boolean;
  /** Parsed JSON body (or the raw text when it was not JSON; `null` when empty). */
  body: unknown;
  model: string | undefined;
  stream: boolean;
  script: string | undefined;
  /** Which step answered: `"<script>#<index>"` (+ label), `"responder"`, or `null`. */
  answeredBy: string | null;
  status: number;
  receivedAt: string;
}

/** A request the script could not answer properly (exhausted script, unknown model, bad input). */
export interface ScriptFailure {
  requestIndex: number;
  code: "script_exhausted" | "model_not_found" | "invalid_request" | "invalid_step" | "responder_error" | "not_found";
  message: string;
}

/** An unconsumed scripted step, as reported by {@link ScriptedModelServer.pending}. */
export interface PendingStep {
  script: string;
  index: number;
  label: string | undefined;
  /** Remaining uses. */
  remaining: number;
}

/** Thrown by `assertAllConsumed()` when scripted steps were never used. */
export class UnconsumedStepsError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("UnconsumedStepsError");

  constructor(readonly pending: PendingStep[]) {
    super(
      `Scripted model server: ${pending.length} step(s) never consumed: ` +
        pending.map((step) => `${step.script}#${step.index}${step.label ? ` (${step.label})` : ""}${step.remaining > 1 ? ` ×${step.remaining}` : ""}`).join(", "),
    );
  }
}

/** Thrown by `assertNoFailures()` when requests arrived that the script could not answer. */
export class UnexpectedModelCallError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("UnexpectedModelCallError");

  constructor(readonly failures: ScriptFailure[]) {
    super(`Scripted model server: ${failures.length} unexpected request(s): ${failures.map((failure) => `#${failure.requestIndex} ${failure.message}`).join("; ")}`);
  }
}

interface StepState {
  step: ParsedStep;
  index: number;
  remaining: number; // Infinity for "unlimited"
}

/** A running scripted server. */
export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `http://127.0.0.1:<port>/v1`, what OpenAI-compatible clients take as base URL. */
  readonly baseURL: string;
  readonly port: number;
  /** Every request received, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Requests the script could not answer. */
  readonly failures: readonly ScriptFailure[];
  /** Recorded chat-completion requests for one model. */
  requestsFor(model: string): RecordedRequest[];
  /** Steps not yet used up (steps with `times: "unlimited"` never count). */
  pending(): PendingStep[];
  /** Throws {@link UnconsumedStepsError} if any scripted step was not used. */
  assertAllConsumed(): void;
  /** Throws {@link UnexpectedModelCallError} if any request could not be answered by the script. */
  assertNoFailures(): void;
  close(): Promise<void>;
}

function textOf(message: Json | undefined): string {
  if (!message) return "";
  const content = message.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === "object" && typeof (part as Json).text === "string" ? ((part as Json).text as string) : ""))
      .join("");
  }
  return "";
}

function toolName(tool: Json): string | undefined {
  const fn = tool.function as Json | undefined;
  return typeof fn?.name === "string" ? fn.name : typeof tool.name === "string" ? tool.name : undefined;
}

/** True when the request satisfies every condition of `match`. */
export function requestMatches(match: StepMatch | undefined, request: Pick<ScriptedRequest, "messages" | "tools">): boolean {
  if (!match) return true;
  const last = request.messages[request.messages.length - 1];
  if (match.lastMessageRole !== undefined && last?.role !== match.lastMessageRole) return false;
  if (match.lastMessageContains !== undefined && !textOf(last).includes(match.lastMessageContains)) return false;
  if (match.anyMessageContains !== undefined && !request.messages.some((message) => textOf(message).includes(match.anyMessageContains as string))) return false;
  if (match.systemContains !== undefined) {
    const system = request.messages.filter((message) => message.role === "system" || message.role === "developer");
    if (!system.some((message) => textOf(message).includes(match.systemContains as string))) return false;
  }
  if (match.hasTools !== undefined && request.tools.length > 0 !== match.hasTools) return false;
  if (match.hasTool !== undefined && !request.tools.some((tool) => toolName(tool) === match.hasTool)) return false;
  return true;
}

const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

interface BuiltResponse {
  content: string | null;
  toolCalls: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
}

function buildResponse(step: ParsedStep, request: ScriptedRequest): BuiltResponse {
  const toolCalls = (step.tool_calls ?? []).map((call, position) => ({
    id: call.id ?? `call_${request.index}_${position}`,
    type: "function" as const,
    function: {
      name: call.name,
      arguments: call.arguments === undefined ? "{}" : typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  const content = step.content !== undefined ? step.content : toolCalls.length > 0 ? null : "";
  const finishReason = step.finish_reason ?? (toolCalls.length > 0 ? "tool_calls" : "stop");
  let usage: BuiltResponse["usage"];
  if (step.usage) {
    usage = {
      prompt_tokens: step.usage.prompt_tokens,
      completion_tokens: step.usage.completion_tokens,
      total_tokens: step.usage.prompt_tokens + step.usage.completion_tokens,
      ...(step.usage.cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens: step.usage.cached_tokens } } : {}),
    };
  } else {
    // Deterministic estimate so tests that do not care about usage still see plausible numbers.
    const prompt = estimateTokens(JSON.stringify(request.messages));
    const completion = estimateTokens((content ?? "") + toolCalls.map((call) => call.function.name + call.function.arguments).join(""));
    usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  }
  return { content, toolCalls, finishReason, usage };
}

function splitText(text: string): string[] {
  if (text === "") return [];
  return text.match(/\s*\S+\s*|\s+/g) ?? [text];
}

function splitFixed(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let position = 0; position < text.length; position += size) pieces.push(text.slice(position, position + size));
  return pieces;
}

function errorBody(message: string, type: string, code: string | null): Json {
  return { error: { message, type, param: null, code } };
}

/**
 * Starts a scripted server on loopback and resolves once it listens. Validates the script first
 * (throws `ConfigError` on a malformed one).
 */
export async function startScriptedModelServer(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
  const file = parseScriptFile(
    {
      ...(options.scripts !== undefined ? { scripts: options.scripts } : {}),
      ...(options.steps !== undefined ? { steps: options.steps } : {}),
      ...(options.scripts === undefined && options.steps === undefined ? { steps: [] } : {}),
      ...(options.streamUsage !== undefined ? { streamUsage: options.streamUsage } : {}),
    } satisfies ScriptFile,
    "scripted server script",
  );
  const scripts = new Map<string, StepState[]>();
  for (const [name, steps] of Object.entries(file.scripts ?? {})) {
    scripts.set(
      name,
      steps.map((step, index) => ({ step, index, remaining: step.times === "unlimited" ? Infinity : (step.times ?? 1) })),
    );
  }
  if (file.steps) {
    scripts.set(
      DEFAULT_SCRIPT,
      file.steps.map((step, index) => ({ step, index, remaining: step.times === "unlimited" ? Infinity : (step.times ?? 1) })),
    );
  }
  const streamUsage = file.streamUsage ?? "requested";
  const responder = options.responder;
  const requests: RecordedRequest[] = [];
  const failures: ScriptFailure[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let completionCounter = 0;

  const wait = (ms: number, response: ServerResponse) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
      response.once("close", () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve();
      });
    });

  const sendJson = (response: ServerResponse, record: RecordedRequest, status: number, body: unknown, headers: Record<string, string> = {}) => {
    record.status = status;
    if (response.destroyed || response.writableEnded) return;
    const text = typeof body === "string" ? body : JSON.stringify(body);
    const contentType = typeof body === "string" && !/^\s*[[{]/.test(body) ? "text/plain; charset=utf-8" : "application/json";
    response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text), ...headers });
    response.end(text);
  };

  const fail = (response: ServerResponse, record: RecordedRequest, status: number, code: ScriptFailure["code"], message: string) => {
    failures.push({ requestIndex: record.index, code, message });
    sendJson(response, record, status, errorBody(message, "scripted_server_error", code));
  };

  function selectStep(scriptName: string | undefined, request: ScriptedRequest): { state: StepState; script: string } | undefined {
    if (scriptName === undefined) return undefined;
    const states = scripts.get(scriptName) ?? [];
    for (const state of states) {
      if (state.remaining <= 0) continue;
      if (!requestMatches(state.step.match, request)) continue;
      state.remaining -= 1;
      return { state, script: scriptName };
    }
    return undefined;
  }

  async function answer(step: ParsedStep, request: ScriptedRequest, response: ServerResponse, record: RecordedRequest): Promise<void> {
    if (step.delayMs) {
      await wait(step.delayMs, response);
      if (response.destroyed || response.writableEnded) {
        record.status = 499; // client went away (e.g. its timeout fired)
        return;
      }
    }
    if (step.error) {
      const headers: Record<string, string> = { ...(step.error.headers ?? {}) };
      if (step.error.retryAfter !== undefined) headers["retry-after"] = String(step.error.retryAfter);
      if (step.error.retryAfterMs !== undefined) headers["retry-after-ms"] = String(step.error.retryAfterMs);
      const body = step.error.body !== undefined ? step.error.body : errorBody(`Scripted error ${step.error.status}`, step.error.status === 429 ? "rate_limit_error" : "api_error", null);
      sendJson(response, record, step.error.status, body, headers);
      return;
    }
    const built = buildResponse(step, request);
    completionCounter += 1;
    const id = `chatcmpl-scripted-${completionCounter}`;
    const created = Math.floor(Date.now() / 1000);
    if (!request.stream) {
      const message: Json = { role: "assistant", content: built.content, refusal: null };
      if (built.toolCalls.length > 0) message.tool_calls = built.toolCalls;
      sendJson(response, record, 200, {
        id,
        object: "chat.completion",
        created,
        model: request.model,
        choices: [{ index: 0, message, finish_reason: built.finishReason, logprobs: null }],
        usage: built.usage,
        system_fingerprint: "taubridge-scripted",
      });
      return;
    }
    record.status = 200;
    if (response.destroyed) return;
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
    const chunk = (delta: Json, finishReason: string | null = null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model: request.model,
      system_fingerprint: "taubridge-scripted",
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    });
    const send = (data: unknown) => {
      if (!response.destroyed) response.write(`data: ${JSON.stringify(data)}\n\n`);
    };
    send(chunk({ role: "assistant", content: built.toolCalls.length > 0 && built.content === null ? null : "" }));
    for (const piece of splitText(built.content ?? "")) send(chunk({ content: piece }));
    built.toolCalls.forEach((call, position) => {
      send(chunk({ tool_calls: [{ index: position, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }));
      for (const piece of splitFixed(call.function.arguments, 8)) send(chunk({ tool_calls: [{ index: position, function: { arguments: piece } }] }));
    });
    send(chunk({}, built.finishReason));
    const streamOptions = request.body.stream_options as Json | undefined;
    if (streamUsage === "always" || streamOptions?.include_usage === true) {
      send({ id, object: "chat.completion.chunk", created, model: request.model, system_fingerprint: "taubridge-scripted", choices: [], usage: built.usage });
    }
    if (!response.destroyed) response.end("data: [DONE]\n\n");
  }

  async function handleCompletion(response: ServerResponse, record: RecordedRequest, rawBody: string): Promise<void> {
    let body: Json;
    try {
      const parsed: unknown = JSON.parse(rawBody);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("the body must be a JSON object");
      body = parsed as Json;
    } catch (error) {
      record.body = rawBody;
      return fail(response, record, 400, "invalid_request", `Request body is not valid JSON: ${(error as Error).message}`);
    }
    record.body = body;
    const model = typeof body.model === "string" ? body.model : "";
    const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
    record.model = model || undefined;
    record.stream = body.stream === true;
    if (!model || !Array.isArray(body.messages)) {
      return fail(response, record, 400, "invalid_request", "A chat-completions request needs `model` (string) and `messages` (array)");
    }
    const scriptName = scripts.has(model) ? model : scripts.has(DEFAULT_SCRIPT) ? DEFAULT_SCRIPT : undefined;
    record.script = scriptName;
    const request: ScriptedRequest = {
      index: record.index,
      model,
      messages,
      tools: Array.isArray(body.tools) ? (body.tools as Json[]) : [],
      stream: body.stream === true,
      body,
      script: scriptName,
    };
    const selected = selectStep(scriptName, request);
    if (selected) {
      const { state, script } = selected;
      record.answeredBy = `${script}#${state.index}${state.step.label ? ` (${state.step.label})` : ""}`;
      return answer(state.step, request, response, record);
    }
    if (responder) {
      let produced: ScriptStep | undefined;
      try {
        produced = await responder(request);
      } catch (error) {
        return fail(response, record, 500, "responder_error", `The responder threw: ${(error as Error)?.message ?? String(error)}`);
      }
      if (produced !== undefined) {
        let step: ParsedStep;
        try {
          step = parseScriptStep(produced, "step returned by the responder");
        } catch (error) {
          return fail(response, record, 500, "invalid_step", (error as Error).message);
        }
        record.answeredBy = "responder";
        return answer(step, request, response, record);
      }
    }
    if (scriptName === undefined && !responder) {
      const known = [...scripts.keys()].join(", ") || "(none)";
      return fail(response, record, 404, "model_not_found", `No script for model "${model}" (scripts: ${known}) and no default "*" script`);
    }
    const consumed = scriptName ? (scripts.get(scriptName) ?? []).filter((state) => state.remaining <= 0).length : 0;
    return fail(
      response,
      record,
      500,
      "script_exhausted",
      `Script "${scriptName ?? "(none)"}" has no step left that matches request #${record.index} (model "${model}"; ${consumed} step(s) used up)` +
        (responder ? " and the responder returned nothing" : ""),
    );
  }

  function handleModels(response: ServerResponse, record: RecordedRequest): void {
    const names = [...scripts.keys()].filter((name) => name !== DEFAULT_SCRIPT);
    sendJson(response, record, 200, {
      object: "list",
      data: names.map((id) => ({ id, object: "model", created: 0, owned_by: "taubridge-scripted" })),
    });
  }

  const server: Server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (data: Buffer) => chunks.push(data));
    incoming.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const path = (incoming.url ?? "/").split("?")[0] ?? "/";
      const record: RecordedRequest = {
        index: requests.length,
        method: incoming.method ?? "GET",
        path,
        headers: withoutSecretHeaders(incoming.headers),
        hadAuthorization: incoming.headers.authorization !== undefined,
        body: rawBody === "" ? null : rawBody,
        model: undefined,
        stream: false,
        script: undefined,
        answeredBy: null,
        status: 0,
        receivedAt: new Date().toISOString(),
      };
      requests.push(record);
      const route = path.replace(/\/+$/, "");
      const run = async () => {
        if (record.method === "POST" && (route === "/v1/chat/completions" || route === "/chat/completions")) {
          await handleCompletion(response, record, rawBody);
        } else if (record.method === "GET" && (route === "/v1/models" || route === "/models")) {
          handleModels(response, record);
        } else {
          fail(response, record, 404, "not_found", `No route ${record.method} ${path} (the scripted server serves POST /v1/chat/completions and GET /v1/models)`);
        }
      };
      run().catch((error: unknown) => {
        fail(response, record, 500, "responder_error", `Scripted server failure: ${(error as Error)?.message ?? String(error)}`);
      });
    });
  });

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;

  const pending = (): PendingStep[] => {
    const result: PendingStep[] = [];
    for (const [script, states] of scripts) {
      for (const state of states) {
        if (state.remaining > 0 && Number.isFinite(state.remaining)) {
          result.push({ script, index: state.index, label: state.step.label, remaining: state.remaining });
        }
      }
    }
    return result;
  };

  return {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    failures,
    requestsFor: (model) => requests.filter((record) => record.model === model),
    pending,
    assertAllConsumed: () => {
      const remaining = pending();
      if (remaining.length > 0) throw new UnconsumedStepsError(remaining);
    },
    assertNoFailures: () => {
      if (failures.length > 0) throw new UnexpectedModelCallError([...failures]);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
