/**
 * Framework adapters name their model endpoint: an error from inside the framework carries the base
 * URL the framework was given (or the framework's default when none was), and a run without
 * `--base-url` says, once, through the run's warning channel, where the framework's calls will go.
 * A stand-in framework (its "model call" is the real `openai` client against a closed port on
 * 127.0.0.1, or a thrown error) keeps everything offline; the real openai-agents adapter is built
 * (module loaded and validated, no model call) for its default.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import type { FrameworkAdapter } from "../../adapters/common/driver.ts";
import { defaultEndpointNotice, frameworkEndpoint, OPENAI_PUBLIC_API, openAIClientDefault } from "../../adapters/common/endpoint.ts";
import { adapterStrategy } from "../../adapters/common/strategy.ts";
import { buildRun, testRegistries } from "../support/registries.ts";
import { refusedPort } from "../support/refused-port.ts";
import { runBatch } from "../../src/suites/tau-bench/batch.ts";
import { runEpisode } from "../../src/suites/tau-bench/loop.ts";
import { scriptedUser } from "../../src/suites/tau-bench/participants/scripted-user.ts";

const STAND_IN = "stand-in-framework";
const STAND_IN_DEFAULT = "https://models.stand-in.invalid/v1 (the stand-in's default)";

/** What the stand-in framework's turn does: call the model with the `openai` client, or throw. */
let behaviour: "call-model" | "throw" | "answer" = "answer";

const standIn: FrameworkAdapter<object> = {
  name: STAND_IN,
  hooks: [],
  defaultEndpoint: () => STAND_IN_DEFAULT,
  prepare: (candidate) => candidate as object,
  converse: (_agent, { settings }) => ({
    async turn(message: string) {
      if (behaviour === "throw") throw new TypeError("the framework rejected the tool schema");
      if (behaviour === "call-model") {
        // The framework's own client, pointed where the framework was told (maxRetries 0: fail at once).
        const client = new OpenAI({ apiKey: settings.apiKey, baseURL: settings.baseURL ?? "http://127.0.0.1:1/v1", maxRetries: 0 });
        await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: message }] });
      }
      return { text: "Done.", messages: [] };
    },
  }),
};

let moduleDir: string;

beforeAll(() => {
  if (!testRegistries.agentStrategies.has(STAND_IN)) testRegistries.agentStrategies.register(STAND_IN, adapterStrategy(standIn, "a stand-in framework for endpoint messages"));
  moduleDir = mkdtempSync(join(tmpdir(), "taubridge-endpoint-agent-"));
  writeFileSync(join(moduleDir, "agent.mjs"), "export const agent = { standIn: true };\n");
});

function standInRun(overrides: { baseUrl?: string } = {}) {
  return buildRun({
    env: "library",
    agentStrategy: STAND_IN,
    userStrategy: "scripted",
    taskIds: [0],
    logDir: mkdtempSync(join(tmpdir(), "taubridge-endpoint-")),
    resume: false,
    quiet: true,
    agentOptions: { module: join(moduleDir, "agent.mjs") },
    ...overrides,
  });
}

async function episodeError(baseUrl: string | undefined) {
  const built = standInRun(baseUrl ? { baseUrl } : {});
  const agent = await built.agentFactory.create(built.context);
  const result = await runEpisode({ domain: built.domain, task: built.tasks[0], taskIndex: 0, trial: 0, agent, user: scriptedUser, maxSteps: 30 });
  return result;
}

describe("errors from inside a framework adapter name the endpoint", () => {
  it("a refused connection is an infra error naming the base URL the framework was given", async () => {
    behaviour = "call-model";
    const baseUrl = `http://127.0.0.1:${await refusedPort()}/v1`;
    const result = await episodeError(baseUrl);
    expect(result.termination).toBe("infra_error");
    expect(result.error?.message).toMatch(new RegExp(`^${STAND_IN} \\(model endpoint: ${baseUrl.replace(/[.]/g, "\\.")}\\): model endpoint failed: Connection error`));
  });

  it("without --base-url, an agent error names the framework's default endpoint", async () => {
    behaviour = "throw";
    const result = await episodeError(undefined);
    expect(result.termination).toBe("agent_error");
    expect(result.error?.message).toBe(`${STAND_IN} (model endpoint: ${STAND_IN_DEFAULT}): the framework rejected the tool schema`);
  });

  it("keeps credentials of the base URL out of the message", () => {
    expect(frameworkEndpoint(standIn, { baseURL: "http://user:sk-secret-value@127.0.0.1:8000/v1", apiKey: "sk-secret-value" })).not.toContain("sk-secret-value");
    expect(frameworkEndpoint({}, {})).toBe("the framework's default endpoint");
  });
});

describe("a framework adapter run without --base-url says which endpoint the framework will use", () => {
  it("through the run's warning channel, once, before the episodes", async () => {
    behaviour = "answer";
    const warnings: string[] = [];
    const outcome = await runBatch(standInRun(), { warn: (message) => warnings.push(message) });
    expect(outcome.summaries).toHaveLength(1);
    expect(warnings).toEqual([`${STAND_IN}: no --base-url given, so its model calls go to ${STAND_IN_DEFAULT}; pass --base-url to use another endpoint`]);
  });

  it("says nothing when --base-url is given", async () => {
    behaviour = "answer";
    const warnings: string[] = [];
    await runBatch(standInRun({ baseUrl: "http://127.0.0.1:1/v1" }), { warn: (message) => warnings.push(message) });
    expect(warnings).toEqual([]);
  });

  it("openai-agents names OpenAI's public API (or OPENAI_BASE_URL); the others say the module's model decides", async () => {
    const previous = process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_BASE_URL;
    try {
      const built = buildRun({
        env: "library",
        agentStrategy: "openai-agents",
        userStrategy: "scripted",
        taskIds: [0],
        agentOptions: { module: fileURLToPath(new URL("../../adapters/openai-agents/example/library-agent.ts", import.meta.url)) },
      });
      const warnings: string[] = [];
      await built.agentFactory.create({ ...built.context, warn: (message) => warnings.push(message) });
      expect(warnings).toEqual([
        `openai-agents: no --base-url given, so its model calls go to ${OPENAI_PUBLIC_API} (OpenAI's public API, the OpenAI client's default); pass --base-url to use another endpoint`,
      ]);
    } finally {
      if (previous !== undefined) process.env.OPENAI_BASE_URL = previous;
    }
    expect(openAIClientDefault({ OPENAI_BASE_URL: "http://127.0.0.1:9000/v1" })).toBe("http://127.0.0.1:9000/v1 (from OPENAI_BASE_URL)");
    const { vercelAIAdapter } = await import("../../adapters/vercel-ai/adapter.ts");
    expect(defaultEndpointNotice(vercelAIAdapter)).toBe(
      `vercel-ai: no --base-url given, so its model calls go to where your module's model points (the AI SDK's OpenAI providers default to OpenAI's public API, ${OPENAI_PUBLIC_API}); pass --base-url to use another endpoint`,
    );
  });
});
