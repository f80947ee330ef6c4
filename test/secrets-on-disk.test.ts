/**
 * What a run writes never holds a secret (`src/secrets`): real runs of both suites through the
 * CLI, the REAL openai client and the scripted server on 127.0.0.1, with secrets planted
 * everywhere a user can put one: the base URL's user-info (`user:password@`) and a secret query
 * parameter (`?api-key=`), τ²'s LLM arguments (`api_key`, `extra_headers` with `Authorization` and
 * `X-Api-Key`), and the value of the `--api-key-env` variable. The scripted models echo them back
 * (an answer quoting the key, the user quoting the password, a provider error naming key and URL),
 * so they reach trajectories, error texts and cache entries. Then every file under the output
 * directory (results, checkpoints, run status, response cache, derived cache, data cache) and everything printed
 * is searched for each planted value, and the `[REDACTED]` placeholder is checked where the values
 * were.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REDACTED } from "../src/secrets/redact.ts";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptStep } from "../src/testing/index.ts";
import { runCli } from "./support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

// Every planted value is unique and shaped like no known credential: only the rules that know
// where a secret is (a URL's user-info, a secret-named field, a header map, the key variable's
// value) can find them.
const SECRETS = {
  urlUser: "alice7QxUserName",
  urlPassword: "pw9fK2xQpassWord",
  urlQuery: "qk4hT8zWqueryValue",
  headerToken: "hdr2mN6vBtokenValue",
  headerApiKey: "xak8rT1yHeaderValue",
  argApiKey: "arg3sD5fKeyValue",
  userArgApiKey: "usr6gH2jArgValue",
  envKey: "env5pL3cRkeyValue",
} as const;
const KEY_VARIABLE = "TAUBRIDGE_SECRETS_TEST_KEY";

/** Every file under `directory`, with its text. */
function filesUnder(directory: string): Array<{ path: string; text: string }> {
  const files: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) files.push(...filesUnder(path));
    else files.push({ path, text: readFileSync(path, "utf8") });
  }
  return files;
}

/** The planted values found in `text` (none expected). */
function plantedIn(text: string): string[] {
  return Object.entries(SECRETS)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name);
}

/** The base URL with credentials in its user-info and its query. */
function secretURL(server: ScriptedModelServer): string {
  const url = new URL(server.baseURL);
  return `${url.protocol}//${SECRETS.urlUser}:${SECRETS.urlPassword}@${url.host}${url.pathname.replace(/\/+$/, "")}?api-key=${SECRETS.urlQuery}`;
}

/** The same URL as every writer shows it. */
function redactedURL(server: ScriptedModelServer): string {
  const url = new URL(server.baseURL);
  return `${url.protocol}//${REDACTED}@${url.host}${url.pathname.replace(/\/+$/, "")}?api-key=${REDACTED}`;
}

/** A provider's error that names the key and the URL it was sent to (as some do). */
function echoingError(server: ScriptedModelServer): ScriptStep {
  return { error: { status: 400, body: { error: { message: `Incorrect API key provided: ${SECRETS.envKey} (${secretURL(server)})`, type: "invalid_request_error" } } } };
}

/**
 * A scripted server whose steps may quote its own URL: each model's steps in order, the last one
 * answering every further call.
 */
async function echoServer(steps: (server: ScriptedModelServer) => Record<string, ScriptStep[]>): Promise<ScriptedModelServer> {
  let scripts: Record<string, ScriptStep[]> = {};
  const served = new Map<string, number>();
  const server = await startScriptedModelServer({
    responder: (request) => {
      const list = scripts[request.model] ?? [];
      const index = served.get(request.model) ?? 0;
      served.set(request.model, index + 1);
      return list[Math.min(index, list.length - 1)];
    },
  });
  scripts = steps(server);
  return server;
}

interface Run {
  root: string;
  server: ScriptedModelServer;
  exitCode: number | undefined;
  printed: string;
  files: Array<{ path: string; text: string }>;
}

async function runCommand(server: ScriptedModelServer, root: string, args: string[]): Promise<Run> {
  const result = await runCli(args, { env: { [KEY_VARIABLE]: SECRETS.envKey, TAUBRIDGE_CACHE_DIR: join(root, "data-cache"), TAUBRIDGE_DERIVED_CACHE_DIR: join(root, "derived-cache") } });
  return { root, server, exitCode: result.exitCode, printed: `${result.stdout}\n${result.stderr}`, files: filesUnder(root) };
}

/** The checks both suites share: no file and no printed line holds a planted value; every file is named. */
function expectNothingPlanted(run: Run): void {
  for (const file of run.files) expect(plantedIn(file.text), relative(run.root, file.path)).toEqual([]);
  expect(plantedIn(run.printed), "printed output").toEqual([]);
}

const file = (run: Run, pattern: RegExp) => {
  const found = run.files.filter((entry) => pattern.test(relative(run.root, entry.path)));
  expect(found.length, String(pattern)).toBeGreaterThan(0);
  return found;
};

describe("secrets on disk: τ-bench (library domain, tool-calling agent, llm user)", () => {
  let run: Run;
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), "taubridge-secrets-tau-"));
    // Task 0 ends normally with an answer that quotes the key; task 1's agent call fails with a provider error naming key and URL.
    const server = await echoServer((self) => ({
      "agent-model": [{ content: `Done. Your key ${SECRETS.envKey} works at ${secretURL(self)}.` }, echoingError(self)],
      "user-model": [{ content: `Hi, my password is ${SECRETS.urlPassword}.` }, { content: "###STOP###" }, { content: "Hello again, a second question." }],
    }));
    run = await runCommand(server, root, [
      "run",
      ...["--env", "library", "--agent-strategy", "tool-calling", "--user-strategy", "llm"],
      ...["--model", "agent-model", "--model-provider", "openai-compatible", "--base-url", secretURL(server), "--api-key-env", KEY_VARIABLE],
      ...["--user-model", "user-model", "--user-model-provider", "openai-compatible", "--user-base-url", secretURL(server), "--user-api-key-env", KEY_VARIABLE],
      ...["--task-ids", "0", "1", "--max-concurrency", "1", "--model-max-attempts", "1", "--episode-retries", "0"],
      ...["--log-dir", join(root, "results"), "--cache-dir", join(root, "response-cache")],
      // Every model request and response in a file, and a line per call: scanned like the rest.
      ...["--verbose-logs", "--llm-log-mode", "all", "--log-level", "DEBUG"],
    ]);
    await server.close();
  }, 300_000);

  it("the run ran: one episode answered, one ended in the provider's error (exit 3)", () => {
    expect(run.exitCode).toBe(3);
    expect(run.server.requests.length).toBeGreaterThanOrEqual(4);
  });

  it("no file it wrote and no line it printed holds a planted secret", () => {
    expectNothingPlanted(run);
  });

  it("the placeholder stands where the secrets were: checkpoint identity, trajectory, error text, run status, cache", () => {
    const [results] = file(run, /^results\/[^/]*(?<!\.meta)\.json$/);
    const entries = JSON.parse(results.text) as Array<Record<string, any>>;
    const answered = entries.find((entry) => entry.taubridge.error === null || entry.taubridge.error === undefined)!;
    expect(JSON.stringify(answered.traj)).toContain(`my password is ${REDACTED}.`);
    expect(JSON.stringify(answered.traj)).toContain(`Your key ${REDACTED} works at ${redactedURL(run.server)}.`);
    const failed = entries.find((entry) => entry !== answered)!;
    expect(JSON.stringify(failed.taubridge.error)).toContain(`Incorrect API key provided: ${REDACTED} (${redactedURL(run.server)})`);
    const [checkpoint] = file(run, /\.jsonl$/);
    const header = JSON.parse(checkpoint.text.split("\n")[0]);
    expect(header.identity.options).toMatchObject({ baseUrl: redactedURL(run.server), userBaseUrl: redactedURL(run.server), apiKeyEnv: KEY_VARIABLE });
    const cacheEntries = file(run, /^response-cache\//).map((entry) => JSON.parse(entry.text));
    expect(cacheEntries.map((entry) => entry.request.baseURL)).toContain(redactedURL(run.server));
    file(run, /\.meta\.json$/);
    const callLogs = file(run, /\.artifacts\/task_\d+\/trial_0\/llm_debug\/.*\.json$/).map((entry) => JSON.parse(entry.text));
    expect(callLogs.map((entry) => entry.endpoint.base_url)).toContain(redactedURL(run.server));
    expect(callLogs.some((entry) => JSON.stringify(entry.response).includes(`Your key ${REDACTED} works`))).toBe(true);
    expect(callLogs.some((entry) => entry.error?.message.includes(`Incorrect API key provided: ${REDACTED}`))).toBe(true);
  });
});

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

describe.skipIf(!data)("secrets on disk: τ² (mock domain, llm_agent_solo)", () => {
  let run: Run;
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), "taubridge-secrets-tau2-"));
    // The first simulation creates a task whose title quotes the header token; the second one's call fails with a provider error naming key and URL.
    const server = await echoServer((self) => ({
      solo: [
        { tool_calls: [{ id: "s1", name: "create_task", arguments: `{"user_id": "user_1", "title": "Important Meeting ${SECRETS.headerToken}"}` }] },
        { tool_calls: [{ id: "d", name: "done", arguments: "{}" }] },
        echoingError(self),
      ],
    }));
    const agentArgs = `{"temperature": 0.0, "api_base": "${secretURL(server)}", "api_key": "${SECRETS.argApiKey}", "extra_headers": {"Authorization": "Bearer ${SECRETS.headerToken}", "X-Api-Key": "${SECRETS.headerApiKey}"}}`;
    const userArgs = `{"temperature": 0.0, "api_key": "${SECRETS.userArgApiKey}"}`;
    run = await runCommand(server, root, [
      ...["tau2", "run", "--domain", "mock", "--task-ids", "create_task_1", "update_task_1", "--agent", "llm_agent_solo", "--user", "dummy_user"],
      ...["--agent-llm", "solo", "--agent-llm-args", agentArgs, "--agent-api-key-env", KEY_VARIABLE, "--user-llm-args", userArgs],
      ...["--max-concurrency", "1", "--model-max-attempts", "1", "--max-retries", "0", "--retry-delay", "0"],
      ...["--data-dir", data as string, "--save-to", join(root, "results", "results.json"), "--cache-dir", join(root, "response-cache")],
      ...["--verbose-logs", "--llm-log-mode", "all", "--log-level", "DEBUG"],
    ]);
    await server.close();
  }, 300_000);

  it("the run ran: one simulation finished, one ended in the provider's error (exit 3)", () => {
    expect(run.exitCode).toBe(3);
    expect(run.server.requests.length).toBe(3);
  });

  it("no file it wrote and no line it printed holds a planted secret", () => {
    expectNothingPlanted(run);
  });

  it("the placeholder stands where the secrets were: llm_args (Python spelling kept), trajectory, error text, run status identity, cache", () => {
    const [results] = file(run, /^results\/results\.json$/);
    // Written with τ²'s Python JSON: the float keeps its spelling, every key stays, only values are replaced.
    expect(results.text.replace(/\s+/g, " ")).toContain(
      `"llm_args": { "temperature": 0.0, "api_base": "${redactedURL(run.server)}", "api_key": "${REDACTED}", "extra_headers": { "Authorization": "${REDACTED}", "X-Api-Key": "${REDACTED}" } }`,
    );
    const document = JSON.parse(results.text);
    expect(document.info.agent_info.llm_args).toEqual({ temperature: 0, api_base: redactedURL(run.server), api_key: REDACTED, extra_headers: { Authorization: REDACTED, "X-Api-Key": REDACTED } });
    expect(document.info.user_info.llm_args).toEqual({ temperature: 0, api_key: REDACTED });
    const [finished, failed] = document.simulations;
    expect(JSON.stringify(finished.messages)).toContain(`Important Meeting ${REDACTED}`);
    expect(JSON.stringify(failed.info)).toContain(`Incorrect API key provided: ${REDACTED} (${redactedURL(run.server)})`);
    const [status] = file(run, /\.meta\.json$/);
    expect(JSON.parse(status.text).identity.options.agentLlmArgs).toMatchObject({ api_base: redactedURL(run.server), api_key: REDACTED, extra_headers: { Authorization: REDACTED } });
    const cacheEntries = file(run, /^response-cache\//).map((entry) => JSON.parse(entry.text));
    expect(cacheEntries[0].request.params.extra_headers).toEqual({ Authorization: REDACTED, "X-Api-Key": REDACTED });
    file(run, /^derived-cache\//);
    const callLogs = file(run, /^results\/artifacts\/task_.*\/llm_debug\/.*\.json$/).map((entry) => JSON.parse(entry.text));
    expect(callLogs.some((entry) => JSON.stringify(entry.request.messages).includes("Important Meeting") || JSON.stringify(entry.response).includes(`Important Meeting ${REDACTED}`))).toBe(true);
    expect(callLogs[0].request.params.extra_headers).toEqual({ Authorization: REDACTED, "X-Api-Key": REDACTED });
  });
});
