/**
 * The prompt-template hashes of a τ² run manifest (`src/suites/tau2/manifest.ts`) are kept in the
 * derived cache with the SHA-256 of every source file they were read from: an entry answers while
 * those files are unchanged, and is derived again as soon as one of them changes. Each test works
 * on a copy of τ²'s sources and a cache folder of its own.
 */
import { chmodSync, cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { derivedCacheKey, readDerived, writeDerived } from "../../src/data/derived-cache.ts";
import { TAU2_TEMPLATE_HASHES_KIND, tau2PromptTemplateHashes } from "../../src/suites/tau2/manifest.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { useFreshDerivedCache } from "../support/fresh-derived-cache.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

/** A data root holding a writable copy of τ²'s sources and user-simulator guidelines. */
function copiedDataRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "tau2-template-sources-"));
  for (const folder of ["upstream-src", "user_simulator"]) cpSync(join(data as string, folder), join(root, folder), { recursive: true });
  return root;
}

function appendTo(path: string, text: string): void {
  chmodSync(path, 0o644);
  writeFileSync(path, readFileSync(path, "utf8") + text);
}

describe.skipIf(!data)("τ² manifest prompt-template hashes in the derived cache", () => {
  useFreshDerivedCache("tau2-template-cache-");

  it("gives the same hashes with and without the cache, and records the files it read", () => {
    const root = copiedDataRoot();
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = "off";
    const uncached = tau2PromptTemplateHashes(root, true);
    expect(Object.keys(uncached).sort()).toEqual(["agent.original", "judge.nlAssertions", "orchestrator.firstAgentMessage", "user.original"]);
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = mkdtempSync(join(tmpdir(), "tau2-template-cache-"));
    expect(tau2PromptTemplateHashes(root, true)).toEqual(uncached);
    expect(tau2PromptTemplateHashes(root, true)).toEqual(uncached);
    const entry = readDerived(TAU2_TEMPLATE_HASHES_KIND, derivedCacheKey(resolve(root), "judged")) as { files: Record<string, string | null>; hashes: Record<string, string> };
    expect(entry.hashes).toEqual(uncached);
    const files = Object.keys(entry.files);
    expect(files).toContain(join(root, "upstream-src", "src", "tau2", "agent", "llm_agent.py"));
    expect(files).toContain(join(root, "upstream-src", "src", "tau2", "evaluator", "evaluator_nl_assertions.py"));
    expect(files.filter((file) => file.startsWith(join(root, "user_simulator")))).toHaveLength(2);
    // Without the judge, its part is absent (an entry of its own).
    expect(Object.keys(tau2PromptTemplateHashes(root, false))).not.toContain("judge.nlAssertions");
  });

  it("answers from an entry while its files are unchanged, and derives again when one changes", () => {
    const root = copiedDataRoot();
    const real = tau2PromptTemplateHashes(root, false);
    const key = derivedCacheKey(resolve(root), "not judged");
    const entry = readDerived(TAU2_TEMPLATE_HASHES_KIND, key) as { files: Record<string, string | null>; hashes: Record<string, string> };
    // An entry whose hashes say something else is believed while the files are as recorded …
    writeDerived(TAU2_TEMPLATE_HASHES_KIND, key, { files: entry.files, hashes: { planted: "x" } });
    expect(tau2PromptTemplateHashes(root, false)).toEqual({ planted: "x" });
    // … and no longer once a file it was read from changes (a comment: the templates stay the same).
    appendTo(join(root, "upstream-src", "src", "tau2", "agent", "llm_agent.py"), "\n# edited\n");
    expect(tau2PromptTemplateHashes(root, false)).toEqual(real);
    // A changed template changes its hash, cache or not.
    const orchestrator = join(root, "upstream-src", "src", "tau2", "orchestrator", "orchestrator.py");
    const text = readFileSync(orchestrator, "utf8");
    const message = /DEFAULT_FIRST_AGENT_MESSAGE[^\n]*\n?[^\n]*content="([^"]+)"/.exec(text)?.[1];
    expect(message, "the orchestrator's first message in the sources").toBeTruthy();
    chmodSync(orchestrator, 0o644);
    writeFileSync(orchestrator, text.replace(message as string, `${message} (edited)`));
    const edited = tau2PromptTemplateHashes(root, false);
    expect(edited["orchestrator.firstAgentMessage"]).not.toBe(real["orchestrator.firstAgentMessage"]);
    expect(edited["agent.original"]).toBe(real["agent.original"]);
  });
});
