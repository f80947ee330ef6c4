/**
 * Adapter strategy configuration errors fail the run before any episode, with a one-line
 * ConfigError naming the option (no shared data needed: the bundled library domain).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/error-tree.ts";
import { buildRun, testRegistries } from "../support/registries.ts";
import { registerAdapterStrategies } from "../../adapters/index.ts";
import { adapterSettings } from "../../adapters/common/settings.ts";

const example = fileURLToPath(new URL("../../adapters/openai-agents/example/retail-agent.ts", import.meta.url));

function build(agentStrategy: string, agentOptions: Record<string, string>, extra: Record<string, unknown> = {}) {
  return buildRun({ env: "library", agentStrategy, userStrategy: "scripted", agentOptions, ...extra });
}

describe("adapter strategy options", () => {
  it("registers the four strategies once; a second registration is refused", () => {
    for (const name of ["openai-agents", "vercel-ai", "langchain", "mastra"]) expect(build(name, { module: example }).agentFactory.description).toContain("bridged");
    expect(() => registerAdapterStrategies(testRegistries.agentStrategies)).toThrow('"openai-agents" is already registered');
  });

  it("parses bridge mode, dry run, mapping and maxTurns", () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-settings-"));
    const built = build("openai-agents", { module: example });
    const tool = [...built.domain.toolsByName.keys()][0];
    writeFileSync(join(directory, "map.json"), JSON.stringify({ renames: { myTool: tool } }));
    const settings = adapterSettings(build("openai-agents", { module: example, bridgeMode: "decision-only", mapping: join(directory, "map.json"), maxTurns: "7" }).context, "openai-agents");
    expect(settings.mode).toBe("decision-only");
    expect(settings.mappingSpec).toEqual({ renames: { myTool: tool } });
    expect(settings.maxTurns).toBe(7);
    expect(adapterSettings(build("openai-agents", { module: example, dryRun: "true" }).context, "openai-agents").mode).toBe("dry-run");
    expect(() => adapterSettings(build("openai-agents", { module: example, bridgeMode: "internal", dryRun: "1" }).context, "x")).toThrow(/contradicts/);
    expect(() => adapterSettings(build("openai-agents", { module: example, bridgeMode: "yolo" }).context, "x")).toThrow(/bridgeMode must be one of internal, decision-only, dry-run/);
    expect(() => adapterSettings(build("openai-agents", {}).context, "openai-agents")).toThrow(/needs --agent-option module=/);
    writeFileSync(join(directory, "bad.json"), JSON.stringify({ renames: { myTool: "no_such_tool" } }));
    expect(() => adapterSettings(build("openai-agents", { module: example, mapping: join(directory, "bad.json") }).context, "x")).toThrow(/"no_such_tool" is not a tool of library/);
    expect(() => adapterSettings(build("openai-agents", { module: example }, { apiKeyEnv: "TAUBRIDGE_SURELY_UNSET_KEY" }).context, "x")).toThrow(/TAUBRIDGE_SURELY_UNSET_KEY/);
  });

  it("a missing module, a missing export or an export of another framework fails at create time", async () => {
    const create = (strategy: string, options: Record<string, string>) => {
      const built = build(strategy, options);
      return built.agentFactory.create(built.context);
    };
    await expect(create("openai-agents", { module: "/nonexistent/agent.ts" })).rejects.toThrow(/agent module not found/);
    await expect(create("openai-agents", { module: example, export: "nope" })).rejects.toThrow(/has no export "nope"/);
    const vercelExample = fileURLToPath(new URL("../../adapters/vercel-ai/example/retail-agent.ts", import.meta.url));
    await expect(create("openai-agents", { module: vercelExample })).rejects.toThrow(ConfigError);
    await expect(create("openai-agents", { module: vercelExample })).rejects.toThrow(/is not an @openai\/agents Agent \(the factory must return one\)/);
  });

  it("rejects unknown agent options (listing the known ones) and mapping files of the wrong shape (naming file and field)", () => {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-settings-"));
    expect(() => adapterSettings(build("openai-agents", { module: example, mappin: "x.json" }).context, "openai-agents")).toThrow(
      "unknown --agent-option mappin for --agent-strategy openai-agents; known: module, export, bridgeMode, dryRun, mapping, maxTurns, user.<name> (for your module)",
    );
    expect(adapterSettings(build("openai-agents", { module: example, "user.temperature": "0.2" }).context, "openai-agents").options["user.temperature"]).toBe("0.2");
    const file = join(directory, "bad.json");
    writeFileSync(file, JSON.stringify({ renames: { a: 1 } }));
    expect(() => adapterSettings(build("openai-agents", { module: example, mapping: file }).context, "openai-agents")).toThrow(
      new RegExp(`^mapping file ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: field renames\\.a: `),
    );
    writeFileSync(file, JSON.stringify({ rename: {} }));
    expect(() => adapterSettings(build("openai-agents", { module: example, mapping: file }).context, "openai-agents")).toThrow(/field \(top level\): Unrecognized key/);
    writeFileSync(file, JSON.stringify({ native: ["get_member_details"] }));
    expect(() => adapterSettings(build("openai-agents", { module: example, mapping: file }).context, "openai-agents")).toThrow(/field native\[0\]: "get_member_details" maps to a benchmark tool/);
    writeFileSync(file, JSON.stringify({ arguments: { nope: { a: "b" } } }));
    expect(() => adapterSettings(build("openai-agents", { module: example, mapping: file }).context, "openai-agents")).toThrow(/field arguments\.nope: not a tool of library/);
  });
});
