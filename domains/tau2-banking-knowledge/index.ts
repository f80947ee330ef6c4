/**
 * τ³'s `banking_knowledge` domain (`domains/banking_knowledge/environment.py`, `get_environment`):
 * a bank's back office whose procedures live in a knowledge base the agent searches, with hidden
 * tools it unlocks or gives to the customer. The retrieval variant (`--retrieval-config`, default
 * `alltools`) decides the agent's retrieval tools and policy; the offline variants run on their
 * own, the embedding and reranker variants with the backends the suite passes in `services`
 * (src/suites/tau2/knowledge/variants.ts says which need what). One database serves both
 * toolkits; solo mode is refused, as the original refuses it.
 */
import { join } from "node:path";
import type { Tau2DomainConfig, Tau2DomainContext, Tau2DomainDefinition, Tau2DomainSetup } from "../../src/suites/tau2/engine/domain.ts";
import { type Tau2Method, tau2AsyncTool, tau2Tool } from "../../src/suites/tau2/engine/toolkit.ts";
import type { Tau2DomainTask } from "../../src/suites/tau2/engine/domain.ts";
import {
  Bm25Retriever,
  type Clock,
  DEFAULT_RETRIEVAL_VARIANT,
  KbSearchPipeline,
  KnowledgeBase,
  KnowledgeSearchTools,
  bm25Stages,
  denseStages,
  type RetrievalBackends,
  type RetrievalVariantSpec,
  checkVariantRunnable,
  resolveRetrievalVariant,
} from "../../src/suites/tau2/knowledge/index.ts";
import { type PyDict, type PyValue, pyRepr } from "../../src/value/index.ts";
import { ConfigError } from "../../src/errors/error-tree.ts";
import { transactionalDbModel } from "./data-model.ts";
import { bankText, queryText } from "./messages.ts";
import { infoPolicy, retrievalText, variantPolicy } from "./policy.ts";
import { composedKnowledgeTools, knowledgeTools } from "./tools.ts";
import { knowledgeUserTools } from "./user-tools.ts";

/** What a caller may hand the domain through `Tau2DomainConfig.services`: online backends, and the KB_search clock. */
export interface BankingServices {
  backends?: RetrievalBackends;
  /** The clock of KB_search's timing suffix (default: wall clock; `FROZEN_CLOCK` for reproducible texts). */
  clock?: Clock;
}

const KWARG_NAMES = ["top_k", "grep_top_k", "case_sensitive", "reranker_min_score"] as const;

/** The overrides `resolve_variant` applies to a variant's pipeline specs. */
interface RetrievalOptions {
  topK?: number;
  grepTopK?: number;
  caseSensitive?: boolean;
  rerankerMinScore?: number;
}

/** `resolve_variant(name, **kwargs)`'s overrides, checked (unknown keys are ignored, as `**_extra` is). */
function retrievalKwargs(kwargs: PyDict | null | undefined): RetrievalOptions {
  const options: RetrievalOptions = {};
  const value = (key: (typeof KWARG_NAMES)[number]): PyValue | undefined => kwargs?.get(key);
  for (const key of ["top_k", "grep_top_k", "reranker_min_score"] as const) {
    const given = value(key);
    if (given !== undefined && given !== null && !(typeof given === "number" && Number.isInteger(given)))
      throw new ConfigError(`--retrieval-config-kwargs: ${key} must be an integer, got ${pyRepr(given)}`);
  }
  const caseSensitive = value("case_sensitive");
  if (caseSensitive !== undefined && caseSensitive !== null && typeof caseSensitive !== "boolean")
    throw new ConfigError(`--retrieval-config-kwargs: case_sensitive must be true or false, got ${pyRepr(caseSensitive)}`);
  if (typeof value("top_k") === "number") options.topK = value("top_k") as number;
  if (typeof value("grep_top_k") === "number") options.grepTopK = value("grep_top_k") as number;
  if (typeof caseSensitive === "boolean") options.caseSensitive = caseSensitive;
  if (typeof value("reranker_min_score") === "number") options.rerankerMinScore = value("reranker_min_score") as number;
  return options;
}

/** A model-backed KB_search (`_run_kb_search` over the variant's pipeline) and its preparation (the documents embedded). */
interface OnlineSearch {
  search(query: PyValue | undefined): Promise<string>;
  ready(): Promise<void>;
}

/**
 * The KB_search pipeline of an embedding or reranker variant (`PipelineSpec`: dense or BM25
 * retrieval with the variant's `top_k`, then the pointwise reranker with `reranker_min_score`), over
 * the backends `checkVariantRunnable` found; undefined for the offline variants. The documents are
 * embedded once, on the first need (the run prepares it before its first episode; the backends
 * share the retriever and cache its vectors on disk), so a run refused for another reason sends nothing.
 */
function onlineSearch(variant: RetrievalVariantSpec, knowledgeBase: KnowledgeBase, dataRoot: string, options: RetrievalOptions, services: BankingServices): OnlineSearch | undefined {
  const backends = services.backends ?? {};
  if (!variant.tools.includes("KB_search") || (!variant.needs.embedder && !variant.needs.reranker)) return undefined;
  const topK = options.topK ?? 10;
  const reranker = variant.needs.reranker && backends.reranker ? backends.reranker(options.rerankerMinScore !== undefined ? { minScore: options.rerankerMinScore } : {}) : undefined;
  const pipelineOptions = { dataRoot, ...(reranker ? { reranker } : {}), ...(services.clock ? { clock: services.clock } : {}) };
  const dense = variant.needs.embedder ? backends.dense : undefined;
  if (dense) {
    let pipeline: Promise<KbSearchPipeline<ArrayLike<number>>> | undefined;
    const built = () => (pipeline ??= dense(knowledgeBase, { topK }).then((retriever) => new KbSearchPipeline(knowledgeBase, denseStages(retriever), pipelineOptions)));
    return { search: async (query) => (await built()).search(query), ready: async () => void (await built()) };
  }
  const pipeline = new KbSearchPipeline(knowledgeBase, bm25Stages(new Bm25Retriever(knowledgeBase, topK)), pipelineOptions);
  return { search: (query) => pipeline.search(query), ready: async () => undefined };
}

/** The variant's retrieval tools (`KBSearchMixin.KB_search`, `GrepMixin.grep`): the offline engine's, or the model-backed KB_search. */
function retrievalTools(variant: RetrievalVariantSpec, search: KnowledgeSearchTools, online: OnlineSearch | undefined): Tau2Method[] {
  const tools: Tau2Method[] = [];
  if (variant.tools.includes("KB_search")) {
    const kbSearch = online
      ? tau2AsyncTool("KB_search", "read", ["query"], (_self, { query }) => online.search(query))
      : tau2Tool("KB_search", "read", ["query"], (_self, { query }) => search.kbSearch(query));
    tools.push({ ...kbSearch, owner: "KBSearchMixin" });
  }
  if (variant.tools.includes("grep")) tools.push({ ...tau2Tool("grep", "read", ["pattern"], (_self, { pattern }) => search.grep(pattern)), owner: "GrepMixin" });
  return tools;
}

/** `_derive_read_log_allowlist`: the tools the task's gold `call_discoverable_agent_tool` actions name. */
export function readLogAllowlist(task: Tau2DomainTask | undefined): Set<string> {
  const names = new Set<string>();
  for (const action of task?.evaluation_criteria?.actions ?? []) {
    const name = action.arguments.get("agent_tool_name");
    if (action.name === "call_discoverable_agent_tool" && typeof name === "string") names.add(name);
  }
  return names;
}

/** τ³'s environment factory for this domain (variant, its kwargs, the task and the read-log allowlist), once per run. */
function configureBanking(config: Tau2DomainConfig, context: Tau2DomainContext): Tau2DomainSetup {
  const requested = config.retrievalConfig ?? DEFAULT_RETRIEVAL_VARIANT;
  const variant = resolveRetrievalVariant(requested);
  const services = (config.services ?? {}) as BankingServices;
  let runnable = true;
  try {
    checkVariantRunnable(variant, services.backends);
  } catch (error) {
    if (!config.scoringOnly || !ConfigError.isInstance(error)) throw error;
    runnable = false; // scoring replays no read tool: the variant's retrieval tools may stay absent
  }
  const options = retrievalKwargs(config.retrievalConfigKwargs);
  retrievalText.load(context.dataRoot);
  const knowledgeBase = KnowledgeBase.load(join(context.directory, "documents"));
  const { rerankerMinScore: _minScore, ...offlineOptions } = options;
  const search = new KnowledgeSearchTools(knowledgeBase, context.dataRoot, { ...offlineOptions, ...(services.clock ? { clock: services.clock } : {}) });
  const online = runnable ? onlineSearch(variant, knowledgeBase, context.dataRoot, options, services) : undefined;
  const plainPolicy = variant.promptBuilder === "golden" ? undefined : variantPolicy(context.read, variant, knowledgeBase, null);
  return {
    agentToolkit: composedKnowledgeTools(variant.toolkitClass, runnable ? retrievalTools(variant, search, online) : []),
    ...(online ? { prepare: () => online.ready() } : {}),
    policy: (task) => plainPolicy ?? variantPolicy(context.read, variant, knowledgeBase, task?.required_documents ?? null),
    infoPolicy: infoPolicy(context.read, variant, knowledgeBase),
    environmentContext: (task) => (task ? { task, readLogAllowlist: readLogAllowlist(task) } : {}),
    recorded: { retrievalConfig: requested, retrievalConfigKwargs: config.retrievalConfigKwargs ?? null },
    toolSources: {
      agent: { module: "tau2.domains.banking_knowledge.retrieval_toolkits", className: variant.toolkitClass },
      user: { module: "tau2.domains.banking_knowledge.tools", className: "KnowledgeUserTools" },
    },
  };
}

/** `--domain banking_knowledge`. */
export const tau2BankingKnowledgeDomain: Tau2DomainDefinition = {
  name: "banking_knowledge",
  folder: "banking_knowledge",
  databases: { agent: { file: "db.json", schema: transactionalDbModel } },
  userSharesAgentDatabase: true,
  agentToolkit: knowledgeTools,
  userToolkit: knowledgeUserTools,
  supportsSolo: false,
  policy: () => {
    throw new Error("banking_knowledge's policy depends on its retrieval config: load the domain with loadTau2Domain, which configures it");
  },
  messages: [bankText, queryText, retrievalText],
  configure: configureBanking,
};

export { knowledgeTools, knowledgeUserTools };
