/**
 * τ³ banking_knowledge's model-backed variants end to end through the CLI, on the scripted
 * OpenAI-compatible server (never the internet): `--retrieval-config openai_embeddings` with
 * `--embedder-base-url` gives `llm_agent` a KB_search whose ranking is the cosine ranking of the
 * server's deterministic vectors (computed here independently, from the document files), records
 * the config, writes the embeddings cache once and reuses it on a second run, and writes no key;
 * a reranker variant keeps the documents the scripted ratings put at or above `reranker_min_score`;
 * a dead embeddings endpoint and a missing backend are refused in one line with exit code 2.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { readTau2Results } from "../../src/suites/tau2/codec.ts";
import { scriptedEmbedding, startScriptedModelServer, type ScriptedModelServer } from "../../src/testing/index.ts";
import { runTau2 } from "../support/cli.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";

interface Document {
  id: string;
  title: string;
  content: string;
}

const QUERY = "dispute a credit card transaction";
const EMBEDDER_KEY = "sk-embedder-secret-0123456789abcdef";
const RERANKER_KEY = "sk-reranker-secret-0123456789abcdef";
/** No key of the machine running the tests makes a variant available by accident. */
const NO_KEYS = { OPENAI_API_KEY: "", OPENROUTER_API_KEY: "" };

/** The knowledge base as the files hold it, in file-name order. */
function documents(data: string): Document[] {
  const directory = join(data, "banking_knowledge", "documents");
  return readdirSync(directory)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(directory, name), "utf8")) as Document);
}

/** Cosine similarity of two vectors (0 for a zero vector). */
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

/** The ten documents the scripted vectors rank first for the query, with their scores. */
function expectedRanking(docs: readonly Document[], query: string): Array<{ doc: Document; score: number }> {
  const vector = scriptedEmbedding(query);
  return docs
    .map((doc) => ({ doc, score: cosine(vector, scriptedEmbedding(doc.content)) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 10);
}

/** KB_search's entries, as `_format_kb_search_result` writes them (the timing suffix left out). */
function entries(ranked: ReadonlyArray<{ doc: Document; score: number }>): string {
  return ranked.map(({ doc, score }, index) => `${index + 1}. ${doc.title}\n   ID: ${doc.id}\n   Score: ${score.toFixed(4)}\n   Content: ${doc.content}\n`).join("\n");
}

/** Every file under a directory. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** In each of `runs` runs, the scripted agent searches once and answers; the scripted user asks and stops. */
function participantScripts(runs = 1) {
  const repeat = <T>(steps: T[]): T[] => Array.from({ length: runs }, () => steps).flat();
  return {
    "agent-model": repeat([{ tool_calls: [{ id: "a1", name: "KB_search", arguments: JSON.stringify({ query: QUERY }) }] }, { content: "Here is how disputes work." }]),
    "user-model": repeat([{ content: "How do I dispute a charge?" }, { content: "Thanks! ###STOP###" }]),
  };
}

function modelArgs(server: ScriptedModelServer): string[] {
  const endpoint = JSON.stringify({ temperature: 0.0, api_base: server.baseURL });
  return ["--agent", "llm_agent", "--agent-llm", "agent-model", "--agent-llm-args", endpoint, "--user", "user_simulator", "--user-llm", "user-model", "--user-llm-args", endpoint];
}

/** Embedding requests that embedded the whole knowledge base. */
function documentRequests(server: ScriptedModelServer, count: number): number {
  return server.requests.filter(
    (request) => request.path.endsWith("/embeddings") && Array.isArray((request.body as { input?: unknown }).input) && (request.body as { input: unknown[] }).input.length === count,
  ).length;
}

/** The first tool message of a results file. */
function firstToolText(file: string): string {
  const [simulation] = readTau2Results(file).simulations;
  const tool = simulation.messages.find((message) => message.role === "tool");
  return (tool as { content: string }).content;
}

describeWithTau2Data("τ³ banking_knowledge with a model (embeddings, reranker)", (data) => {
  const docs = documents(data);
  const base = ["--domain", "banking_knowledge", "--task-ids", "task_001"];

  it("openai_embeddings on --embedder-base-url: KB_search ranks by the endpoint's vectors; the cache is written once and reused; no key is written", async () => {
    const server = await startScriptedModelServer({ scripts: participantScripts(2) });
    try {
      const cacheDir = mkdtempSync(join(tmpdir(), "tau3-online-cache-"));
      const work = mkdtempSync(join(tmpdir(), "tau3-online-"));
      const env = { ...NO_KEYS, TAUBRIDGE_CACHE_DIR: cacheDir, TAU3_EMBED_KEY: EMBEDDER_KEY };
      const embedder = ["--retrieval-config", "openai_embeddings", "--embedder-base-url", server.baseURL, "--embedder-api-key-env", "TAU3_EMBED_KEY"];
      const first = await runTau2([...base, ...embedder, ...modelArgs(server)], { data, saveTo: join(work, "first", "results.json"), env });
      expect(first.stderr).toBe("");
      expect(first.exitCode).toBe(0);
      const text = firstToolText(join(work, "first", "results.json"));
      expect(text.split("\n\n[Timing: ")[0]).toBe(entries(expectedRanking(docs, QUERY)));
      expect(text).toMatch(/\n\n\[Timing: retrieval=\d+ms, reranking=\d+ms, total=\d+ms\]$/);
      const raw = JSON.parse(readFileSync(join(work, "first", "results.json"), "utf8")) as { info: Record<string, unknown> };
      expect(raw.info.retrieval_config).toBe("openai_embeddings");
      const status = JSON.parse(readFileSync(join(work, "first", "results.meta.json"), "utf8")) as { identity: { options: Record<string, unknown> } };
      expect(status.identity.options.retrievalModels).toEqual({ embedder: { kind: "openai", model: "text-embedding-3-large", baseUrl: server.baseURL } }); // part of the run's identity
      expect(documentRequests(server, docs.length)).toBe(1);
      const cacheFiles = filesUnder(join(cacheDir, "embeddings"));
      expect(cacheFiles).toHaveLength(1);
      const written = statSync(cacheFiles[0]).mtimeMs;

      const second = await runTau2([...base, ...embedder, ...modelArgs(server)], { data, saveTo: join(work, "second", "results.json"), env });
      expect(second.exitCode).toBe(0);
      expect(documentRequests(server, docs.length)).toBe(1); // the documents came from the cache
      expect(statSync(cacheFiles[0]).mtimeMs).toBe(written);
      expect(firstToolText(join(work, "second", "results.json")).split("\n\n[Timing: ")[0]).toBe(entries(expectedRanking(docs, QUERY)));
      expect(server.requests.filter((request) => request.path.endsWith("/embeddings")).every((request) => request.hadAuthorization)).toBe(true);
      for (const file of [...filesUnder(work), ...filesUnder(cacheDir)]) expect(readFileSync(file, "latin1"), file).not.toContain(EMBEDDER_KEY);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("openai_embeddings_reranker: the scripted ratings decide, reranker_min_score filters, best first", async () => {
    const ranked = expectedRanking(docs, QUERY);
    const ratings = [3, 9, 5, 7, 9, 1, 8, 6, 2, 7];
    const server = await startScriptedModelServer({
      scripts: participantScripts(),
      responder: (request) => {
        if (request.model !== "reranker-model") return undefined;
        const prompt = String(request.messages[0]?.content ?? "");
        const rank = ranked.findIndex(({ doc }) => prompt.includes(doc.content));
        return { content: JSON.stringify({ relevance_score: ratings[rank] ?? 0 }) };
      },
    });
    try {
      const work = mkdtempSync(join(tmpdir(), "tau3-rerank-"));
      const file = join(work, "results.json");
      const env = { ...NO_KEYS, TAU3_RERANK_KEY: RERANKER_KEY };
      const variant = ["--retrieval-config", "openai_embeddings_reranker", "--retrieval-config-kwargs", '{"reranker_min_score": 7}'];
      const backends = ["--embedder-base-url", server.baseURL, "--reranker-base-url", server.baseURL, "--reranker-model", "reranker-model", "--reranker-api-key-env", "TAU3_RERANK_KEY"];
      const result = await runTau2([...base, ...variant, ...backends, ...modelArgs(server)], { data, saveTo: file, env });
      expect(result.stderr).toBe("");
      expect(result.exitCode).toBe(0);
      expect(server.requestsFor("reranker-model")).toHaveLength(10);
      const kept = [1, 4, 6, 3, 9].map((rank) => ({ doc: ranked[rank].doc, score: ratings[rank] }));
      expect(firstToolText(file).split("\n\n[Timing: ")[0]).toBe(entries(kept));
      const raw = JSON.parse(readFileSync(file, "utf8")) as { info: Record<string, unknown> };
      expect(raw.info.retrieval_config_kwargs).toEqual({ reranker_min_score: 7 });
      for (const written of filesUnder(work)) expect(readFileSync(written, "latin1")).not.toContain(RERANKER_KEY);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("refuses in one line (exit 2): no embedder, no reranker, a dead embeddings endpoint", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tau3-online-refused-")), "results.json");
    const oracle = ["--domain", "banking_knowledge", "--task-ids", "task_001", "--agent", "oracle", "--user", "scripted"];
    const offline = /offline variants: no_knowledge, full_kb, golden_retrieval, bm25_grep, bm25, grep_only/;
    const refusals: Array<[string[], RegExp[]]> = [
      [
        ["--retrieval-config", "openai_embeddings"],
        [/needs a openai embedder \(text-embedding-3-large\), which is not available/, offline],
      ],
      [
        ["--retrieval-config", "bm25_reranker_grep"],
        [/needs the pointwise LLM reranker, which is not available/, offline],
      ],
      [["--retrieval-config", "openai_embeddings_reranker", "--embedder-base-url", "http://127.0.0.1:9/v1"], [/needs the pointwise LLM reranker, which is not available/]],
      [["--retrieval-config", "qwen_embeddings", "--embedder-base-url", "http://127.0.0.1:1/v1"], [/embedder model endpoint http:\/\/127\.0\.0\.1:1\/v1 refused the connection.*--embedder-base-url/]],
    ];
    for (const [args, messages] of refusals) {
      const result = await runTau2([...oracle, ...args], { data, saveTo: file, env: NO_KEYS });
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
      for (const message of messages) expect(result.stderr).toMatch(message);
    }
  }, 300_000);
});
