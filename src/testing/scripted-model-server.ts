/**
 * A scripted, OpenAI-compatible model server on loopback. It lets the whole stack — our model
 * client, the real `openai` SDK, and third-party agent frameworks that only speak HTTP — be tested
 * end to end with no network and no paid API: every answer, error, delay and token count comes
 * from a script (or a responder function), and every request is recorded for assertions.
 *
 * Endpoints: `POST /v1/chat/completions` (also `/chat/completions`), with `stream: true` support
 * (SSE chunks in OpenAI's format, tool-call deltas, optional final usage chunk),
 * `POST /v1/embeddings` (also `/embeddings`: deterministic hashed-bag-of-words vectors, see
 * `scripted-embeddings.ts`) and `GET /v1/models` (also `/models`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "../errors/error-tree.ts";
import { withoutSecretHeaders } from "../secrets/redact.ts";
import { DEFAULT_SCRIPT, parseScriptFile, parseScriptStep, type ScriptFile, type ScriptStep } from "./script-format.ts";
import { ScriptBook, stepAnswer, UnconsumedStepsError, UnexpectedModelCallError, type ParsedStep, type PendingStep, type ScriptFailure } from "./script-book.ts";
import { completionBody, errorAnswer, errorBody, streamCompletion } from "./scripted-answers.ts";
import { SCRIPTED_EMBEDDING_DIMENSIONS, scriptedEmbeddingsAnswer } from "./scripted-embeddings.ts";

export { requestMatches, UnconsumedStepsError, UnexpectedModelCallError, type PendingStep, type ScriptFailure } from "./script-book.ts";
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
  /** Components of the vectors `POST /v1/embeddings` answers with (default {@link SCRIPTED_EMBEDDING_DIMENSIONS}). */
  embeddingDimensions?: number;
}

/** One request as recorded (credential headers removed). */
export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  /** The query's parameters (`api-version` of an Azure-style request), `{}` when there is none. */
  query: Record<string, string>;
  /** Request headers without authorization / api-key / cookie headers. */
  headers: Record<string, string>;
  /** Whether an Authorization header was sent (its value is never stored). */
  hadAuthorization: boolean;
  /** The names of the credential headers sent (`authorization`, `api-key`, …; lower case), never their values. */
  credentialHeaders: string[];
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

/** A new request's record, before it is answered. */
function newRecord(index: number, incoming: IncomingMessage, path: string, query: string, rawBody: string): RecordedRequest {
  const headers = withoutSecretHeaders(incoming.headers);
  return {
    index,
    method: incoming.method ?? "GET",
    path,
    query: Object.fromEntries(new URLSearchParams(query)),
    headers,
    hadAuthorization: incoming.headers.authorization !== undefined,
    credentialHeaders: Object.keys(incoming.headers).filter((name) => !Object.hasOwn(headers, name.toLowerCase())),
    body: rawBody === "" ? null : rawBody,
    model: undefined,
    stream: false,
    script: undefined,
    answeredBy: null,
    status: 0,
    receivedAt: new Date().toISOString(),
  };
}

/** The parsed JSON object of a request body, or the reason it is not one. */
function parseBody(rawBody: string): { body: Json } | { problem: string } {
  try {
    const parsed: unknown = JSON.parse(rawBody);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("the body must be a JSON object");
    return { body: parsed as Json };
  } catch (error) {
    return { problem: `Request body is not valid JSON: ${(error as Error).message}` };
  }
}

/** One server's state: its script, what it received, what it could not answer, its pending delays. */
class ScriptedServerState {
  readonly requests: RecordedRequest[] = [];
  readonly failures: ScriptFailure[] = [];
  readonly timers = new Set<NodeJS.Timeout>();
  private completionCounter = 0;

  constructor(
    readonly book: ScriptBook,
    private readonly streamUsage: "requested" | "always",
    private readonly responder: Responder | undefined,
    private readonly embeddingDimensions: number = SCRIPTED_EMBEDDING_DIMENSIONS,
  ) {}

  /** Waits `ms`, or until the client goes away. */
  private wait(ms: number, response: ServerResponse): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
      response.once("close", () => {
        clearTimeout(timer);
        this.timers.delete(timer);
        resolve();
      });
    });
  }

  sendJson(response: ServerResponse, record: RecordedRequest, status: number, body: unknown, headers: Record<string, string> = {}): void {
    record.status = status;
    if (response.destroyed || response.writableEnded) return;
    const text = typeof body === "string" ? body : JSON.stringify(body);
    const contentType = typeof body === "string" && !/^\s*[[{]/.test(body) ? "text/plain; charset=utf-8" : "application/json";
    response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text), ...headers });
    response.end(text);
  }

  fail(response: ServerResponse, record: RecordedRequest, status: number, code: ScriptFailure["code"], message: string): void {
    this.failures.push({ requestIndex: record.index, code, message });
    this.sendJson(response, record, status, errorBody(message, "scripted_server_error", code));
  }

  /** Answers with a step: its delay, then its error or its completion (streamed when asked). */
  private async answer(step: ParsedStep, request: ScriptedRequest, response: ServerResponse, record: RecordedRequest): Promise<void> {
    if (step.delayMs) {
      await this.wait(step.delayMs, response);
      if (response.destroyed || response.writableEnded) {
        record.status = 499; // client went away (e.g. its timeout fired)
        return;
      }
    }
    if (step.error) {
      const { status, body, headers } = errorAnswer(step.error);
      this.sendJson(response, record, status, body, headers);
      return;
    }
    const built = stepAnswer(step, request.index, request.messages);
    this.completionCounter += 1;
    const identity = { id: `chatcmpl-scripted-${this.completionCounter}`, created: Math.floor(Date.now() / 1000), model: request.model };
    if (!request.stream) {
      this.sendJson(response, record, 200, completionBody(built, identity));
      return;
    }
    record.status = 200;
    if (response.destroyed) return;
    const streamOptions = request.body.stream_options as Json | undefined;
    streamCompletion(response, built, identity, this.streamUsage === "always" || streamOptions?.include_usage === true);
  }

  /** A chat-completions request: parsed and checked, routed to its script, answered by a step, the responder, or an error. */
  async handleCompletion(response: ServerResponse, record: RecordedRequest, rawBody: string): Promise<void> {
    const parsed = parseBody(rawBody);
    if ("problem" in parsed) {
      record.body = rawBody;
      return this.fail(response, record, 400, "invalid_request", parsed.problem);
    }
    const { body } = parsed;
    record.body = body;
    const model = typeof body.model === "string" ? body.model : "";
    record.model = model || undefined;
    record.stream = body.stream === true;
    if (!model || !Array.isArray(body.messages)) {
      return this.fail(response, record, 400, "invalid_request", "A chat-completions request needs `model` (string) and `messages` (array)");
    }
    const scriptName = this.book.route(model);
    record.script = scriptName;
    const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
    const request: ScriptedRequest = { index: record.index, model, messages: body.messages as Json[], tools, stream: body.stream === true, body, script: scriptName };
    const selected = this.book.select(scriptName, request);
    if (selected) {
      record.answeredBy = selected.answeredBy;
      return this.answer(selected.step, request, response, record);
    }
    if (this.responder && (await this.answerFromResponder(request, response, record))) return;
    this.failUnanswered(response, record, scriptName, model);
  }

  /** Asks the responder; true when it answered (or its failure was reported), false when it returned nothing. */
  private async answerFromResponder(request: ScriptedRequest, response: ServerResponse, record: RecordedRequest): Promise<boolean> {
    let produced: ScriptStep | undefined;
    try {
      produced = await (this.responder as Responder)(request);
    } catch (error) {
      this.fail(response, record, 500, "responder_error", `The responder threw: ${(error as Error)?.message ?? String(error)}`);
      return true;
    }
    if (produced === undefined) return false;
    let step: ParsedStep;
    try {
      step = parseScriptStep(produced, "step returned by the responder");
    } catch (error) {
      this.fail(response, record, 500, "invalid_step", (error as Error).message);
      return true;
    }
    record.answeredBy = "responder";
    await this.answer(step, request, response, record);
    return true;
  }

  /** No script for the model, or its script has no matching step left. */
  private failUnanswered(response: ServerResponse, record: RecordedRequest, scriptName: string | undefined, model: string): void {
    if (scriptName === undefined && !this.responder) {
      const known = this.book.names().join(", ") || "(none)";
      this.fail(response, record, 404, "model_not_found", `No script for model "${model}" (scripts: ${known}) and no default "*" script`);
      return;
    }
    const consumed = this.book.usedUp(scriptName);
    this.fail(
      response,
      record,
      500,
      "script_exhausted",
      `Script "${scriptName ?? "(none)"}" has no step left that matches request #${record.index} (model "${model}"; ${consumed} step(s) used up)` +
        (this.responder ? " and the responder returned nothing" : ""),
    );
  }

  /** An embeddings request: the deterministic vectors of its inputs (a malformed request is a 400 and a failure). */
  handleEmbeddings(response: ServerResponse, record: RecordedRequest, rawBody: string): void {
    const parsed = parseBody(rawBody);
    if ("problem" in parsed) {
      this.fail(response, record, 400, "invalid_request", parsed.problem);
      return;
    }
    record.body = parsed.body;
    record.model = typeof parsed.body.model === "string" ? parsed.body.model : undefined;
    const answer = scriptedEmbeddingsAnswer(parsed.body, this.embeddingDimensions);
    if (answer.status !== 200) {
      this.fail(response, record, 400, "invalid_request", answer.message);
      return;
    }
    record.answeredBy = "embeddings";
    this.sendJson(response, record, 200, answer.body);
  }

  handleModels(response: ServerResponse, record: RecordedRequest): void {
    const names = this.book.names().filter((name) => name !== DEFAULT_SCRIPT);
    this.sendJson(response, record, 200, {
      object: "list",
      data: names.map((id) => ({ id, object: "model", created: 0, owned_by: "taubridge-scripted" })),
    });
  }

  /** One HTTP request: recorded, then routed to completions, models, or a 404. */
  handle(incoming: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    incoming.on("data", (data: Buffer) => chunks.push(data));
    incoming.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const [path = "/", query = ""] = (incoming.url ?? "/").split("?", 2);
      const record = newRecord(this.requests.length, incoming, path, query, rawBody);
      this.requests.push(record);
      // Any prefix before the endpoint's own path, as providers place them (`/v1/…`, Gemini's `/v1beta/openai/…`, Azure's `/openai/deployments/<name>/…`).
      const route = path.replace(/\/+$/, "");
      const run = async () => {
        if (record.method === "POST" && (route === "/chat/completions" || route.endsWith("/chat/completions"))) {
          await this.handleCompletion(response, record, rawBody);
        } else if (record.method === "POST" && (route === "/embeddings" || route.endsWith("/embeddings"))) {
          this.handleEmbeddings(response, record, rawBody);
        } else if (record.method === "GET" && (route === "/models" || route.endsWith("/models"))) {
          this.handleModels(response, record);
        } else {
          this.fail(response, record, 404, "not_found", `No route ${record.method} ${path} (the scripted server serves POST …/chat/completions, POST …/embeddings and GET …/models)`);
        }
      };
      run().catch((error: unknown) => {
        this.fail(response, record, 500, "responder_error", `Scripted server failure: ${(error as Error)?.message ?? String(error)}`);
      });
    });
  }
}

/** The script file of the options (validated: a malformed script is a ConfigError). */
function scriptOf(options: ScriptedModelServerOptions): ReturnType<typeof parseScriptFile> {
  return parseScriptFile(
    {
      ...(options.scripts !== undefined ? { scripts: options.scripts } : {}),
      ...(options.steps !== undefined ? { steps: options.steps } : {}),
      ...(options.scripts === undefined && options.steps === undefined ? { steps: [] } : {}),
      ...(options.streamUsage !== undefined ? { streamUsage: options.streamUsage } : {}),
    } satisfies ScriptFile,
    "scripted server script",
  );
}

/**
 * Starts a scripted server on loopback and resolves once it listens. Validates the script first
 * (throws `ConfigError` on a malformed one).
 */
export async function startScriptedModelServer(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
  const file = scriptOf(options);
  if (options.embeddingDimensions !== undefined && !(Number.isInteger(options.embeddingDimensions) && options.embeddingDimensions > 0)) {
    throw new ConfigError(`embeddingDimensions must be a positive integer, not ${options.embeddingDimensions}`);
  }
  const state = new ScriptedServerState(new ScriptBook(file), file.streamUsage ?? "requested", options.responder, options.embeddingDimensions);
  const server: Server = createServer((incoming, response) => state.handle(incoming, response));
  // Idle connections are kept longer than Node's default 5 s. A client holds one for the time the
  // server's Keep-Alive header allows, less a second; when its event loop is busy past that second
  // (a domain loading on a loaded machine), it sends on a connection the server has just closed and
  // gets ECONNRESET, which a client told not to retry (`maxAttempts: 1`) reports as a failure.
  server.keepAliveTimeout = 65_000;
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const { requests, failures, book, timers } = state;
  return {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    failures,
    requestsFor: (model) => requests.filter((record) => record.model === model),
    pending: () => book.pending(),
    assertAllConsumed: () => {
      const remaining = book.pending();
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
