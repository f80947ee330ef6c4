/**
 * The load-time hooks of every Node framework adapter, for the preload entry
 * (`adapters/register.ts`). Importing this module imports no framework.
 */
import type { ModuleHook } from "../bridge/node/hooks.ts";
import { langChainHook } from "./langchain/patch.ts";
import { mastraHook } from "./mastra/patch.ts";
import { openAIAgentsHook } from "./openai-agents/patch.ts";
import { vercelAIHook } from "./vercel-ai/patch.ts";

/** Adapter name → its hook. */
export const frameworkHooks: Readonly<Record<string, ModuleHook>> = {
  "openai-agents": openAIAgentsHook,
  "vercel-ai": vercelAIHook,
  langchain: langChainHook,
  mastra: mastraHook,
};
