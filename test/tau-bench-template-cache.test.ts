/**
 * The original prompt-template hashes of a τ-bench run manifest (`src/suites/tau-bench/manifest.ts`)
 * are kept in the derived cache with the SHA-256 of every source file they were read from: an entry
 * answers while those files are unchanged, and is derived again as soon as one of them changes.
 * Each test works on a copy of τ-bench's sources and a cache folder of its own.
 */
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { derivedCacheKey, readDerived, writeDerived } from "../src/data/derived-cache.ts";
import { readTauBenchPrompts } from "../src/suites/tau-bench/engine/original-prompts.ts";
import { TAU_BENCH_TEMPLATE_HASHES_KIND, tauBenchPromptTemplateHashes } from "../src/suites/tau-bench/manifest.ts";
import { sha256OfValue } from "../src/run/run-manifest.ts";
import { missingSharedReason, tauBenchDirectory } from "./support/shared-data.ts";
import { useFreshDerivedCache } from "./support/fresh-derived-cache.ts";

const data = tauBenchDirectory;
if (!data) console.warn(missingSharedReason);

/** A data root holding a writable copy of τ-bench's sources. */
function copiedDataRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "tau-bench-template-sources-"));
  cpSync(join(data as string, "upstream-src"), join(root, "upstream-src"), { recursive: true });
  return root;
}

function writable(path: string): string {
  chmodSync(path, 0o644);
  return readFileSync(path, "utf8");
}

describe.skipIf(!data)("τ-bench manifest prompt-template hashes in the derived cache", () => {
  useFreshDerivedCache("tau-bench-template-cache-");

  it("gives the hashes of the templates read, with and without the cache, and records the files it read", () => {
    const root = copiedDataRoot();
    const templates = readTauBenchPrompts(root);
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = "off";
    const uncached = tauBenchPromptTemplateHashes(root);
    expect(Object.keys(uncached).sort()).toEqual(["agent.original", "user.original", "user.supervisor"]);
    expect(uncached["user.original"]).toBe(sha256OfValue({ userPrompt: templates.userPrompt, userFirstMessage: templates.userFirstMessage }));
    process.env.TAUBRIDGE_DERIVED_CACHE_DIR = mkdtempSync(join(tmpdir(), "tau-bench-template-cache-"));
    expect(tauBenchPromptTemplateHashes(root)).toEqual(uncached);
    expect(tauBenchPromptTemplateHashes(root)).toEqual(uncached);
    const entry = readDerived(TAU_BENCH_TEMPLATE_HASHES_KIND, derivedCacheKey(resolve(root))) as { files: Record<string, string | null>; hashes: Record<string, string> };
    expect(entry.hashes).toEqual(uncached);
    const files = Object.keys(entry.files);
    for (const file of ["agents/chat_react_agent.py", "agents/few_shot_agent.py", "envs/user.py"]) expect(files).toContain(join(root, "upstream-src", "tau_bench", file));
  });

  it("answers from an entry while its files are unchanged, and derives again when one changes or goes", () => {
    const root = copiedDataRoot();
    const real = tauBenchPromptTemplateHashes(root);
    const key = derivedCacheKey(resolve(root));
    const entry = readDerived(TAU_BENCH_TEMPLATE_HASHES_KIND, key) as { files: Record<string, string | null>; hashes: Record<string, string> };
    // An entry whose hashes say something else is believed while the files are as recorded …
    writeDerived(TAU_BENCH_TEMPLATE_HASHES_KIND, key, { files: entry.files, hashes: { planted: "x" } });
    expect(tauBenchPromptTemplateHashes(root)).toEqual({ planted: "x" });
    // … and no longer once a file it was read from changes (a comment: the templates stay the same).
    const user = join(root, "upstream-src", "tau_bench", "envs", "user.py");
    writeFileSync(user, `${writable(user)}\n# edited\n`);
    expect(tauBenchPromptTemplateHashes(root)).toEqual(real);
    // A changed template changes its hash, cache or not.
    const react = join(root, "upstream-src", "tau_bench", "agents", "chat_react_agent.py");
    const text = writable(react);
    const instruction = /REACT_INSTRUCTION = f?"""\n?([^\n]+)/.exec(text)?.[1];
    expect(instruction, "the react instruction's first line in the sources").toBeTruthy();
    writeFileSync(react, text.replace(instruction as string, `${instruction} (edited)`));
    const edited = tauBenchPromptTemplateHashes(root);
    expect(edited["agent.original"]).not.toBe(real["agent.original"]);
    expect(edited["user.original"]).toBe(real["user.original"]);
    // Sources that cannot be read give no hashes, and that is not kept once they are back.
    rmSync(react);
    expect(tauBenchPromptTemplateHashes(root)).toEqual({});
    writeFileSync(react, text);
    expect(tauBenchPromptTemplateHashes(root)).toEqual(real);
  });
});
