/**
 * τ³ banking_knowledge's `shell` tool: the time of one shell call, the original's and ours in the
 * same run, and the cost of exporting the knowledge base into a sandbox per environment.
 *
 * 1. **Per shell call.** The 35 commands of `fixtures/shell_probes_banking_knowledge.json` (15 fresh
 *    environments of terminal_use and terminal_use_write): each round runs the original (a Python
 *    driver, support/original/tau3_shell.py: the original environment's `get_response`, or — when
 *    the original's dependencies are not importable — its `sandbox_manager.py` and
 *    `ShellMixin.shell` alone, which need only the standard library) and then ours in process
 *    (a fresh environment per episode, one orchestrator hop per command), so both see the same
 *    machine load. Both sides check every answer against the fixture. Reported: p50 / p99 / max
 *    per call, for all calls and for the calls that reach `srt` (blocked ones answer at once).
 * 2. **Export.** `_create_sandbox` (the directory, the srt settings, 698 documents and INDEX.md):
 *    the original's and ours, p50 / p99.
 * 3. **A read-only export shared between environments.** One export; every terminal_use episode of
 *    the fixture runs against it in turn (as environments of one run would), each answer checked
 *    against the fixture, and the folder compared file by file with a fresh export afterwards (srt
 *    0.0.24+ leaves stubs behind; 0.0.23 must not). terminal_use_write needs its own copy.
 *
 * Needs TAUBRIDGE_SHARED (tau2-bench/), `srt`'s system tools (bubblewrap, ripgrep, socat) and
 * python3; for the whole original environment also TAUBRIDGE_TAU2_ORIGINAL and
 * TAUBRIDGE_ORIGINAL_PYTHON as scripts/bench/support/original/README.md says. Without them it says
 * what it skipped. `npx tsx scripts/bench/tau3-shell.ts [rounds]` (default 1: a round is ~2 × 35
 * srt calls, 1–3 minutes on a quiet machine). Prints JSON.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { tau2BankingKnowledgeDomain } from "../../domains/tau2-banking-knowledge/index.ts";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import type { Tau2Requestor } from "../../src/suites/tau2/engine/environment.ts";
import { environmentHopAsync } from "../../src/suites/tau2/engine/task-state.ts";
import { checkSandboxAvailability, KnowledgeBase, SandboxManager, shellToolText } from "../../src/suites/tau2/knowledge/index.ts";
import { type PyDict, fromJs } from "../../src/value/index.ts";

const root = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const rounds = /^\d+$/.test(process.argv[2] ?? "") ? Number(process.argv[2]) : 1;
const EXPORTS = 10;
const shared = process.env.TAUBRIDGE_SHARED;
const data = shared ? join(shared, "tau2-bench") : "";

function skip(reason: string): never {
  console.log(JSON.stringify({ skipped: reason }));
  process.exit(0);
}

if (!shared || !existsSync(join(data, "fixtures", "shell_probes_banking_knowledge.json"))) skip("TAUBRIDGE_SHARED with tau2-bench/fixtures/shell_probes_banking_knowledge.json is not set");
const availability = checkSandboxAvailability();
if (!availability.ok) skip(`the srt sandbox cannot run here: ${availability.problem}`);
const runtime = availability.runtime;

interface Episode {
  id: string;
  retrieval_variant: string;
  actions: Array<{ requestor: Tau2Requestor; name: string; arguments: { command: string } }>;
  expected: { steps: Array<{ content: string; error: boolean }> };
}
const fixturePath = join(data, "fixtures", "shell_probes_banking_knowledge.json");
const episodes = (JSON.parse(readFileSync(fixturePath, "utf8")) as { episodes: Episode[] }).episodes;
const normalized = (text: string) => text.replace(/agentic_search_[0-9a-f]{8}/g, "agentic_search_XXXXXXXX");

interface Hop {
  episode: string;
  command: string;
  seconds: number;
}

/** p50 / p99 / max in milliseconds. */
function percentiles(seconds: number[]) {
  if (seconds.length === 0) return null;
  const sorted = [...seconds].sort((a, b) => a - b);
  const at = (fraction: number) => Number((sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)] * 1000).toFixed(1));
  return { calls: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: Number((sorted.at(-1)! * 1000).toFixed(1)) };
}

/** Calls answered without `srt` (screened out before it runs). */
const blocked = new Set(
  episodes.flatMap((episode) => episode.actions.filter((_action, index) => episode.expected.steps[index].content.includes("Command blocked")).map((action) => action.arguments.command)),
);

function callStats(hops: Hop[]) {
  return { all: percentiles(hops.map((hop) => hop.seconds)), throughSrt: percentiles(hops.filter((hop) => !blocked.has(hop.command)).map((hop) => hop.seconds)) };
}

// ─── The original ───────────────────────────────────────────────────────────────────────────────

const driver = join(root, "scripts", "bench", "support", "original", "tau3_shell.py");
const originalPython = process.env.TAUBRIDGE_ORIGINAL_PYTHON ?? "python3";
/** The original's `srt` is ours (node_modules/.bin), found on PATH as τ² looks for it. */
const pythonEnv = { ...process.env, TAUBRIDGE_SHARED: shared, PATH: `${join(root, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}` };

/** How the original runs here: its whole environment, `sandbox_manager.py` alone, or not at all (why). */
async function originalMode(): Promise<{ python: string; args: string[]; scope: string } | { skipped: string }> {
  if (process.env.TAUBRIDGE_TAU2_ORIGINAL) {
    const probe = await execa(originalPython, [driver, "--check-imports"], { env: pythonEnv, reject: false, stdin: "ignore" });
    if (probe.exitCode === 0) return { python: originalPython, args: [], scope: "the original environment's get_response (retrieval_mixins.ShellMixin over sandbox_manager.SandboxManager)" };
  }
  const probe = await execa("python3", [driver, "--sandbox-only", "--check-imports"], { env: pythonEnv, reject: false, stdin: "ignore" });
  if (probe.exitCode === 0)
    return {
      python: "python3",
      args: ["--sandbox-only"],
      scope:
        "the original's sandbox_manager.py and ShellMixin.shell only (the original's other dependencies are not importable here: set TAUBRIDGE_TAU2_ORIGINAL and TAUBRIDGE_ORIGINAL_PYTHON as scripts/bench/support/original/README.md says)",
    };
  return { skipped: `python3 cannot load the original's sandbox_manager.py: ${(probe.stderr || probe.stdout).trim().split("\n").at(-1)}` };
}

interface OriginalReport {
  hops: Hop[];
  exports: number[];
  fixture_check: { compared: number; mismatches: unknown[] };
}

async function runOriginal(mode: { python: string; args: string[] }, exports: number): Promise<OriginalReport> {
  const result = await execa(mode.python, [driver, ...mode.args, "--fixture", fixturePath, "--exports", String(exports)], { env: pythonEnv, reject: false, stdin: "ignore" });
  if (result.exitCode !== 0) throw new Error(`the original's driver exited ${result.exitCode}: ${result.stderr.slice(-2000)}`);
  return JSON.parse(result.stdout) as OriginalReport;
}

// ─── Ours ───────────────────────────────────────────────────────────────────────────────────────

const domains = new Map(["terminal_use", "terminal_use_write"].map((variant) => [variant, loadTau2Domain(tau2BankingKnowledgeDomain, data, { retrievalConfig: variant })]));

async function runOurs(): Promise<{ hops: Hop[]; mismatches: string[] }> {
  const hops: Hop[] = [];
  const mismatches: string[] = [];
  for (const episode of episodes) {
    const environment = domains.get(episode.retrieval_variant)!.createEnvironment();
    try {
      for (const [index, action] of episode.actions.entries()) {
        const started = performance.now();
        const result = await environmentHopAsync(environment, { id: `call_${index}`, name: action.name, requestor: action.requestor, arguments: fromJs(action.arguments) as PyDict });
        hops.push({ episode: episode.id, command: action.arguments.command, seconds: (performance.now() - started) / 1000 });
        if (normalized(result.content) !== normalized(episode.expected.steps[index].content)) mismatches.push(`${episode.id} #${index}`);
      }
    } finally {
      await environment.dispose();
    }
  }
  return { hops, mismatches };
}

const knowledgeBase = KnowledgeBase.load(join(data, "banking_knowledge", "documents"));

async function timeOurExports(count: number): Promise<number[]> {
  const seconds: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    const sandbox = await SandboxManager.create({ allowWrites: false, dataRoot: data, runtime }, knowledgeBase.documents);
    seconds.push((performance.now() - started) / 1000);
    await sandbox.cleanup();
  }
  return seconds;
}

/** Every file under a directory (hidden ones too), with its size and SHA-256: what a command could see. */
function snapshot(directory: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const relative = path.slice(directory.length + 1);
    entries[relative] = entry.isFile() ? createHash("sha256").update(readFileSync(path)).digest("hex") : entry.isDirectory() ? "dir" : `other:${statSync(path).mode}`;
  }
  return entries;
}

/** The read-only episodes against one shared export: same answers? folder unchanged? */
async function sharedExport(): Promise<Record<string, unknown>> {
  const readOnly = episodes.filter((episode) => episode.retrieval_variant === "terminal_use");
  const sandbox = await SandboxManager.create({ allowWrites: false, dataRoot: data, runtime }, knowledgeBase.documents);
  const fresh = await SandboxManager.create({ allowWrites: false, dataRoot: data, runtime }, knowledgeBase.documents);
  const mismatches: string[] = [];
  try {
    const before = snapshot(sandbox.kbDir);
    for (const episode of readOnly) {
      for (const [index, action] of episode.actions.entries()) {
        const content = await shellToolText(sandbox, action.arguments.command);
        if (normalized(content) !== normalized(episode.expected.steps[index].content)) mismatches.push(`${episode.id} #${index}: ${JSON.stringify(content.slice(0, 200))}`);
      }
    }
    const after = snapshot(sandbox.kbDir);
    const changed = Object.keys({ ...before, ...after }).filter((name) => before[name] !== after[name]);
    const differsFromFresh = JSON.stringify(after) !== JSON.stringify(snapshot(fresh.kbDir));
    return {
      episodes: readOnly.length,
      calls: readOnly.reduce((count, episode) => count + episode.actions.length, 0),
      answersAsTheFixture: mismatches.length === 0,
      mismatches,
      filesChangedByTheCalls: changed,
      folderDiffersFromAFreshExport: differsFromFresh,
    };
  } finally {
    await sandbox.cleanup();
    await fresh.cleanup();
  }
}

// ─── The run ────────────────────────────────────────────────────────────────────────────────────

const mode = await originalMode();
const originalHops: Hop[] = [];
const ourHops: Hop[] = [];
let originalExports: number[] = [];
const checks: Record<string, unknown> = {};
for (let round = 0; round < rounds; round++) {
  if (!("skipped" in mode)) {
    const report = await runOriginal(mode, round === 0 ? EXPORTS : 0);
    originalHops.push(...report.hops);
    if (round === 0) originalExports = report.exports;
    checks[`originalRound${round}`] = { compared: report.fixture_check.compared, mismatches: report.fixture_check.mismatches.length };
  }
  const ours = await runOurs();
  ourHops.push(...ours.hops);
  checks[`oursRound${round}`] = { compared: ours.hops.length, mismatches: ours.mismatches };
}
const ourExports = await timeOurExports(EXPORTS);
const shared_ = await sharedExport();

const original = "skipped" in mode ? { skipped: mode.skipped } : { scope: mode.scope, perCall: callStats(originalHops), export: percentiles(originalExports) };
const ours = { perCall: callStats(ourHops), export: percentiles(ourExports) };
const ratio = (left: { p50Ms: number } | null | undefined, right: { p50Ms: number } | null | undefined) => (left && right ? Number((left.p50Ms / right.p50Ms).toFixed(2)) : null);
console.log(
  JSON.stringify(
    {
      machine: { cpus: cpus().length, loadAverage1m: Number(loadavg()[0].toFixed(2)), node: process.version, srt: runtime.version },
      rounds,
      original,
      ours,
      p50RatioOriginalOverOurs: "skipped" in original ? null : { perCallThroughSrt: ratio(original.perCall.throughSrt, ours.perCall.throughSrt), export: ratio(original.export, ours.export) },
      sharedReadOnlyExport: { ...shared_, savedPerEnvironmentMs: ours.export?.p50Ms ?? null, note: "terminal_use_write needs its own copy: its agent writes in the folder" },
      checks,
    },
    null,
    2,
  ),
);
