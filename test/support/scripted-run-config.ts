import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunConfigInput } from "../../src/suites/tau-bench/run-config.ts";
import type { ScriptedModelServer } from "../../src/testing/index.ts";

/**
 * The run configuration the model-path suites share: the bundled library domain, tool-calling agent
 * and llm user, both roles on one scripted server (scripts `agent-model` and `user-model`), the key
 * read from `apiKeyEnv`, a fresh log directory, quiet output. `overrides` change any field.
 */
export function scriptedRunConfig(target: ScriptedModelServer, apiKeyEnv: string, overrides: Partial<RunConfigInput> = {}): RunConfigInput {
  return {
    env: "library",
    agentStrategy: "tool-calling",
    userStrategy: "llm",
    model: "agent-model",
    modelProvider: "openai-compatible",
    baseUrl: target.baseURL,
    apiKeyEnv,
    userModel: "user-model",
    userModelProvider: "openai-compatible",
    userBaseUrl: target.baseURL,
    userApiKeyEnv: apiKeyEnv,
    logDir: mkdtempSync(join(tmpdir(), "taubridge-run-")),
    quiet: true,
    ...overrides,
  };
}
