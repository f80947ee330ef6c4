/**
 * `taubridge serve --a2a` killed with SIGKILL in the middle of an evaluation (one simulation done,
 * the next one's agent turn held) and started again on the same store: the evaluation's task is
 * still there, the finished simulation is kept and not run again, and the evaluation resumes to the
 * end — or, with `--no-resume`, ends `failed` with the finished simulation kept and its results
 * still answered by `get_evaluation_results`. The server runs as the real CLI in a child process.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startScriptedAgent, type ScriptedAgent } from "../support/a2a-agents.ts";
import { oracleScripts } from "../support/a2a-decisions.ts";
import { runCli } from "../support/cli.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";

type Json = Record<string, unknown>;
const IDS = ["create_task_1", "update_task_1"];

const opened: Array<{ close(): Promise<void> }> = [];
const children: Array<ReturnType<typeof runCli>> = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const item of opened.splice(0).reverse()) await item.close();
});

/** Starts the server's CLI and resolves with its URL once it listens. */
async function startServer(store: string, data: string, extra: string[] = []): Promise<{ child: ReturnType<typeof runCli>; url: string }> {
  const child = runCli(["serve", "--a2a", "--port", "0", "--store", store, "--data-dir", data, "--heartbeat", "1", ...extra]);
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1]);
    });
    void child.then((result) => reject(new Error(`the server exited early (${result.exitCode}): ${result.stderr}`)));
  });
  return { child, url };
}

async function rpc(url: string, method: string, params: Json): Promise<Json> {
  const send = () => fetch(url, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "0.3" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  let response: Response;
  try {
    response = await send();
  } catch (error) {
    // fetch reuses a kept-alive connection; on a loaded machine the test's poll can come after the
    // server's idle timeout, as the server closes it (ECONNRESET). Asked again on a new connection;
    // a server that is gone fails the second time too.
    if ((error as { cause?: { code?: string } }).cause?.code !== "ECONNRESET") throw error;
    response = await send();
  }
  return ((await response.json()) as { result: Json }).result;
}

const message = (text: string) => ({ kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text }] });
const stateOf = (task: Json) => (task.status as Json).state as string;

/** Starts an evaluation, waits until its second simulation's first agent turn is held, and kills the server. */
async function killMidEvaluation(data: string, store: string): Promise<{ agent: ScriptedAgent; taskId: string }> {
  // Three scripts: the first task, the second (held, then abandoned by the kill), the second again after the restart.
  const scripts = oracleScripts(data, "mock", IDS);
  const agent = await startScriptedAgent({ sdk: "0.3", scripts: [...scripts, scripts[1]], holdConversation: 1 });
  opened.push(agent);
  const first = await startServer(store, data);
  const request = JSON.stringify({ participants: { agent: agent.url }, config: { domain: "mock", task_ids: IDS, user: "scripted", max_concurrency: 1 } });
  const task = await rpc(first.url, "message/send", { message: message(request), configuration: { blocking: false } });
  await agent.held;
  first.child.kill("SIGKILL");
  const killed = await first.child;
  expect(killed.signal).toBe("SIGKILL");
  return { agent, taskId: task.id as string };
}

describeWithTau2Data("serve --a2a killed with SIGKILL mid-evaluation, restarted on the same store", (data) => {
  it("resumes the evaluation: the finished simulation is kept (not run again), the rest runs, the result is whole", { timeout: 180_000 }, async () => {
    const store = mkdtempSync(join(tmpdir(), "a2a-kill-"));
    const { agent, taskId } = await killMidEvaluation(data, store);
    const log = join(store, "evaluations", taskId, "episodes.jsonl");
    expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(store, "evaluations", taskId, "summary.json"))).toBe(false);
    const second = await startServer(store, data);
    let task: Json = {};
    for (let polls = 0; polls < 1200 && !["completed", "failed", "canceled"].includes(task.status ? stateOf(task) : ""); polls++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      task = await rpc(second.url, "tasks/get", { id: taskId });
    }
    expect(stateOf(task)).toBe("completed");
    const data1 = (((task.artifacts as Json[])[0].parts as Json[])[1] as { data: Json }).data;
    expect(data1).toMatchObject({ complete: true, num_simulations: 2, task_rewards: { create_task_1: 1, update_task_1: 1 } });
    // The first task ran once; the second twice (its first conversation died with the server).
    expect(agent.conversations.size).toBe(3);
    const results = await rpc(second.url, "message/send", { message: message(JSON.stringify({ tool: "get_evaluation_results", arguments: { evaluation_id: taskId } })) });
    expect(JSON.stringify(results.artifacts)).toContain('"state":"completed"');
  });

  it("--no-resume: the unfinished evaluation ends failed, its finished simulation kept and answered", { timeout: 180_000 }, async () => {
    const store = mkdtempSync(join(tmpdir(), "a2a-kill-"));
    const { agent, taskId } = await killMidEvaluation(data, store);
    const second = await startServer(store, data, ["--no-resume"]);
    const task = await rpc(second.url, "tasks/get", { id: taskId });
    expect(stateOf(task)).toBe("failed");
    expect(JSON.stringify(task.status)).toContain("the server restarted; 1 simulation(s) had finished and are kept");
    const results = await rpc(second.url, "message/send", { message: message(JSON.stringify({ tool: "get_evaluation_results", arguments: { evaluation_id: taskId, include_simulations: true } })) });
    const data1 = (((results.artifacts as Json[])[0].parts as Json[])[1] as { data: { state: string; progress: Json; simulations: Json[] } }).data;
    expect(data1.state).toBe("failed");
    expect(data1.progress).toEqual({ completed: 1 });
    expect(data1.simulations.map((simulation) => [simulation.taskId, simulation.reward])).toEqual([["create_task_1", 1]]);
    expect(agent.conversations.size).toBe(2);
  });
});
