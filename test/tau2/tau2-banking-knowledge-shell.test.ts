/**
 * τ³ banking_knowledge's `shell` tool against `fixtures/shell_probes_banking_knowledge.json`: the 35
 * commands of 15 fresh terminal_use / terminal_use_write environments, run by the original through
 * `srt` 0.0.23 with Debian's bubblewrap, ripgrep and socat — every content, error flag and both
 * hashes, in process and through `taubridge replay` (the sandbox directory's random name, and the
 * temp directory it is made in, compared as a placeholder). Also the tool lists and the schemas of
 * terminal_use, terminal_use_write, alltools and alltools-qwen, the sandbox removed when an
 * environment is dropped, and the refusal (exit 2, one line) when a system tool is missing.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { tau2BankingKnowledgeDomain } from "../../domains/tau2-banking-knowledge/index.ts";
import { type LoadedTau2Domain, loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import type { Tau2DatabaseHash, Tau2Requestor } from "../../src/suites/tau2/engine/environment.ts";
import { environmentHopAsync } from "../../src/suites/tau2/engine/task-state.ts";
import { toolsOf } from "../../src/suites/tau2/engine/toolkit.ts";
import { createRetrievalBackends } from "../../src/suites/tau2/retrieval-backends.ts";
import { findOnPath, requiredSandboxTools } from "../../src/suites/tau2/knowledge/index.ts";
import { tau2DomainViews } from "../../src/suites/tau2/views.ts";
import { type PyDict, fromJs } from "../../src/value/index.ts";
import { runCli, runTau2 } from "../support/cli.ts";
import { describeWithSandbox } from "../support/sandbox-tools.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";

interface ProbeStep {
  name: string;
  requestor: Tau2Requestor;
  content: string;
  error: boolean;
  hash: Tau2DatabaseHash;
}

interface ProbeEpisode {
  id: string;
  retrieval_variant: "terminal_use" | "terminal_use_write";
  actions: Array<{ requestor: Tau2Requestor; name: string; arguments: Record<string, unknown> }>;
  expected: { initialHash: Tau2DatabaseHash; steps: ProbeStep[] };
}

const SHELL_VARIANTS = ["terminal_use", "terminal_use_write", "alltools", "alltools-qwen"];

/** The sandbox directory as a placeholder: `<temp dir>/agentic_search_<8 hex>` (the original's temp dir was /tmp). */
function placeholder(text: string, temp: string): string {
  const escaped = temp.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`${escaped}/agentic_search_[0-9a-f]{8}`, "g"), "<TMP>/agentic_search_<ID>");
}

function episodes(data: string): ProbeEpisode[] {
  return (JSON.parse(readFileSync(join(data, "fixtures", "shell_probes_banking_knowledge.json"), "utf8")) as { episodes: ProbeEpisode[] }).episodes;
}

/** Runs `work` over `items`, at most `limit` at once, in order of completion (results in input order). */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Every difference between an episode's expected steps and what was answered, as readable lines. */
function differences(episode: ProbeEpisode, steps: Array<{ content: string; error: boolean; hash?: Tau2DatabaseHash }>, temp: string): string[] {
  const problems: string[] = [];
  if (steps.length !== episode.expected.steps.length) return [`${episode.id}: ${steps.length} steps, expected ${episode.expected.steps.length}`];
  episode.expected.steps.forEach((expected, index) => {
    const got = steps[index];
    const command = String(episode.actions[index].arguments.command);
    if (placeholder(got.content, temp) !== placeholder(expected.content, "/tmp"))
      problems.push(`${episode.id} #${index} ${command}:\n  got      ${JSON.stringify(got.content)}\n  expected ${JSON.stringify(expected.content)}`);
    if (got.error !== expected.error) problems.push(`${episode.id} #${index} ${command}: error flag ${got.error}`);
    if (got.hash && JSON.stringify(got.hash) !== JSON.stringify(expected.hash)) problems.push(`${episode.id} #${index} ${command}: hash ${JSON.stringify(got.hash)}`);
  });
  return problems;
}

describeWithSandbox("τ³ banking_knowledge shell probes (the original through srt 0.0.23)", (data) => {
  const all = episodes(data);
  const domains = new Map<string, LoadedTau2Domain>();
  const domainFor = (variant: string, services: Record<string, unknown> = {}) => {
    const key = `${variant} ${JSON.stringify(services)}`;
    let domain = domains.get(key);
    if (!domain) domains.set(key, (domain = loadTau2Domain(tau2BankingKnowledgeDomain, data, { retrievalConfig: variant, services })));
    return domain;
  };

  it("has 35 commands in 15 episodes of both shell variants", () => {
    expect(all).toHaveLength(15);
    expect(all.reduce((count, episode) => count + episode.actions.length, 0)).toBe(35);
    expect(new Set(all.map((episode) => episode.retrieval_variant))).toEqual(new Set(["terminal_use", "terminal_use_write"]));
  });

  it("answers all 35 commands as the original: content, error flag, both hashes (in process)", async () => {
    const problems = (
      await pooled(all, 3, async (episode) => {
        const environment = domainFor(episode.retrieval_variant).createEnvironment();
        try {
          const found: string[] = [];
          if (JSON.stringify(environment.hash()) !== JSON.stringify(episode.expected.initialHash)) found.push(`${episode.id}: initial hash`);
          const steps = [];
          for (const [index, action] of episode.actions.entries()) {
            const result = await environmentHopAsync(environment, { id: `call_${index}`, name: action.name, requestor: action.requestor, arguments: fromJs(action.arguments) as PyDict });
            steps.push({ content: result.content, error: result.error, hash: environment.hash() });
          }
          return [...found, ...differences(episode, steps, tmpdir())];
        } finally {
          await environment.dispose();
        }
      })
    ).flat();
    expect(problems).toEqual([]);
  }, 600_000);

  it("answers all 35 commands as the original through `taubridge replay --retrieval-config terminal_use[_write]`, leaving no sandbox behind", async () => {
    const work = mkdtempSync(join(tmpdir(), "tau3-shell-replay-"));
    const problems = (
      await pooled(all, 3, async (episode) => {
        const actions = join(work, `${episode.id}.json`);
        writeFileSync(actions, JSON.stringify(episode.actions));
        const temp = join(work, `${episode.id}-tmp`);
        mkdirSync(temp);
        const args = ["replay", "--suite", "tau2", "--env", "banking_knowledge", "--retrieval-config", episode.retrieval_variant, "--actions", actions, "--data-dir", data];
        const result = await runCli(args, { env: { TMPDIR: temp } });
        if (result.exitCode !== 0) return [`${episode.id}: exit ${result.exitCode}: ${result.stderr}`];
        const replayed = JSON.parse(result.stdout) as { steps: Array<{ content: string; error: boolean }>; dbHash: Tau2DatabaseHash };
        const found = differences(episode, replayed.steps, temp);
        if (JSON.stringify(replayed.dbHash) !== JSON.stringify(episode.expected.steps.at(-1)?.hash)) found.push(`${episode.id}: end hash`);
        const left = readdirSync(temp).filter((name) => name.startsWith("agentic_search_"));
        if (left.length > 0) found.push(`${episode.id}: left ${left.join(", ")} in its temp directory`);
        return found;
      })
    ).flat();
    expect(problems).toEqual([]);
  }, 900_000);

  it("makes the sandbox on the first shell call, under the temp directory as the original names it, and removes it when the environment is dropped", async () => {
    const base = mkdtempSync(join(tmpdir(), "tau3-shell-dispose-"));
    const environment = domainFor("terminal_use_write", { sandboxBaseDir: base }).createEnvironment();
    expect(readdirSync(base)).toEqual([]); // nothing before the first shell call (nor for the evaluator's replays)
    const call = (command: string) => environmentHopAsync(environment, { id: "c", name: "shell", requestor: "assistant", arguments: new Map([["command", command]]) });
    const pwd = (await call("pwd")).content;
    expect(pwd).toMatch(new RegExp(`^${base}/agentic_search_[0-9a-f]{8}/knowledge_base\\n$`));
    const sandbox = pwd.trim().replace(/\/knowledge_base$/, "");
    expect(readdirSync(sandbox).sort()).toEqual(["knowledge_base", "srt-settings.json"]);
    expect((await call("echo note > mine.md && ls mine.md")).content).toBe("mine.md\n");
    await environment.dispose();
    expect(existsSync(sandbox)).toBe(false);
    expect(readdirSync(base)).toEqual([]);
    await expect(call("ls")).rejects.toThrow(/dropped/);
  }, 300_000);

  it("lists each shell variant's tools in τ²'s order, with the original's schemas for shell, KB_search_bm25 and KB_search_dense", () => {
    const fixture = JSON.parse(readFileSync(join(data, "fixtures", "tools_banking_knowledge.json"), "utf8")) as {
      variants: Array<{ name: string; agent_tools: string[] }>;
      retrieval_tool_schemas: Record<string, { function: { name: string } }>;
    };
    const backends = createRetrievalBackends({
      dataRoot: data,
      embedder: { kind: "openai", model: "text-embedding-3-large", baseUrl: "http://127.0.0.1:9/v1", provider: "openai-compatible" },
      env: {},
    });
    for (const name of SHELL_VARIANTS) {
      const domain = domainFor(name, name.startsWith("alltools") ? { backends } : {});
      const expected = fixture.variants.find((variant) => variant.name === name)?.agent_tools;
      const tools = toolsOf(domain.setup!.agentToolkit);
      expect(tools.map((tool) => tool.name)).toEqual(expected);
      expect(tools.filter((tool) => ["shell", "KB_search_bm25", "KB_search_dense"].includes(tool.name)).map((tool) => [tool.tool?.type, tool.tool?.mutatesState])).toEqual(
        name.startsWith("alltools") ? Array(3).fill(["read", false]) : [["read", false]],
      );
      const schemas = tau2DomainViews(domain).agent(false).toolSchemas.json as Array<{ function: { name: string } }>;
      for (const schema of schemas.filter((candidate) => candidate.function.name in fixture.retrieval_tool_schemas)) expect(schema).toEqual(fixture.retrieval_tool_schemas[schema.function.name]);
      expect(schemas.map((schema) => schema.function.name)).toEqual(expected);
    }
  });
});

describeWithTau2Data("τ³ banking_knowledge shell variants without the sandbox tools", (data) => {
  /** A PATH directory with node and the named tools of this machine (those it has), nothing else. */
  function pathWith(tools: readonly string[]): string {
    const bin = mkdtempSync(join(tmpdir(), "tau3-path-"));
    symlinkSync(process.execPath, join(bin, "node"));
    for (const tool of tools) {
      const found = findOnPath(tool);
      if (found) symlinkSync(found, join(bin, tool));
    }
    return bin;
  }

  it("stops the run before the first episode in one line (exit 2) naming what is missing and the install line", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tau3-shell-refused-")), "results.json");
    const base = ["--domain", "banking_knowledge", "--agent", "oracle", "--user", "scripted", "--task-ids", "task_001"];
    const noSocat = pathWith(["bash", "which", "rg", "bwrap"]);
    const nothing = pathWith([]);
    // What srt misses on that PATH: socat, and whichever of the others this machine lacks too (the test runs without them).
    const missingWithoutSocat = (requiredSandboxTools() ?? []).filter((tool) => !existsSync(join(noSocat, tool))).join(", ");
    const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const refusals: Array<[string[], string, RegExp[]]> = [
      [
        [...base, "--retrieval-config", "terminal_use"],
        noSocat,
        [
          new RegExp(
            `^taubridge: retrieval config 'terminal_use' needs τ²'s shell sandbox, but srt cannot find ${escapeRegExp(missingWithoutSocat)} on PATH \\(install with: sudo apt-get install -y bubblewrap ripgrep socat\\); offline variants: `,
          ),
        ],
      ],
      [
        base,
        nothing,
        [
          /retrieval config 'alltools' needs a openai embedder \(text-embedding-3-large\), which is not available/,
          /and τ²'s shell sandbox, but srt cannot find rg, bwrap, socat, bash, which on PATH \(install with: sudo apt-get install -y bubblewrap ripgrep socat\)/,
        ],
      ],
    ];
    for (const [args, path, messages] of refusals) {
      const result = await runTau2(args, { data, saveTo: file, env: { PATH: path, OPENAI_API_KEY: "", OPENROUTER_API_KEY: "" } });
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
      for (const message of messages) expect(result.stderr).toMatch(message);
      expect(existsSync(file)).toBe(false);
    }
    const actions = join(mkdtempSync(join(tmpdir(), "tau3-shell-refused-replay-")), "actions.json");
    writeFileSync(actions, JSON.stringify([{ requestor: "assistant", name: "shell", arguments: { command: "ls" } }]));
    const replay = await runCli(["replay", "--suite", "tau2", "--env", "banking_knowledge", "--retrieval-config", "terminal_use_write", "--actions", actions, "--data-dir", data], {
      env: { PATH: nothing },
    });
    expect(replay.exitCode).toBe(2);
    expect(replay.stderr).toMatch(/^taubridge: retrieval config 'terminal_use_write' needs τ²'s shell sandbox, but srt cannot find rg, bwrap, socat, bash, which/);
  }, 180_000);
});
