/**
 * Per-call logs for both suites (τ²'s `--log-level`, `--verbose-logs`, `--llm-log-mode`), through the
 * CLI against the scripted server: one JSON file per model request and its response under the
 * results (`latest` keeps each role's last call per episode, `all` every call), a console line per
 * call at DEBUG, retries at WARNING, and no secret anywhere in what is written or printed.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../src/testing/index.ts";
import { runCli, runTau2 } from "./support/cli.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

const SECRET = "sk-call-log-SECRET-0123456789abcdef";

/** Every file under a folder, by path relative to it. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)))
    .sort();
}

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer({
    responder: (request) => {
      if (request.model === "agent-model") return { content: "Done. Anything else?", usage: { prompt_tokens: 100, completion_tokens: 10 } };
      const turns = request.messages.filter((message) => message.role === "user").length;
      return { content: turns >= 2 ? "Thanks, bye. ###STOP###" : "I need help with my task.", usage: { prompt_tokens: 50, completion_tokens: 5 } };
    },
  });
});
afterAll(async () => {
  await server.close();
});

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

describe.skipIf(!data)("τ² per-call logs", () => {
  const tau2Args = (mode: string) => {
    // A secret in the LLM arguments (an extra header) and the key's variable: neither may be written.
    const endpoint = JSON.stringify({ temperature: 0.0, api_base: server.baseURL, extra_headers: { Authorization: `Bearer ${SECRET}` } });
    return [
      "--domain",
      "mock",
      "--task-ids",
      "create_task_1",
      "--agent",
      "llm_agent",
      "--agent-llm",
      "agent-model",
      "--agent-llm-args",
      endpoint,
      "--user",
      "user_simulator",
      "--user-llm",
      "user-model",
      "--user-llm-args",
      endpoint,
      "--verbose-logs",
      "--llm-log-mode",
      mode,
      "--log-level",
      "DEBUG",
    ];
  };

  it("--llm-log-mode all: every request and response of the simulation, redacted; a DEBUG line per call", async () => {
    const directory = mkdtempSync(join(tmpdir(), "tau2-call-logs-"));
    const result = await runTau2(tau2Args("all"), { data: data as string, saveTo: join(directory, "results.json"), env: { MY_KEY: SECRET } });
    expect(result.exitCode, result.stderr).toBe(0);
    const logs = join(directory, "artifacts", "task_create_task_1", "trial_0", "llm_debug");
    const files = filesUnder(logs);
    // After τ²'s fixed greeting the user asks, the agent answers, the user stops: 3 calls.
    expect(files.filter((file) => file.includes("_user_"))).toHaveLength(2);
    expect(files.filter((file) => file.includes("_agent_"))).toHaveLength(1);
    const records = files.map((file) => JSON.parse(readFileSync(join(logs, file), "utf8")) as Record<string, any>);
    const agent = records.find((record) => record.call_name === "agent") as Record<string, any>;
    expect(agent).toMatchObject({ task_id: "create_task_1", trial: 0, endpoint: { provider: "openai-compatible", model: "agent-model", base_url: server.baseURL } });
    expect(agent.request.messages[0].role).toBe("system");
    expect(agent.request.tools.length).toBeGreaterThan(0);
    expect(agent.response).toMatchObject({ message: { role: "assistant", content: "Done. Anything else?" }, usage: { promptTokens: 100, completionTokens: 10 }, attempts: 1, cached: false });
    expect(agent.request.params.extra_headers.Authorization).toBe("[REDACTED]");
    for (const file of files) expect(readFileSync(join(logs, file), "utf8")).not.toContain(SECRET);
    const debugLines = result.stderr.split("\n").filter((line) => line.startsWith("[taubridge] DEBUG"));
    expect(debugLines).toHaveLength(3);
    expect(debugLines[0]).toMatch(/^\[taubridge\] DEBUG task create_task_1 trial 0: user model "user-model": answered in \d+ ms, 50→5 tokens/);
    expect(result.stderr).toMatch(/\[taubridge\] INFO task create_task_1 trial 0: ended in \d+ ms: user_stop, reward/);
    expect(result.stderr).not.toContain(SECRET);
  });

  it("--llm-log-mode latest (the default): each role's most recent call only", async () => {
    const directory = mkdtempSync(join(tmpdir(), "tau2-call-logs-"));
    const result = await runTau2(tau2Args("latest"), { data: data as string, saveTo: join(directory, "results.json") });
    expect(result.exitCode, result.stderr).toBe(0);
    const logs = join(directory, "artifacts", "task_create_task_1", "trial_0", "llm_debug");
    const files = filesUnder(logs);
    expect(files).toHaveLength(2);
    const user = JSON.parse(readFileSync(join(logs, files.find((file) => file.includes("_user_")) as string), "utf8"));
    expect(user.response.message.content).toBe("Thanks, bye. ###STOP###");
  });

  it("writes nothing and prints nothing more without the flags", async () => {
    const directory = mkdtempSync(join(tmpdir(), "tau2-call-logs-"));
    const endpoint = JSON.stringify({ temperature: 0.0, api_base: server.baseURL });
    const args = ["--domain", "mock", "--task-ids", "create_task_1", "--agent-llm", "agent-model", "--agent-llm-args", endpoint, "--user-llm", "user-model", "--user-llm-args", endpoint];
    const result = await runTau2(args, { data: data as string, saveTo: join(directory, "results.json") });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(readdirSync(directory).sort()).toEqual(["results.json", "results.meta.json"]);
  });
});

describe("τ-bench per-call logs and retries", () => {
  it("logs the library domain's calls under <stem>.artifacts/ and prints retries at WARNING", async () => {
    const flaky = await startScriptedModelServer({
      scripts: {
        "agent-model": [{ error: { status: 503, retryAfterMs: 10 } }, { content: "Here you go.", times: "unlimited" }],
        "user-model": [{ content: "Hi, I need help." }, { content: "###STOP###", times: "unlimited" }],
      },
    });
    try {
      const logDir = mkdtempSync(join(tmpdir(), "tau-call-logs-"));
      const result = await runCli(
        [
          "run",
          "--task-ids",
          "0",
          "--model",
          "agent-model",
          "--model-provider",
          "openai-compatible",
          "--base-url",
          flaky.baseURL,
          "--user-model",
          "user-model",
          "--user-model-provider",
          "openai-compatible",
          "--user-base-url",
          flaky.baseURL,
          "--log-dir",
          logDir,
          "--verbose-logs",
          "--log-level",
          "warning",
          "--quiet",
        ],
        { env: { MY_KEY: SECRET } },
      );
      expect(result.exitCode, result.stderr).toBe(0);
      const [artifacts] = readdirSync(logDir).filter((name) => name.endsWith(".artifacts"));
      expect(artifacts).toBeDefined();
      const files = filesUnder(join(logDir, artifacts as string));
      expect(files.every((file) => /^task_0\/trial_0\/llm_debug\/\d{8}_\d{6}_\d{3}_(agent|user)_[0-9a-f]{8}\.json$/.test(file))).toBe(true);
      expect(files.filter((file) => file.includes("_agent_"))).toHaveLength(1);
      expect(result.stderr).toMatch(/\[taubridge\] WARNING task 0 trial 0: agent model "agent-model": attempt 1 failed \(.*HTTP 503.*\); retrying in \d+\.\d s/);
      expect(result.stderr).not.toContain("DEBUG");
    } finally {
      await flaky.close();
    }
  });

  it("refuses an unknown level in one line", async () => {
    const result = await runCli(["run", "--log-level", "loud"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("--log-level");
  });
});
