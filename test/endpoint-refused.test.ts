/**
 * A model endpoint with nothing listening (a closed port on 127.0.0.1: a server is bound, closed, and
 * its port reused) fails fast and says where and for which role:
 * - a model call is not retried on ECONNREFUSED (one attempt, no backoff), whatever --model-max-attempts says;
 * - a refusal on a role's very first call stops the run: a ConfigError (exit code 2) naming the role
 *   and the URL, no episode recorded, no checkpoint left behind;
 * - a refusal after the endpoint has answered (the server went away mid-run) is an infra error of
 *   that episode only, still without retries, and the run goes on.
 * "At once" is proved by counting, never by the clock (the machine may be loaded): the attempts an
 * error reports, the requests a server saw and the connections a process opened to the port (the
 * old behaviour was 6 attempts with 1 + 2 + 4 + 8 + 16 s of backoff per call).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ConfigError, InfraError } from "../src/errors/error-tree.ts";
import { ModelEndpointRefusedError, ModelEndpointUnreachableError } from "../src/model/errors.ts";
import { createModelClient } from "../src/model/model-client.ts";
import { buildRun } from "./support/registries.ts";
import { refusedPort } from "./support/refused-port.ts";
import { runBatch } from "../src/suites/tau-bench/batch.ts";
import type { RunConfigInput } from "../src/suites/tau-bench/run-config.ts";
import { exitCodeForError } from "../src/cli/exit-codes.ts";
import { COUNT_CONNECTIONS_IMPORT, countConnectionAttempts } from "./support/connection-attempts.ts";

const KEY_ENV = "TAUBRIDGE_ENDPOINT_REFUSED_TEST_KEY";
process.env[KEY_ENV] = "sk-endpoint-refused-test";

const completion = (content: string) =>
  JSON.stringify({
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 0,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });

/** A server that answers `answers` chat completions and then goes away (its port then refuses). */
async function serverThatGoesAway(answers: number): Promise<{ baseURL: string; port: number; requests: () => number }> {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      requests++;
      response.writeHead(200, { "content-type": "application/json", connection: "close" }).end(completion("How can I help?"));
      if (requests >= answers) {
        server.close();
        server.closeAllConnections();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, port, requests: () => requests };
}

describe("a model call to a closed port", () => {
  it("fails after one attempt, naming the role and the URL, without backoff", async () => {
    const port = await refusedPort();
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const client = createModelClient({ role: "judge", model: "judge-model", provider: "openai-compatible", baseURL, maxAttempts: 6 }, { env: {} });
    const connections = countConnectionAttempts(port);
    const error = await client.complete({ messages: [{ role: "user", content: "hi" }] }).catch((caught: unknown) => caught);
    connections.stop();
    expect(connections.attempts).toBe(1); // 6 allowed, 1 made: no retry, so no backoff
    expect(ModelEndpointRefusedError.isInstance(error)).toBe(true);
    expect(InfraError.isInstance(error)).toBe(true);
    const refused = error as ModelEndpointRefusedError;
    expect(refused.message).toBe(`judge model "judge-model" (openai-compatible at ${baseURL}): connection refused (nothing is listening there) (ECONNREFUSED; not retried)`);
    expect(refused).toMatchObject({ role: "judge", baseURL, attempts: 1, retryable: false, code: "ECONNREFUSED", neverAnswered: true });
  });

  it("knows when the endpoint had answered before (the server went away)", async () => {
    const server = await serverThatGoesAway(1);
    const client = createModelClient({ role: "agent", model: "m", provider: "openai-compatible", baseURL: server.baseURL, maxAttempts: 6 }, { env: {} });
    const first = await client.complete({ messages: [{ role: "user", content: "hi" }] });
    expect(first.message.content).toBe("How can I help?");
    const connections = countConnectionAttempts(server.port);
    const error = await client.complete({ messages: [{ role: "user", content: "again" }] }).catch((caught: unknown) => caught);
    connections.stop();
    expect(error).toMatchObject({ code: "ECONNREFUSED", neverAnswered: false, attempts: 1 });
    expect(connections.attempts).toBe(1);
  });
});

describe("a run whose model endpoint refuses", () => {
  /** Two library tasks, tool-calling agent and llm user, 6 attempts per call (the CLI's default). */
  function config(overrides: Partial<RunConfigInput>): RunConfigInput {
    return {
      env: "library",
      agentStrategy: "tool-calling",
      userStrategy: "llm",
      model: "agent-model",
      modelProvider: "openai-compatible",
      apiKeyEnv: KEY_ENV,
      userModel: "user-model",
      userModelProvider: "openai-compatible",
      userApiKeyEnv: KEY_ENV,
      taskIds: [0, 1],
      modelMaxAttempts: 6,
      logDir: mkdtempSync(join(tmpdir(), "taubridge-refused-")),
      quiet: true,
      ...overrides,
    };
  }

  it.each([
    { role: "agent", flag: "--base-url", overrides: (url: string) => ({ baseUrl: url, userStrategy: "scripted", userModel: undefined }) },
    { role: "user", flag: "--user-base-url", overrides: (url: string) => ({ baseUrl: url, userBaseUrl: url }) },
  ])("stops on the first call with one line naming the $role endpoint (exit code 2), recording nothing", async ({ role, flag, overrides }) => {
    const port = await refusedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const built = buildRun(config({ ...overrides(url), maxConcurrency: 2 }));
    const connections = countConnectionAttempts(port);
    const error = await runBatch(built).catch((caught: unknown) => caught);
    connections.stop();
    // The two episodes' first calls at most, each tried once (6 attempts allowed): nothing retried.
    expect(connections.attempts).toBeGreaterThanOrEqual(1);
    expect(connections.attempts).toBeLessThanOrEqual(2);
    expect(ModelEndpointUnreachableError.isInstance(error)).toBe(true);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(exitCodeForError(error)).toBe(2);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toBe(
      `the ${role} model endpoint ${url} refused the connection (nothing is listening there) on the run's first call (ECONNREFUSED); start the server there or fix ${flag}; no episode was recorded`,
    );
    expect(readdirSync(built.config.logDir)).toEqual([]);
  });

  it("keeps running when the endpoint goes away mid-run: that episode is an infra error, not retried", async () => {
    const server = await serverThatGoesAway(1);
    const built = buildRun(config({ baseUrl: server.baseURL, userStrategy: "scripted", userModel: undefined }));
    const connections = countConnectionAttempts(server.port);
    const outcome = await runBatch(built);
    connections.stop();
    expect(server.requests()).toBe(1);
    // The answered call's connection, then one refused attempt for the next call (6 allowed): not retried.
    expect(connections.attempts).toBe(2);
    expect(outcome.summaries.map((summary) => summary.termination)).toEqual(["user_stop", "infra_error"]);
    const entries = JSON.parse(readFileSync(outcome.resultsPath, "utf8"));
    expect(entries[1].info.error).toBe(`agent model "agent-model" (openai-compatible at ${server.baseURL}): connection refused (nothing is listening there) (ECONNREFUSED; not retried)`);
    expect(existsSync(outcome.checkpointPath)).toBe(true);
  });
});

describe("taubridge run against a closed port (CLI)", () => {
  it("exits 2 at once (one connection attempt, no retry) with one line naming the agent endpoint", async () => {
    const port = await refusedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-refused-"));
    const countFile = join(mkdtempSync(join(tmpdir(), "taubridge-refused-count-")), "connections.json");
    const bin = join(import.meta.dirname, "..", "bin", "taubridge.js");
    const result = await execa(
      "node",
      ["--import", COUNT_CONNECTIONS_IMPORT, bin, "run", "--model", "m", "--model-provider", "vllm", "--base-url", url, "--task-ids", "0", "1", "--log-dir", logDir, "--quiet"],
      {
        reject: false,
        env: { TAUBRIDGE_TEST_CONNECTIONS_FILE: countFile },
      },
    );
    expect(result.exitCode).toBe(2);
    // τ-bench runs one episode at a time by default: its first call, tried once (6 attempts allowed), and no second episode.
    expect(JSON.parse(readFileSync(countFile, "utf8"))).toEqual({ [port]: 1 });
    expect(result.stderr.trim()).toBe(
      `taubridge: the agent model endpoint ${url} refused the connection (nothing is listening there) on the run's first call (ECONNREFUSED); start the server there or fix --base-url; no episode was recorded`,
    );
    expect(readdirSync(logDir)).toEqual([]);
  });
});
