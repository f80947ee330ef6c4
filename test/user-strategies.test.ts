/**
 * The user simulators (llm, react, verify, reflection, human): flipped roles, the fixed seed
 * message, ###STOP###, react parsing (with the documented thought leak), verify/reflection attempt
 * counts and quirks, τ-bench's `user_cost` (last call) next to the correct summed usage.
 * The simulators' own tests use the in-process scripted client; the runs through the runner use the
 * REAL openai client and the scripted HTTP server. No shared data needed.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { streamTerminal } from "../src/participants/human-agent.ts";
import { buildRun, tauBench } from "./support/registries.ts";
import { runBatch } from "../src/suites/tau-bench/batch.ts";
import type { RunConfigInput } from "../src/suites/tau-bench/run-config.ts";
import { createScriptedModelClient, startScriptedModelServer, type ScriptedModelClient, type ScriptedModelServer, type ScriptStep } from "../src/testing/index.ts";
import { HumanUser } from "../src/suites/tau-bench/participants/human-user.ts";
import { LlmUser, UserSimulatorError } from "../src/suites/tau-bench/participants/llm-user.ts";
import { LLM_USER_TEMPLATE, REACT_USER_TEMPLATE, renderUserPrompt, transcriptLabel, transcriptOf, USER_SEED_MESSAGE } from "../src/suites/tau-bench/participants/user-prompts.ts";
import { parseReactUserReply, ReactUser } from "../src/suites/tau-bench/participants/react-user.ts";
import { ReflectionUser } from "../src/suites/tau-bench/participants/reflection-user.ts";
import { humanUserFactory } from "../src/suites/tau-bench/participants/register-users.ts";
import { pythonMessageStr, VerifyUser } from "../src/suites/tau-bench/participants/verify-user.ts";
import { scriptedRunConfig } from "./support/scripted-run-config.ts";

const KEY_ENV = "TAUBRIDGE_USER_STRATEGY_TEST_KEY";
process.env[KEY_ENV] = "sk-user-strategies-test";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const INSTRUCTION = "You are Hana Sato. You want to know which Clara Ashdown books the library has.";
/** $1 / $2 per million tokens: an exact, easy-to-check cost. */
const PRICES = { "user-model": { input: 1, output: 2 } };
const usage = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion });
const costOf = (prompt: number, completion: number) => (prompt * 1 + completion * 2) / 1_000_000;

/** The user simulators' unit tests run on the in-process scripted client (no HTTP): same scripts, recorded calls. */
function scriptedUser(options: { scripts: Record<string, ScriptStep[]> }): ScriptedModelClient {
  return createScriptedModelClient({ ...options, model: "user-model", role: "user", prices: PRICES });
}

const bodies = (target: ScriptedModelClient): Json[] => target.callsFor("user-model").map((call) => call.body);

describe("prompt pieces", () => {
  it("renders the original's layout: role line, blank line, Instruction:, rules", () => {
    const prompt = renderUserPrompt(LLM_USER_TEMPLATE, INSTRUCTION);
    expect(prompt).toMatch(/^[^\n]+\n\nInstruction: You are Hana Sato\. [^\n]+\n\nRules:\n(- [^\n]+\n){5}- [^\n]+$/);
    expect(prompt).toContain("'###STOP###'");
    expect(renderUserPrompt(LLM_USER_TEMPLATE, null)).toMatch(/^[^\n]+\nRules:\n/);
    const react = renderUserPrompt(REACT_USER_TEMPLATE, INSTRUCTION);
    expect(react.match(/^- /gm)).toHaveLength(7);
    expect(react).toMatch(/\n\nFormat:\n\nThought:\n<[^\n]+>\n\nUser Response:\n<[^\n]+>$/);
  });

  it("labels transcript roles inversely, as the original (τ-bench: map_role_label)", () => {
    expect([transcriptLabel("user"), transcriptLabel("assistant"), transcriptLabel("system")]).toEqual(["Customer", "Agent", "System"]);
    expect(transcriptOf([{ role: "assistant", content: null }])).toBe("Agent: None");
    expect(pythonMessageStr({ role: "assistant", content: "it's fine" })).toBe(`content="it's fine" role='assistant' tool_calls=None function_call=None`);
  });

  it("parses react replies like the original, leaking the thought (τ-bench: ReactUserSimulationEnv.parse_response)", () => {
    expect(parseReactUserReply("Thought:\nI am done.\nUser Response:\n###STOP###")).toBe("###STOP###");
    expect(parseReactUserReply("Thought:\nAsk about books.\n\nUser Response:\nWhich books do you have?")).toBe("Ask about books.\n\nUser Response:\nWhich books do you have?");
    expect(parseReactUserReply("User Response:\n  Hello there ")).toBe("Hello there");
    expect(() => parseReactUserReply("just text")).toThrow(/^Invalid response format: just text$/);
    expect(() => parseReactUserReply("Thought: a Thought: b")).toThrow(UserSimulatorError);
  });
});

describe("llm user", () => {
  it("flips roles, seeds with the fixed greeting, uses the default temperature; user_cost is the LAST call's, usage() the sum", async () => {
    const client = scriptedUser({
      scripts: {
        "user-model": [
          { content: "Hi, which Clara Ashdown books do you have?", usage: usage(1000, 100) },
          { content: "###STOP###", usage: usage(2000, 10) },
        ],
      },
    });
    const user = new LlmUser({ client, episode: { taskIndex: 0, trial: 3 } });
    expect(await user.reset(INSTRUCTION)).toBe("Hi, which Clara Ashdown books do you have?");
    expect(await user.step("We have two of her books.")).toBe("###STOP###");
    const [first, second] = bodies(client);
    expect(first.messages).toEqual([
      { role: "system", content: renderUserPrompt(LLM_USER_TEMPLATE, INSTRUCTION) },
      { role: "user", content: USER_SEED_MESSAGE },
    ]);
    expect(first.tools).toBeUndefined();
    expect(first.temperature).toBeUndefined();
    expect(second.messages.slice(2)).toEqual([
      { content: "Hi, which Clara Ashdown books do you have?", role: "assistant" },
      { role: "user", content: "We have two of her books." },
    ]);
    expect(user.reportedCost()).toBeCloseTo(costOf(2000, 10), 12);
    const summed = user.usage()!;
    expect(summed).toEqual({ calls: 2, promptTokens: 3000, completionTokens: 110, cost: expect.any(Number) });
    expect(summed.cost).toBeCloseTo(costOf(1000, 100) + costOf(2000, 10), 12);
    client.assertDone();
  });

  it("makes no model call before reset (the original's construction-time call in LLMUserSimulationEnv.__init__ is not reproduced)", async () => {
    const client = scriptedUser({ scripts: { "user-model": [] } });
    new LlmUser({ client, episode: { taskIndex: 0, trial: 0 } });
    expect(client.calls).toHaveLength(0);
    client.assertDone();
  });
});

describe("react user", () => {
  it("keeps the raw reply in its history and returns the parsed part", async () => {
    const client = scriptedUser({
      scripts: {
        "user-model": [{ content: "Thought:\nStart vague.\nUser Response:\nI'm looking for some mysteries." }, { content: "Thought:\nGoal met.\nUser Response:\n###STOP###" }],
      },
    });
    const user = new ReactUser({ client, episode: { taskIndex: 0, trial: 0 } });
    expect(await user.reset(INSTRUCTION)).toBe("Start vague.\nUser Response:\nI'm looking for some mysteries.");
    expect(await user.step("Here you go.")).toBe("###STOP###");
    const [first, second] = bodies(client);
    expect(first.messages[0].content).toBe(renderUserPrompt(REACT_USER_TEMPLATE, INSTRUCTION));
    expect(second.messages[2]).toEqual({ content: "Thought:\nStart vague.\nUser Response:\nI'm looking for some mysteries.", role: "assistant" });
    client.assertDone();
  });
});

describe("verify user", () => {
  it("retries until the supervisor says true; rejected replies never enter the history", async () => {
    const client = scriptedUser({
      scripts: {
        "user-model": [
          { content: "first try", usage: usage(100, 10) },
          { match: { lastMessageContains: "Classification:" }, content: "false", usage: usage(500, 1) },
          { content: "second try", usage: usage(200, 20) },
          { match: { lastMessageContains: "Classification:" }, content: "TRUE", usage: usage(600, 1) },
        ],
      },
    });
    const user = new VerifyUser({ client, episode: { taskIndex: 0, trial: 0 } });
    expect(await user.reset(INSTRUCTION)).toBe("second try");
    const requests = bodies(client);
    expect(requests).toHaveLength(4);
    // The second generation sees the same context as the first: "first try" was dropped.
    expect(requests[2].messages).toEqual(requests[0].messages);
    const verify = requests[1].messages;
    expect(verify).toHaveLength(1);
    expect(verify[0].role).toBe("user");
    const system = renderUserPrompt(LLM_USER_TEMPLATE, INSTRUCTION);
    expect(verify[0].content).toContain(
      `# Transcript:\nSystem: ${system}\nCustomer: ${USER_SEED_MESSAGE}\n\n# Response:\ncontent='first try' role='assistant' tool_calls=None function_call=None\n\n-----\n\nClassification:`,
    );
    expect(user.messages.at(-1)).toEqual({ content: "second try", role: "assistant" });
    // user_cost = the last *generation* call; verification calls are not counted there (τ-bench: VerifyUserSimulationEnv.generate_next_message) …
    expect(user.reportedCost()).toBeCloseTo(costOf(200, 20), 12);
    // … but they are in usage().
    expect(user.usage()).toMatchObject({ calls: 4, promptTokens: 1400, completionTokens: 32 });
    client.assertDone();
  });

  it("after 3 rejections returns the last reply WITHOUT appending it to the history", async () => {
    const rejected = (text: string): ScriptStep[] => [{ content: text }, { match: { lastMessageContains: "Classification:" }, content: "false" }];
    const client = scriptedUser({ scripts: { "user-model": [...rejected("a"), ...rejected("b"), ...rejected("c"), { content: "next" }, { content: "true" }] } });
    const user = new VerifyUser({ client, episode: { taskIndex: 0, trial: 0 } });
    expect(await user.reset(INSTRUCTION)).toBe("c");
    expect(user.messages).toHaveLength(2);
    await user.step("What is your name?");
    expect(bodies(client)[6].messages.map((message: Json) => message.role)).toEqual(["system", "user", "user"]);
  });
});

describe("reflection user", () => {
  it("reflects on a rejected reply, regenerates on a copy with the proposal as a user turn, keeps both replies in the history", async () => {
    const client = scriptedUser({
      scripts: {
        "user-model": [
          { content: "initial reply", usage: usage(100, 10) },
          { match: { lastMessageContains: "Classification:" }, content: "false" },
          { match: { lastMessageContains: "Response:\n<" }, content: "Reflection: too vague.\nResponse: Ask for Clara Ashdown's books." },
          { content: "better reply", usage: usage(300, 30) },
          { match: { lastMessageContains: "Classification:" }, content: "true" },
        ],
      },
    });
    const user = new ReflectionUser({ client, episode: { taskIndex: 0, trial: 0 } });
    expect(await user.reset(INSTRUCTION)).toBe("better reply");
    const requests = bodies(client);
    expect(requests).toHaveLength(5);
    // verify sees the reply text (not a message repr) and the context without the reply
    expect(requests[1].messages[0].content).toContain(`Customer: ${USER_SEED_MESSAGE}\n\n# Response:\ninitial reply\n\n-----`);
    expect(requests[2].messages[0].content).toContain("# Format:\n\nReflection:\n<");
    expect(requests[3].messages).toEqual([...requests[0].messages, { role: "user", content: "Ask for Clara Ashdown's books." }]);
    expect(requests[4].messages[0].content).toContain(`Customer: Ask for Clara Ashdown's books.\n\n# Response:\nbetter reply`);
    expect(user.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "assistant"]);
    expect(user.reportedCost()).toBeCloseTo(costOf(300, 30), 12);
    expect(user.usage()!.calls).toBe(5);
    client.assertDone();
  });

  it("returns the initial reply when the second one is rejected too; a reflection without exactly one 'Response:' is a user error", async () => {
    const client = scriptedUser({
      scripts: {
        "user-model": [
          { content: "one" },
          { content: "no" },
          { content: "Reflection: x\nResponse: y" },
          { content: "two" },
          { content: "no" },
          { content: "three" },
          { content: "nope" },
          { content: "Response: a Response: b" },
        ],
      },
    });
    const user = new ReflectionUser({ client, episode: { taskIndex: 0, trial: 0 } });
    expect(await user.reset(INSTRUCTION)).toBe("one");
    await expect(user.step("hello")).rejects.toThrow(UserSimulatorError);
  });
});

describe("human user", () => {
  it("prints the instruction and the agent's messages, and reads replies from an injected stream", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk) => (printed += String(chunk)));
    input.end("Which Clara Ashdown books do you have?\n###STOP###\n");
    const user = new HumanUser(streamTerminal(input, output));
    expect(await user.reset(INSTRUCTION)).toBe("Which Clara Ashdown books do you have?");
    expect(await user.step("We have two.")).toBe("###STOP###");
    expect(printed).toContain(INSTRUCTION);
    expect(printed).toContain("agent: We have two.");
    expect(user.reportedCost()).toBe(0);
    expect(user.usage()).toBeNull();
    await expect(user.step("Anything else?")).rejects.toThrow(/input ended/);
  });
});

// ---------------------------------------------------------------------------------------------
// Through the runner (buildRun + runBatch) on the library domain, agent and user on one server
// ---------------------------------------------------------------------------------------------

function runConfig(target: ScriptedModelServer, overrides: Partial<RunConfigInput>): RunConfigInput {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-users-"));
  const priceFile = join(directory, "prices.json");
  writeFileSync(priceFile, JSON.stringify({ "agent-model": { input: 3, output: 4 }, ...PRICES }));
  return scriptedRunConfig(target, KEY_ENV, { taskIds: [0], priceFile, logDir: join(directory, "results"), ...overrides });
}

const AGENT_ANSWERS: ScriptStep[] = [
  { tool_calls: [{ name: "find_member_id_by_name_zip", arguments: { first_name: "Hana", last_name: "Sato", zip: "98103" } }] },
  { tool_calls: [{ name: "search_catalog", arguments: { query: "Clara Ashdown" } }] },
  { tool_calls: [{ name: "get_book_details", arguments: { book_id: "B1014" } }] },
  { content: "A copy is on the shelf at Eastside." },
];

async function runUsers(target: ScriptedModelServer, overrides: Partial<RunConfigInput>) {
  const outcome = await runBatch(buildRun(runConfig(target, overrides)));
  return { outcome, results: JSON.parse(readFileSync(outcome.resultsPath, "utf8")) as Json[] };
}

describe("user strategies through the runner", () => {
  it("react: the agent receives the leaked thought; the episode still scores", async () => {
    server = await startScriptedModelServer({
      scripts: {
        "agent-model": AGENT_ANSWERS,
        "user-model": [{ content: "Thought:\nBe brief.\nUser Response:\nHana Sato, 98103: Clara Ashdown books?" }, { content: "Thought: done\nUser Response: ###STOP###" }],
      },
    });
    const { outcome, results } = await runUsers(server, { userStrategy: "react" });
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
    expect(server.requestsFor("agent-model")[0].body).toMatchObject({ messages: [{ role: "system" }, { role: "user", content: "Be brief.\nUser Response:\nHana Sato, 98103: Clara Ashdown books?" }] });
    expect(results[0].traj.at(-1)).toEqual({ role: "user", content: "###STOP###" });
  });

  it("react: a reply in no known format ends the episode as user_error", async () => {
    server = await startScriptedModelServer({ scripts: { "agent-model": [], "user-model": [{ content: "hello there" }] } });
    const { outcome, results } = await runUsers(server, { userStrategy: "react" });
    expect(outcome.summaries[0]).toMatchObject({ reward: 0, termination: "user_error" });
    expect(results[0].info.error).toBe("Invalid response format: hello there");
  });

  it("verify and reflection run end to end; user_cost is the last generation's cost, usage.user the sum of every call", async () => {
    server = await startScriptedModelServer({
      scripts: {
        "agent-model": [...AGENT_ANSWERS, ...AGENT_ANSWERS],
        "user-model": [
          // verify episode
          { content: "Hana Sato, 98103. Clara Ashdown books?", usage: usage(100, 10) },
          { match: { lastMessageContains: "Classification:" }, content: "true", usage: usage(50, 1) },
          { content: "###STOP###", usage: usage(300, 3) },
          { match: { lastMessageContains: "Classification:" }, content: "true", usage: usage(70, 1) },
          // reflection episode
          { content: "Hana Sato, 98103. Clara Ashdown books?", usage: usage(100, 10) },
          { match: { lastMessageContains: "Classification:" }, content: "true", usage: usage(50, 1) },
          { content: "###STOP###", usage: usage(300, 3) },
          { match: { lastMessageContains: "Classification:" }, content: "true", usage: usage(70, 1) },
        ],
      },
    });
    for (const strategy of ["verify", "reflection"]) {
      const { outcome, results } = await runUsers(server, { userStrategy: strategy });
      expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
      expect(results[0].info.user_cost).toBeCloseTo(costOf(300, 3), 12);
      const user = results[0].taubridge.usage.user;
      expect(user).toMatchObject({ calls: 4, promptTokens: 520, completionTokens: 15 });
      expect(user.cost).toBeCloseTo(costOf(520, 15), 12);
    }
    server.assertAllConsumed();
  });

  it("a --user-prompt-file template is used for the system prompt; unknown placeholders are a ConfigError", async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-user-prompt-"));
    const file = join(directory, "user.txt");
    writeFileSync(file, "Play this customer: {{ instruction }}. Say {{stop_token}} when done.");
    server = await startScriptedModelServer({ scripts: { "agent-model": AGENT_ANSWERS, "user-model": [{ content: "Hi" }, { content: "###STOP###" }] } });
    const { outcome } = await runUsers(server, { userPromptFile: file });
    expect(outcome.summaries[0].reward).toBe(1);
    const instruction = JSON.parse(readFileSync(join(process.cwd(), "domains/library/data/tasks_test.json"), "utf8"))[0].instruction;
    expect(server.requestsFor("user-model")[0].body).toMatchObject({
      messages: [
        { role: "system", content: `Play this customer: ${instruction}. Say ###STOP### when done.` },
        { role: "user", content: USER_SEED_MESSAGE },
      ],
    });
    writeFileSync(file, "{{instructions}}");
    // The build step creates one user up front, so a bad template fails the run before any episode.
    expect(() => buildRun(runConfig(server!, { userPromptFile: file }))).toThrow(/unknown placeholder \{\{instructions\}\}/);
  });

  it("human user registered over an injected stream", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    output.resume();
    if (!tauBench.users.has("human-test-user")) tauBench.users.register("human-test-user", humanUserFactory(streamTerminal(input, output)));
    input.end("I'm Hana Sato, 98103. Clara Ashdown books?\nGreat, bye. ###STOP###\n");
    server = await startScriptedModelServer({ scripts: { "agent-model": AGENT_ANSWERS } });
    const { outcome, results } = await runUsers(server, { userStrategy: "human-test-user" });
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop", usage: { user: null } });
    expect(results[0].info.user_cost).toBe(0);
  });
});
