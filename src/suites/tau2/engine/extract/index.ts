/**
 * The cached entry points of the τ² extraction: tool schemas per domain and prompt templates, read
 * from `<dataRoot>/upstream-src/src/tau2/` and kept in memory for the life of the process, and on
 * disk in the derived cache (`src/data/derived-cache.ts`) across processes.
 *
 * Why on disk too: a cold extraction tokenises and parses a few thousand lines of Python — about a
 * tenth of a second of CPU per domain (telecom's tools and the prompts together ~0.15–0.2 s), paid
 * by every run with a model participant, every `--workers` child and every queue worker. An entry
 * holds the extraction and the SHA-256 of every source file the tree read to make it (a file that
 * was missing recorded as such), and is believed only while each of those files still has those
 * bytes; anything else (no entry, another shape, a changed or new file) extracts again and rewrites
 * the entry. Offline runs never ask for either, so they read nothing here.
 */
import { resolve } from "node:path";
import { cachedDerivation, derivedCacheKey } from "../../../../data/derived-cache.ts";
import { fileSha256, filesUnchanged } from "../../../../data/pinned-files.ts";
import type { PythonSourceTree } from "../../../../data/python-source/modules.ts";
import { readTau2PromptTemplates, type Tau2PromptTemplates } from "./prompts.ts";
import { tau2SourceTree } from "./sources.ts";
import { isTau2PromptTemplates, isTau2ToolsExtraction } from "./stored-shapes.ts";
import { readTau2ToolkitClasses, readTau2Tools, type Tau2ToolsExtraction } from "./tools.ts";

/** Derived-cache kinds: rename (bump the suffix) whenever what is extracted, or how, changes. */
export const TAU2_TOOLS_EXTRACTION_KIND = "tau2-tools-extraction-v1";
export const TAU2_PROMPTS_EXTRACTION_KIND = "tau2-prompts-extraction-v1";

/** A derived-cache entry: the extraction and the SHA-256 of each file it was read from (null: missing). */
interface StoredExtraction<T> {
  files: Record<string, string | null>;
  value: T;
}

function storedExtraction<T>(isValue: (value: unknown) => value is T) {
  return (stored: unknown): stored is StoredExtraction<T> => {
    const entry = stored as StoredExtraction<T>;
    if (typeof entry?.files !== "object" || entry.files === null || Array.isArray(entry.files)) return false;
    return isValue(entry.value) && filesUnchanged(entry.files);
  };
}

/**
 * `extract(tree)` through the derived cache. The tree is the data root's shared one, so the files
 * recorded are every file it has read so far — those this extraction needed and maybe more, which
 * can only make the entry stricter, never let a changed input through.
 */
function cachedExtraction<T>(kind: string, dataRoot: string, keyParts: readonly string[], isValue: (value: unknown) => value is T, extract: (tree: PythonSourceTree) => T): T {
  const key = derivedCacheKey(resolve(dataRoot), ...keyParts);
  return cachedDerivation(kind, key, storedExtraction(isValue), () => {
    const tree = treeFor(dataRoot);
    const value = extract(tree);
    const files = Object.fromEntries(tree.readPaths().map((path) => [path, fileSha256(path) ?? null]));
    return { files, value };
  }).value;
}

const trees = new Map<string, PythonSourceTree>();
const tools = new Map<string, Tau2ToolsExtraction>();
const prompts = new Map<string, Tau2PromptTemplates>();

function treeFor(dataRoot: string): PythonSourceTree {
  const key = resolve(dataRoot);
  let tree = trees.get(key);
  if (!tree) {
    tree = tau2SourceTree(key);
    trees.set(key, tree);
  }
  return tree;
}

/** The agent and user tools of a τ² domain as the model sees them (cached per data root and domain). */
export function extractTau2Tools(dataRoot: string, domain: string): Tau2ToolsExtraction {
  const key = `${resolve(dataRoot)}\0${domain}`;
  let extraction = tools.get(key);
  if (!extraction) {
    extraction = cachedExtraction(TAU2_TOOLS_EXTRACTION_KIND, dataRoot, ["tools", domain], isTau2ToolsExtraction, (tree) => readTau2Tools(dataRoot, domain, tree));
    tools.set(key, extraction);
  }
  return extraction;
}

/** The tools of named toolkit classes (τ³ banking's variant toolkits), cached per data root and classes. */
export function extractTau2ToolkitClasses(dataRoot: string, domain: string, agent: { module: string; className: string }, user?: { module: string; className: string }): Tau2ToolsExtraction {
  const key = `${resolve(dataRoot)}\0${domain}\0${agent.module}:${agent.className}\0${user ? `${user.module}:${user.className}` : ""}`;
  let extraction = tools.get(key);
  if (!extraction) {
    const classes = ["toolkit classes", domain, `${agent.module}:${agent.className}`, user ? `${user.module}:${user.className}` : ""];
    extraction = cachedExtraction(TAU2_TOOLS_EXTRACTION_KIND, dataRoot, classes, isTau2ToolsExtraction, (tree) => readTau2ToolkitClasses(tree, domain, agent, user));
    tools.set(key, extraction);
  }
  return extraction;
}

/** τ²'s prompt templates (cached per data root). */
export function extractTau2Prompts(dataRoot: string): Tau2PromptTemplates {
  const key = resolve(dataRoot);
  let templates = prompts.get(key);
  if (!templates) {
    templates = cachedExtraction(TAU2_PROMPTS_EXTRACTION_KIND, dataRoot, ["prompts"], isTau2PromptTemplates, (tree) => readTau2PromptTemplates(dataRoot, tree));
    prompts.set(key, templates);
  }
  return templates;
}

/** Forgets every extraction kept in memory (tests, or after `data pull` replaced the sources; the disk entries check their files themselves). */
export function clearTau2ExtractionCache(): void {
  trees.clear();
  tools.clear();
  prompts.clear();
}

export {
  readTau2UserGuidelines,
  renderTau2UserScenario,
  type Tau2GtAction,
  type Tau2PromptTemplates,
  type Tau2UserScenario,
  tau2ActionFuncFormat,
  tau2AgentSystemPrompt,
  tau2GtSystemPrompt,
  tau2ResolutionSteps,
  tau2SoloSystemPrompt,
  tau2UserSystemPrompt,
  textwrapIndent,
} from "./prompts.ts";
export type { Tau2FunctionSchema, Tau2ToolInfo, Tau2ToolkitExtraction, Tau2ToolsExtraction } from "./tools.ts";
export { tau2SourceDomains } from "./tools.ts";
