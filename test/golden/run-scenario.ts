/**
 * Runs a golden scenario (`scenarios.ts`) through the CLI and renders what it printed and wrote,
 * masked (`mask.ts`): what the golden guard compares with `expected/`, and what other tests compare
 * between two ways of running the same scenario (`test/workers.test.ts`: one process and workers).
 */
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { startScriptedModelServer, type Responder } from "../../src/testing/index.ts";
import { runCli } from "../support/cli.ts";
import { sharedDirectory, tau2BenchDirectory, tauBenchDirectory } from "../support/shared-data.ts";
import { maskText, type MaskPlaces } from "./mask.ts";
import { REPOSITORY, scenarioContext, type Needs, type Scenario, type ScenarioContext } from "./scenarios.ts";

/** Colour codes (presentation, not content). */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

const python = process.env.TAUBRIDGE_PYTHON ?? "python3";
const pythonAvailable = spawnSync(python, ["-c", "import sys; assert sys.version_info >= (3, 8)"]).status === 0;

/** Why a scenario cannot run here (undefined: it can). */
export function missing(needs: readonly Needs[]): string | undefined {
  if (needs.includes("tau-bench") && !tauBenchDirectory) return "TAUBRIDGE_SHARED has no tau-bench/";
  if (needs.includes("tau2-bench") && !tau2BenchDirectory) return "TAUBRIDGE_SHARED has no tau2-bench/";
  if (needs.includes("python") && !pythonAvailable) return `no Python 3.8+ (${python})`;
  return undefined;
}

/** One line per episode of a results file (τ-bench list or τ² document), for locating a difference. */
function episodeLines(text: string): string[] {
  const value = JSON.parse(text) as unknown;
  if (Array.isArray(value)) return value.map((entry) => `task ${entry.task_id} trial ${entry.trial} reward ${entry.reward} ${entry.taubridge?.termination ?? "-"}`);
  const simulations = (value as { simulations?: Array<Record<string, unknown>> }).simulations ?? [];
  return simulations.map(
    (simulation) => `task ${simulation.task_id} trial ${simulation.trial} reward ${(simulation.reward_info as { reward?: unknown } | null)?.reward ?? "-"} ${simulation.termination_reason}`,
  );
}

/** A section as stored: whole for our own data, as a digest (plus episode lines for results files) where the upstream data shows. */
function section(title: string, text: string, whole: boolean, results = false): string {
  if (whole) return `### ${title}\n${text}${text.endsWith("\n") ? "" : "\n"}`;
  const digest = createHash("sha256").update(text).digest("hex");
  const lines = results ? `${episodeLines(text).join("\n")}\n` : "";
  return `### ${title} (digest)\nsha256 ${digest} bytes ${Buffer.byteLength(text)}\n${lines}`;
}

/** The masking of a scenario's output: its temporary directories, the repository and the shared data replaced by fixed words. */
export function scenarioMask(context: ScenarioContext): (text: string) => string {
  const places: MaskPlaces = { temporary: [context.out, context.scratch, join(context.out, "..")], repository: REPOSITORY, ...(sharedDirectory ? { shared: sharedDirectory } : {}) };
  return (text: string) => maskText(text.replace(ANSI, ""), places);
}

/** Every file a scenario wrote into its output directory (checkpoints left out: the run layer's own business), whole and masked. */
export function scenarioFiles(context: ScenarioContext): string {
  const mask = scenarioMask(context);
  return readdirSync(context.out, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith(".checkpoint.jsonl"))
    .map((entry) => relative(context.out, join(entry.parentPath, entry.name)))
    .sort()
    .map((name) => section(name, mask(readFileSync(join(context.out, name), "utf8")), true))
    .join("");
}

/** Runs a scenario and renders what it printed and wrote, masked. */
export async function runScenario(scenario: Scenario): Promise<{ stored: string; whole: string }> {
  const answer: { responder: Responder } = { responder: () => undefined };
  const server = scenario.responder ? await startScriptedModelServer({ responder: (request) => answer.responder(request) }) : undefined;
  const context = scenarioContext(sharedDirectory, server?.baseURL ?? "http://127.0.0.1:9/v1");
  if (scenario.responder) answer.responder = scenario.responder(context);
  const mask = scenarioMask(context);
  try {
    scenario.prepare?.(context);
    // Upstream data never enters the repository: where it shows (τ-bench / τ² data), sections are stored as digests.
    const whole = !scenario.needs.some((need) => need === "tau-bench" || need === "tau2-bench");
    const sections: string[] = [`# ${scenario.name}\n`];
    const wholeSections: string[] = [`# ${scenario.name}\n`];
    for (const [index, invocation] of scenario.invocations(context).entries()) {
      const result = await runCli(invocation.args, { env: { TAUBRIDGE_DEBUG: "", ...invocation.env } });
      const printed = whole || invocation.printsNoData === true;
      const heading = `## ${index + 1}: taubridge ${mask(invocation.args.join(" "))}\nexit ${result.exitCode}\n`;
      sections.push(heading, section("stdout", mask(String(result.stdout)), printed), section("stderr", mask(String(result.stderr)), true));
      wholeSections.push(heading, section("stdout", mask(String(result.stdout)), true), section("stderr", mask(String(result.stderr)), true));
    }
    sections.push("## files\n");
    wholeSections.push("## files\n");
    const files = readdirSync(context.out, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.endsWith(".checkpoint.jsonl"))
      .map((entry) => relative(context.out, join(entry.parentPath, entry.name)))
      .sort();
    for (const name of files) {
      const isResults = name.endsWith(".json") && !name.endsWith(".meta.json");
      const text = mask(readFileSync(join(context.out, name), "utf8"));
      sections.push(section(name, text, whole || !isResults, isResults));
      wholeSections.push(section(name, text, true));
    }
    return { stored: sections.join(""), whole: wholeSections.join("") };
  } finally {
    await server?.close();
  }
}
