/**
 * τ³ banking_knowledge's shell variants end to end through the CLI, with the real `srt` sandbox
 * and, for AllTools, dense search on the scripted server's `/v1/embeddings` (never the internet):
 * the oracle scores 1.0 on terminal_use and on τ²'s default (alltools, chosen when no
 * `--retrieval-config` is given); `llm_agent` and an AI SDK agent through the bridge call `shell`
 * (and AllTools' `KB_search_bm25` / `KB_search_dense`) and read what the original answers (the
 * shell probes' contents); the results file records the variant as τ²'s RunConfig / Info do; no
 * sandbox directory is left behind.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { createTau2 } from "../../app/suites.ts";
import { checkNumTrials, checkTasks } from "../../src/submit/checks.ts";
import { readTau2Results, rewardOf } from "../../src/suites/tau2/codec.ts";
import { Bm25Retriever, bm25Stages, FROZEN_CLOCK, KbSearchPipeline, KnowledgeBase } from "../../src/suites/tau2/knowledge/index.ts";
import { scriptedEmbedding, startScriptedModelServer, type ScriptedModelServer } from "../../src/testing/index.ts";
import { runTau2 } from "../support/cli.ts";
import { describeWithSandbox } from "../support/sandbox-tools.ts";

const fixturePath = (name: string) => fileURLToPath(new URL(`../fixtures/tau2/${name}`, import.meta.url));
/** No key of the machine running the tests makes a backend available by accident. */
const NO_KEYS = { OPENAI_API_KEY: "", OPENROUTER_API_KEY: "" };
const DENSE_QUERY = "dispute a credit card transaction";

interface ShellProbes {
  episodes: Array<{ actions: Array<{ arguments: { command: string } }>; expected: { steps: Array<{ content: string }> } }>;
}

/** What the original answered to `command` in the shell probes (the first episode that ran it). */
function originalAnswer(probes: ShellProbes, command: string): string {
  for (const episode of probes.episodes) {
    const index = episode.actions.findIndex((action) => action.arguments.command === command);
    if (index >= 0) return episode.expected.steps[index].content;
  }
  throw new Error(`no probe ran ${command}`);
}

/** The tool messages of the results file's simulations, in order. */
function toolTexts(file: string, simulation = 0): string[] {
  return readTau2Results(file).simulations[simulation].messages.flatMap((message) => (message.role === "tool" ? [message.content as string] : []));
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let index = 0; index < a.length; index++) {
    dot += a[index] * b[index];
    aa += a[index] * a[index];
    bb += b[index] * b[index];
  }
  return aa === 0 || bb === 0 ? 0 : dot / Math.sqrt(aa * bb);
}

/** KB_search_dense's entries over the scripted server's vectors (timing suffix left out). */
function denseEntries(knowledgeBase: KnowledgeBase, query: string, k: number): string {
  const vector = scriptedEmbedding(query);
  return knowledgeBase.documents
    .map((doc) => ({ doc, score: cosine(vector, scriptedEmbedding(doc.content)) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map(({ doc, score }, index) => `${index + 1}. ${doc.title}\n   ID: ${doc.id}\n   Score: ${score.toFixed(4)}\n   Content: ${doc.content}\n`)
    .join("\n");
}

const withoutTiming = (text: string) => text.split("\n\n[Timing: ")[0];

/**
 * What `tau2 submit prepare` checks of a banking_knowledge results file, on a run of some tasks: it
 * reads as a leaderboard file naming its retrieval variant, its tasks have the current definitions
 * (the base split restricted to the tasks run) and each has num_trials simulations.
 */
async function expectSubmittable(file: string, taskIds: readonly string[], dataDir: string): Promise<void> {
  const support = (await createTau2()).leaderboard;
  if (!support) throw new Error("the τ² suite has no leaderboard support");
  const results = support.readResults(file);
  expect(results.domain).toBe("banking_knowledge");
  expect(results.retrievalConfig).toBe("alltools");
  const base = support.baseTasks("banking_knowledge", dataDir).filter((task) => taskIds.includes(task.id));
  expect(base.map((task) => task.id).sort()).toEqual([...taskIds].sort());
  expect(checkTasks(results, base)).toEqual([]);
  expect(checkNumTrials(results)).toEqual([]);
}

describeWithSandbox("τ³ banking_knowledge shell variants, end to end", (data) => {
  const probes = JSON.parse(readFileSync(join(data, "fixtures", "shell_probes_banking_knowledge.json"), "utf8")) as ShellProbes;
  const policies = JSON.parse(readFileSync(join(data, "fixtures", "prompts_banking_knowledge.json"), "utf8")).bk_policies as Record<string, { policy: string }>;
  const toolLists = Object.fromEntries(
    (JSON.parse(readFileSync(join(data, "fixtures", "tools_banking_knowledge.json"), "utf8")).variants as Array<{ name: string; agent_tools: string[] }>).map((variant) => [
      variant.name,
      variant.agent_tools,
    ]),
  );
  const knowledgeBase = KnowledgeBase.load(join(data, "banking_knowledge", "documents"));

  /** A run with its own TMPDIR (where its sandboxes are made), checked to be empty of them afterwards. */
  async function run(args: string[], env: Record<string, string> = {}) {
    const work = mkdtempSync(join(tmpdir(), "tau3-shell-run-"));
    const temp = mkdtempSync(join(tmpdir(), "tau3-shell-tmp-"));
    const file = join(work, "results.json");
    const result = await runTau2(args, { data, saveTo: file, env: { ...NO_KEYS, TMPDIR: temp, ...env } });
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(readdirSync(temp).filter((name) => name.startsWith("agentic_search_"))).toEqual([]);
    const raw = JSON.parse(readFileSync(file, "utf8")) as { info: Record<string, unknown> & { environment_info: { policy: string } } };
    return { file, info: raw.info };
  }

  function modelArgs(server: ScriptedModelServer): string[] {
    const endpoint = JSON.stringify({ temperature: 0.0, api_base: server.baseURL });
    return ["--agent", "llm_agent", "--agent-llm", "agent-model", "--agent-llm-args", endpoint, "--user", "user_simulator", "--user-llm", "user-model", "--user-llm-args", endpoint];
  }

  it("the oracle scores 1.0 on terminal_use and on τ²'s default, alltools (no --retrieval-config), and the variant is recorded", async () => {
    const server = await startScriptedModelServer({ steps: [] });
    try {
      const oracle = ["--domain", "banking_knowledge", "--agent", "oracle", "--user", "scripted", "--task-ids", "task_001", "task_004", "task_010", "task_046", "--max-concurrency", "2"];
      for (const [args, variant] of [
        [["--retrieval-config", "terminal_use"], "terminal_use"],
        [["--embedder-base-url", server.baseURL], "alltools"],
      ] as const) {
        const { file, info } = await run([...oracle, ...args]);
        const results = readTau2Results(file);
        const rewards = results.simulations.map((simulation) => [simulation.task_id, rewardOf(simulation.reward_info)]).sort();
        expect(rewards).toEqual(["task_001", "task_004", "task_010", "task_046"].map((id) => [id, 1]));
        expect(info.retrieval_config).toBe(variant);
        expect(info.retrieval_config_kwargs).toBeNull();
        expect(info.environment_info.policy).toBe(policies[variant].policy);
        if (variant === "alltools") await expectSubmittable(file, ["task_001", "task_004", "task_010", "task_046"], data);
      }
      expect(server.requests.filter((request) => request.path.endsWith("/embeddings"))).toHaveLength(1); // the documents, once, before the first episode
    } finally {
      await server.close();
    }
  }, 300_000);

  it("llm_agent on terminal_use: shell answers are the original's; the request carries the variant's tools and policy", async () => {
    const commands = ["grep -ril 'annual fee' . | head -5", "cat ../../etc/passwd", "ls -l INDEX.md", "grep -r 'qqqzzzxx' ."];
    const server = await startScriptedModelServer({
      scripts: {
        "agent-model": [
          ...commands.map((command, index) => ({ tool_calls: [{ id: `s${index}`, name: "shell", arguments: JSON.stringify({ command }) }] })),
          { content: "Our cards' annual fees are documented.", times: "unlimited" as const },
        ],
        "user-model": [{ content: "Which cards have an annual fee?" }, { content: "Thanks! ###STOP###" }],
      },
    });
    try {
      const { file, info } = await run(["--domain", "banking_knowledge", "--task-ids", "task_001", "--retrieval-config", "terminal_use", ...modelArgs(server)]);
      expect(toolTexts(file)).toEqual(commands.map((command) => originalAnswer(probes, command)));
      const request = server.requestsFor("agent-model")[0].body as { messages: Array<{ content: string }>; tools: Array<{ function: { name: string } }> };
      expect(request.tools.map((tool) => tool.function.name)).toEqual(toolLists.terminal_use);
      expect(request.messages[0].content).toContain(policies.terminal_use.policy);
      expect(info.retrieval_config).toBe("terminal_use");
    } finally {
      await server.close();
    }
  }, 240_000);

  it("llm_agent on alltools (the default): KB_search_bm25 with k, KB_search_dense on the endpoint's vectors, shell", async () => {
    const server = await startScriptedModelServer({
      scripts: {
        "agent-model": [
          { tool_calls: [{ id: "b", name: "KB_search_bm25", arguments: JSON.stringify({ query: "annual fee", k: 2 }) }] },
          { tool_calls: [{ id: "d", name: "KB_search_dense", arguments: JSON.stringify({ query: DENSE_QUERY }) }] },
          { tool_calls: [{ id: "s", name: "shell", arguments: JSON.stringify({ command: "ls | wc -l" }) }] },
          { content: "Found it.", times: "unlimited" as const },
        ],
        "user-model": [{ content: "How do disputes work?" }, { content: "Thanks! ###STOP###" }],
      },
    });
    try {
      const { file, info } = await run(["--domain", "banking_knowledge", "--task-ids", "task_001", "--embedder-base-url", server.baseURL, ...modelArgs(server)]);
      const [bm25, dense, shell] = toolTexts(file);
      const expectedBm25 = await new KbSearchPipeline(knowledgeBase, bm25Stages(new Bm25Retriever(knowledgeBase, 10)), { dataRoot: data, clock: FROZEN_CLOCK }).search("annual fee", 2);
      expect(withoutTiming(bm25)).toBe(withoutTiming(expectedBm25));
      expect(bm25.split("\n   ID: ")).toHaveLength(3);
      expect(withoutTiming(dense)).toBe(denseEntries(knowledgeBase, DENSE_QUERY, 10));
      expect(dense).toMatch(/\n\n\[Timing: retrieval=\d+ms, reranking=\d+ms, total=\d+ms\]$/);
      expect(shell).toBe(originalAnswer(probes, "ls | wc -l"));
      const request = server.requestsFor("agent-model")[0].body as { messages: Array<{ content: string }>; tools: Array<{ function: { name: string } }> };
      expect(request.tools.map((tool) => tool.function.name)).toEqual(toolLists.alltools);
      expect(request.messages[0].content).toContain(policies.alltools.policy);
      expect(info.retrieval_config).toBe("alltools");
    } finally {
      await server.close();
    }
  }, 240_000);

  it("an AI SDK agent through the bridge on terminal_use and on alltools: its tools answered by the sandbox and the searches", async () => {
    const server = await startScriptedModelServer({
      scripts: {
        "terminal-model": [
          { tool_calls: [{ id: "v1", name: "shell", arguments: JSON.stringify({ command: "cat INDEX.md | head -20" }) }] },
          { tool_calls: [{ id: "v2", name: "shell", arguments: JSON.stringify({ command: "echo hello > note.md" }) }] },
          { content: "Done.", times: "unlimited" },
        ],
        "alltools-model": [
          { tool_calls: [{ id: "w1", name: "KB_search_dense", arguments: JSON.stringify({ query: DENSE_QUERY, k: 3 }) }] },
          { tool_calls: [{ id: "w2", name: "shell", arguments: JSON.stringify({ command: "ls | grep savings | wc -l" }) }] },
          { content: "Done.", times: "unlimited" },
        ],
      },
    });
    try {
      const agent = (model: string) => ["--agent", "vercel-ai", "--agent-option", `module=${fixturePath("banking-shell-vercel-agent.ts")}`, "--agent-llm", model, "--agent-base-url", server.baseURL];
      const task = ["--domain", "banking_knowledge", "--task-ids", "task_001", "--user", "scripted"];
      const terminal = await run([...task, "--retrieval-config", "terminal_use", ...agent("terminal-model")]);
      expect(toolTexts(terminal.file).slice(0, 2)).toEqual(["cat INDEX.md | head -20", "echo hello > note.md"].map((command) => originalAnswer(probes, command)));
      expect(terminal.info.retrieval_config).toBe("terminal_use");
      const allTools = await run([...task, "--embedder-base-url", server.baseURL, ...agent("alltools-model")]);
      const [dense, shell] = toolTexts(allTools.file);
      expect(withoutTiming(dense)).toBe(denseEntries(knowledgeBase, DENSE_QUERY, 3));
      expect(shell).toBe(originalAnswer(probes, "ls | grep savings | wc -l"));
      expect(allTools.info.retrieval_config).toBe("alltools");
    } finally {
      await server.close();
    }
  }, 300_000);
});
