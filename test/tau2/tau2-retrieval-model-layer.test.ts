/**
 * τ³ retrieval's reranker and embedder go through the run layer's model clients like the agent and
 * the user (issue 28, item 4), checked through the CLI on the scripted OpenAI-compatible server:
 * their usage and cost (from `--price-file`) per role in the results file and the report; their
 * answers kept under `--cache-dir` (document and query embeddings, reranker ratings), so a second
 * run with the same cache sends neither an embeddings nor a reranker request; a dead reranker
 * endpoint stops the run before the first episode with exit 2 in one line naming the URL and the
 * flag, even when the agent would never have searched; with `--workers 2` the retrieval roles' usage
 * is summed from the worker processes into the same per-role usage as in one process.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { scriptedEmbeddingTokens, startScriptedModelServer, type ScriptedModelServer } from "../../src/testing/index.ts";
import { runCli, runTau2 } from "../support/cli.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";

const QUERY = "dispute a credit card transaction";
const ANSWER = "Here is how disputes work.";
/** No key of the machine running the tests makes a variant available by accident. */
const NO_KEYS = { OPENAI_API_KEY: "", OPENROUTER_API_KEY: "" };
/** What the scripted reranker reports per rating. */
const RERANKER_USAGE = { prompt_tokens: 120, completion_tokens: 7 };
/** US dollars per million tokens. */
const PRICES = { "reranker-model": { input: 2, output: 8 }, "text-embedding-3-large": { input: 0.13, output: 0 } };

/** Every file under a directory (none when it does not exist). */
function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The knowledge base's contents, as the embedder receives them. */
function documentTexts(data: string): string[] {
  const directory = join(data, "banking_knowledge", "documents");
  return readdirSync(directory)
    .filter((name) => name.endsWith(".json"))
    .map((name) => (JSON.parse(readFileSync(join(directory, name), "utf8")) as { content: string }).content);
}

/**
 * Answers by what the request holds, so a run whose first calls come from the cache still gets the
 * same answers: the agent searches once and answers after the tool's result; the user asks and
 * stops once answered; the reranker rates every document 8.
 */
async function startServer(): Promise<ScriptedModelServer> {
  return startScriptedModelServer({
    responder: (request) => {
      const messages = request.messages as Array<{ role: string; content?: unknown }>;
      if (request.model === "reranker-model") return { content: JSON.stringify({ relevance_score: 8 }), usage: RERANKER_USAGE };
      if (request.model === "agent-model") {
        return messages.at(-1)?.role === "tool" ? { content: ANSWER } : { tool_calls: [{ id: "a1", name: "KB_search", arguments: JSON.stringify({ query: QUERY }) }] };
      }
      if (request.model === "user-model") return { content: messages.some((message) => String(message.content).includes(ANSWER)) ? "Thanks! ###STOP###" : "How do I dispute a charge?" };
      return undefined;
    },
  });
}

function modelArgs(server: ScriptedModelServer): string[] {
  const endpoint = JSON.stringify({ temperature: 0.0, api_base: server.baseURL });
  return ["--agent", "llm_agent", "--agent-llm", "agent-model", "--agent-llm-args", endpoint, "--user", "user_simulator", "--user-llm", "user-model", "--user-llm-args", endpoint];
}

const requestsTo = (server: ScriptedModelServer, ending: string) => server.requests.filter((request) => request.path.endsWith(ending)).length;

describeWithTau2Data("τ³ retrieval's reranker and embedder through the run layer", (data) => {
  const base = ["--domain", "banking_knowledge", "--task-ids", "task_001", "--retrieval-config", "openai_embeddings_reranker"];

  it("usage and cost per role in the results file and the report; --cache-dir keeps embeddings and ratings for the next run", async () => {
    const server = await startServer();
    try {
      const work = mkdtempSync(join(tmpdir(), "tau3-layer-"));
      const cacheDir = join(work, "cache");
      const priceFile = join(work, "prices.json");
      writeFileSync(priceFile, JSON.stringify(PRICES));
      const backends = ["--embedder-base-url", server.baseURL, "--reranker-base-url", server.baseURL, "--reranker-model", "reranker-model"];
      const flags = [...base, ...backends, ...modelArgs(server), "--cache-dir", cacheDir, "--price-file", priceFile];
      const first = join(work, "first", "results.json");
      const firstRun = await runTau2(flags, { data, saveTo: first, env: NO_KEYS });
      expect(firstRun.exitCode, firstRun.stderr).toBe(0);
      const rerankerCalls = server.requestsFor("reranker-model").length;
      expect(rerankerCalls).toBe(10); // one rating per retrieved document
      expect(requestsTo(server, "/embeddings")).toBe(2); // the documents, then the query

      const documentTokens = documentTexts(data).reduce((sum, text) => sum + scriptedEmbeddingTokens(text).length, 0);
      const embedderTokens = documentTokens + scriptedEmbeddingTokens(QUERY).length;
      const raw = JSON.parse(readFileSync(first, "utf8")) as { taubridge: { roleUsage?: Record<string, { calls: number; promptTokens: number; completionTokens: number; cost: number | null }> } };
      const usage = raw.taubridge.roleUsage;
      expect(usage?.reranker).toEqual({ calls: 10, promptTokens: 1200, completionTokens: 70, cost: expect.any(Number) });
      expect(usage?.reranker.cost).toBeCloseTo((1200 * 2 + 70 * 8) / 1e6, 12);
      expect(usage?.embedder).toEqual({ calls: 2, promptTokens: embedderTokens, completionTokens: 0, cost: expect.any(Number) });
      expect(usage?.embedder.cost).toBeCloseTo((embedderTokens * 0.13) / 1e6, 12);

      const report = await runCli(["report", first]);
      expect(report.exitCode, report.stderr).toBe(0);
      expect(report.stdout).toContain(`Reranker: 10 call(s), 1200 prompt + 70 completion tokens, $${((1200 * 2 + 70 * 8) / 1e6).toFixed(4)}`);
      expect(report.stdout).toContain(`Embedder: 2 call(s), ${embedderTokens} input tokens, $${((embedderTokens * 0.13) / 1e6).toFixed(4)}`);

      // The document embeddings and the query's embedding are under --cache-dir, beside the response cache.
      expect(filesUnder(join(cacheDir, "embeddings")).filter((file) => file.endsWith(".embeddings"))).toHaveLength(1);
      expect(filesUnder(join(cacheDir, "embeddings", "queries"))).toHaveLength(1);

      const secondRun = await runTau2(flags, { data, saveTo: join(work, "second", "results.json"), env: NO_KEYS });
      expect(secondRun.exitCode, secondRun.stderr).toBe(0);
      expect(requestsTo(server, "/embeddings")).toBe(2); // nothing embedded again
      expect(server.requestsFor("reranker-model")).toHaveLength(rerankerCalls); // every rating from the cache
      const second = JSON.parse(readFileSync(join(work, "second", "results.json"), "utf8")) as { simulations: Array<{ reward_info: { reward: number } | null }> };
      expect(second.simulations).toHaveLength(1);
    } finally {
      await server.close();
    }
  }, 240_000);

  it("with --workers 2 the reranker's and the embedder's usage is summed from the workers: the same per role as in one process", async () => {
    const work = mkdtempSync(join(tmpdir(), "tau3-layer-workers-"));
    const roleUsage = async (extra: readonly string[], name: string) => {
      // A server per run, so each run's requests and usage are its own.
      const server = await startServer();
      try {
        const backends = ["--embedder-base-url", server.baseURL, "--reranker-base-url", server.baseURL, "--reranker-model", "reranker-model"];
        const file = join(work, name, "results.json");
        const result = await runTau2([...base, ...backends, ...modelArgs(server), ...extra], { data, saveTo: file, env: NO_KEYS });
        expect(result.exitCode, result.stderr).toBe(0);
        const raw = JSON.parse(readFileSync(file, "utf8")) as { taubridge: { roleUsage?: Record<string, unknown> } };
        // What each embeddings request asked (inputs' count and first characters), and the run's stderr: what a failure below prints.
        const embeddings = server.requests.filter((request) => request.path.endsWith("/embeddings")).map((request) => JSON.stringify(request.body).slice(0, 160));
        return {
          usage: raw.taubridge.roleUsage,
          rerankerRequests: server.requestsFor("reranker-model").length,
          embeddingRequests: embeddings.length,
          diagnosis: `${embeddings.join("\n")}\n${result.stderr}`,
        };
      } finally {
        await server.close();
      }
    };
    const one = await roleUsage([], "one");
    const workers = await roleUsage(["--workers", "2"], "workers");
    // The calls were made (in a worker), and the file counts each of them as one process does.
    expect(workers.rerankerRequests).toBe(10);
    // The documents embedded once (by the coordinator, before its first unit; the workers read its disk cache), then the query.
    expect(workers.embeddingRequests, workers.diagnosis).toBe(2);
    expect(one.usage?.reranker).toMatchObject({ calls: 10 });
    expect(workers.usage?.reranker).toMatchObject({ calls: workers.rerankerRequests });
    expect(workers.usage?.embedder, workers.diagnosis).toMatchObject({ calls: workers.embeddingRequests });
    expect(workers.usage).toEqual(one.usage);
  }, 480_000);

  it("a dead reranker endpoint stops the run before the first episode: exit 2, one line naming the URL and --reranker-base-url", async () => {
    const server = await startServer();
    try {
      const work = mkdtempSync(join(tmpdir(), "tau3-layer-dead-"));
      const file = join(work, "results.json");
      const backends = ["--embedder-base-url", server.baseURL, "--reranker-base-url", "http://127.0.0.1:1/v1", "--reranker-model", "reranker-model"];
      // The oracle never searches: without the probe, nothing would notice the dead endpoint.
      for (const participants of [modelArgs(server), ["--agent", "oracle", "--user", "scripted"]]) {
        const result = await runTau2([...base, ...backends, ...participants], { data, saveTo: file, env: NO_KEYS });
        expect(result.exitCode, result.stderr).toBe(2);
        expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
        expect(result.stderr).toMatch(/reranker model endpoint http:\/\/127\.0\.0\.1:1\/v1 refused the connection .*before the first episode.*--reranker-base-url/);
        expect(existsSync(file)).toBe(false);
      }
      expect(server.requests.filter((request) => request.path.endsWith("/chat/completions"))).toHaveLength(0); // no episode started
    } finally {
      await server.close();
    }
  }, 240_000);
});
