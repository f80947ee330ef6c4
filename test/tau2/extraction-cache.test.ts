/**
 * τ²'s tool schemas and prompt templates (`src/suites/tau2/engine/extract/index.ts`) are kept in the
 * derived cache with the SHA-256 of every source file they were read from: a later process gets
 * exactly what the extraction gives (the same values, the same bytes on the wire) without parsing
 * any Python, and an entry whose files changed is extracted again. Each test has a cache folder of
 * its own; those that change sources work on a copy of them.
 */
import { chmodSync, cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { derivedCacheKey, readDerived, writeDerived } from "../../src/data/derived-cache.ts";
import { PythonSourceTree } from "../../src/data/python-source/modules.ts";
import {
  clearTau2ExtractionCache,
  extractTau2Prompts,
  extractTau2ToolkitClasses,
  extractTau2Tools,
  TAU2_PROMPTS_EXTRACTION_KIND,
  TAU2_TOOLS_EXTRACTION_KIND,
} from "../../src/suites/tau2/engine/extract/index.ts";
import { readTau2PromptTemplates } from "../../src/suites/tau2/engine/extract/prompts.ts";
import { tau2SourceTree } from "../../src/suites/tau2/engine/extract/sources.ts";
import { readTau2ToolkitClasses, readTau2Tools } from "../../src/suites/tau2/engine/extract/tools.ts";
import { pyJsonDumpsLine, type PyValue } from "../../src/value/index.ts";
import { useFreshDerivedCache } from "../support/fresh-derived-cache.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

const DOMAINS = ["mock", "airline", "retail", "telecom", "telecom-workflow"];
const BANKING = {
  agent: { module: "tau2.domains.banking_knowledge.retrieval_toolkits", className: "KnowledgeToolsAllTools" },
  user: { module: "tau2.domains.banking_knowledge.tools", className: "KnowledgeUserTools" },
};

/** A data root holding a writable copy of τ²'s sources. */
function copiedDataRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "tau2-extraction-sources-"));
  cpSync(join(data as string, "upstream-src"), join(root, "upstream-src"), { recursive: true });
  return root;
}

/** The bytes a model request carries for these schemas. */
const wire = (schemas: unknown) => pyJsonDumpsLine(schemas as PyValue);

/** Counts the Python files the extraction opens while `run` runs. */
function pythonFilesRead(run: () => void): number {
  const spy = vi.spyOn(PythonSourceTree.prototype, "tryModule");
  try {
    run();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

describe.skipIf(!data)("τ² extractions in the derived cache", () => {
  useFreshDerivedCache("tau2-extraction-cache-");
  afterEach(() => clearTau2ExtractionCache());
  const root = data as string;

  it("a later process gets every domain's tools and the prompts from the cache, identical to a fresh extraction, without parsing Python", () => {
    const cold = () => ({
      tools: DOMAINS.map((domain) => extractTau2Tools(root, domain)),
      banking: extractTau2ToolkitClasses(root, "banking_knowledge", BANKING.agent, BANKING.user),
      prompts: extractTau2Prompts(root),
    });
    const first = cold();
    expect(first.tools.map((tools) => tools.agent.schemas.length).every((count) => count > 0)).toBe(true);
    clearTau2ExtractionCache(); // what a new process starts with
    let warm: ReturnType<typeof cold> | undefined;
    expect(pythonFilesRead(() => (warm = cold()))).toBe(0);
    const fresh = {
      tools: DOMAINS.map((domain) => readTau2Tools(root, domain, tau2SourceTree(root))),
      banking: readTau2ToolkitClasses(tau2SourceTree(root), "banking_knowledge", BANKING.agent, BANKING.user),
      prompts: readTau2PromptTemplates(root, tau2SourceTree(root)),
    };
    expect(warm).toStrictEqual(fresh);
    for (const [index, tools] of (warm?.tools ?? []).entries()) {
      expect(wire(tools.agent.schemas)).toBe(wire(fresh.tools[index].agent.schemas));
      expect(wire(tools.user?.schemas ?? [])).toBe(wire(fresh.tools[index].user?.schemas ?? []));
    }
    expect(wire(warm?.banking.agent.schemas)).toBe(wire(fresh.banking.agent.schemas));
  });

  it("an entry records the files it was read from, and one of another shape is extracted again", () => {
    const tools = extractTau2Tools(root, "telecom");
    const key = derivedCacheKey(resolve(root), "tools", "telecom");
    const entry = readDerived(TAU2_TOOLS_EXTRACTION_KIND, key) as { files: Record<string, string | null>; value: unknown };
    expect(Object.keys(entry.files)).toContain(join(root, "upstream-src", "src", "tau2", "domains", "telecom", "tools.py"));
    expect(Object.keys(entry.files)).toContain(join(root, "upstream-src", "src", "tau2", "domains", "telecom", "user_tools.py"));
    expect(Object.values(entry.files).every((sha256) => sha256 === null || /^[0-9a-f]{64}$/.test(sha256))).toBe(true);
    writeDerived(TAU2_TOOLS_EXTRACTION_KIND, key, { files: entry.files, value: { domain: "telecom", agent: "not a toolkit" } });
    clearTau2ExtractionCache();
    expect(pythonFilesRead(() => expect(extractTau2Tools(root, "telecom")).toStrictEqual(tools))).toBeGreaterThan(0);
    const promptsKey = derivedCacheKey(resolve(root), "prompts");
    expect(readDerived(TAU2_PROMPTS_EXTRACTION_KIND, promptsKey)).toBeUndefined();
    extractTau2Prompts(root);
    expect(readDerived(TAU2_PROMPTS_EXTRACTION_KIND, promptsKey)).toMatchObject({ value: { firstAgentMessage: expect.any(String) } });
  });

  it("a changed source file is read again: the new docstring reaches the schema", () => {
    const copy = copiedDataRoot();
    const before = extractTau2Tools(copy, "mock");
    const tools = join(copy, "upstream-src", "src", "tau2", "domains", "mock", "tools.py");
    const text = readFileSync(tools, "utf8");
    const first = before.agent.schemas[0].function;
    expect(text).toContain(first.description);
    chmodSync(tools, 0o644);
    writeFileSync(tools, text.replace(first.description, `${first.description} (changed)`));
    clearTau2ExtractionCache();
    const after = extractTau2Tools(copy, "mock");
    expect(after.agent.schemas[0].function.description).toBe(`${first.description} (changed)`);
    expect(after).toStrictEqual(readTau2Tools(copy, "mock", tau2SourceTree(copy)));
  });

  it("an extraction that fails stores nothing and fails the same way next time", () => {
    const copy = copiedDataRoot();
    const tools = join(copy, "upstream-src", "src", "tau2", "domains", "mock", "tools.py");
    chmodSync(tools, 0o644);
    writeFileSync(tools, `${readFileSync(tools, "utf8")}\nclass Broken(:\n`);
    expect(() => extractTau2Tools(copy, "mock")).toThrow(/tools\.py/);
    expect(readDerived(TAU2_TOOLS_EXTRACTION_KIND, derivedCacheKey(resolve(copy), "tools", "mock"))).toBeUndefined();
    clearTau2ExtractionCache();
    expect(() => extractTau2Tools(copy, "mock")).toThrow(/tools\.py/);
  });
});
