/**
 * The cached entry points of the τ² extraction: tool schemas per domain and prompt templates, read
 * once per data root (and domain) from `<dataRoot>/upstream-src/src/tau2/` and kept in memory for
 * the life of the process. A cold extraction parses a few thousand lines of Python; measured on the
 * shared export it takes tens of milliseconds per domain (see the README), so runs pay it once.
 */
import { resolve } from "node:path";
import type { PythonSourceTree } from "../../../../data/python-source/modules.ts";
import { readTau2PromptTemplates, type Tau2PromptTemplates } from "./prompts.ts";
import { tau2SourceTree } from "./sources.ts";
import { readTau2ToolkitClasses, readTau2Tools, type Tau2ToolsExtraction } from "./tools.ts";

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
    extraction = readTau2Tools(dataRoot, domain, treeFor(dataRoot));
    tools.set(key, extraction);
  }
  return extraction;
}

/** The tools of named toolkit classes (τ³ banking's variant toolkits), cached per data root and classes. */
export function extractTau2ToolkitClasses(dataRoot: string, domain: string, agent: { module: string; className: string }, user?: { module: string; className: string }): Tau2ToolsExtraction {
  const key = `${resolve(dataRoot)}\0${domain}\0${agent.module}:${agent.className}\0${user ? `${user.module}:${user.className}` : ""}`;
  let extraction = tools.get(key);
  if (!extraction) {
    extraction = readTau2ToolkitClasses(treeFor(dataRoot), domain, agent, user);
    tools.set(key, extraction);
  }
  return extraction;
}

/** τ²'s prompt templates (cached per data root). */
export function extractTau2Prompts(dataRoot: string): Tau2PromptTemplates {
  const key = resolve(dataRoot);
  let templates = prompts.get(key);
  if (!templates) {
    templates = readTau2PromptTemplates(dataRoot, treeFor(dataRoot));
    prompts.set(key, templates);
  }
  return templates;
}

/** Forgets every cached extraction (tests, or after `data pull` replaced the sources). */
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
