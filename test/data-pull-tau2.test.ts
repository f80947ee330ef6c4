import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { exitCodeForError } from "../src/cli/exit-codes.ts";
import { registerDataCommand } from "../src/cli/data-command.ts";
import { ConfigError, DataError } from "../src/errors/error-tree.ts";
import { DEFAULT_TAU2_BENCH_SOURCE } from "../src/data/datasets.ts";
import { loadTau2BenchManifest, parseManifest, sha256Hex, type DataManifest } from "../src/data/manifest.ts";
import { defaultDataDir, defaultSourceUrl, importDataset, importTau2Bench, pullTau2Bench } from "../src/data/pull.ts";
import { missingTau2Reason, tau2BenchDirectory } from "./support/shared-data.ts";

const COMMIT = "a2c024725189473d2d7cea3a5cfdbcc67478e41f";
const manifest = loadTau2BenchManifest();

/** Every file under `directory`, as sorted POSIX paths relative to it. */
async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() || entry.isSymbolicLink())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split("\\").join("/"))
    .sort();
}

/** The export's own notes: its READMEs and the checksum list of the banking_knowledge folder. */
const EXPORT_NOTES = new Set(["README.md", "upstream-src/README.md", "banking_knowledge.sha256"]);

/** The files of the shared export that are upstream files (its READMEs and the Python-made fixtures are not). */
async function sharedUpstreamFiles(shared: string): Promise<string[]> {
  return (await listFiles(shared)).filter((path) => !path.startsWith("fixtures/") && !EXPORT_NOTES.has(path));
}

describe("the τ²-bench manifest", () => {
  it("pins sierra-research/tau2-bench at the export's commit and maps each upstream path to its data-directory target", () => {
    expect(manifest).toMatchObject({ dataset: "tau2-bench", repository: "sierra-research/tau2-bench", commit: COMMIT });
    expect(manifest.outputs).toBeUndefined();
    expect(manifest.files).toHaveLength(912);
    for (const file of manifest.files) {
      expect(file.kind).toBe("copy");
      const expected =
        file.path === "LICENSE"
          ? "LICENSE"
          : file.path.startsWith("data/tau2/domains/")
            ? file.path.slice("data/tau2/domains/".length)
            : file.path.startsWith("data/tau2/user_simulator/")
              ? file.path.slice("data/tau2/".length)
              : `upstream-src/${file.path}`;
      expect(file.target).toBe(expected);
    }
    const counts = (prefix: string) => manifest.files.filter((file) => file.target.startsWith(prefix)).length;
    expect([counts("mock/"), counts("airline/"), counts("retail/"), counts("telecom/"), counts("banking_knowledge/"), counts("user_simulator/"), counts("upstream-src/src/tau2/")]).toEqual([
      6, 4, 4, 11, 813, 4, 69,
    ]);
    expect([counts("banking_knowledge/documents/"), counts("banking_knowledge/tasks/"), counts("banking_knowledge/prompts/")]).toEqual([698, 97, 17]);
  });

  it.skipIf(!tau2BenchDirectory)("lists exactly the upstream files of the shared export", async () => {
    expect(manifest.files.map((file) => file.target).sort()).toEqual(await sharedUpstreamFiles(tau2BenchDirectory!));
  });

  if (!tau2BenchDirectory) it.skip(missingTau2Reason, () => undefined);
});

describe("τ²-bench defaults", () => {
  it("installs next to τ-bench in the cache, and reads its own source variable", () => {
    expect(defaultDataDir({ TAUBRIDGE_CACHE_DIR: "/c/tb" }, undefined, "tau2-bench")).toBe("/c/tb/tau2-bench");
    expect(defaultDataDir({}, "/given", "tau2-bench")).toBe("/given/tau2-bench");
    expect(defaultSourceUrl({}, "tau2-bench")).toBe("https://raw.githubusercontent.com/sierra-research/tau2-bench");
    expect(DEFAULT_TAU2_BENCH_SOURCE).toBe("https://raw.githubusercontent.com/sierra-research/tau2-bench");
    expect(defaultSourceUrl({ TAUBRIDGE_TAU2_BENCH_SOURCE: "http://mirror/t2", TAUBRIDGE_TAU_BENCH_SOURCE: "http://mirror/t1" }, "tau2-bench")).toBe("http://mirror/t2");
    expect(defaultSourceUrl({ TAUBRIDGE_TAU2_BENCH_SOURCE: "http://mirror/t2" })).toBe("https://raw.githubusercontent.com/sierra-research/tau-bench");
    expect(() => defaultDataDir({}, "/given", "tau3-bench")).toThrow('Unknown dataset "tau3-bench"; known: tau-bench, tau2-bench');
  });

  it("refuses a manifest of another dataset", async () => {
    const other = parseManifest({ ...manifest, dataset: "tau-bench" });
    const error = await pullTau2Bench({ manifest: other, cacheDir: join(tmpdir(), "never-used"), baseUrl: "http://127.0.0.1:9" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe('the manifest is for the dataset "tau-bench" (sierra-research/tau2-bench), not "tau2-bench"; pass a τ²-bench manifest');
  });
});

function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const program = new Command().exitOverride().configureOutput({ writeOut: (text) => out.push(text), writeErr: (text) => err.push(text) });
  registerDataCommand(program, { stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
  return { promise: program.parseAsync(["node", "taubridge", ...args]), out, err };
}

describe("taubridge data (τ²-bench, CLI)", () => {
  it("data pull --help lists both datasets", async () => {
    const { promise, out } = cli(["data", "pull", "--help"]);
    await expect(promise).rejects.toMatchObject({ code: "commander.helpDisplayed" });
    const help = out.join("");
    expect(help).toContain("dataset to pull (tau-bench, tau2-bench)");
    expect(help).toMatch(/Datasets:\n {2}tau-bench {3}τ-bench: .*\n {2}tau2-bench {2}τ²-bench: /);
    expect(help).toContain("$TAUBRIDGE_TAU2_BENCH_SOURCE");
  });

  it("data path tau2-bench prints the τ² directory", async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), "taubridge-tau2-path-"));
    try {
      const { promise, out, err } = cli(["data", "path", "tau2-bench", "--cache-dir", cacheDir]);
      await promise;
      expect(out.join("")).toBe(`${join(cacheDir, "tau2-bench")}\n`);
      expect(err.join("")).toContain("run 'taubridge data pull tau2-bench'");
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  it("data import names what it looked for in every dataset when the directory is neither", async () => {
    const empty = await mkdtemp(join(tmpdir(), "taubridge-tau2-empty-"));
    try {
      const { promise } = cli(["data", "import", empty, "--cache-dir", join(empty, "cache")]);
      const error = await promise.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DataError);
      expect((error as Error).message).toBe(
        `${empty} is neither a checkout of sierra-research/tau-bench (it has no tau_bench/envs/retail/tasks_test.py) nor a converted export (it has no retail/tasks_test.json), ` +
          `and neither a checkout of sierra-research/tau2-bench (it has no data/tau2/domains/airline/db.json) nor a converted export (it has no airline/db.json)`,
      );
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Against the shared export, served by a loopback server as `<commit>/<upstream path>`.
// ---------------------------------------------------------------------------------------------

describe.skipIf(!tau2BenchDirectory)("pulling τ²-bench from a loopback mirror of the shared export", () => {
  const shared = tau2BenchDirectory ?? "";
  const byPath = new Map(manifest.files.map((file) => [file.path, file]));
  const corrupt = new Set<string>();
  const requests: string[] = [];
  let root: string;
  let server: Server;
  let baseUrl: string;
  /** The small files only (no db.json, no telecom task lists): a cheap manifest for the checkout and env-var cases. */
  let small: DataManifest;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "taubridge-tau2-data-"));
    small = parseManifest({ ...manifest, files: manifest.files.filter((file) => file.bytes < 100_000) });
    server = createServer((request, response) => {
      const url = decodeURIComponent(request.url ?? "");
      requests.push(url);
      // `/mirror…/<commit>/<path>`: a test may use its own mirror name, so requests still in flight
      // from an earlier test (a failed pull's aborted downloads) are told apart from its own.
      const match = new RegExp(`^/mirror[^/]*/${COMMIT}/(.*)$`).exec(url);
      const file = match ? byPath.get(match[1]) : undefined;
      if (!file) {
        response.writeHead(404).end("not found");
        return;
      }
      readFile(join(shared, file.target)).then(
        (body) => {
          if (corrupt.has(file.path)) body[body.length >> 1] ^= 0x20;
          response.writeHead(200, { "content-type": "application/octet-stream" }).end(body);
        },
        () => response.writeHead(500).end("read failed"),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mirror`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(root, { recursive: true, force: true });
  });

  beforeEach(() => {
    corrupt.clear();
    requests.length = 0;
  });

  it("data pull tau2-bench installs every file byte for byte, with SOURCE.json, in the shared layout", async () => {
    const cacheDir = await mkdtemp(join(root, "cache-"));
    const { promise, out, err } = cli(["data", "pull", "tau2-bench", "--cache-dir", cacheDir, "--source-url", baseUrl]);
    await promise;
    const dataDir = join(cacheDir, "tau2-bench");
    expect(await readdir(cacheDir)).toEqual(["tau2-bench"]);
    expect(requests.sort()).toEqual(manifest.files.map((file) => `/mirror/${COMMIT}/${file.path}`).sort());
    expect(await listFiles(dataDir)).toEqual([...(await sharedUpstreamFiles(shared)), "SOURCE.json"].sort());
    for (const file of manifest.files) {
      const installed = await readFile(join(dataDir, file.target));
      if (!installed.equals(await readFile(join(shared, file.target)))) throw new Error(`${file.target} differs from the shared export`);
    }
    const source = JSON.parse(await readFile(join(dataDir, "SOURCE.json"), "utf8"));
    expect(source).toMatchObject({
      dataset: "tau2-bench",
      repository: "sierra-research/tau2-bench",
      commit: COMMIT,
      method: "pull",
      source: baseUrl,
      from: "upstream",
      verified: true,
    });
    expect(source.files).toEqual(manifest.files.map((file) => ({ target: file.target, sha256: file.sha256, bytes: file.bytes })));
    expect(out.join("")).toContain(
      `tau2-bench data installed at ${dataDir}\n  sierra-research/tau2-bench@${COMMIT} via pull from ${baseUrl}\n  912 upstream files (41.9 MB), all sha256 verified; 912 data files written\n`,
    );
    expect(err.join("")).toContain(`pulling sierra-research/tau2-bench@a2c024725189 from ${baseUrl} (912 files)`);
    expect(err.join("")).toContain("[912/912]");

    const path = cli(["data", "path", "tau2-bench", "--cache-dir", cacheDir]);
    await path.promise;
    expect(path.out.join("")).toBe(`${dataDir}\n`);
    expect(path.err.join("")).toBe("");
  });

  it("a corrupted file fails naming it, with exit code 2, and installs nothing", async () => {
    const cacheDir = await mkdtemp(join(root, "cache-"));
    const target = "data/tau2/domains/airline/policy.md";
    corrupt.add(target);
    const error = await pullTau2Bench({ cacheDir, baseUrl, retryMinTimeoutMs: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DataError);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toMatch(
      new RegExp(`^sha256 mismatch for ${target} \\(downloaded from ${baseUrl}/${COMMIT}/${target}\\): expected ${byPath.get(target)!.sha256}, got [0-9a-f]{64} \\(7676 bytes, expected 7676\\)`),
    );
    expect(exitCodeForError(error)).toBe(2);
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it("takes the mirror from TAUBRIDGE_TAU2_BENCH_SOURCE when --source-url is absent", async () => {
    const cacheDir = await mkdtemp(join(root, "cache-"));
    const manifestPath = join(root, "small-manifest.json");
    await writeFile(manifestPath, JSON.stringify(small));
    const saved = process.env.TAUBRIDGE_TAU2_BENCH_SOURCE;
    const mirror = `${baseUrl}-from-env`;
    process.env.TAUBRIDGE_TAU2_BENCH_SOURCE = mirror;
    try {
      const { promise, out } = cli(["data", "pull", "tau2-bench", "--cache-dir", cacheDir, "--manifest", manifestPath]);
      await promise;
      expect(out.join("")).toContain(`via pull from ${mirror}`);
    } finally {
      if (saved === undefined) delete process.env.TAUBRIDGE_TAU2_BENCH_SOURCE;
      else process.env.TAUBRIDGE_TAU2_BENCH_SOURCE = saved;
    }
    expect(requests.filter((url) => url.startsWith("/mirror-from-env/"))).toHaveLength(small.files.length);
    expect(await listFiles(join(cacheDir, "tau2-bench"))).toEqual([...small.files.map((file) => file.target), "SOURCE.json"].sort());
  });

  it("data import recognises a checkout of sierra-research/tau2-bench and verifies it", async () => {
    const checkout = join(root, "checkout");
    for (const file of small.files) {
      await mkdir(dirname(join(checkout, file.path)), { recursive: true });
      await symlink(join(shared, file.target), join(checkout, file.path));
    }
    const cacheDir = await mkdtemp(join(root, "cache-"));
    const result = await importTau2Bench({ checkoutDir: checkout, cacheDir, manifest: small });
    expect(result).toMatchObject({ from: "upstream", upstreamFiles: small.files.length });
    expect(result.record).toMatchObject({ dataset: "tau2-bench", method: "import", from: "upstream", verified: true, source: checkout });
    const file = small.files.find((entry) => entry.target === "telecom/tasks_small.json")!;
    expect(sha256Hex(await readFile(join(result.dataDir, file.target)))).toBe(file.sha256);
  });

  it("data import of the shared export detects τ²-bench and installs it verified", async () => {
    const cacheDir = await mkdtemp(join(root, "cache-"));
    const { promise, out } = cli(["data", "import", shared, "--cache-dir", cacheDir]);
    await promise;
    const dataDir = join(cacheDir, "tau2-bench");
    expect(out.join("")).toContain(`tau2-bench data installed at ${dataDir}`);
    expect(out.join("")).toContain("an export of the upstream files (41.9 MB), JSON files parsed, all sha256 verified; 912 data files written");
    const source = JSON.parse(await readFile(join(dataDir, "SOURCE.json"), "utf8"));
    expect(source).toMatchObject({ dataset: "tau2-bench", method: "import", from: "export", source: shared, verified: true });
    expect(await listFiles(dataDir)).toEqual([...(await sharedUpstreamFiles(shared)), "SOURCE.json"].sort());
    // The same directory is a τ-bench directory for nobody: asking for τ-bench says what is missing.
    await expect(importDataset({ checkoutDir: shared, cacheDir, dataset: "tau-bench" })).rejects.toThrow(`${shared} is neither a checkout of sierra-research/tau-bench`);
  });
});

if (!tau2BenchDirectory) describe("pulling τ²-bench from a loopback mirror of the shared export", () => it.skip(missingTau2Reason, () => undefined));
