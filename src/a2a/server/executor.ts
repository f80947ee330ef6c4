/**
 * The server's agent executor (the SDK's `AgentExecutor`): routes each new request to a skill
 * (`routing.ts`) and answers with a task — quick skills complete at once; an evaluation is a
 * long-running task with a status update per finished simulation, heartbeats, a `Result` artifact,
 * and a final state. Evaluations beyond `--max-evaluations` wait in a queue (status `submitted`,
 * "queued (position n)") up to `--max-queued`, then are refused. Cancel aborts in-flight
 * simulations, starts no new conversation and keeps partial results. A restarted server resumes
 * the evaluations its store left unfinished (or, with `--no-resume`, marks them failed with what
 * had finished).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutionEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  type RequestContext,
  ResultManager,
  ServerCallContext,
} from "@a2a-js/sdk/server";
import { hostPolicy, type HostPolicy } from "../client/host-policy.ts";
import type { Registries } from "../../run/registries.ts";
import { Caller } from "./auth.ts";
import { runEvaluation, type EvaluationLimits, type EvaluationOutcome, type SimulationLine } from "./evaluation.ts";
import { ACCEPTED_FORMS, routeRequest, type GetResultsArguments, type RequestPart, type RunEvaluationArguments } from "./routing.ts";
import { FileTaskStore, readJsonFile, readJsonLines } from "./store.ts";

export interface ExecutorOptions {
  store: FileTaskStore;
  registries: Registries;
  limits: EvaluationLimits;
  /** Evaluations running at once, and waiting, at most. */
  maxEvaluations: number;
  maxQueued: number;
  log: (line: string) => void;
}

/** A task's ids. */
interface Ids {
  taskId: string;
  contextId: string;
}

/** Where an evaluation's events go: the request's bus, or (resumed after a restart) a bus and the store. */
type Publish = (event: AgentExecutionEvent) => void;

/** JSON without `undefined` (ProtoJSON's `Value` has no such thing). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

function agentMessage(ids: Ids, text: string, data?: unknown, messageId?: string): Record<string, unknown> {
  return { messageId: messageId ?? crypto.randomUUID(), contextId: ids.contextId, taskId: ids.taskId, role: "ROLE_AGENT", parts: [{ text }, ...(data !== undefined ? [{ data: plain(data) }] : [])] };
}

function statusEvent(ids: Ids, state: string, text?: string, data?: unknown, options: { metadata?: Record<string, unknown>; messageId?: string } = {}): AgentExecutionEvent {
  return AgentEvent.statusUpdate(
    TaskStatusUpdateEvent.fromJSON({
      taskId: ids.taskId,
      contextId: ids.contextId,
      status: { state, timestamp: new Date().toISOString(), ...(text !== undefined ? { message: agentMessage(ids, text, data, options.messageId) } : {}) },
      ...(options.metadata ? { metadata: plain(options.metadata) } : {}),
    }),
  );
}

function taskEvent(ids: Ids, state: string, text?: string, data?: unknown, extra: { artifacts?: unknown[]; metadata?: Record<string, unknown> } = {}): AgentExecutionEvent {
  return AgentEvent.task(
    Task.fromJSON({
      id: ids.taskId,
      contextId: ids.contextId,
      status: { state, timestamp: new Date().toISOString(), ...(text !== undefined ? { message: agentMessage(ids, text, data) } : {}) },
      artifacts: extra.artifacts ?? [],
      history: [],
      ...(extra.metadata ? { metadata: plain(extra.metadata) } : {}),
    }),
  );
}

/** The `Result` artifact (AgentBeats' name): a summary text part and the data part. */
function resultArtifact(ids: Ids, text: string, data: unknown): Record<string, unknown> {
  return { artifactId: `${ids.taskId}-result`, name: "Result", description: "the evaluation's results", parts: [{ text }, { data: plain(data) }] };
}

/** A request's parts as the routing reads them. */
function partsOf(message: Message): RequestPart[] {
  const parts: RequestPart[] = [];
  for (const part of message.parts) {
    if (part.content?.$case === "text") parts.push({ text: part.content.value });
    else if (part.content?.$case === "data") parts.push({ data: part.content.value });
  }
  return parts;
}

const PROTO_STATE = { completed: "TASK_STATE_COMPLETED", canceled: "TASK_STATE_CANCELED", failed: "TASK_STATE_FAILED" } as const;

/** A slot in the server's evaluation limit; queued evaluations wait for one, in order. */
class Slots {
  private active = 0;
  private readonly waiting: Array<{ id: string; go: () => void }> = [];

  constructor(
    private readonly size: number,
    private readonly queueSize: number,
  ) {}

  /** True when a new evaluation can neither run nor wait. */
  get full(): boolean {
    return this.active >= this.size && this.waiting.length >= this.queueSize;
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Waits for a slot (`onQueued` says the position when there is none yet); false when canceled while waiting. */
  async acquire(id: string, signal: AbortSignal, onQueued: (position: number) => void): Promise<boolean> {
    if (this.active < this.size) {
      this.active++;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const entry = { id, go: () => (signal.removeEventListener("abort", cancel), resolve(true)) };
      const cancel = () => {
        const index = this.waiting.indexOf(entry);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(false);
      };
      this.waiting.push(entry);
      signal.addEventListener("abort", cancel, { once: true });
      onQueued(this.waiting.length);
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next.go();
    else this.active--;
  }
}

export class EvaluationExecutor implements AgentExecutor {
  private readonly controllers = new Map<string, AbortController>();
  private readonly finished = new Map<string, Promise<void>>();
  private readonly slots: Slots;
  private readonly policy: HostPolicy;
  /** Set by the server once the SDK's request handler exists (resumed evaluations publish on its buses). */
  busManager: ExecutionEventBusManager | undefined;

  constructor(private readonly options: ExecutorOptions) {
    this.slots = new Slots(options.maxEvaluations, options.maxQueued);
    this.policy = hostPolicy(options.limits.allowAgentHosts);
  }

  /** Evaluations running now and waiting (for `/healthz`). */
  load(): { running: number; queued: number } {
    return { running: this.slots.running, queued: this.slots.queued };
  }

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const ids = { taskId: context.taskId, contextId: context.contextId };
    const caller = context.context.user?.userName ?? "anonymous";
    try {
      if (context.task) {
        // A message to an existing task: evaluations take no input once started (the task is left as it is).
        bus.publish(
          AgentEvent.message(
            Message.fromJSON({
              messageId: crypto.randomUUID(),
              contextId: ids.contextId,
              role: "ROLE_AGENT",
              parts: [{ text: "this task takes no further messages; send a new request (without taskId) to start another" }],
            }),
          ),
        );
        return;
      }
      const route = routeRequest(partsOf(context.userMessage));
      if ("refused" in route) {
        const data = { error: route.refused, ...(route.errors ? { errors: route.errors } : {}), accepted_forms: ACCEPTED_FORMS };
        bus.publish(
          taskEvent(ids, "TASK_STATE_REJECTED", `${route.refused}${route.errors ? `:\n${route.errors.map((error) => `  ${error}`).join("\n")}` : ""}\nAccepted: ${ACCEPTED_FORMS.join("; ")}`, data),
        );
        return;
      }
      if (route.skill === "list_domains") {
        bus.publish(taskEvent(ids, "TASK_STATE_COMPLETED", undefined, undefined, { artifacts: [this.domainsArtifact(ids)] }));
        return;
      }
      if (route.skill === "get_evaluation_results") {
        bus.publish(await this.resultsTask(ids, route.arguments, context.context));
        return;
      }
      await this.evaluate(ids, route.arguments, caller, (event) => bus.publish(event), true);
    } catch (error) {
      this.options.log(`[${ids.taskId}] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      bus.publish(statusEvent(ids, "TASK_STATE_FAILED", `internal error: ${error instanceof Error ? error.message : String(error)}`));
    } finally {
      bus.finished();
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const controller = this.controllers.get(taskId);
    if (controller) {
      // The evaluation publishes its partial result and `canceled` as soon as its simulations stop.
      controller.abort(new Error("canceled by the caller"));
      return;
    }
    bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, status: { state: "TASK_STATE_CANCELED", timestamp: new Date().toISOString() } })));
  }

  /** Set while the server stops: evaluations then stay unfinished in the store (resumed by the next start) instead of ending as canceled. */
  private stopping = false;

  /** Stops every running evaluation where it is and waits for them. */
  async drain(): Promise<void> {
    this.stopping = true;
    for (const controller of this.controllers.values()) controller.abort(new Error("the server is stopping"));
    await Promise.allSettled([...this.finished.values()]);
  }

  private domainsArtifact(ids: Ids): Record<string, unknown> {
    const { registries, limits } = this.options;
    const suites = registries.suites.names().map((name) => {
      const suite = registries.suites.get(name);
      return {
        suite: name,
        title: suite.title,
        data_dir: (name === "tau2" ? limits.tau2DataDir : limits.tauBenchDataDir) ?? "(the default: where `taubridge data pull` puts it)",
        domains: suite.describe(registries).domains.map(([id, description]) => ({ id, description })),
      };
    });
    const text = suites.map((suite) => `${suite.suite}: ${suite.domains.map((domain) => domain.id).join(", ")}`).join("\n");
    return { artifactId: `${ids.taskId}-domains`, name: "domains", parts: [{ text }, { data: plain({ suites }) }] };
  }

  /** `get_evaluation_results`: one of the caller's evaluations (another caller's id is "not found"), or the list of them. */
  private async resultsTask(ids: Ids, args: GetResultsArguments, context: ServerCallContext): Promise<AgentExecutionEvent> {
    const { store } = this.options;
    if ("list" in args) {
      const owner = context.user?.userName ?? "anonymous";
      const evaluations = [];
      for (const id of store.idsOf(owner)) {
        const request = readJsonFile<{ created_at: string; arguments: RunEvaluationArguments }>(join(store.evaluationDirectory(id), "request.json"));
        if (!request) continue;
        const task = await store.load(id, context);
        evaluations.push({
          evaluation_id: id,
          state: task?.status ? stateName(task.status.state) : "unknown",
          created_at: request.created_at,
          domain: request.arguments.domain,
          suite: request.arguments.suite ?? "tau2",
          agent_url: request.arguments.agent_url,
        });
      }
      return taskEvent(ids, "TASK_STATE_COMPLETED", undefined, undefined, {
        artifacts: [{ artifactId: `${ids.taskId}-list`, name: "evaluations", parts: [{ text: `${evaluations.length} evaluation(s)` }, { data: plain({ evaluations }) }] }],
      });
    }
    const task = await store.load(args.evaluation_id, context).catch(() => undefined);
    const directory = task ? store.evaluationDirectory(args.evaluation_id) : undefined;
    const request = directory ? readJsonFile<unknown>(join(directory, "request.json")) : undefined;
    if (!task || !directory || !request)
      return taskEvent(ids, "TASK_STATE_REJECTED", `no evaluation ${args.evaluation_id} (evaluations are visible only to the caller that started them)`, { error: "evaluation not found" });
    const summary = readJsonFile<{ state: string; data?: Record<string, unknown> }>(join(directory, "summary.json"));
    const lines = readJsonLines<SimulationLine>(join(directory, "episodes.jsonl"));
    const offset = args.offset ?? 0;
    const limit = args.limit ?? 100;
    const data = {
      evaluation_id: args.evaluation_id,
      state: stateName(task.status?.state),
      ...(summary?.data ? { result: summary.data } : { result: null, progress: { completed: lines.length } }),
      ...(args.include_simulations ? { simulations: lines.slice(offset, offset + limit), offset, total: lines.length } : {}),
    };
    const text = summary?.data ? `evaluation ${args.evaluation_id}: ${data.state}` : `evaluation ${args.evaluation_id}: ${data.state}, ${lines.length} simulation(s) finished so far`;
    return taskEvent(ids, "TASK_STATE_COMPLETED", undefined, undefined, { artifacts: [{ artifactId: `${ids.taskId}-results`, name: "Result", parts: [{ text }, { data: plain(data) }] }] });
  }

  /**
   * Runs (or resumes) one evaluation, publishing its events; `fresh` evaluations first announce
   * their task. Never throws: every outcome ends in a final state.
   */
  async evaluate(ids: Ids, args: RunEvaluationArguments, caller: string, publish: Publish, fresh: boolean): Promise<void> {
    const { store, log } = this.options;
    if (fresh && this.slots.full) {
      const { running, queued } = this.slots;
      publish(
        taskEvent(
          ids,
          "TASK_STATE_REJECTED",
          `the server is busy: ${running} evaluation(s) running and ${queued} waiting (--max-evaluations ${this.options.maxEvaluations}, --max-queued ${this.options.maxQueued}); try again later`,
          { error: "busy", running, queued },
        ),
      );
      return;
    }
    if (fresh) {
      const refusal = await this.checkHosts(args);
      if (refusal) {
        publish(taskEvent(ids, "TASK_STATE_REJECTED", refusal, { error: "host not allowed", allowed: this.policy.entries }));
        return;
      }
    }
    const directory = store.evaluationDirectory(ids.taskId);
    if (fresh) {
      mkdirSync(directory, { recursive: true });
      writeFileSync(join(directory, "request.json"), `${JSON.stringify({ owner: caller, context_id: ids.contextId, created_at: new Date().toISOString(), arguments: args }, null, 2)}\n`);
      publish(taskEvent(ids, "TASK_STATE_SUBMITTED", "accepted", undefined, { metadata: { evaluation_id: ids.taskId, skill: "run_evaluation" } }));
    }
    const controller = new AbortController();
    this.controllers.set(ids.taskId, controller);
    let settle: () => void = () => undefined;
    this.finished.set(
      ids.taskId,
      new Promise<void>((resolve) => {
        settle = resolve;
      }),
    );
    const heartbeatId = `${ids.taskId}-heartbeat`;
    try {
      const started = await this.slots.acquire(ids.taskId, controller.signal, (position) =>
        publish(statusEvent(ids, "TASK_STATE_SUBMITTED", `queued (position ${position}): ${this.slots.running} evaluation(s) running`, undefined, { metadata: { queue_position: position } })),
      );
      if (!started) {
        if (this.stopping) publish(statusEvent(ids, "TASK_STATE_SUBMITTED", "the server stopped while this evaluation was queued; it starts when the server starts again on the same store"));
        else publish(statusEvent(ids, "TASK_STATE_CANCELED", "canceled while queued; no simulation ran"));
        return;
      }
      let outcome: EvaluationOutcome;
      try {
        log(`[${ids.taskId}] evaluating ${args.agent_url} on ${args.suite ?? "tau2"}/${args.domain} for ${caller}`);
        outcome = await runEvaluation({
          evaluationId: ids.taskId,
          args,
          directory,
          registries: this.options.registries,
          limits: this.options.limits,
          signal: controller.signal,
          log,
          report: {
            progress: (text, metadata, heartbeat) => publish(statusEvent(ids, "TASK_STATE_WORKING", text, undefined, { metadata, ...(heartbeat ? { messageId: heartbeatId } : {}) })),
          },
        });
      } finally {
        this.slots.release();
      }
      if (this.stopping) {
        publish(statusEvent(ids, "TASK_STATE_WORKING", "the server stopped; this evaluation resumes when it starts again on the same store (finished simulations are kept)"));
        return;
      }
      writeFileSync(join(directory, "summary.json"), `${JSON.stringify({ state: outcome.state, text: outcome.text, data: outcome.data ?? null }, null, 2)}\n`);
      if (outcome.data)
        publish(
          AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({ taskId: ids.taskId, contextId: ids.contextId, artifact: resultArtifact(ids, outcome.text, outcome.data), lastChunk: true })),
        );
      publish(statusEvent(ids, PROTO_STATE[outcome.state], outcome.text.split("\n")[0], undefined, { metadata: { evaluation_id: ids.taskId } }));
      log(`[${ids.taskId}] ${outcome.state}: ${outcome.text.split("\n")[0]}`);
    } finally {
      this.controllers.delete(ids.taskId);
      this.finished.delete(ids.taskId);
      settle();
    }
  }

  /** The agent URL (and a caller-given user-LLM endpoint) against the allow-list, before anything connects there. */
  private async checkHosts(args: RunEvaluationArguments): Promise<string | undefined> {
    const targets: Array<[string, string]> = [[args.agent_url, "the agent"]];
    const apiBase = args.user_llm_args?.api_base;
    if (typeof apiBase === "string") targets.push([apiBase, "user_llm_args.api_base"]);
    if (args.a2a?.rpc_url) targets.push([args.a2a.rpc_url, "a2a.rpc_url"]);
    for (const [url, what] of targets) {
      try {
        await this.policy.check(url, what);
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    }
    return undefined;
  }

  /**
   * What a restarted server does with the evaluations its store left unfinished: resumes each (the
   * run layer keeps every simulation that had finished), or marks it failed with what had finished.
   */
  async recover(resume: boolean): Promise<void> {
    const { store, log } = this.options;
    for (const { owner, task } of store.unfinished()) {
      const ids = { taskId: task.id, contextId: task.contextId };
      const context = new ServerCallContext({ user: new Caller(owner) });
      const results = new ResultManager(store, context);
      const bus = this.busManager?.createOrGetByTaskId(task.id, context);
      let chain = Promise.resolve();
      const publish: Publish = (event) => {
        bus?.publish(event);
        chain = chain.then(() => results.processEvent(event)).catch((error: unknown) => log(`[${task.id}] store: ${String(error)}`));
      };
      const directory = store.evaluationDirectory(task.id);
      const request = readJsonFile<{ arguments: RunEvaluationArguments }>(join(directory, "request.json"));
      const finish = async () => {
        await chain;
        bus?.finished();
        this.busManager?.cleanupByTaskId(task.id, context);
      };
      if (!request) {
        publish(statusEvent(ids, "TASK_STATE_FAILED", "the server restarted before this request was recorded"));
        await finish();
        continue;
      }
      const done = readJsonLines<SimulationLine>(join(directory, "episodes.jsonl")).length;
      if (!resume) {
        publish(statusEvent(ids, "TASK_STATE_FAILED", `the server restarted; ${done} simulation(s) had finished and are kept (get_evaluation_results)`));
        await finish();
        continue;
      }
      log(`[${task.id}] resuming after a restart (${done} simulation(s) had finished)`);
      void this.evaluate(ids, request.arguments, owner, publish, false).then(finish);
    }
  }
}

function stateName(state: number | undefined): string {
  const names: Record<number, string> = { 1: "submitted", 2: "working", 3: "completed", 4: "failed", 5: "canceled", 6: "input-required", 7: "rejected", 8: "auth-required" };
  return names[state ?? 0] ?? "unknown";
}
