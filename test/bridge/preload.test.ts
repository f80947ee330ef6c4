/**
 * The preload entry (`node --import tsx --import adapters/register.ts user-entry.ts`) in a real
 * child process, outside vitest's module runner: the frameworks an entry imports statically are
 * patched at load time (import-in-the-middle through Node's own loader chain, after tsx's), a tool
 * runs natively outside a bridge scope and is answered by the session inside one. Without the
 * preload the same entry is untouched, which shows the preload is what makes the difference.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const entry = fileURLToPath(new URL("../fixtures/bridge/preload-entry.ts", import.meta.url));

async function report(args: string[], env: Record<string, string> = {}) {
  const { stdout } = await run(process.execPath, [...args, entry], { cwd: root, env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 1 << 24 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as {
    patched: Record<string, boolean>;
    outside: Record<string, string>;
    inside: Record<string, string>;
    nativeRuns: number;
    steps: string[];
    hookedModules: string[];
  };
}

describe("adapters/register.ts preload (child process, Node's own loader chain with tsx)", () => {
  it("patches statically imported frameworks at load time; tools run natively outside a scope and through the session inside", async () => {
    const result = await report(["--import", "tsx", "--import", "./adapters/register.ts"]);
    expect(result.patched).toEqual({
      openaiToolFactory: true,
      openaiGetAllTools: true,
      aiGenerateText: true,
      aiToolLoopAgentGenerate: true,
      langchainCall: true,
      mastraGetTools: true,
    });
    expect(result.outside).toEqual({ langchain: "native", openai: "native" });
    expect(result.inside).toEqual({ langchain: "env:get_order_details:#W3", openai: "env:get_order_details:#W4" });
    expect(result.nativeRuns).toBe(2);
    expect(result.steps).toEqual(["get_order_details", "get_order_details"]);
    expect(result.hookedModules).toEqual(expect.arrayContaining(["@openai/agents", "ai", "@langchain/core/tools", "@mastra/core/agent"]));
  });

  it("TAUBRIDGE_FRAMEWORKS limits which frameworks are hooked", async () => {
    const result = await report(["--import", "tsx", "--import", "./adapters/register.ts"], { TAUBRIDGE_FRAMEWORKS: "langchain" });
    expect(result.patched.langchainCall).toBe(true);
    expect(result.patched.openaiToolFactory).toBe(false);
    expect(result.patched.aiGenerateText).toBe(false);
    expect(result.inside.langchain).toBe("env:get_order_details:#W3");
    expect(result.inside.openai).toBe("native");
  });

  it("without the preload nothing is patched and every tool runs natively", async () => {
    const result = await report(["--import", "tsx"]);
    expect(Object.values(result.patched).every((value) => value === false)).toBe(true);
    expect(result.inside).toEqual({ langchain: "native", openai: "native" });
    expect(result.nativeRuns).toBe(4);
    expect(result.steps).toEqual([]);
  });
});
