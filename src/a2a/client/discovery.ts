/**
 * Fetching the agent card before the first episode. A dead endpoint stops the run here, with one
 * line naming the URL (exit 2), as an unreachable model endpoint does: every episode would fail the
 * same way. Redirects are followed (at most 3), each target checked against the host allow-list.
 */
import { describeError } from "../../errors/error-tree.ts";
import { A2ADiscoveryError } from "./errors.ts";
import { A2AHttp, headerValue, NoAnswerError, networkCode } from "./http.ts";
import type { HostPolicy } from "./host-policy.ts";
import { parseJson, type Plain } from "./json.ts";
import { deadlineSignal } from "./rpc.ts";
import { type AgentCardInfo, type CardChoice, cardCandidates, readCard } from "./card.ts";

/** How long discovery waits for a card (each URL tried). */
export const CARD_TIMEOUT_MS = 10_000;

export interface DiscoveryOptions extends CardChoice {
  policy?: HostPolicy;
  signal?: AbortSignal;
  timeoutMs?: number;
}

async function fetchCard(http: A2AHttp, url: string, options: DiscoveryOptions): Promise<{ status: number; text: string; url: string }> {
  let current = url;
  for (let hop = 0; ; hop++) {
    await options.policy?.check(current, "the A2A agent card");
    const deadline = deadlineSignal(options.signal ?? new AbortController().signal, options.timeoutMs ?? CARD_TIMEOUT_MS);
    const answer = await http.exchange(current, { method: "GET", headers: { accept: "application/json", "a2a-version": "1.0" }, signal: deadline.signal }).finally(() => deadline.done());
    const location = headerValue(answer.headers, "location");
    if (answer.status >= 300 && answer.status < 400 && location && hop < 3) {
      current = new URL(location, current).toString();
      continue;
    }
    return { status: answer.status, text: answer.text, url: current };
  }
}

/** Why a card fetch got no answer, in words. */
function noAnswerText(error: NoAnswerError): string {
  const code = networkCode(error.cause);
  if (code === "ECONNREFUSED") return "connection refused (nothing is listening there)";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "the host name does not resolve";
  if (error.cause instanceof Error && (error.cause.name === "TimeoutError" || error.cause.name === "AbortError")) return "no answer in time";
  return `${error.message}${code ? ` (${code})` : ""}`;
}

/**
 * The agent's card and the interface to call. Without a card (both paths 404) discovery goes on
 * only when `rpcUrl` is given. Throws {@link A2ADiscoveryError} naming the endpoint.
 */
export async function discoverAgent(http: A2AHttp, endpoint: string, options: DiscoveryOptions): Promise<AgentCardInfo> {
  const tried: string[] = [];
  for (const url of cardCandidates(endpoint)) {
    let fetched;
    try {
      fetched = await fetchCard(http, url, options);
    } catch (error) {
      if (error instanceof NoAnswerError)
        throw new A2ADiscoveryError(`the A2A agent at ${endpoint} does not answer: ${noAnswerText(error)} (fetching ${url})`, { url, method: "GET agent-card" }, { cause: error.cause });
      throw error;
    }
    if (fetched.status === 404 || fetched.status === 405) {
      tried.push(`${url} (HTTP ${fetched.status})`);
      continue;
    }
    if (fetched.status === 401 || fetched.status === 403)
      throw new A2ADiscoveryError(`the A2A agent at ${endpoint} refused to show its card (HTTP ${fetched.status} at ${fetched.url}); a card should be public`, { url, httpStatus: fetched.status });
    if (fetched.status < 200 || fetched.status >= 300)
      throw new A2ADiscoveryError(`the A2A agent at ${endpoint} answered HTTP ${fetched.status} for its card (${fetched.url})`, { url, httpStatus: fetched.status });
    let card: Plain;
    try {
      card = parseJson(fetched.text);
    } catch (error) {
      throw new A2ADiscoveryError(`the A2A agent card at ${fetched.url} is not JSON: ${describeError(error)}`, { url, httpStatus: fetched.status });
    }
    try {
      return readCard(card, fetched.url, endpoint, options);
    } catch (error) {
      throw new A2ADiscoveryError(`the A2A agent card at ${fetched.url} is unusable: ${(error as Error).message}`, { url, httpStatus: fetched.status });
    }
  }
  if (options.rpcUrl) {
    return {
      cardUrl: "",
      name: null,
      version: null,
      rpcUrl: options.rpcUrl,
      protocolVersion: options.version === "1.0" ? "1.0" : "0.3",
      streaming: false,
      declaresSecurity: false,
      notes: [`no agent card (${tried.join(", ")}); calling ${options.rpcUrl} as given`],
    };
  }
  throw new A2ADiscoveryError(`no A2A agent card at ${endpoint}: tried ${tried.join(", ")} (give the card's URL, or --agent-option rpcUrl=<url> for an agent without one)`, {
    url: endpoint,
    httpStatus: 404,
  });
}
