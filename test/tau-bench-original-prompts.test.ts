/**
 * On τ-bench domains the act / react agents and the LLM user simulators use the original's prompts,
 * taken from τ-bench's sources in the data directory (`upstream-src/`), so their scores are
 * comparable with the original's; `--agent-prompt-file` / `--user-prompt-file` still win, and our
 * own bundled domain keeps taubridge's wording.
 */
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { ChatReActAgent } from "../src/participants/chat-react-agent.ts";
import { extractTauBenchPrompts, tauChatReactSystemPrompt, tauSupervisorPrompt, tauSupervisorTranscript, tauUserSystemPrompt } from "../src/suites/tau-bench/engine/original-prompts.ts";
import { buildRun } from "./support/registries.ts";
import { createScriptedModels } from "../src/testing/index.ts";
import { parsePythonJson } from "../src/value/index.ts";
import { testParticipantContext } from "./support/participant-context.ts";
import { tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";

warnIfMissingShared();

/** A task whose instruction the user simulators start from. */
const refundTask = { user_id: "u", actions: [], instruction: "You want a refund.", outputs: [] };

describe.skipIf(!tauBenchDirectory)("τ-bench's original prompts", () => {
  const built = (agentStrategy: string, userStrategy = "llm") =>
    buildRun({
      env: "retail",
      agentStrategy,
      userStrategy,
      model: "m",
      modelProvider: "openai-compatible",
      baseUrl: "http://127.0.0.1:9/v1",
      userModel: "u",
      userModelProvider: "openai-compatible",
      userBaseUrl: "http://127.0.0.1:9/v1",
      dataDir: tauBenchDirectory,
      logDir: tmpdir(),
      taskIds: [0],
    });

  it("act and react agents use the original system prompt (policy, tools JSON, the original instruction)", async () => {
    const templates = extractTauBenchPrompts(tauBenchDirectory as string);
    for (const [strategy, reasoning] of [
      ["act", false],
      ["react", true],
    ] as const) {
      const run = built(strategy);
      const agent = (await run.agentFactory.create(run.context)) as ChatReActAgent;
      expect(agent.systemPrompt).toBe(tauChatReactSystemPrompt(templates, run.domain.policy, parsePythonJson(run.domain.toolSchemas.pythonJson), reasoning));
      expect(agent.systemPrompt).toContain(reasoning ? templates.reactInstruction : templates.actInstruction);
    }
  });

  it("the verify user's supervisor prompt is the original's", async () => {
    const templates = extractTauBenchPrompts(tauBenchDirectory as string);
    const run = built("act", "verify");
    const scripted = createScriptedModels({ steps: [{ content: "I want a refund." }, { content: "true" }] });
    const user = run.userFactory.create({ ...run.context, models: { ...run.context.models, user: () => scripted.client("u", "user") } });
    await (await user.start(testParticipantContext(refundTask, { role: "user" }))).next(null, new AbortController().signal);
    const supervisor = scripted.calls[1].messages[0] as { content: string };
    const history = (scripted.calls[0].messages as Array<{ role: string; content: string }>).map(({ role, content }) => ({ role, content }));
    expect(supervisor.content).toBe(
      tauSupervisorPrompt(templates, "verify", tauSupervisorTranscript(templates, history), "content='I want a refund.' role='assistant' tool_calls=None function_call=None"),
    );
  });

  it("the llm user simulator's system prompt is the original's for the task instruction", async () => {
    const templates = extractTauBenchPrompts(tauBenchDirectory as string);
    const run = built("act");
    const scripted = createScriptedModels({ steps: [{ content: "Hi, I want to return an item." }] });
    const user = run.userFactory.create({ ...run.context, models: { ...run.context.models, user: () => scripted.client("u", "user") } });
    await (await user.start(testParticipantContext(refundTask, { role: "user" }))).next(null, new AbortController().signal);
    expect(scripted.calls[0].messages[0]).toEqual({ role: "system", content: tauUserSystemPrompt(templates, "llm", "You want a refund.") });
  });
});
