/**
 * The model-driven agent strategies (tool-calling, act, react, few-shot) and the human agent.
 * Units: argument and action parsing, templates, few-shot sampling and file errors. Runs: each
 * strategy on the bundled library domain (no shared data needed) through buildRun + runBatch,
 * asserting on the requests the model saw: tool-calling and concurrency with the REAL openai
 * client talking to the scripted HTTP server, act/react/few-shot on the in-process scripted client.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { libraryDomain } from "../domains/library/index.ts";
import { parseChatAction, API_OUTPUT_PREFIX } from "../src/participants/chat-react-agent.ts";
import { loadFewShotDisplays, sampleFewShotIndices } from "../src/participants/few-shot-agent.ts";
import { streamTerminal } from "../src/participants/human-agent.ts";
import { ACT_ACTION_FORMAT, checkTemplate, formatFewShotExamples, REACT_ACTION_FORMAT, renderTemplate, templatePlaceholders } from "../src/participants/prompts.ts";
import { humanAgentFactory, registerModelStrategies } from "../src/participants/register.ts";
import { parseToolArguments } from "../src/participants/tool-calling-agent.ts";
import { ConfigError } from "../src/errors/error-tree.ts";
import type { Task } from "../src/core/types.ts";
import { loadDomain } from "../src/suites/tau-bench/engine/domain.ts";
import { buildRun, testRegistries, tauBench } from "./support/registries.ts";
import { runBatch } from "../src/suites/tau-bench/batch.ts";
import type { RunConfigInput } from "../src/suites/tau-bench/run-config.ts";
import { createScriptedModels, startScriptedModelServer, type ScriptedModels, type ScriptedModelServer, type ScriptStep } from "../src/testing/index.ts";
import { isPyFloat, pyJsonDumps, pyJsonString, type PyDict } from "../src/value/index.ts";
import { scriptedRunConfig } from "./support/scripted-run-config.ts";

const KEY_ENV = "TAUBRIDGE_AGENT_STRATEGY_TEST_KEY";
process.env[KEY_ENV] = "sk-agent-strategies-test";

const domain = loadDomain(libraryDomain, undefined);
const tasks = domain.tasks("test");

// ---------------------------------------------------------------------------------------------
// Script helpers: the ground-truth actions of a task, written the way each strategy's model would.
// ---------------------------------------------------------------------------------------------

type Style = "tool-calling" | "act" | "react";

function actionJson(name: string, kwargs: PyDict): string {
  return `{"name": ${pyJsonString(name)}, "arguments": ${pyJsonDumps(kwargs)}}`;
}

function callStep(style: Style, name: string, kwargs: PyDict): ScriptStep {
  if (style === "tool-calling") return { tool_calls: [{ name, arguments: pyJsonDumps(kwargs) }] };
  if (style === "act") return { content: `Action:\n${actionJson(name, kwargs)}` };
  return { content: `Thought:\nI need ${name} next.\nAction:\n${actionJson(name, kwargs)}` };
}

function sayStep(style: Style, text: string): ScriptStep {
  if (style === "tool-calling") return { content: text };
  const respond = actionJson("respond", new Map([["content", text]]));
  return { content: style === "act" ? `Action:\n${respond}` : `Thought:\nI can answer now.\nAction:\n${respond}` };
}

function groundTruth(task: Task, style: Style, answer: string): ScriptStep[] {
  return [...task.actions.filter((action) => action.name !== "respond").map((action) => callStep(style, action.name, action.kwargs)), sayStep(style, answer)];
}

const userStops = (first: string): ScriptStep[] => [{ content: first }, { content: "Thanks, that is all. ###STOP###" }];

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function baseConfig(target: ScriptedModelServer, overrides: Partial<RunConfigInput> = {}): RunConfigInput {
  return scriptedRunConfig(target, KEY_ENV, { taskIds: [0], ...overrides });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function run(target: ScriptedModelServer, overrides: Partial<RunConfigInput> = {}) {
  const outcome = await runBatch(buildRun(baseConfig(target, overrides)));
  const results = JSON.parse(readFileSync(outcome.resultsPath, "utf8")) as Json[];
  return { outcome, results };
}

const bodies = (target: ScriptedModelServer, model: string): Json[] => target.requestsFor(model).map((request) => request.body);

/**
 * A run whose models are the in-process scripted client (no HTTP): for tests about what an agent
 * strategy sends and does, not about the HTTP client. Same scripts and the same body shapes.
 */
async function runInProcess(scripts: Record<string, ScriptStep[]>, overrides: Partial<RunConfigInput> = {}, models: ScriptedModels = createScriptedModels({ scripts })) {
  const config: RunConfigInput = {
    env: "library",
    agentStrategy: "tool-calling",
    userStrategy: "llm",
    model: "agent-model",
    userModel: "user-model",
    taskIds: [0],
    logDir: mkdtempSync(join(tmpdir(), "taubridge-run-")),
    quiet: true,
    ...overrides,
  };
  const outcome = await runBatch(buildRun(config, { models: models.runModels({ agent: "agent-model", user: "user-model" }) }));
  const results = JSON.parse(readFileSync(outcome.resultsPath, "utf8")) as Json[];
  return { outcome, results, models };
}

const callBodies = (models: ScriptedModels, model: string): Json[] => models.callsFor(model).map((call) => call.body);

// ---------------------------------------------------------------------------------------------

describe("registration", () => {
  it("registers every agent and user strategy once; a second registration of a name is refused", () => {
    for (const name of ["tool-calling", "act", "react", "few-shot", "human"]) expect(testRegistries.agentStrategies.has(name)).toBe(true);
    for (const name of ["llm", "react", "verify", "reflection", "human"]) expect(tauBench.users.has(name)).toBe(true);
    expect(testRegistries.agentStrategies.get("tool-calling").requiresModel).toBe(true);
    expect(testRegistries.agentStrategies.get("human").requiresModel).toBe(false);
    expect(() => registerModelStrategies(testRegistries.agentStrategies)).toThrow('agent strategy "tool-calling" is already registered');
  });

  it("a model strategy without --model is a ConfigError before any episode", () => {
    expect(() => buildRun({ env: "library", agentStrategy: "react", userStrategy: "scripted", logDir: tmpdir() })).toThrow(ConfigError);
  });
});

describe("tool-call argument parsing", () => {
  it("keeps Python types (100.0 stays a float) and key order", () => {
    const parsed = parseToolArguments("pay_fine", '{"b": 1, "amount": 100.0, "a": [1, 2.50]}');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect([...parsed.kwargs.keys()]).toEqual(["b", "amount", "a"]);
    expect(isPyFloat(parsed.kwargs.get("amount"))).toBe(true);
    expect(pyJsonDumps(parsed.kwargs)).toBe('{"b": 1, "amount": 100.0, "a": [1, 2.5]}');
  });

  it("turns malformed JSON and non-objects into an error observation instead of an exception", () => {
    const broken = parseToolArguments("get_member_details", '{"member_id": "ava');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error).toMatch(/^Error: the arguments of get_member_details are not valid JSON: /);
    const list = parseToolArguments("search_catalog", "[1]");
    expect(list).toEqual({ ok: false, error: "Error: the arguments of search_catalog must be a JSON object, not list" });
  });
});

describe("act/react action parsing", () => {
  it("uses the text after the LAST Action:, stripped", () => {
    const parsed = parseChatAction('Thought:\nmaybe Action: nope\nAction:\n  {"name": "get_book_details", "arguments": {"book_id": "B1014"}}  \n');
    expect(parsed).toEqual({ ok: true, action: { name: "get_book_details", kwargs: new Map([["book_id", "B1014"]]) } });
  });

  it("text that is not JSON is said to the user as it is (the original's respond fallback)", () => {
    expect(parseChatAction("Hello, how can I help?")).toEqual({ ok: true, action: { name: "respond", kwargs: new Map([["content", "Hello, how can I help?"]]) } });
    expect(parseChatAction("Thought: x\nAction: I will just talk")).toEqual({ ok: true, action: { name: "respond", kwargs: new Map([["content", "I will just talk"]]) } });
    expect(parseChatAction(null)).toEqual({ ok: true, action: { name: "respond", kwargs: new Map([["content", ""]]) } });
  });

  it("JSON without name/arguments is an error observation (the original's AssertionError is fixed)", () => {
    expect(parseChatAction('Action: {"name": "x"}')).toEqual({ ok: false, error: 'Error: the Action must have both "name" and "arguments"' });
    expect(parseChatAction("Action: 42").ok).toBe(false);
    expect(parseChatAction('Action: {"name": "x", "arguments": "y"}').ok).toBe(false);
  });

  it("parses floats losslessly", () => {
    const parsed = parseChatAction('Action: {"name": "pay_fine", "arguments": {"amount": 8.0}}');
    expect(parsed.ok && isPyFloat(parsed.action.kwargs.get("amount"))).toBe(true);
  });
});

describe("templates", () => {
  it("substitutes {{name}} in one pass and rejects unknown names with the allowed list", () => {
    expect(templatePlaceholders("{{ policy }} and {{tools_json}} {{policy}}")).toEqual(["policy", "tools_json"]);
    expect(renderTemplate("A {{ x }} B", { x: "{{y}}" })).toBe("A {{y}} B");
    expect(() => checkTemplate("{{polcy}}", ["policy", "tools_json"], "my.txt")).toThrow(/my\.txt: unknown placeholder \{\{polcy\}\}; available here: \{\{policy\}\}, \{\{tools_json\}\}/);
  });

  it("the react/act blocks keep the original's structure, including the unquoted respond example (τ-bench: REACT_INSTRUCTION / ACT_INSTRUCTION)", () => {
    expect(REACT_ACTION_FORMAT.startsWith("\n# Instruction\n")).toBe(true);
    expect(REACT_ACTION_FORMAT).toContain("Thought:\n<");
    expect(REACT_ACTION_FORMAT).toContain('{"name": respond, "arguments": {"content": ');
    expect(ACT_ACTION_FORMAT).not.toContain("Thought:");
    expect(ACT_ACTION_FORMAT).toContain("```json\n{");
    expect(formatFewShotExamples(["a", "b"])).toBe("Example 1:\na\n\nExample 2:\nb");
  });
});

describe("few-shot displays", () => {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-fewshot-"));
  const file = (name: string, lines: string[]) => {
    const path = join(directory, name);
    writeFileSync(path, lines.join("\n") + "\n");
    return path;
  };

  it("requires the path, and reports empty or short files with the original's wording", () => {
    expect(() => loadFewShotDisplays(undefined)).toThrow(ConfigError);
    expect(() => loadFewShotDisplays(file("empty.jsonl", [""]))).toThrow(/Few shot displays are empty/);
    const four = file(
      "four.jsonl",
      [1, 2, 3, 4].map((n) => JSON.stringify({ messages_display: `d${n}` })),
    );
    expect(() => loadFewShotDisplays(four)).toThrow(/Few shot displays are less than num_few_shots requested: 4 < 5/);
    expect(() => loadFewShotDisplays(file("bad.jsonl", ['{"messages_display": "x"}', "{nope"]))).toThrow(/bad\.jsonl:2: not valid JSON/);
  });

  it("samples 5 distinct examples, reproducibly from (seed, task, trial)", () => {
    const a = sampleFewShotIndices(69, 5, 10, 3, 0);
    expect(new Set(a).size).toBe(5);
    expect(sampleFewShotIndices(69, 5, 10, 3, 0)).toEqual(a);
    const others = [sampleFewShotIndices(69, 5, 10, 3, 1), sampleFewShotIndices(69, 5, 11, 3, 0), sampleFewShotIndices(69, 5, 10, 4, 0)];
    expect(others.some((other) => JSON.stringify(other) !== JSON.stringify(a))).toBe(true);
    for (const index of a) expect(index).toBeGreaterThanOrEqual(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Runs on the library domain
// ---------------------------------------------------------------------------------------------

describe("tool-calling agent on the library domain", () => {
  it("sends the policy, the tools and the flipped conversation; scores 1.0; records τ-bench shapes", async () => {
    const task = tasks[0];
    server = await startScriptedModelServer({
      scripts: {
        "agent-model": groundTruth(task, "tool-calling", "Yes: a copy of The Night Ferry Returns is on the shelf at Eastside."),
        "user-model": userStops("Hi, I'm Hana Sato, ZIP 98103. Which Clara Ashdown books do you have?"),
      },
    });
    const { outcome, results } = await run(server);
    server.assertAllConsumed();
    server.assertNoFailures();
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });

    const requests = bodies(server, "agent-model");
    expect(requests).toHaveLength(task.actions.length + 1);
    const first = requests[0];
    expect(first.messages).toEqual([
      { role: "system", content: domain.policy },
      { role: "user", content: "Hi, I'm Hana Sato, ZIP 98103. Which Clara Ashdown books do you have?" },
    ]);
    expect(first.tools).toEqual(domain.toolSchemas.json);
    expect(first.temperature).toBe(0);
    expect(server.requestsFor("agent-model").every((request) => request.hadAuthorization)).toBe(true);

    const second = requests[1].messages;
    expect(second[2]).toMatchObject({ content: null, role: "assistant", tool_calls: [{ type: "function", function: { name: "find_member_id_by_name_zip" } }] });
    expect(second[3]).toEqual({ role: "tool", tool_call_id: second[2].tool_calls[0].id, name: "find_member_id_by_name_zip", content: "hana_sato_6620" });

    const entry = results[0];
    expect(entry.traj).toEqual([
      ...requests.at(-1).messages,
      { content: "Yes: a copy of The Night Ferry Returns is on the shelf at Eastside.", role: "assistant" },
      { role: "user", content: "Thanks, that is all. ###STOP###" },
    ]);
    expect(Object.keys(entry.traj[2])).toEqual(["content", "role", "tool_calls"]);
    expect(Object.keys(entry.traj[2].tool_calls[0])).toEqual(["function", "id", "type"]);
    expect(entry.info.source).toBe("user");
    expect(entry.info.reward_info.reward).toBe(1);
    expect(entry.taubridge.steps.map((step: Json) => step.origin)).toEqual(Array(task.actions.length + 1).fill("agent"));
    expect(entry.taubridge.usage.agent).toMatchObject({ calls: task.actions.length + 1 });
    expect(entry.taubridge.usage.agent.cost).toBeNull(); // a local endpoint without a price file: unknown, not 0, and no crash
  });

  it("uses only the first tool call of a reply, and ends with agent_stop on a terminate tool", async () => {
    const task = tasks[6]; // ends with transfer_to_human_agents
    const steps = groundTruth(task, "tool-calling", "unused").slice(0, -1);
    // The first reply carries two tool calls; only the first may run.
    steps[0] = { tool_calls: [steps[0].tool_calls![0], { name: "report_lost_copy", arguments: '{"loan_id": "L2023"}' }] };
    server = await startScriptedModelServer({ scripts: { "agent-model": steps, "user-model": [{ content: "I found a lost book and want the charge removed." }] } });
    const { outcome, results } = await run(server, { taskIds: [6] });
    server.assertAllConsumed();
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "agent_stop" });
    const second = bodies(server, "agent-model")[1].messages;
    expect(second[2].tool_calls).toHaveLength(1);
    expect(second).toHaveLength(4);
    expect(results[0].taubridge.steps.map((step: Json) => step.action.name)).toEqual(task.actions.map((action) => action.name));
    expect(results[0].info.source).toBe("transfer_to_human_agents");
  });

  it("a custom --agent-prompt-file replaces the system prompt; an unknown placeholder fails before any call", async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-prompt-"));
    const good = join(directory, "good.txt");
    writeFileSync(good, "You staff a library desk.\nTOOLS: {{ tool_names }}\n---\n{{policy}}");
    const bad = join(directory, "bad.txt");
    writeFileSync(bad, "{{policy}} {{instructions}}");
    server = await startScriptedModelServer({
      scripts: { "agent-model": groundTruth(tasks[0], "tool-calling", "It is at Eastside."), "user-model": userStops("Hello") },
    });
    await run(server, { agentPromptFile: good });
    const system = bodies(server, "agent-model")[0].messages[0].content;
    expect(system).toBe(`You staff a library desk.\nTOOLS: ${libraryDomain.tools.map((tool) => tool.name).join(", ")}\n---\n${domain.policy}`);
    const before = server.requests.length;
    await expect(run(server, { agentPromptFile: bad })).rejects.toThrow(/unknown placeholder \{\{instructions\}\}/);
    expect(server.requests.length).toBe(before);
  });
});

describe("concurrency", () => {
  it("keeps episodes independent: every library task scores 1.0 through the model path at concurrency 4", async () => {
    server = await startScriptedModelServer({
      responder: (request) => {
        const delayMs = (request.index % 3) * 5;
        if (request.model === "user-model") {
          if (request.messages.at(-1)?.content !== "Hi! How can I help you today?") return { content: "###STOP###", delayMs };
          const system = String(request.messages[0].content);
          return { content: `TASK#${tasks.findIndex((task) => system.includes(task.instruction))}: hello`, delayMs };
        }
        const index = Number(/TASK#(\d+)/.exec(String(request.messages[1].content))![1]);
        const task = tasks[index];
        const taken = request.messages.filter((message) => message.role === "assistant").length;
        if (taken < task.actions.length) return { ...callStep("tool-calling", task.actions[taken].name, task.actions[taken].kwargs), delayMs };
        return { content: `Answer: ${task.outputs.join(", ")}`, delayMs };
      },
    });
    const { outcome } = await run(server, { taskIds: undefined, maxConcurrency: 4 });
    server.assertNoFailures();
    expect(outcome.summaries).toHaveLength(tasks.length);
    expect(outcome.summaries.filter((summary) => summary.reward !== 1)).toEqual([]);
    const stops = outcome.summaries.map((summary) => summary.termination);
    expect(stops.filter((reason) => reason === "agent_stop")).toHaveLength(tasks.filter((task) => task.actions.some((action) => action.name === "transfer_to_human_agents")).length);
  });
});

describe.each(["act", "react"] as const)("%s agent on the library domain", (style) => {
  it("sends no tools, describes them in the prompt, prefixes tool outputs with 'API output: ', scores 1.0", async () => {
    const task = tasks[0];
    const { outcome, results, models } = await runInProcess(
      { "agent-model": groundTruth(task, style, "You can pick it up at Eastside today."), "user-model": userStops("Hi, Hana Sato here, 98103.") },
      { agentStrategy: style },
    );
    models.assertDone();
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
    const requests = callBodies(models, "agent-model");
    for (const body of requests) expect(body.tools).toBeUndefined();
    const system: string = requests[0].messages[0].content;
    expect(system).toBe(`${domain.policy}\n#Available tools\n${domain.toolSchemas.pythonJson}${style === "react" ? REACT_ACTION_FORMAT : ACT_ACTION_FORMAT}`);
    const second = requests[1].messages;
    expect(second[2]).toEqual({ content: expect.stringContaining("find_member_id_by_name_zip"), role: "assistant" });
    expect(second[3]).toEqual({ role: "user", content: `${API_OUTPUT_PREFIX}hana_sato_6620` });
    const entry = results[0];
    expect(entry.traj.at(-1)).toEqual({ role: "user", content: "Thanks, that is all. ###STOP###" });
    expect(entry.traj.filter((message: Json) => message.role === "tool")).toEqual([]);
    // act/react start from an empty info (not the reset info), then merge each step's
    expect(Object.keys(entry.info)).toEqual(["task", "source", "user_cost", "reward_info"]);
  });

  it("a malformed Action is fed back as an error observation and the episode goes on", async () => {
    const task = tasks[0];
    const steps = groundTruth(task, style, "Eastside has a copy on the shelf.");
    steps.splice(1, 0, { content: 'Action:\n{"name": "search_catalog"}' });
    const { outcome, results, models } = await runInProcess({ "agent-model": steps, "user-model": userStops("Hi") }, { agentStrategy: style });
    expect(outcome.summaries[0].reward).toBe(1);
    const feedback = callBodies(models, "agent-model")[2].messages.at(-1);
    expect(feedback).toEqual({ role: "user", content: 'API output: Error: the Action must have both "name" and "arguments"' });
    expect(results[0].taubridge.extra.invalidActions).toHaveLength(1);
  });
});

describe("few-shot agent on the library domain", () => {
  it("adds 5 sampled examples after the policy, reproducibly, and records which", async () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-fewshot-run-"));
    const displays = Array.from({ length: 9 }, (_, index) => `user: example conversation ${index}\nassistant: None\ntool: ok\nuser: ###STOP###`);
    const path = join(directory, "displays.jsonl");
    writeFileSync(path, displays.map((display) => JSON.stringify({ messages_display: display })).join("\n") + "\n");
    const task = tasks[0];
    const { outcome, results, models } = await runInProcess(
      { "agent-model": groundTruth(task, "tool-calling", "Eastside."), "user-model": userStops("Hi, Hana here.") },
      { agentStrategy: "few-shot", fewShotDisplaysPath: path, seed: 7 },
    );
    models.assertDone();
    expect(outcome.summaries[0].reward).toBe(1);
    const indices = sampleFewShotIndices(9, 5, 7, 0, 0);
    const first = callBodies(models, "agent-model")[0];
    expect(first.messages[0].content).toBe(`${domain.policy}\n\n${formatFewShotExamples(indices.map((index) => displays[index]))}`);
    expect(first.tools).toEqual(domain.toolSchemas.json);
    expect(results[0].taubridge.extra.fewShotExamples).toEqual(indices);
  });

  it("without --few-shot-displays-path the run fails with a ConfigError and no model call", async () => {
    const models = createScriptedModels({ scripts: {} });
    await expect(runInProcess({}, { agentStrategy: "few-shot" }, models)).rejects.toThrow(/needs --few-shot-displays-path/);
    expect(models.calls).toHaveLength(0);
  });
});

describe("human agent", () => {
  it("reads replies and /tool calls from an injected stream and scores like any agent", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk) => (printed += String(chunk)));
    if (!testRegistries.agentStrategies.has("human-test-agent")) testRegistries.agentStrategies.register("human-test-agent", humanAgentFactory(streamTerminal(input, output)));
    input.end(
      [
        "/help",
        '/tool find_member_id_by_name_zip {"first_name": "Hana", "last_name": "Sato", "zip": "98103"}',
        "/tool search_catalog {oops",
        '/tool search_catalog {"query": "Clara Ashdown"}',
        '/tool get_book_details {"book_id": "B1014"}',
        "",
        "A copy is on the shelf at Eastside.",
      ].join("\n") + "\n",
    );
    const built = buildRun({ env: "library", agentStrategy: "human-test-agent", userStrategy: "scripted", taskIds: [0], logDir: mkdtempSync(join(tmpdir(), "taubridge-human-")), quiet: true });
    const outcome = await runBatch(built);
    expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop", usage: { agent: null } });
    expect(printed).toContain("/tool <name> {json arguments}");
    expect(printed).toContain("tool: hana_sato_6620");
    expect(printed).toContain("Error: the arguments of search_catalog are not valid JSON");
    expect(printed).toContain("user: ###STOP###");
    const results = JSON.parse(readFileSync(outcome.resultsPath, "utf8")) as Json[];
    expect(results[0].traj[2]).toMatchObject({ content: null, role: "assistant", tool_calls: [{ id: "call_human_1", function: { name: "find_member_id_by_name_zip" } }] });
    expect(results[0].taubridge.steps).toHaveLength(4);
  });
});
