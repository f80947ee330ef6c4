/**
 * The agent policy of a retrieval variant (`retrieval.py`: `load_prompt_template`,
 * `standard_prompt`, `full_kb_prompt`, `golden_prompt`, `build_policy`,
 * `get_info_policy_override`): the variant's template from `prompts/` with `{{component:NAME}}`
 * replaced by `prompts/components/NAME.md`, then the whole knowledge base (full_kb), the task's
 * required documents (golden_retrieval) or the dense-search sentence (alltools). Every text comes
 * from the data folder or `retrieval.py`.
 */
import type { Tau2PolicyReader } from "../../src/suites/tau2/engine/domain.ts";
import { UpstreamLiterals } from "../../src/suites/tau2/engine/upstream-messages.ts";
import type { KnowledgeBase, RetrievalVariantSpec } from "../../src/suites/tau2/knowledge/index.ts";

/** `retrieval.py`'s texts (the document format, separators, placeholders). */
export const retrievalText = new UpstreamLiterals("domains/banking_knowledge/retrieval.py");

/** `load_prompt_template` without the KB: components substituted. */
function withComponents(read: Tau2PolicyReader, template: string): string {
  return read(`prompts/${template}`).replace(/\{\{component:(\w+)\}\}/g, (_match, name: string) => read(`prompts/components/${name}.md`));
}

/** `## <title>\n\n<content>` of one document, in the given function's wording. */
const documentText = (where: string, title: string, content: string): string => retrievalText.say(where, 0, title, content);

/** `format_full_knowledge_base`: every document, in the knowledge base's (sorted) order. */
function fullKnowledgeBase(knowledgeBase: KnowledgeBase): string {
  return knowledgeBase.documents.map((doc) => documentText("format_full_knowledge_base", doc.title, doc.content)).join(retrievalText.say("format_full_knowledge_base", 1));
}

/** `golden_prompt`'s document list: each reference looked up by title (the last document of a title wins), then by id. */
function requiredDocuments(knowledgeBase: KnowledgeBase, references: readonly string[]): string {
  const byTitle = new Map(knowledgeBase.documents.map((doc) => [doc.title, doc]));
  const texts = references.flatMap((reference) => {
    const doc = byTitle.get(reference) ?? knowledgeBase.get(reference);
    return doc ? [documentText("golden_prompt", doc.title, doc.content)] : [];
  });
  return texts.length > 0 ? texts.join(retrievalText.say("golden_prompt", 2)) : retrievalText.say("golden_prompt", 3);
}

/** `format_all_tools_dense_instructions` for the alltools variants. */
function denseInstructions(variant: RetrievalVariantSpec): string {
  const embedder = variant.needs.embedder;
  if (!embedder) return retrievalText.say("format_all_tools_dense_instructions", 0);
  const provider = retrievalText.say("format_all_tools_dense_instructions", embedder.type === "openai" ? 2 : 4);
  return retrievalText.say("format_all_tools_dense_instructions", 7, provider, embedder.model);
}

/** `build_policy(variant, knowledge_base, task)`; `requiredDocumentIds` is the task's `required_documents` (golden_retrieval). */
export function variantPolicy(read: Tau2PolicyReader, variant: RetrievalVariantSpec, knowledgeBase: KnowledgeBase, requiredDocumentIds: readonly string[] | null): string {
  let policy = withComponents(read, variant.promptTemplate);
  if (variant.promptBuilder === "full_kb" && policy.includes("{{full_knowledge_base}}")) policy = policy.replaceAll("{{full_knowledge_base}}", fullKnowledgeBase(knowledgeBase));
  if (variant.promptBuilder === "golden") policy = policy.replaceAll(retrievalText.say("golden_prompt", 4), requiredDocuments(knowledgeBase, requiredDocumentIds ?? []));
  if (variant.tools.includes("KB_search_bm25") && variant.tools.includes("KB_search_dense")) policy = policy.replaceAll(retrievalText.say("build_policy", 0), denseInstructions(variant));
  return policy;
}

/** `get_info_policy_override`: golden_retrieval's placeholder, else the policy. */
export function infoPolicy(read: Tau2PolicyReader, variant: RetrievalVariantSpec, knowledgeBase: KnowledgeBase): string {
  if (variant.name === retrievalText.say("get_info_policy_override", 0)) return retrievalText.say("get_info_policy_override", 1);
  return variantPolicy(read, variant, knowledgeBase, null);
}
