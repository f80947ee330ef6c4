/**
 * τ³'s `banking_knowledge` domain (`domains/banking_knowledge/environment.py`, `get_environment`):
 * a bank's back office whose procedures live in a knowledge base the agent searches, with hidden
 * tools it unlocks or gives to the customer. The retrieval variant (`--retrieval-config`, default
 * `alltools`) decides the agent's retrieval tools and policy; the offline variants run on their
 * own, the embedding and reranker variants with the backends the suite passes in `services`, the
 * shell variants (terminal_use, terminal_use_write, alltools) with τ²'s `srt` sandbox when it and
 * its system tools are installed (src/suites/tau2/knowledge/variants.ts says which need what). One
 * database serves both toolkits; solo mode is refused, as the original refuses it.
 */
import { join } from "node:path";
import type { Tau2DomainConfig, Tau2DomainContext, Tau2DomainDefinition, Tau2DomainSetup } from "../../src/suites/tau2/engine/domain.ts";
import { type Tau2Method, type Tau2ToolkitInstance, tau2AsyncTool, tau2Tool } from "../../src/suites/tau2/engine/toolkit.ts";
import type { Tau2Environment } from "../../src/suites/tau2/engine/environment.ts";
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
  type SandboxAvailability,
  SandboxManager,
  type SandboxOptions,
  type SandboxRuntime,
  checkSandboxRuns,
  checkVariantRunnable,
  resolveRetrievalVariant,
  shellToolText,
} from "../../src/suites/tau2/knowledge/index.ts";
import { type PyDict, type PyValue, pyRepr } from "../../src/value/index.ts";
import { ConfigError, InfraError } from "../../src/errors/error-tree.ts";
import { transactionalDbModel } from "./data-model.ts";
import { bankText, queryText } from "./messages.ts";
import { infoPolicy, retrievalText, variantPolicy } from "./policy.ts";
import { composedKnowledgeTools, knowledgeTools } from "./tools.ts";
import { knowledgeUserTools } from "./user-tools.ts";

/** What a caller may hand the domain through `Tau2DomainConfig.services`: online backends, the KB_search clock, the sandbox's checks. */
export interface BankingServices {
  backends?: RetrievalBackends;
  /** The clock of KB_search's timing suffix (default: wall clock; `FROZEN_CLOCK` for reproducible texts). */
  clock?: Clock;
  /** Whether the shell sandbox can run (default: this machine's `srt` and PATH, `checkSandboxAvailability`). */
  sandbox?: () => SandboxAvailability;
  /** Where sandbox directories are made (default: the system temp directory, as the original). */
  sandboxBaseDir?: string;
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

/** A KB search over the variant's pipeline (`_run_kb_search`) and its preparation (the documents embedded). */
interface PipelineSearch {
  search(query: PyValue | undefined, k?: PyValue): Promise<string>;
  ready(): Promise<void>;
}

/** A variant's pipeline-backed searches (none for the offline variants, whose tools are `KnowledgeSearchTools`). */
interface Pipelines {
  readonly kbSearch?: PipelineSearch;
  readonly bm25?: PipelineSearch;
  readonly dense?: PipelineSearch;
}

/**
 * The model-backed or AllTools KB searches of a variant (`PipelineSpec`: dense or BM25 retrieval
 * with the variant's `top_k`, then the pointwise reranker with `reranker_min_score`), over the
 * backends `checkVariantRunnable` found: `kbSearch` for an embedding or reranker variant's
 * `KB_search`, `bm25` and `dense` for AllTools' `KB_search_bm25` / `KB_search_dense`. The documents
 * are embedded once, on the first need (the run prepares it before its first episode; the backends
 * share the retriever and cache its vectors on disk), so a run refused for another reason sends nothing.
 */
function pipelineSearches(variant: RetrievalVariantSpec, knowledgeBase: KnowledgeBase, dataRoot: string, options: RetrievalOptions, services: BankingServices): Pipelines {
  const backends = services.backends ?? {};
  const topK = options.topK ?? 10;
  const pipelineOptions = { dataRoot, ...(services.clock ? { clock: services.clock } : {}) };
  const bm25 = (): PipelineSearch => {
    const reranker = variant.needs.reranker && backends.reranker ? backends.reranker(options.rerankerMinScore !== undefined ? { minScore: options.rerankerMinScore } : {}) : undefined;
    const pipeline = new KbSearchPipeline(knowledgeBase, bm25Stages(new Bm25Retriever(knowledgeBase, topK)), { ...pipelineOptions, ...(reranker ? { reranker } : {}) });
    return { search: (query, k) => pipeline.search(query, k), ready: async () => undefined };
  };
  const dense = (): PipelineSearch | undefined => {
    const embed = variant.needs.embedder ? backends.dense : undefined;
    if (!embed) return undefined;
    const reranker = variant.needs.reranker && backends.reranker ? backends.reranker(options.rerankerMinScore !== undefined ? { minScore: options.rerankerMinScore } : {}) : undefined;
    let pipeline: Promise<KbSearchPipeline<ArrayLike<number>>> | undefined;
    const built = () =>
      (pipeline ??= embed(knowledgeBase, { topK }).then((retriever) => new KbSearchPipeline(knowledgeBase, denseStages(retriever), { ...pipelineOptions, ...(reranker ? { reranker } : {}) })));
    return { search: async (query, k) => (await built()).search(query, k), ready: async () => void (await built()) };
  };
  const modelBacked = variant.tools.includes("KB_search") && (variant.needs.embedder !== undefined || variant.needs.reranker === true);
  const kbSearch = modelBacked ? (dense() ?? bm25()) : undefined;
  const allToolsDense = variant.tools.includes("KB_search_dense") ? dense() : undefined;
  return {
    ...(kbSearch ? { kbSearch } : {}),
    ...(variant.tools.includes("KB_search_bm25") ? { bm25: bm25() } : {}),
    ...(allToolsDense ? { dense: allToolsDense } : {}),
  };
}

/** Where an environment keeps its sandbox (`self._sandbox`), made on its first shell call. */
const SANDBOX = "banking_knowledge.sandbox";
/** Set once the environment is dropped: no sandbox is made after that. */
const SANDBOX_GONE = "banking_knowledge.sandbox-gone";

/** The shell sandbox a variant's environments get (`ShellSpec`): writable or not, over the knowledge base's documents. */
interface ShellSetup {
  readonly options: Omit<SandboxOptions, "sandboxId">;
  readonly knowledgeBase: KnowledgeBase;
}

/**
 * The environment's sandbox: made on its first `shell` call (`_create_sandbox`: the directory, the
 * srt settings and the exported knowledge base), then kept for the environment's life. The original
 * makes it when the environment is built; made lazily, an environment whose agent never calls
 * `shell` (and every evaluator replay) costs no export, and nothing the agent can read differs.
 */
function sandboxOf(self: Tau2ToolkitInstance, shell: ShellSetup): Promise<SandboxManager> {
  if (self.memory.has(SANDBOX_GONE)) throw new InfraError("this environment was dropped: its sandbox is gone");
  let sandbox = self.memory.get(SANDBOX) as Promise<SandboxManager> | undefined;
  if (!sandbox) {
    sandbox = SandboxManager.create(shell.options, shell.knowledgeBase.documents);
    self.memory.set(SANDBOX, sandbox);
  }
  return sandbox;
}

/** `SandboxManager.cleanup()` when the environment is dropped (the original leaves the directory behind). */
async function disposeSandbox(environment: Tau2Environment): Promise<void> {
  const memory = environment.agent.memory;
  memory.set(SANDBOX_GONE, true);
  const sandbox = memory.get(SANDBOX) as Promise<SandboxManager> | undefined;
  memory.delete(SANDBOX);
  if (!sandbox) return;
  let made: SandboxManager;
  try {
    made = await sandbox;
  } catch {
    return; // creation failed and removed what it had made
  }
  await made.cleanup();
}

/** The variant's retrieval tools, in the mixins' order (`KBSearchMixin.KB_search`, `GrepMixin.grep`, AllTools' two searches, `ShellMixin.shell`). */
function retrievalTools(variant: RetrievalVariantSpec, search: KnowledgeSearchTools, pipelines: Pipelines, shell: ShellSetup | undefined): Tau2Method[] {
  const tools: Tau2Method[] = [];
  for (const name of variant.tools) {
    if (name === "KB_search") {
      const online = pipelines.kbSearch;
      const kbSearch = online
        ? tau2AsyncTool("KB_search", "read", ["query"], (_self, { query }) => online.search(query))
        : tau2Tool("KB_search", "read", ["query"], (_self, { query }) => search.kbSearch(query));
      tools.push({ ...kbSearch, owner: "KBSearchMixin" });
    } else if (name === "grep") {
      tools.push({ ...tau2Tool("grep", "read", ["pattern"], (_self, { pattern }) => search.grep(pattern)), owner: "GrepMixin" });
    } else if (name === "KB_search_bm25" && pipelines.bm25) {
      const bm25 = pipelines.bm25;
      tools.push({ ...tau2AsyncTool("KB_search_bm25", "read", ["query", ["k", 10]], (_self, { query, k }) => bm25.search(query, k)), owner: "KBSearchBm25AllToolsMixin" });
    } else if (name === "KB_search_dense" && pipelines.dense) {
      const dense = pipelines.dense;
      tools.push({ ...tau2AsyncTool("KB_search_dense", "read", ["query", ["k", 10]], (_self, { query, k }) => dense.search(query, k)), owner: "KBSearchDenseAllToolsMixin" });
    } else if (name === "shell" && shell) {
      tools.push({ ...tau2AsyncTool("shell", "read", ["command"], async (self, { command }) => shellToolText(await sandboxOf(self, shell), command)), owner: "ShellMixin" });
    }
  }
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
  let runtime: SandboxRuntime | undefined;
  try {
    runtime = checkVariantRunnable(variant, services.backends, services.sandbox);
  } catch (error) {
    if (!config.scoringOnly || !ConfigError.isInstance(error)) throw error;
    runnable = false; // scoring replays no read tool: the variant's retrieval tools may stay absent
  }
  const options = retrievalKwargs(config.retrievalConfigKwargs);
  retrievalText.load(context.dataRoot);
  const knowledgeBase = KnowledgeBase.load(join(context.directory, "documents"));
  const { rerankerMinScore: _minScore, ...offlineOptions } = options;
  const search = new KnowledgeSearchTools(knowledgeBase, context.dataRoot, { ...offlineOptions, ...(services.clock ? { clock: services.clock } : {}) });
  const pipelines: Pipelines = runnable ? pipelineSearches(variant, knowledgeBase, context.dataRoot, options, services) : {};
  const shell: ShellSetup | undefined =
    runtime && variant.needs.shell
      ? { knowledgeBase, options: { allowWrites: variant.needs.shell.allowWrites, dataRoot: context.dataRoot, runtime, ...(services.sandboxBaseDir ? { baseTempDir: services.sandboxBaseDir } : {}) } }
      : undefined;
  const plainPolicy = variant.promptBuilder === "golden" ? undefined : variantPolicy(context.read, variant, knowledgeBase, null);
  const searches = [pipelines.kbSearch, pipelines.bm25, pipelines.dense].filter((pipeline) => pipeline !== undefined);
  const prepare = async () => {
    if (shell) await checkSandboxRuns(shell.options); // one command through srt: a sandbox that cannot run stops the run here
    for (const pipeline of searches) await pipeline.ready();
  };
  return {
    agentToolkit: composedKnowledgeTools(variant.toolkitClass, runnable ? retrievalTools(variant, search, pipelines, shell) : []),
    ...(searches.length > 0 || shell ? { prepare } : {}),
    ...(shell ? { disposeEnvironment: disposeSandbox } : {}),
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
  defaultRetrievalConfig: DEFAULT_RETRIEVAL_VARIANT,
  policy: () => {
    throw new Error("banking_knowledge's policy depends on its retrieval config: load the domain with loadTau2Domain, which configures it");
  },
  messages: [bankText, queryText, retrievalText],
  configure: configureBanking,
};

export { knowledgeTools, knowledgeUserTools };
