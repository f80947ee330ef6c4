/**
 * Whether anything listens at a model endpoint, asked without a request. Why: a role a run calls
 * only deep inside an episode (τ³ retrieval's reranker, sometimes never when the agent does not
 * search) should stop the run before its first episode when nothing is there, as the agent's
 * endpoint does on its first call; a probe request would cost money and send the key, a TCP
 * connection does neither.
 */
import { connect } from "node:net";
import { unreachableCode } from "./retry.ts";

/** Default time a probe waits for the connection before leaving the question to the first call. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * One TCP connection to the base URL's host and port (no TLS, no HTTP, no key), closed at once.
 * Resolves the unreachable code (`ECONNREFUSED`, `ENOTFOUND`, as `unreachableCode` knows them), or
 * undefined when the connection opened or failed in any other way (a timeout, a reset: the first
 * call reports those with its retries).
 */
export function unreachableEndpoint(baseURL: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return Promise.resolve(undefined); // the client's own validation names a bad URL
  }
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return new Promise((resolve) => {
    const socket = connect({ host, port, autoSelectFamily: true });
    const done = (code: string | undefined) => {
      socket.destroy();
      resolve(code);
    };
    socket.setTimeout(timeoutMs, () => done(undefined));
    socket.once("connect", () => done(undefined));
    socket.once("error", (error) => done(unreachableCode(error)));
  });
}
