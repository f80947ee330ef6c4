/**
 * τ³ banking_knowledge against the reference fixtures: every ground-truth step of the 97 tasks
 * (content, error flag, both hashes; the read-log allowlist derived from each task), every tool
 * probe under its retrieval variant and kwargs (KB_search timings masked: wall-clock in the
 * original, 0ms in the fixtures), the tool lists of the base toolkit and every variant, the 48
 * discoverable tools and what unlock shows for them, the task loader and the refusals.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tau2BankingKnowledgeDomain } from "../../domains/tau2-banking-knowledge/index.ts";
import { type LoadedTau2Domain, loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import { discoverableToolsOf, toolsOf } from "../../src/suites/tau2/engine/toolkit.ts";
import { FROZEN_CLOCK, OFFLINE_VARIANTS, RETRIEVAL_VARIANTS, checkSandboxAvailability } from "../../src/suites/tau2/knowledge/index.ts";
import { loadTau2TaskSet } from "../../src/suites/tau2/task-sets.ts";
import { type Tau2Task, readTau2TaskDirectory } from "../../src/suites/tau2/tasks.ts";
import { ConfigError } from "../../src/errors/error-tree.ts";
import type { PyDict, PyValue } from "../../src/value/index.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";
import { checkGroundTruthReplay, checkToolProbes, expectNoProblems, readFixture } from "./fixture-checks.ts";

const get = (value: PyValue | undefined, key: string): PyValue => (value as PyDict).get(key) as PyValue;
const maskTiming = (content: string): string => content.replace(/\[Timing: [^\]]*\]/g, "[Timing]");

describeWithTau2Data("τ³ banking_knowledge against the reference fixtures", (data) => {
  const tasks = new Map(readTau2TaskDirectory(join(data, "banking_knowledge", "tasks")).map((task) => [task.id, task]));
  const domains = new Map<string, LoadedTau2Domain>();
  const domainFor = (variant: string, kwargs: PyDict | null = null): LoadedTau2Domain => {
    const key = `${variant} ${JSON.stringify(kwargs ? [...kwargs] : null)}`;
    let domain = domains.get(key);
    if (!domain) domains.set(key, (domain = loadTau2Domain(tau2BankingKnowledgeDomain, data, { retrievalConfig: variant, retrievalConfigKwargs: kwargs, services: { clock: FROZEN_CLOCK } })));
    return domain;
  };

  it("reads the 97 tasks of tasks/task_*.json in file-name order (gaps in the ids, tasks.json not read)", () => {
    const ids = [...tasks.keys()];
    expect(ids).toHaveLength(97);
    expect(ids).toEqual([...ids].sort());
    expect(ids[0]).toBe("task_001");
    expect(loadTau2TaskSet(data, { taskSetName: "banking_knowledge", split: "base" }).tasks.map((task) => task.id)).toEqual(ids);
  });

  it("replays every ground-truth action (955 steps) with the original's results, error flags and both hashes", () => {
    const entries = get(get(readFixture(data, "gt_replay_banking_knowledge.json"), "sets"), "tasks") as PyValue[];
    expect(entries).toHaveLength(97);
    expect(entries.reduce<number>((count, entry) => count + (get(entry, "steps") as PyValue[]).length, 0)).toBe(955);
    const domain = domainFor("bm25_grep");
    expectNoProblems(entries.flatMap((entry) => checkGroundTruthReplay(domain, tasks.get(get(entry, "id") as string) as Tau2Task, entry as PyDict)));
  });

  it("answers every tool probe as the original does, under the probe's variant and kwargs", () => {
    const fixture = readFixture(data, "tool_probes_banking_knowledge.json");
    const probes = get(fixture, "probes") as PyValue[];
    expect(probes.length).toBeGreaterThanOrEqual(74);
    const forProbe = (probe: PyDict) => domainFor((probe.get("retrieval_variant") as string | undefined) ?? "bm25_grep", (probe.get("retrieval_kwargs") as PyDict | undefined) ?? null);
    expectNoProblems(checkToolProbes(forProbe, tasks, fixture, maskTiming));
  });

  it("lists the tools of every offline variant in τ²'s order, types and mutates_state, and the user tools", () => {
    const fixture = readFixture(data, "tools_banking_knowledge.json");
    const info = (key: string) => (fixture.get(key) as PyDict[]).map((entry) => [entry.get("name"), entry.get("tool_type"), entry.get("mutates_state")]);
    const listed = (toolkit: LoadedTau2Domain["definition"]["agentToolkit"]) => toolsOf(toolkit).map((tool) => [tool.name, tool.tool?.type, tool.tool?.mutatesState]);
    expect(listed(domainFor("bm25_grep").setup!.agentToolkit)).toEqual(info("agent_tool_info"));
    expect(listed(tau2BankingKnowledgeDomain.userToolkit!)).toEqual(info("user_tool_info"));
    for (const variant of get(fixture, "variants") as PyDict[]) {
      const name = variant.get("name") as string;
      expect(RETRIEVAL_VARIANTS.find((spec) => spec.name === name)?.toolkitClass).toBe(variant.get("toolkit_class"));
      if (!OFFLINE_VARIANTS.includes(name)) continue;
      expect(toolsOf(domainFor(name).setup!.agentToolkit).map((tool) => tool.name)).toEqual(variant.get("agent_tools"));
    }
    expect(RETRIEVAL_VARIANTS.map((spec) => spec.name)).toEqual((get(fixture, "variants") as PyDict[]).map((variant) => variant.get("name")));
    expect(OFFLINE_VARIANTS).toEqual((get(fixture, "variants") as PyDict[]).filter((variant) => variant.get("offline") === true).map((variant) => variant.get("name")));
  });

  it("has the 44 agent and 4 user discoverable tools, each unlocked with the text the original shows", () => {
    const fixture = readFixture(data, "tools_banking_knowledge.json");
    const agentNames = (get(fixture, "discoverable_agent_tools") as PyDict[]).map((tool) => tool.get("name"));
    const userNames = (get(fixture, "discoverable_user_tools") as PyDict[]).map((tool) => tool.get("name"));
    const domain = domainFor("bm25_grep");
    expect(discoverableToolsOf(domain.setup!.agentToolkit).map((tool) => tool.name)).toEqual(agentNames);
    expect(discoverableToolsOf(tau2BankingKnowledgeDomain.userToolkit!).map((tool) => tool.name)).toEqual(userNames);
    expect(agentNames.length + userNames.length).toBe(48);
    const problems: string[] = [];
    for (const tool of get(fixture, "discoverable_agent_tools") as PyDict[]) {
      const environment = domain.createEnvironment();
      const shown = environment.getResponse({ id: "u", name: "unlock_discoverable_agent_tool", arguments: new Map([["agent_tool_name", tool.get("name") as string]]), requestor: "assistant" }).content;
      const expected = tool.get("formatted_for_agent") as string;
      const method = discoverableToolsOf(domain.setup!.agentToolkit).find((candidate) => candidate.name === tool.get("name"));
      if (!shown.includes(expected)) problems.push(`${tool.get("name") as string}: unlock shows\n${shown}\nexpected to contain\n${expected}`);
      if (method?.tool?.type !== tool.get("tool_type") || method?.tool?.mutatesState !== tool.get("mutates_state")) problems.push(`${tool.get("name") as string}: type/mutates_state`);
    }
    expectNoProblems(problems);
  });
});

describeWithTau2Data("τ³ banking_knowledge refusals", (data) => {
  /** The real availability check over a PATH without any of the sandbox's tools. */
  const noTools = { sandbox: () => checkSandboxAvailability({ PATH: mkdtempSync(join(tmpdir(), "no-tools-")) }, "linux") };

  it("refuses the default variant (alltools) without an embedder, and without the sandbox tools, naming both and the offline ones", () => {
    expect(() => loadTau2Domain(tau2BankingKnowledgeDomain, data)).toThrow(ConfigError);
    expect(() => loadTau2Domain(tau2BankingKnowledgeDomain, data)).toThrow(
      /'alltools' needs a openai embedder \(text-embedding-3-large\).*offline variants: no_knowledge, full_kb, golden_retrieval, bm25_grep, bm25, grep_only/,
    );
    expect(() => loadTau2Domain(tau2BankingKnowledgeDomain, data, { services: noTools })).toThrow(
      /needs a openai embedder \(text-embedding-3-large\), which is not available \(give --embedder-base-url or the embedder's API key\), and τ²'s shell sandbox, but srt cannot find rg, bwrap, socat, bash, which on PATH \(install with: sudo apt-get install -y bubblewrap ripgrep socat\); offline variants/,
    );
  });

  it("refuses embedding and reranker variants without a backend, naming what is missing", () => {
    expect(() => loadTau2Domain(tau2BankingKnowledgeDomain, data, { retrievalConfig: "openai_embeddings_grep" })).toThrow(
      /needs a openai embedder \(text-embedding-3-large\), which is not available \(give --embedder-base-url or the embedder's API key\); offline variants/,
    );
    expect(() => loadTau2Domain(tau2BankingKnowledgeDomain, data, { retrievalConfig: "bm25_reranker" })).toThrow(/needs the pointwise LLM reranker/);
    expect(() => loadTau2Domain(tau2BankingKnowledgeDomain, data, { retrievalConfig: "terminal_use_write", services: noTools })).toThrow(
      /'terminal_use_write' needs τ²'s shell sandbox, but srt cannot find rg, bwrap, socat/,
    );
    expect(() => loadTau2Domain(tau2BankingKnowledgeDomain, data, { retrievalConfig: "terminal_use", services: noTools, scoringOnly: true })).not.toThrow(); // rescore: no shell needed
    expect(() => loadTau2Domain(tau2BankingKnowledgeDomain, data, { retrievalConfig: "nope" })).toThrow(/unknown retrieval config 'nope'; known: no_knowledge, full_kb/);
  });

  it("refuses a malformed kwarg in one line", () => {
    expect(() => loadTau2Domain(tau2BankingKnowledgeDomain, data, { retrievalConfig: "bm25", retrievalConfigKwargs: new Map([["top_k", "five"]]) })).toThrow(/top_k must be an integer/);
  });
});

describe("τ³ banking_knowledge definition", () => {
  it("does not support solo mode and shares one database between the toolkits", () => {
    expect(tau2BankingKnowledgeDomain.supportsSolo).toBe(false);
    expect(tau2BankingKnowledgeDomain.userSharesAgentDatabase).toBe(true);
  });
});
