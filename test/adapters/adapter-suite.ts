/**
 * The behaviour every framework adapter must show, as one parameterised vitest suite that each
 * `test/adapters/<name>.test.ts` instantiates. Everything is real: the framework package, its
 * HTTP model client talking to the scripted OpenAI-compatible server on 127.0.0.1, the domain data
 * and reward, the runner and the scripted user. Only the model's answers are scripted (the task's
 * ground-truth calls, then a final answer). Two parts: a few cases on the bundled `library` domain
 * through `buildRun` + `runBatch` (always run), and the full suite on τ-bench retail (needs the
 * official data, skipped without it).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Participant } from "../../src/core/contracts.ts";
type Agent = Participant;
import type { Task } from "../../src/core/types.ts";
import type { LoadedDomain } from "../../src/suites/tau-bench/engine/domain.ts";
import { buildRun } from "../support/registries.ts";
import { runBatch, type BatchOutcome } from "../../src/suites/tau-bench/batch.ts";
import { runEpisode, type EpisodeResult } from "../../src/suites/tau-bench/loop.ts";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedRequest } from "../../src/testing/index.ts";
import { scriptedUser } from "../../src/suites/tau-bench/participants/scripted-user.ts";
import { tauBenchDirectory, warnIfMissingShared } from "../support/shared-data.ts";
import { groundTruthScript, planResponder, startCountingBackend, textOf, type CountingBackend, type TaskScript } from "./test-support.ts";

export interface AdapterSuiteOptions {
  /** Strategy name (`openai-agents`, …). */
  strategy: string;
  /** The unmodified example agent module. */
  exampleModule: URL;
  /** The unmodified example agent for the bundled library domain (runs without the official data). */
  libraryModule: URL;
  /** A fixture module with a renamed benchmark tool (`lookup_order`) and a non-benchmark tool (`store_hours`). */
  aliasModule: URL;
  /** What the framework's own validation error for a wrong argument type contains. */
  invalidArgumentText: RegExp;
  /**
   * An HTTP status the framework gives up on quickly (after its own retries) and that taubridge
   * counts as infrastructure (default 500; LangChain retries 5xx six times with back-off, 409 once).
   */
  infraStatus?: number;
  /** Framework-specific tests, run inside the suite with its helpers. */
  extra?: (helpers: SuiteHelpers) => void;
}

/** The suite's helpers, for framework-specific tests. */
export interface SuiteHelpers {
  serverFor(scripts: TaskScript[], onRequest?: (request: ScriptedRequest) => void): Promise<ScriptedModelServer>;
  agentFor(server: ScriptedModelServer, agentOptions?: Record<string, string>, module?: URL): Promise<Agent>;
  episode(agent: Agent, taskIndex: number, maxSteps?: number): Promise<EpisodeResult>;
  loadTasks(): Task[];
  backendHits(): readonly string[];
  toolSteps(result: EpisodeResult): EpisodeResult["steps"];
  toolMessages(request: ScriptedRequest): Array<{ content: string; tool_call_id?: string }>;
}

/** Ground-truth retail tasks used below: outputs (2), a plain exchange flow (5), a transfer (10), two returns (11). */
const TASKS = [2, 5, 10, 11];

function toolMessages(request: ScriptedRequest): Array<{ content: string; tool_call_id?: string }> {
  return request.messages.filter((message) => message.role === "tool").map((message) => ({ content: String(message.content ?? ""), tool_call_id: message.tool_call_id as string | undefined }));
}

export function defineAdapterSuite(options: AdapterSuiteOptions): void {
  defineLibraryCases(options);
  warnIfMissingShared();
  describe.skipIf(!tauBenchDirectory)(`${options.strategy} adapter on τ-bench retail (real framework, scripted model over HTTP)`, () => {
    let backend: CountingBackend;
    let domain: LoadedDomain;
    let tasks: Task[];
    const servers: ScriptedModelServer[] = [];

    beforeAll(async () => {
      backend = await startCountingBackend();
      process.env.RETAIL_BACKEND_URL = backend.url;
    });

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.close()));
      await backend?.close();
    });

    async function serverFor(scripts: TaskScript[], onRequest?: (request: ScriptedRequest) => void): Promise<ScriptedModelServer> {
      const server = await startScriptedModelServer({ responder: planResponder(scripts, { onRequest: (request) => onRequest?.(request) }) });
      servers.push(server);
      return server;
    }

    async function agentFor(server: ScriptedModelServer, agentOptions: Record<string, string> = {}, module = options.exampleModule): Promise<Agent> {
      const built = buildRun({
        env: "retail",
        agentStrategy: options.strategy,
        userStrategy: "scripted",
        dataDir: tauBenchDirectory,
        baseUrl: server.baseURL,
        model: "scripted-model",
        agentOptions: { module: fileURLToPath(module), ...agentOptions },
      });
      domain = built.domain;
      tasks = built.tasks;
      return built.agentFactory.create(built.context);
    }

    function loadTasks(): Task[] {
      if (!tasks) tasks = buildRun({ env: "retail", agentStrategy: "oracle", userStrategy: "scripted", dataDir: tauBenchDirectory }).tasks;
      return tasks;
    }

    function episode(agent: Agent, taskIndex: number, maxSteps = 30): Promise<EpisodeResult> {
      return runEpisode({ domain, task: loadTasks()[taskIndex], taskIndex, trial: 0, agent, user: scriptedUser, maxSteps });
    }

    const toolSteps = (result: EpisodeResult) => result.steps.filter((step) => step.action.name !== "respond");

    it(`scores 1.0 on retail tasks ${TASKS.join(", ")} with the ground-truth calls; every call is stepped by the bridge and no tool's own code runs`, async () => {
      const scripts = TASKS.map((index) => groundTruthScript(loadTasks()[index], `gt${index}`));
      const server = await serverFor(scripts);
      const agent = await agentFor(server);
      const hitsBefore = backend.hits.length;
      for (const [position, index] of TASKS.entries()) {
        const result = await episode(agent, index);
        expect(result.error, result.info.traceback as string | undefined).toBeUndefined();
        expect(result.reward).toBe(1);
        const steps = toolSteps(result);
        expect(steps.map((step) => step.action.name)).toEqual(scripts[position].calls.map((call) => call.name));
        expect(steps.every((step) => step.origin === "bridge")).toBe(true);
        expect(steps.map((step) => step.toolCallId)).toEqual(scripts[position].calls.map((_, call) => `gt${index}_${call}`));
        // The trajectory has the τ-bench shape: system, user, assistant tool_calls / tool results.
        expect(result.traj[0].role).toBe("system");
        expect(result.traj[1]).toEqual({ role: "user", content: loadTasks()[index].instruction });
        const toolResults = result.traj.filter((message) => message.role === "tool");
        expect(toolResults).toHaveLength(steps.length);
        expect(toolResults.map((message) => message.content)).toEqual(steps.map((step) => step.observation));
        if (index === 10) {
          expect(result.termination).toBe("agent_stop"); // transfer_to_human_agents ended it inside the framework's run
        } else {
          expect(result.termination).toBe("user_stop");
          expect(result.traj.at(-2)).toEqual({ role: "assistant", content: scripts[position].finalText });
        }
        expect(result.extra?.framework).toBe(options.strategy);
      }
      expect(backend.hits.slice(hitsBefore)).toEqual([]);
      server.assertNoFailures();
      // After the transfer the framework made no further model call (τ-bench stops at done).
      const opening = (request: { body: unknown }) => textOf(((request.body as { messages?: Array<Record<string, unknown>> }).messages ?? []).find((message) => message.role === "user"));
      const transferRequests = server.requests.filter((request) => opening(request) === loadTasks()[10].instruction);
      expect(transferRequests).toHaveLength(scripts[TASKS.indexOf(10)].calls.length);
    });

    it("scores 0 when the model makes a wrong call (the wrong call is stepped as planned)", async () => {
      const task = loadTasks()[5];
      const wrong = groundTruthScript(task, "wrong", (action) =>
        action.name === "return_delivered_order_items" ? { name: action.name, kwargs: new Map([...action.kwargs, ["payment_method_id", "credit_card_0000000"]]) } : action,
      );
      const agent = await agentFor(await serverFor([wrong]));
      const result = await episode(agent, 5);
      expect(result.reward).toBe(0);
      const last = toolSteps(result).at(-1)!;
      expect(last.action.kwargs.get("payment_method_id")).toBe("credit_card_0000000");
      expect(last.observation).toMatch(/^Error: /);
    });

    it("decision-only: the harness steps the planned actions (origin harness), same reward", async () => {
      const script = groundTruthScript(loadTasks()[11], "dec");
      const agent = await agentFor(await serverFor([script]), { bridgeMode: "decision-only" });
      const result = await episode(agent, 11);
      expect(result.reward).toBe(1);
      const steps = toolSteps(result);
      expect(steps).toHaveLength(script.calls.length);
      expect(steps.every((step) => step.origin === "harness")).toBe(true);
      expect((result.extra?.decisions as unknown[]).length).toBe(script.calls.length);
      expect(result.extra?.bridgeMode).toBe("decision-only");
    });

    it("dry-run: nothing is stepped, the planned actions are recorded and the tool results say so", async () => {
      const script = groundTruthScript(loadTasks()[5], "dry");
      let lastToolTexts: string[] = [];
      const agent = await agentFor(
        await serverFor([script], (request) => {
          lastToolTexts = toolMessages(request).map((message) => message.content);
        }),
        { dryRun: "true" },
      );
      const result = await episode(agent, 5);
      expect(toolSteps(result)).toEqual([]);
      expect(result.plannedOnly.map((step) => step.action.name)).toEqual(script.calls.map((call) => call.name));
      expect(result.plannedOnly.every((step) => step.origin === "dry-run")).toBe(true);
      expect(lastToolTexts).toHaveLength(script.calls.length);
      expect(lastToolTexts.every((text) => text.includes("[dry run]"))).toBe(true);
      expect(result.reward).toBe(0); // the database never changed
      expect(backend.hits).toEqual([]);
    });

    it("two concurrent episodes with different scripts on one agent never cross-talk", async () => {
      const a = groundTruthScript(loadTasks()[5], "conA");
      const b = groundTruthScript(loadTasks()[11], "conB");
      const agent = await agentFor(await serverFor([a, b]));
      const [resultA, resultB] = await Promise.all([episode(agent, 5), episode(agent, 11)]);
      expect(resultA.reward).toBe(1);
      expect(resultB.reward).toBe(1);
      expect(toolSteps(resultA).map((step) => step.toolCallId)).toEqual(a.calls.map((_, index) => `conA_${index}`));
      expect(toolSteps(resultB).map((step) => step.toolCallId)).toEqual(b.calls.map((_, index) => `conB_${index}`));
    });

    it("an invalid parameter gets the framework's error text back to the model, nothing is stepped for it, and the episode continues", async () => {
      const task = loadTasks()[5];
      const good = groundTruthScript(task, "inv");
      const bad = { name: "get_order_details", arguments: { order_id: 12345 }, id: "inv_bad" };
      const script: TaskScript = { ...good, calls: [good.calls[0], bad, ...good.calls.slice(1)] };
      let errorText: string | undefined;
      const agent = await agentFor(
        await serverFor([script], (request) => {
          const results = toolMessages(request);
          if (results.length === 2) errorText = results[1].content;
        }),
      );
      const result = await episode(agent, 5);
      expect(errorText).toMatch(options.invalidArgumentText);
      expect(toolSteps(result).map((step) => step.toolCallId)).not.toContain("inv_bad");
      expect(toolSteps(result)).toHaveLength(good.calls.length);
      expect(result.reward).toBe(1);
    });

    it("a repeated tool-call id (a framework or model retry) is stepped once", async () => {
      // The model sends the same call (same id) in two consecutive responses; whether the framework
      // re-executes it or drops it, the environment must see it once. A fixed sequence of answers
      // (not the plan responder) because frameworks differ in what they put back into the history.
      const good = groundTruthScript(loadTasks()[5], "dup");
      const call = (index: number, id = `dup_${index}`) => ({ tool_calls: [{ id, name: good.calls[index].name, arguments: good.calls[index].arguments }] });
      const server = await startScriptedModelServer({
        steps: [call(0), call(1), call(2, "dup_same"), call(2, "dup_same"), call(3), call(4), { content: good.finalText }],
      });
      servers.push(server);
      const agent = await agentFor(server);
      const result = await episode(agent, 5);
      expect(result.error, result.info.traceback as string | undefined).toBeUndefined();
      expect(toolSteps(result).filter((step) => step.toolCallId === "dup_same")).toHaveLength(1);
      expect(toolSteps(result)).toHaveLength(good.calls.length);
      // The framework did call the tool again: the bridge answered the repeat from its per-id cache.
      expect(result.extra?.bridgedCalls).toBe(good.calls.length + 1);
      expect(result.reward).toBe(1);
    });

    it("a mapping file renames a framework tool and its arguments; a tool listed as native runs its own code", async () => {
      const directory = mkdtempSync(join(tmpdir(), "taubridge-mapping-"));
      const mapping = join(directory, "mapping.json");
      writeFileSync(mapping, JSON.stringify({ renames: { lookup_order: "get_order_details" }, arguments: { lookup_order: { order_number: "order_id" } }, native: ["store_hours"] }));
      const task = loadTasks()[5];
      const script: TaskScript = {
        instruction: task.instruction,
        idPrefix: "map",
        calls: [
          { name: "lookup_order", arguments: { order_number: "#W6390527" } },
          { name: "store_hours", arguments: {} },
        ],
        finalText: "Done.",
      };
      const agent = await agentFor(await serverFor([script]), { mapping }, options.aliasModule);
      const result = await episode(agent, 5);
      expect(result.error).toBeUndefined();
      const steps = toolSteps(result);
      expect(steps.map((step) => [step.action.name, step.frameworkToolName, step.origin])).toEqual([["get_order_details", "lookup_order", "bridge"]]);
      expect([...steps[0].action.kwargs.keys()]).toEqual(["order_id"]);
      expect(steps[0].observation).toContain('"order_id": "#W6390527"');
      const storeHours = result.traj.find((message) => message.role === "tool" && message.name === "store_hours");
      expect(storeHours?.content).toContain("open 9am-5pm");
      expect(result.extra?.passthroughTools).toEqual(["store_hours"]);
      expect(result.extra?.unmappedTools).toEqual([]);
      expect(backend.hits).toEqual([]);
    });

    it("fails closed: a tool with no mapping is not executed; the model is told and the run reports it", async () => {
      const task = loadTasks()[5];
      const script: TaskScript = {
        instruction: task.instruction,
        idPrefix: "closed",
        calls: [{ name: "lookup_order", arguments: { order_number: "#W6390527" } }],
        finalText: "Done.",
      };
      const agent = await agentFor(await serverFor([script]), {}, options.aliasModule);
      const result = await episode(agent, 5);
      expect(result.error).toBeUndefined();
      expect(toolSteps(result)).toEqual([]);
      expect(result.extra?.unmappedTools).toEqual(["lookup_order"]);
      const told = result.traj.find((message) => message.role === "tool" && message.name === "lookup_order");
      expect(told?.content).toContain('tool "lookup_order" is not part of the benchmark domain');
      expect(backend.hits).toEqual([]);
    });

    it("a failing model endpoint ends the episode as infra_error, never as a zero-score agent error", async () => {
      const server = await startScriptedModelServer({ steps: [{ error: { status: options.infraStatus ?? 500 }, times: "unlimited" }] });
      servers.push(server);
      const result = await episode(await agentFor(server), 5);
      expect(result.termination).toBe("infra_error");
      expect(String(result.info.error)).toMatch(/model endpoint failed/);
      expect(result.steps).toEqual([]);
    }, 300_000);

    options.extra?.({ serverFor, agentFor, episode, loadTasks, backendHits: () => backend.hits, toolSteps, toolMessages });

    it("the step budget stops the framework's run and ends the episode as max_steps", async () => {
      const script = groundTruthScript(loadTasks()[5], "budget");
      const agent = await agentFor(await serverFor([script]));
      const result = await episode(agent, 5, 3);
      expect(result.termination).toBe("max_steps");
      expect(toolSteps(result)).toHaveLength(3);
      expect(result.reward).toBe(0);
    });
  });
}

/** Library tasks used below: lookups with an output (0), two renewals with an output (2), a transfer (6). */
const LIBRARY_TASKS = [0, 2, 6];

interface LibraryRun {
  outcome: BatchOutcome;
  /** The results file's entries (schema v1), in task order. */
  entries: Array<{ task_id: number; reward: number; traj: Array<Record<string, unknown>>; taubridge: LibraryBlock }>;
  server: ScriptedModelServer;
}
interface LibraryStep {
  action: { name: string; kwargs: Record<string, unknown> };
  origin: string;
  toolCallId?: string;
}
interface LibraryBlock {
  termination: string;
  steps: LibraryStep[];
  plannedOnly?: LibraryStep[];
  extra?: Record<string, unknown>;
}

/**
 * The adapter on the bundled library domain, through the runner's public layers (`buildRun` +
 * `runBatch`, results file): no official data needed, so these run everywhere.
 */
function defineLibraryCases(options: AdapterSuiteOptions): void {
  describe(`${options.strategy} adapter on the bundled library domain (real framework, scripted model over HTTP, runBatch)`, () => {
    let backend: CountingBackend;
    const servers: ScriptedModelServer[] = [];
    const tasks = buildRun({ env: "library", agentStrategy: "oracle", userStrategy: "scripted" }).tasks;

    beforeAll(async () => {
      backend = await startCountingBackend();
      process.env.LIBRARY_BACKEND_URL = backend.url;
    });

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.close()));
      await backend?.close();
    });

    async function run(scripts: TaskScript[], taskIds: number[], agentOptions: Record<string, string> = {}): Promise<LibraryRun> {
      const server = await startScriptedModelServer({ responder: planResponder(scripts) });
      servers.push(server);
      const built = buildRun({
        env: "library",
        agentStrategy: options.strategy,
        userStrategy: "scripted",
        baseUrl: server.baseURL,
        model: "scripted-model",
        taskIds,
        maxConcurrency: 2,
        logDir: mkdtempSync(join(tmpdir(), `taubridge-${options.strategy}-library-`)),
        resume: false,
        quiet: true,
        agentOptions: { module: fileURLToPath(options.libraryModule), ...agentOptions },
      });
      const outcome = await runBatch(built);
      const entries = JSON.parse(readFileSync(outcome.resultsPath, "utf8")) as LibraryRun["entries"];
      return { outcome, entries, server };
    }

    const toolStepsOf = (block: LibraryBlock) => block.steps.filter((step) => step.action.name !== "respond");

    it(`scores 1.0 on library tasks ${LIBRARY_TASKS.join(", ")} with the ground-truth calls, every call stepped by the bridge, no tool's own code run`, async () => {
      const scripts = LIBRARY_TASKS.map((index) => groundTruthScript(tasks[index], `lib${index}`));
      const hitsBefore = backend.hits.length;
      const { outcome, entries, server } = await run(scripts, LIBRARY_TASKS);
      server.assertNoFailures();
      expect(outcome.summaries.map((summary) => [summary.taskId, summary.reward, summary.termination])).toEqual([
        [0, 1, "user_stop"],
        [2, 1, "user_stop"],
        [6, 1, "agent_stop"],
      ]);
      for (const [position, entry] of entries.entries()) {
        const steps = toolStepsOf(entry.taubridge);
        expect(steps.map((step) => step.action.name)).toEqual(scripts[position].calls.map((call) => call.name));
        expect(steps.every((step) => step.origin === "bridge")).toBe(true);
        expect(steps.map((step) => step.toolCallId)).toEqual(scripts[position].calls.map((_, call) => `lib${LIBRARY_TASKS[position]}_${call}`));
        expect(entry.traj[1]).toEqual({ role: "user", content: tasks[LIBRARY_TASKS[position]].instruction });
      }
      expect(backend.hits.slice(hitsBefore)).toEqual([]);
    });

    it("scores 0 when the model renews the wrong loan (the wrong call is stepped as planned)", async () => {
      const wrong = groundTruthScript(tasks[2], "wrong", (action) =>
        action.name === "renew_loan" && action.kwargs.get("loan_id") === "L2002" ? { name: action.name, kwargs: new Map([["loan_id", "L2001"]]) } : action,
      );
      const { outcome, entries } = await run([wrong], [2]);
      expect(outcome.summaries[0]).toMatchObject({ reward: 0, termination: "user_stop" });
      const renewals = toolStepsOf(entries[0].taubridge).filter((step) => step.action.name === "renew_loan");
      expect(renewals.map((step) => step.action.kwargs.loan_id)).toEqual(["L2001", "L2001"]);
    });

    it("decision-only: the harness steps the planned actions (origin harness), same reward", async () => {
      const script = groundTruthScript(tasks[2], "dec");
      const { outcome, entries } = await run([script], [2], { bridgeMode: "decision-only" });
      expect(outcome.summaries[0]).toMatchObject({ reward: 1, termination: "user_stop" });
      const steps = toolStepsOf(entries[0].taubridge);
      expect(steps).toHaveLength(script.calls.length);
      expect(steps.every((step) => step.origin === "harness")).toBe(true);
      expect(entries[0].taubridge.extra?.bridgeMode).toBe("decision-only");
    });

    it("dry-run: nothing is stepped, the planned actions are recorded, the database never changes (reward 0)", async () => {
      const script = groundTruthScript(tasks[2], "dry");
      const { outcome, entries } = await run([script], [2], { dryRun: "true" });
      expect(outcome.summaries[0].reward).toBe(0);
      expect(toolStepsOf(entries[0].taubridge)).toEqual([]);
      expect(entries[0].taubridge.plannedOnly?.map((step) => step.action.name)).toEqual(script.calls.map((call) => call.name));
      expect(entries[0].taubridge.plannedOnly?.every((step) => step.origin === "dry-run")).toBe(true);
      const toolResults = entries[0].traj.filter((message) => message.role === "tool").map((message) => String(message.content));
      expect(toolResults).toHaveLength(script.calls.length);
      expect(toolResults.every((text) => text.includes("[dry run]"))).toBe(true);
    });
  });
}
