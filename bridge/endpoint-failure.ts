/**
 * Whether a framework agent's failed turn died of its model endpoint — an infrastructure error, as
 * a built-in agent's failed model call is (`ModelCallError`): left out of pass^k, rerun on resume,
 * exit 3 while such episodes remain — or of the agent itself (`agent_error`). One rule for every
 * Node adapter and for the Python bridge (whose child reports what it found in the Python exception
 * chain, `taubridge_bridge/endpoint.py`), on both suites.
 *
 * The bridge reads the framework's **error**, not its HTTP traffic (bridge/README.md, "Endpoint
 * failures"): only the error says what the turn died of. Traffic shows requests the framework
 * retried to success and the calls of tools that run natively, and it cannot be seen everywhere (a
 * client built before the hooks, a user's own `fetch` or dispatcher, Python's httpx or requests).
 * Every framework keeps the HTTP status or the connection failure on the error it throws or on an
 * error in its chain; the adapter tests check it against each real framework.
 */
import { ModelEndpointRefusedError, ModelEndpointUnreachableError } from "../src/model/errors.ts";
import { unreachableCode } from "../src/model/retry.ts";

/**
 * HTTP statuses of a model endpoint that say nothing about the agent: the key (401, 402 out of
 * credit, 403), the URL or model name (404), the server's load or state (408, 409, 429, 5xx).
 * A 400-class rejection of the request's content (400, 413, 422: a context too long, a tool schema
 * the provider refuses) is the agent's own request, so it stays the agent's error.
 */
export function isEndpointStatus(status: number): boolean {
  return status === 401 || status === 402 || status === 403 || status === 404 || status === 408 || status === 409 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * Connection failures: by their error code (Node's, undici's; `connection` is the Python bridge's
 * word for one it knows only by its class), by the class names HTTP clients give them, or by the
 * words frameworks put in the message of the error they wrap them in.
 */
const CONNECTION_CODE = /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EPIPE|EHOSTUNREACH|ENETUNREACH|UND_ERR_\w+|connection)$/;
const CONNECTION_NAME = /APIConnection|ConnectionError|ConnectError|FetchError|ConnectTimeout|HeadersTimeout|BodyTimeout|^TimeoutError$/;
const CONNECTION_MESSAGE = /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|Connection error|Cannot connect to API/i;

/** What an error chain says about the model endpoint: the HTTP status it answered, or how the connection failed. */
export interface EndpointEvidence {
  status?: number;
  /** A connection failure's code (`ECONNREFUSED`), or `connection` when only its name or message says so. */
  code?: string;
}

function statusOf(record: Record<string, unknown>): number | undefined {
  const response = record.response as Record<string, unknown> | undefined;
  for (const value of [record.status, record.statusCode, record.status_code, response && typeof response === "object" ? response.status : undefined]) {
    if (typeof value === "number" && Number.isInteger(value) && value >= 400 && value <= 599) return value;
  }
  return undefined;
}

/** The errors an error wraps, as frameworks name them: `cause`, the AI SDK's `lastError`/`errors`, an `error` field. */
function wrapped(record: Record<string, unknown>): unknown[] {
  return [record.cause, record.lastError, record.error, ...(Array.isArray(record.errors) ? record.errors : [])];
}

/**
 * The evidence that `error` (or an error it wraps) is a failure of the model endpoint, or
 * undefined when it is something else (the agent's own bug, a validation error, a 400).
 */
export function endpointFailure(error: unknown): EndpointEvidence | undefined {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.shift();
    if (!current || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    const record = current as Record<string, unknown>;
    const status = statusOf(record);
    if (status !== undefined) {
      if (isEndpointStatus(status)) return { status };
      continue; // the endpoint answered, and the answer was about the request: the agent's
    }
    if (typeof record.code === "string" && CONNECTION_CODE.test(record.code)) return { code: record.code };
    if (typeof record.name === "string" && CONNECTION_NAME.test(record.name)) return { code: unreachableCode(current) ?? "connection" };
    if (typeof record.message === "string" && CONNECTION_MESSAGE.test(record.message))
      return { code: unreachableCode(current) ?? /\b(ECONNREFUSED|ENOTFOUND)\b/.exec(record.message)?.[1] ?? "connection" };
    pending.push(...wrapped(record));
  }
  return undefined;
}

/**
 * `ECONNREFUSED` / `ENOTFOUND` when a failure says nothing answers at the endpoint (frameworks wrap
 * the fetch error in their own: `cause`, `lastError`, `errors`; the Python bridge reports the code),
 * else undefined.
 */
export function refusedCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const current = pending.shift();
    if (!current || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    const code = unreachableCode(current);
    if (code) return code;
    const record = current as Record<string, unknown>;
    const named = typeof record.message === "string" ? /\b(ECONNREFUSED|ENOTFOUND)\b/.exec(record.message) : null;
    if (named) return named[1];
    pending.push(...wrapped(record));
  }
  return undefined;
}

/** Who the endpoint belongs to, for the run-stopping error. */
export interface EndpointOwner {
  /** The framework or bridge (`vercel-ai`, `python-bridge`), shown as the provider. */
  framework: string;
  model: string;
  /** The base URL (credentials removed), or the words for the framework's default. */
  endpoint: string;
  /** What the user changes to point the agent elsewhere. */
  setting: string;
}

/**
 * Whether a framework's endpoint has answered yet, and the run-stopping error once it refused the
 * run's very first call: the rule of taubridge's own model clients, so a wrong `--base-url` or a
 * server that is not up stops the run with exit 2 instead of failing every episode.
 */
export class EndpointWatch {
  private answered = false;
  failure: Error | undefined;

  constructor(private readonly owner: EndpointOwner) {}

  /** `<framework> (model endpoint: <endpoint>)`: how errors of this endpoint begin. */
  describe(): string {
    return `${this.owner.framework} (model endpoint: ${this.owner.endpoint})`;
  }

  /** A turn of the framework succeeded: its endpoint answers. */
  answer(): void {
    this.answered = true;
  }

  /** A turn failed on its endpoint: when nothing answered there yet and the connection was refused, the run stops. */
  refused(error: unknown): void {
    const code = refusedCode(error);
    if (!code || this.answered || this.failure) return;
    const { framework, model, endpoint, setting } = this.owner;
    const details = { role: "agent", provider: framework, model, baseURL: endpoint, attempts: 1, retryable: false };
    const refused = new ModelEndpointRefusedError(`${framework}: ${code}`, details, code, true, { cause: error });
    this.failure = new ModelEndpointUnreachableError(refused, setting);
  }
}
