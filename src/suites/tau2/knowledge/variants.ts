/**
 * τ³ banking's retrieval variants (`domains/banking_knowledge/retrieval.py`, `RETRIEVAL_VARIANTS`):
 * every name `--retrieval-config` accepts, its prompt template, its composed toolkit class and
 * retrieval tools, and what it needs beyond this process — an embedder, an LLM reranker, the
 * original's `srt` shell sandbox. This table is the one place that decides whether a variant can
 * run here: {@link checkVariantRunnable} refuses, in one line, a variant whose backend or sandbox
 * tools are missing. The offline ones (BM25, grep, no/full/golden knowledge) need nothing.
 */
import { ConfigError } from "../../../errors/error-tree.ts";
import type { DenseRetriever } from "./dense.ts";
import type { KnowledgeBase } from "./knowledge-base.ts";
import type { PointwiseReranker } from "./reranker.ts";
import { checkSandboxAvailability, type SandboxAvailability, type SandboxRuntime } from "./sandbox-runtime.ts";

/** The retrieval tools a variant's agent toolkit adds before the banking tools (mixins in MRO order). */
export type RetrievalToolName = "KB_search" | "grep" | "KB_search_bm25" | "KB_search_dense" | "shell";

/** How a variant's policy is assembled (`standard_prompt`, `full_kb_prompt`, `golden_prompt`). */
export type PromptBuilderName = "standard" | "full_kb" | "golden";

/** The embedding backend a dense search needs (`PipelineSpec.embedder_type` / `embedder_model`). */
export interface EmbedderSpec {
  type: "openai" | "openrouter";
  model: string;
}

/** One registered variant. */
export interface RetrievalVariantSpec {
  name: string;
  /** Under `<banking_knowledge>/prompts/`. */
  promptTemplate: string;
  promptBuilder: PromptBuilderName;
  toolkitClass: string;
  tools: readonly RetrievalToolName[];
  /** `supports_top_k`. */
  supportsTopK: boolean;
  /** What it needs that this process does not provide by itself. */
  needs: { embedder?: EmbedderSpec; reranker?: boolean; shell?: { allowWrites: boolean } };
}

const OPENAI: EmbedderSpec = { type: "openai", model: "text-embedding-3-large" };
const QWEN: EmbedderSpec = { type: "openrouter", model: "qwen3-embedding-8b" };

function rag(name: string, prompt: string, grep: boolean, embedder: EmbedderSpec | undefined, reranker: boolean): RetrievalVariantSpec {
  return {
    name,
    promptTemplate: prompt,
    promptBuilder: "standard",
    toolkitClass: grep ? "KnowledgeToolsWithKBSearchAndGrep" : "KnowledgeToolsWithKBSearch",
    tools: grep ? ["KB_search", "grep"] : ["KB_search"],
    supportsTopK: true,
    needs: { ...(embedder ? { embedder } : {}), ...(reranker ? { reranker } : {}) },
  };
}

const plain = (name: string, prompt: string, builder: PromptBuilderName): RetrievalVariantSpec => ({
  name,
  promptTemplate: prompt,
  promptBuilder: builder,
  toolkitClass: "KnowledgeToolsPlain",
  tools: [],
  supportsTopK: false,
  needs: {},
});

const shell = (name: string, prompt: string, allowWrites: boolean): RetrievalVariantSpec => ({
  name,
  promptTemplate: prompt,
  promptBuilder: "standard",
  toolkitClass: "KnowledgeToolsWithShell",
  tools: ["shell"],
  supportsTopK: false,
  needs: { shell: { allowWrites } },
});

const allTools = (name: string, embedder: EmbedderSpec): RetrievalVariantSpec => ({
  name,
  promptTemplate: "all_tools.md",
  promptBuilder: "standard",
  toolkitClass: "KnowledgeToolsAllTools",
  tools: ["KB_search_bm25", "KB_search_dense", "shell"],
  supportsTopK: false,
  needs: { embedder, shell: { allowWrites: false } },
});

/** `RETRIEVAL_VARIANTS`, in the original's registration order. */
export const RETRIEVAL_VARIANTS: readonly RetrievalVariantSpec[] = [
  plain("no_knowledge", "no_knowledge.md", "standard"),
  plain("full_kb", "full_kb.md", "full_kb"),
  plain("golden_retrieval", "required_docs.md", "golden"),
  rag("qwen_embeddings_grep", "classic_rag_qwen.md", true, QWEN, false),
  rag("openai_embeddings_grep", "classic_rag_openai.md", true, OPENAI, false),
  rag("qwen_embeddings_reranker_grep", "classic_rag_qwen.md", true, QWEN, true),
  rag("openai_embeddings_reranker_grep", "classic_rag_openai.md", true, OPENAI, true),
  rag("bm25_grep", "classic_rag_bm25.md", true, undefined, false),
  rag("bm25_reranker_grep", "classic_rag_bm25.md", true, undefined, true),
  rag("qwen_embeddings", "classic_rag_qwen_no_grep.md", false, QWEN, false),
  rag("openai_embeddings", "classic_rag_openai_no_grep.md", false, OPENAI, false),
  rag("qwen_embeddings_reranker", "classic_rag_qwen_no_grep.md", false, QWEN, true),
  rag("openai_embeddings_reranker", "classic_rag_openai_no_grep.md", false, OPENAI, true),
  rag("bm25", "classic_rag_bm25_no_grep.md", false, undefined, false),
  rag("bm25_reranker", "classic_rag_bm25_no_grep.md", false, undefined, true),
  { name: "grep_only", promptTemplate: "grep_only.md", promptBuilder: "standard", toolkitClass: "KnowledgeToolsWithGrep", tools: ["grep"], supportsTopK: true, needs: {} },
  shell("terminal_use", "agentic_search.md", false),
  shell("terminal_use_write", "agentic_search_write.md", true),
  allTools("alltools", OPENAI),
  allTools("alltools-qwen", QWEN),
];

/** `RETRIEVAL_VARIANT_ALIASES`. */
export const RETRIEVAL_VARIANT_ALIASES: Readonly<Record<string, string>> = { AllTools: "alltools" };

/** `DEFAULT_RETRIEVAL_VARIANT` (τ²'s `RunConfig` forces it for this domain when none is given). */
export const DEFAULT_RETRIEVAL_VARIANT = "alltools";

/** The variants this process runs with no backend at all. */
export const OFFLINE_VARIANTS: readonly string[] = RETRIEVAL_VARIANTS.filter((variant) => Object.keys(variant.needs).length === 0).map((variant) => variant.name);

/**
 * Backends a caller may supply for the online variants (the suite builds them over real clients in
 * `src/suites/tau2/retrieval-backends.ts`; this folder and the domains only see these shapes). A
 * variant that needs one that is absent is refused. The shell sandbox is not a backend: it runs
 * here whenever `srt` and its system tools are installed (`sandbox-runtime.ts`).
 */
export interface RetrievalBackends {
  /**
   * The dense retriever over a knowledge base with the variant's `top_k` (KB_search /
   * KB_search_dense), in the embedding space the backends were built for; the promise settles once
   * every document is embedded (or read from the cache).
   */
  dense?: (knowledgeBase: KnowledgeBase, options?: { topK?: number }) => Promise<DenseRetriever>;
  /** The pointwise LLM reranker with the variant's `reranker_min_score`. */
  reranker?: (options?: { minScore?: number }) => PointwiseReranker;
}

/** The variant a name denotes (aliases resolved), or a ConfigError listing the names, as `resolve_variant` does. */
export function resolveRetrievalVariant(name: string): RetrievalVariantSpec {
  const canonical = RETRIEVAL_VARIANT_ALIASES[name] ?? name;
  const found = RETRIEVAL_VARIANTS.find((variant) => variant.name === canonical);
  if (!found) throw new ConfigError(`unknown retrieval config '${name}'; known: ${RETRIEVAL_VARIANTS.map((variant) => variant.name).join(", ")}`);
  return found;
}

/**
 * Refuses a variant whose backend is not available, in one line (exit 2): an embedder or reranker
 * that `backends` does not provide, or — for the shell variants — the sandbox's `srt` or one of its
 * system tools (`sandbox` is consulted only then; by default it looks at this machine). Names what
 * is missing, how a run provides it, and the offline variants. Returns the sandbox's runtime when
 * the variant has a shell.
 */
export function checkVariantRunnable(variant: RetrievalVariantSpec, backends: RetrievalBackends = {}, sandbox: () => SandboxAvailability = checkSandboxAvailability): SandboxRuntime | undefined {
  const offline = `offline variants: ${OFFLINE_VARIANTS.join(", ")}`;
  const missing: string[] = [];
  if (variant.needs.embedder && !backends.dense)
    missing.push(`a ${variant.needs.embedder.type} embedder (${variant.needs.embedder.model}), which is not available (give --embedder-base-url or the embedder's API key)`);
  if (variant.needs.reranker && !backends.reranker) missing.push("the pointwise LLM reranker, which is not available (give --reranker-base-url or the reranker's API key)");
  const availability = variant.needs.shell ? sandbox() : undefined;
  if (availability && !availability.ok) missing.push(`τ²'s shell sandbox, but ${availability.problem}`);
  if (missing.length > 0) throw new ConfigError(`retrieval config '${variant.name}' needs ${missing.join(", and ")}; ${offline}`);
  return availability?.ok ? availability.runtime : undefined;
}
