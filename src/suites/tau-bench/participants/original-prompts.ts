/**
 * τ-bench's own prompt templates for its act / react agents and its user simulators, taken at run
 * time from the original sources in the data directory (`<data root>/upstream-src/tau_bench/…`,
 * fetched at the pinned commit by `taubridge data pull tau-bench`), so scores are comparable with
 * the original's. The project holds none of that text: where the sources are absent (an older data
 * directory, or our own bundled domain), the strategies keep taubridge's own wording and a
 * τ-bench run says so once.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { OriginalPrompts } from "../../../core/strategies.ts";
import { parsePythonJson } from "../../../value/index.ts";
import type { LoadedDomain } from "../engine/domain.ts";
import { extractTauBenchPrompts, tauChatReactSystemPrompt, tauSupervisorPrompt, tauSupervisorTranscript, tauUserSystemPrompt, type TauBenchPromptTemplates } from "../engine/original-prompts.ts";

/** The original templates for a τ-bench domain's data, or null (not τ-bench, or no sources in the data directory). */
export function originalTauBenchPrompts(domain: LoadedDomain, warn?: (message: string) => void): TauBenchPromptTemplates | null {
  if (domain.definition.suite !== "tau-bench") return null;
  const root = dirname(domain.dataDirectory);
  if (!existsSync(join(root, "upstream-src", "tau_bench"))) {
    warn?.(
      `τ-bench's original prompts were not found in ${join(root, "upstream-src")} (run \`taubridge data pull tau-bench\` again); using taubridge's own wording, so these scores are not comparable with the original's`,
    );
    return null;
  }
  return extractTauBenchPrompts(root);
}

/** The act / react system prompt as the original builds it, as a template whose only placeholder is `{{policy}}`. */
export function originalChatReactTemplate(templates: TauBenchPromptTemplates, domain: LoadedDomain, useReasoning: boolean): string {
  return tauChatReactSystemPrompt(templates, "{{policy}}", parsePythonJson(domain.toolSchemas.pythonJson), useReasoning);
}

/** The user simulator's system prompt as the original builds it, with `{{instruction}}` where the instruction goes. */
export function originalUserTemplate(templates: TauBenchPromptTemplates, kind: "llm" | "react"): string {
  return tauUserSystemPrompt(templates, kind, "{{instruction}}");
}

/**
 * The original prompts of a τ-bench run, as the strategies' build context offers them: looked up
 * in the data directory on each call (so a run without the sources says so where each strategy is
 * built, as before), null when the domain is not τ-bench's or the sources are absent.
 */
export function originalPromptsOf(domain: LoadedDomain): (warn?: (message: string) => void) => OriginalPrompts | null {
  return (warn) => {
    const templates = originalTauBenchPrompts(domain, warn);
    if (!templates) return null;
    return {
      chatReact: (useReasoning) => originalChatReactTemplate(templates, domain, useReasoning),
      user: (kind) => originalUserTemplate(templates, kind),
      supervisor: {
        verify: (history, response) => tauSupervisorPrompt(templates, "verify", tauSupervisorTranscript(templates, history), response),
        reflect: (history, response) => tauSupervisorPrompt(templates, "reflect", tauSupervisorTranscript(templates, history), response),
      },
    };
  };
}
