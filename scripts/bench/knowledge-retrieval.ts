/**
 * τ³ banking_knowledge retrieval benchmark: building the BM25 index over the 698 documents
 * (`content.lower().split()` + BM25Okapi) and the latency of one KB_search retrieval (tokenize,
 * score every document, rank, top 10) over the retrieval fixture's 36 queries, plus one grep
 * retrieval over its 18 patterns — for this engine and, in the same run, for the original:
 * `rank_bm25` 0.2.2 (numpy) and CPython's `re`, driven the way τ³'s retrievers drive them.
 *
 * The original needs `python3` with numpy and the file `rank_bm25.py` of rank_bm25 0.2.2, given by
 * path in `TAUBRIDGE_RANK_BM25` (it is not part of this project); without them that half says
 * "skipped: …". Prints JSON.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Bm25Okapi, Bm25Retriever, GrepRetriever, KnowledgeBase, tokenize } from "../../src/suites/tau2/knowledge/index.ts";

const shared = process.env.TAUBRIDGE_SHARED;
const root = shared ? join(shared, "tau2-bench") : "";
if (!shared || !existsSync(join(root, "banking_knowledge", "documents"))) {
  console.log(JSON.stringify({ skipped: "TAUBRIDGE_SHARED with tau2-bench/banking_knowledge is not set" }));
  process.exit(0);
}

const BUILDS = 20;
const QUERY_PASSES = 50;
const GREP_PASSES = 5;

const fixture = JSON.parse(readFileSync(join(root, "fixtures", "retrieval_banking_knowledge.json"), "utf8")) as {
  bm25_queries: Array<{ query: string }>;
  grep_patterns: Array<{ pattern: string }>;
};
const queries = fixture.bm25_queries.map((entry) => entry.query);
const patterns = fixture.grep_patterns.map((entry) => entry.pattern);

/** Median, p50, p99 and min of a list of milliseconds, rounded to microseconds. */
function summary(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (fraction: number) => Number(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))].toFixed(3));
  return { samples: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), minMs: Number(sorted[0].toFixed(3)) };
}

function ours() {
  const loadStarted = performance.now();
  const knowledgeBase = KnowledgeBase.load(join(root, "banking_knowledge", "documents"));
  const loadMs = performance.now() - loadStarted;
  const texts = knowledgeBase.documents.map((document) => document.content);
  const builds: number[] = [];
  for (let build = 0; build < BUILDS + 2; build++) {
    const started = performance.now();
    new Bm25Okapi(texts.map(tokenize));
    if (build >= 2) builds.push(performance.now() - started); // two warm-up builds (JIT)
  }
  const retriever = new Bm25Retriever(knowledgeBase);
  const queryTimes: number[] = [];
  const topScores: Array<Array<[string, number]>> = queries.map((query) => retriever.retrieve(query).map(([id, score]) => [id, score]));
  for (let pass = 0; pass < QUERY_PASSES; pass++) {
    for (const query of queries) {
      const started = performance.now();
      retriever.retrieve(query);
      queryTimes.push(performance.now() - started);
    }
  }
  const grep = new GrepRetriever(knowledgeBase);
  const grepTimes: number[] = [];
  for (let pass = 0; pass < GREP_PASSES + 1; pass++) {
    for (const pattern of patterns) {
      const started = performance.now();
      grep.retrieve(pattern);
      if (pass > 0) grepTimes.push(performance.now() - started);
    }
  }
  return {
    result: { knowledgeBaseLoadMs: Number(loadMs.toFixed(1)), indexBuild: summary(builds), bm25Query: summary(queryTimes), grep: summary(grepTimes) },
    topScores,
  };
}

/** The original, measured by CPython: rank_bm25's BM25Okapi and `re`, as τ³'s BM25Retriever and GrepRetriever call them. */
const ORIGINAL = `
import importlib.util, json, os, re, sys, time
spec = importlib.util.spec_from_file_location("rank_bm25", os.environ["TAUBRIDGE_RANK_BM25"])
rank_bm25 = importlib.util.module_from_spec(spec); spec.loader.exec_module(rank_bm25)
config = json.load(sys.stdin)
folder = config["documents"]
docs = [json.load(open(os.path.join(folder, name))) for name in sorted(os.listdir(folder)) if name.endswith(".json")]
ids = [doc["id"] for doc in docs]; texts = [doc["content"] for doc in docs]
def summary(times):
    times = sorted(t * 1000 for t in times)
    at = lambda f: round(times[min(len(times) - 1, int(len(times) * f))], 3)
    return {"samples": len(times), "p50Ms": at(0.5), "p99Ms": at(0.99), "minMs": round(times[0], 3)}
builds = []
for build in range(config["builds"] + 2):
    started = time.perf_counter()
    okapi = rank_bm25.BM25Okapi([text.lower().split() for text in texts])
    if build >= 2: builds.append(time.perf_counter() - started)
def retrieve(query):
    if not query or not query.strip(): return []
    scores = okapi.get_scores(query.lower().split())
    ranked = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)[:min(10, len(ids))]
    return [(ids[i], float(scores[i])) for i in ranked]
top = [retrieve(query) for query in config["queries"]]
query_times = []
for _ in range(config["passes"]):
    for query in config["queries"]:
        started = time.perf_counter(); retrieve(query); query_times.append(time.perf_counter() - started)
def grep(pattern):
    if not pattern.strip(): return []
    try: compiled = re.compile(pattern, re.IGNORECASE)
    except re.error: compiled = re.compile(re.escape(pattern), re.IGNORECASE)
    results = [(doc_id, float(len(compiled.findall(text)))) for doc_id, text in zip(ids, texts)]
    results = [item for item in results if item[1]]
    results.sort(key=lambda item: item[1], reverse=True)
    return results[:10]
grep_times = []
for grep_pass in range(config["grepPasses"] + 1):
    for pattern in config["patterns"]:
        started = time.perf_counter(); grep(pattern)
        if grep_pass > 0: grep_times.append(time.perf_counter() - started)
print(json.dumps({"result": {"indexBuild": summary(builds), "bm25Query": summary(query_times), "grep": summary(grep_times)}, "topScores": top}))
`;

function original(): { result: Record<string, unknown>; topScores?: unknown } {
  const path = process.env.TAUBRIDGE_RANK_BM25;
  if (!path || !existsSync(path)) return { result: { skipped: "set TAUBRIDGE_RANK_BM25 to the path of rank_bm25.py (rank_bm25 0.2.2) to measure the original" } };
  const input = JSON.stringify({ documents: join(root, "banking_knowledge", "documents"), queries, patterns, builds: BUILDS, passes: QUERY_PASSES, grepPasses: GREP_PASSES });
  const run = spawnSync("python3", ["-c", ORIGINAL], { input, encoding: "utf8", env: { ...process.env, TAUBRIDGE_RANK_BM25: path }, maxBuffer: 1 << 26 });
  if (run.error || run.status !== 0)
    return { result: { skipped: `python3 with numpy could not run rank_bm25: ${(run.error?.message ?? run.stderr.trim().split("\n").at(-1)) || `exit ${run.status}`}` } };
  return JSON.parse(run.stdout);
}

const mine = ours();
const theirs = original();
type Timing = { p50Ms: number; p99Ms: number };
const ratio = (key: "indexBuild" | "bm25Query" | "grep", field: keyof Timing) => {
  const theirsTiming = theirs.result[key] as Timing | undefined;
  return theirsTiming ? Number((theirsTiming[field] / (mine.result[key] as Timing)[field]).toFixed(1)) : undefined;
};
console.log(
  JSON.stringify(
    {
      documents: 698,
      queries: queries.length,
      grepPatterns: patterns.length,
      ours: mine.result,
      original: theirs.result,
      originalOverOurs: theirs.topScores
        ? {
            indexBuildP50: ratio("indexBuild", "p50Ms"),
            bm25QueryP50: ratio("bm25Query", "p50Ms"),
            bm25QueryP99: ratio("bm25Query", "p99Ms"),
            grepP50: ratio("grep", "p50Ms"),
            grepP99: ratio("grep", "p99Ms"),
          }
        : undefined,
      sameTopTenAndScores: theirs.topScores ? JSON.stringify(theirs.topScores) === JSON.stringify(mine.topScores) : undefined,
    },
    null,
    2,
  ),
);
