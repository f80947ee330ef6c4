/**
 * What τ³'s shell sandbox needs on this machine, found before any episode: Anthropic's sandbox
 * runtime `srt` — the npm package `@anthropic-ai/sandbox-runtime`, which taubridge depends on at
 * exactly the version τ² requires (0.0.23: `sandbox_manager.py` explains why not a later one) — and
 * the system tools `srt` runs (`_REQUIRED_BINARIES_LINUX` / `_DARWIN` of the original: `rg` on both,
 * `bwrap` and `socat` on Linux; also `bash` and `which`, which `srt` itself calls). The original
 * raises `SandboxRuntimeError` when one is missing; here it is a one-line ConfigError before the
 * first episode (the variant table decides which variants need it).
 */
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";

/** The version of `@anthropic-ai/sandbox-runtime` τ² requires (and `package.json` pins). */
export const SRT_VERSION = "0.0.23";

/** The `srt` CLI of taubridge's own dependency: run as `node <cli> --settings <file> <command>`. */
export interface SandboxRuntime {
  /** The Node executable that runs `srt` (this process's). */
  readonly node: string;
  /** `dist/cli.js` of `@anthropic-ai/sandbox-runtime`. */
  readonly cli: string;
  readonly version: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The system tools `srt` runs, by platform (the original's lists, plus the shell and `which` srt calls). */
export function requiredSandboxTools(platform: NodeJS.Platform = process.platform): readonly string[] | undefined {
  if (platform === "linux") return ["rg", "bwrap", "socat", "bash", "which"];
  if (platform === "darwin") return ["rg", "bash", "which"];
  return undefined;
}

/** How to install the missing tools (Debian/Ubuntu's package names; Homebrew on macOS). */
export function sandboxInstallHint(platform: NodeJS.Platform = process.platform): string {
  return platform === "darwin" ? "brew install ripgrep" : "sudo apt-get install -y bubblewrap ripgrep socat";
}

/** `shutil.which(name)`: the first executable regular file of that name on PATH. */
export function findOnPath(name: string, env: Env = process.env): string | undefined {
  for (const directory of (env.PATH ?? "").split(delimiter)) {
    if (directory === "") continue;
    const candidate = join(directory, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** `srt` as installed with taubridge (undefined when the package is missing, e.g. an install with --omit). */
export function locateSandboxRuntime(): SandboxRuntime | undefined {
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve("@anthropic-ai/sandbox-runtime/package.json");
  } catch {
    return undefined;
  }
  const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { version?: unknown; bin?: unknown };
  const bin = typeof pkg.bin === "object" && pkg.bin !== null ? (pkg.bin as Record<string, unknown>).srt : undefined;
  if (typeof bin !== "string") return undefined;
  return { node: process.execPath, cli: join(dirname(manifest), bin), version: typeof pkg.version === "string" ? pkg.version : "unknown" };
}

/** Whether the sandbox can run here, and if not, one sentence saying what is missing and how to get it. */
export type SandboxAvailability = { ok: true; runtime: SandboxRuntime } | { ok: false; problem: string };

/**
 * Checks the sandbox's requirements (`_check_sandbox_dependencies`): the platform, taubridge's `srt`
 * at the pinned version, and every system tool on PATH.
 */
export function checkSandboxAvailability(env: Env = process.env, platform: NodeJS.Platform = process.platform): SandboxAvailability {
  const tools = requiredSandboxTools(platform);
  if (!tools) return { ok: false, problem: `the srt sandbox runs on Linux and macOS only, not on ${platform}` };
  const runtime = locateSandboxRuntime();
  if (!runtime) return { ok: false, problem: `srt (npm @anthropic-ai/sandbox-runtime@${SRT_VERSION}, a dependency of taubridge) is not installed: reinstall taubridge's dependencies (npm ci)` };
  if (runtime.version !== SRT_VERSION)
    return { ok: false, problem: `srt is @anthropic-ai/sandbox-runtime ${runtime.version}, but τ² requires exactly ${SRT_VERSION}: reinstall taubridge's dependencies (npm ci)` };
  const missing = tools.filter((tool) => findOnPath(tool, env) === undefined);
  if (missing.length > 0) return { ok: false, problem: `srt cannot find ${missing.join(", ")} on PATH (install with: ${sandboxInstallHint(platform)})` };
  return { ok: true, runtime };
}
