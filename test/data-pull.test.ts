import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { registerDataCommand } from "../src/cli/data-command.ts";
import { Agent as UndiciAgent, fetch as undiciFetch } from "undici";
import { ConfigError, DataError, InfraError } from "../src/errors/error-tree.ts";
import { createManifest, loadTauBenchManifest, manifestOutputsOf, parseManifest, type DataManifest } from "../src/data/manifest.ts";
import { convertUpstream } from "../src/data/convert.ts";
import { defaultCacheDir, defaultDataDir, importTauBench, pullTauBench } from "../src/data/pull.ts";
import { missingSharedReason, tauBenchDirectory } from "./support/shared-data.ts";

// ---------------------------------------------------------------------------------------------
// A tiny fake upstream tree, written for these tests.
// ---------------------------------------------------------------------------------------------

const COMMIT = "0123456789abcdef0123456789abcdef01234567";

const FILES: Record<string, string> = {
  LICENSE: "Fake license for tests.\n",
  "pkg/envs/shop/data/items.json": '{"lamp": {"price": 25.0, "stock": 3}, "10": {"price": 1.5, "stock": 0}}\n',
  "pkg/envs/shop/wiki.md": "# Shop policy\n\nBe nice. Ünïcode stays as bytes.\n",
  "pkg/envs/shop/tasks_test.py": `from pkg.types import Task, Action

TASKS_TEST = [
    Task(
        annotator="0",
        user_id="ada_1",
        instruction="You are Ada. "
        "You want the lamp.",
        actions=[
            Action(name="look_up", kwargs={"item": "lamp"}),
            Action(name="buy", kwargs={"item": "lamp", "amount": 25.0, "qty": 1}),
        ],
        outputs=["25.0"],
    ),
    Task(annotator="1", user_id="bob_2", instruction='No actions.', actions=[], outputs=[]),
]
`,
  "pkg/envs/shop/tools/__init__.py": `from .buy import Buy
from .look_up import LookUp

ALL_TOOLS = [
    LookUp,
    Buy,
]
`,
  "pkg/envs/shop/tools/look_up.py": `from pkg.tool import Tool


class LookUp(Tool):
    @staticmethod
    def invoke(data, item):
        return str(data["items"].get(item))

    @staticmethod
    def get_info():
        return {
            "type": "function",
            "function": {"name": "look_up", "parameters": {"type": "object", "properties": {"item": {"type": "string"}}}},
        }
`,
  "pkg/envs/shop/tools/buy.py": `class Buy:
    def get_info():
        return {"type": "function", "function": {"name": "buy", "max": 10.0, "min": 1}}
`,
  "few_shot/shop.jsonl": '{"messages_display": "a"}\n{"messages_display": "b"}\n',
};

const EXPECTED_TASKS = `[
  {
    "user_id": "ada_1",
    "actions": [
      {
        "name": "look_up",
        "kwargs": {
          "item": "lamp"
        }
      },
      {
        "name": "buy",
        "kwargs": {
          "item": "lamp",
          "amount": 25.0,
          "qty": 1
        }
      }
    ],
    "instruction": "You are Ada. You want the lamp.",
    "outputs": [
      "25.0"
    ],
    "annotator": "0"
  },
  {
    "user_id": "bob_2",
    "actions": [],
    "instruction": "No actions.",
    "outputs": [],
    "annotator": "1"
  }
]
`;

const EXPECTED_TOOLS = `[
  {
    "type": "function",
    "function": {
      "name": "look_up",
      "parameters": {
        "type": "object",
        "properties": {
          "item": {
            "type": "string"
          }
        }
      }
    }
  },
  {
    "type": "function",
    "function": {
      "name": "buy",
      "max": 10.0,
      "min": 1
    }
  }
]
`;

let root: string;
let upstreamDir: string;
let manifest: DataManifest;
let server: Server;
let baseUrl: string;
/** Per-path behaviour of the fake server. */
const faults = new Map<string, "corrupt" | "503-once" | "404">();
const requests: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "taubridge-data-"));
  upstreamDir = join(root, "upstream");
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(upstreamDir, path)), { recursive: true });
    await writeFile(join(upstreamDir, path), text);
  }
  manifest = await createManifest(
    {
      dataset: "tau-bench",
      repository: "example/fake-bench",
      commit: COMMIT,
      files: [
        { path: "LICENSE", target: "LICENSE", kind: "copy" },
        { path: "pkg/envs/shop/data/items.json", target: "shop/items.json", kind: "copy" },
        { path: "pkg/envs/shop/wiki.md", target: "shop/wiki.md", kind: "copy" },
        { path: "pkg/envs/shop/tasks_test.py", target: "shop/tasks_test.json", kind: "task-module", symbol: "TASKS_TEST" },
        { path: "pkg/envs/shop/tools/__init__.py", target: "shop/tools_info.json", kind: "tool-index", symbol: "ALL_TOOLS" },
        { path: "pkg/envs/shop/tools/buy.py", target: "shop/tools_info.json", kind: "tool-module" },
        { path: "pkg/envs/shop/tools/look_up.py", target: "shop/tools_info.json", kind: "tool-module" },
        { path: "few_shot/shop.jsonl", target: "few_shot_data/shop.jsonl", kind: "copy" },
      ],
    },
    (path) => readFile(join(upstreamDir, path)),
  );

  server = createServer((request, response) => {
    const url = decodeURIComponent(request.url ?? "");
    requests.push(url);
    const prefix = `/mirror/${COMMIT}/`;
    const path = url.startsWith(prefix) ? url.slice(prefix.length) : undefined;
    const fault = path ? faults.get(path) : undefined;
    if (!path || !(path in FILES) || fault === "404") {
      response.writeHead(404).end("not found");
      return;
    }
    if (fault === "503-once") {
      faults.delete(path);
      response.writeHead(503).end("busy");
      return;
    }
    const body = Buffer.from(FILES[path]);
    if (fault === "corrupt") body[0] ^= 1;
    response.writeHead(200, { "content-type": "text/plain" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mirror`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(root, { recursive: true, force: true });
});

beforeEach(() => {
  faults.clear();
  requests.length = 0;
});

async function freshCache(): Promise<string> {
  return mkdtemp(join(root, "cache-"));
}

/** Writes what a pull of the fake upstream produces into `<root>/<name>`, as an already-converted export. */
async function writeExport(name: string): Promise<string> {
  const directory = join(root, name);
  for (const file of await convertUpstream(manifest, (path) => readFile(join(upstreamDir, path)))) {
    await mkdir(dirname(join(directory, file.target)), { recursive: true });
    await writeFile(join(directory, file.target), file.content);
  }
  return directory;
}

/** The fake manifest with the converter's outputs pinned, as the real manifest has them. */
async function manifestWithOutputs(): Promise<DataManifest> {
  const outputs = manifestOutputsOf(await convertUpstream(manifest, (path) => readFile(join(upstreamDir, path))));
  return parseManifest({ ...manifest, outputs });
}

const fixedNow = () => new Date("2026-01-02T03:04:05.000Z");
const sha = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

async function expectInstalled(dataDir: string): Promise<void> {
  expect(await readFile(join(dataDir, "shop/tasks_test.json"), "utf8")).toBe(EXPECTED_TASKS);
  expect(await readFile(join(dataDir, "shop/tools_info.json"), "utf8")).toBe(EXPECTED_TOOLS);
  for (const [path, target] of [
    ["LICENSE", "LICENSE"],
    ["pkg/envs/shop/data/items.json", "shop/items.json"],
    ["pkg/envs/shop/wiki.md", "shop/wiki.md"],
    ["few_shot/shop.jsonl", "few_shot_data/shop.jsonl"],
  ]) {
    expect((await readFile(join(dataDir, target))).equals(Buffer.from(FILES[path]))).toBe(true);
  }
}

describe("pullTauBench over a loopback server", () => {
  it("downloads, verifies, converts and installs atomically", async () => {
    const cacheDir = await freshCache();
    const lines: string[] = [];
    const result = await pullTauBench({ cacheDir, baseUrl, manifest, now: fixedNow, onProgress: (line) => lines.push(line) });
    expect(result.dataDir).toBe(join(cacheDir, "tau-bench"));
    await expectInstalled(result.dataDir);
    expect(requests.sort()).toEqual(manifest.files.map((file) => `/mirror/${COMMIT}/${file.path}`).sort());
    const source = JSON.parse(await readFile(join(result.dataDir, "SOURCE.json"), "utf8"));
    expect(source).toMatchObject({
      dataset: "tau-bench",
      repository: "example/fake-bench",
      commit: COMMIT,
      method: "pull",
      source: baseUrl,
      verified: true,
      retrieved_at: "2026-01-02T03:04:05.000Z",
    });
    expect(source.files.find((file: { target: string }) => file.target === "shop/tasks_test.json").sha256).toBe(sha(EXPECTED_TASKS));
    expect(await readdir(cacheDir)).toEqual(["tau-bench"]);
    expect(lines.some((line) => line.includes("sha256 ok"))).toBe(true);
  });

  it("checks the converted output against the manifest's outputs when present", async () => {
    const outputs = manifestOutputsOf(await convertUpstream(manifest, (path) => readFile(join(upstreamDir, path))));
    const cacheDir = await freshCache();
    await pullTauBench({ cacheDir, baseUrl, manifest: parseManifest({ ...manifest, outputs }) });
    const wrong = outputs.map((output) => (output.target === "shop/tools_info.json" ? { ...output, sha256: "0".repeat(64) } : output));
    const again = await freshCache();
    await expect(pullTauBench({ cacheDir: again, baseUrl, manifest: parseManifest({ ...manifest, outputs: wrong }) })).rejects.toThrow(/converted shop\/tools_info\.json does not match the manifest/);
    expect(await readdir(again)).toEqual([]);
  });

  it("fails on a corrupted file with both hashes and leaves no partial output", async () => {
    const cacheDir = await freshCache();
    faults.set("pkg/envs/shop/wiki.md", "corrupt");
    const file = manifest.files.find((entry) => entry.path === "pkg/envs/shop/wiki.md")!;
    const corrupted = Buffer.from(FILES["pkg/envs/shop/wiki.md"]);
    corrupted[0] ^= 1;
    const error = await pullTauBench({ cacheDir, baseUrl, manifest, retryMinTimeoutMs: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DataError);
    const message = (error as Error).message;
    expect(message).toContain("sha256 mismatch for pkg/envs/shop/wiki.md");
    expect(message).toContain(`expected ${file.sha256}`);
    expect(message).toContain(`got ${sha(corrupted)}`);
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it("keeps an existing installation when a later pull fails, and replaces it when one succeeds", async () => {
    const cacheDir = await freshCache();
    await pullTauBench({ cacheDir, baseUrl, manifest, now: fixedNow });
    await writeFile(join(cacheDir, "tau-bench", "marker"), "old");
    faults.set("pkg/envs/shop/tasks_test.py", "corrupt");
    await expect(pullTauBench({ cacheDir, baseUrl, manifest })).rejects.toThrow(/sha256 mismatch/);
    expect(await readdir(cacheDir)).toEqual(["tau-bench"]);
    expect(existsSync(join(cacheDir, "tau-bench", "marker"))).toBe(true);
    await expectInstalled(join(cacheDir, "tau-bench"));
    faults.clear();
    await pullTauBench({ cacheDir, baseUrl, manifest });
    expect(existsSync(join(cacheDir, "tau-bench", "marker"))).toBe(false);
    expect(await readdir(cacheDir)).toEqual(["tau-bench"]);
  });

  it("retries transient HTTP errors", async () => {
    const cacheDir = await freshCache();
    faults.set("LICENSE", "503-once");
    const lines: string[] = [];
    await pullTauBench({ cacheDir, baseUrl, manifest, retryMinTimeoutMs: 1, onProgress: (line) => lines.push(line) });
    expect(requests.filter((url) => url.endsWith("/LICENSE"))).toHaveLength(2);
    expect(lines.some((line) => line.startsWith("retrying LICENSE after attempt 1 failed: HTTP 503"))).toBe(true);
  });

  it("does not retry a 404 and says which file", async () => {
    const cacheDir = await freshCache();
    faults.set("few_shot/shop.jsonl", "404");
    await expect(pullTauBench({ cacheDir, baseUrl, manifest, retryMinTimeoutMs: 1, concurrency: 1 })).rejects.toThrow(/cannot download few_shot\/shop\.jsonl: HTTP 404/);
    expect(requests.filter((url) => url.endsWith("/few_shot/shop.jsonl"))).toHaveLength(1);
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it("gives a clear message when the source is unreachable, after a bounded number of attempts", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    let calls = 0;
    const countingFetch: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const cacheDir = await freshCache();
    const error = await pullTauBench({
      cacheDir,
      baseUrl: `http://127.0.0.1:${port}`,
      manifest,
      fetchImpl: countingFetch,
      retries: 2,
      retryMinTimeoutMs: 1,
      concurrency: 1,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InfraError);
    expect((error as Error).message).toMatch(/cannot download LICENSE from .* after 3 attempt\(s\): ECONNREFUSED/);
    expect((error as Error).message).toContain("Are you offline");
    expect((error as Error).message).toContain("taubridge data import");
    expect(calls).toBe(3);
    expect(await readdir(cacheDir)).toEqual([]);
  });
});

describe("pullTauBench when the source host name does not resolve", () => {
  // A `.invalid` name never resolves (RFC 2606), but the system resolver here would still ask the
  // configured DNS server, so the lookup is replaced: undici's own fetch with a connector whose
  // `lookup` answers as getaddrinfo does. The real fetch error path runs, and nothing leaves the machine.
  function unresolvingFetch(code: "ENOTFOUND" | "EAI_AGAIN") {
    const lookups: string[] = [];
    const lookup = (hostname: string, _options: unknown, callback: (error: Error) => void) => {
      lookups.push(hostname);
      const error = Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code, syscall: "getaddrinfo", hostname });
      process.nextTick(callback, error);
    };
    const dispatcher = new UndiciAgent({ connect: { lookup } as never });
    let calls = 0;
    const fetchImpl = ((input: string, init?: RequestInit) => {
      calls++;
      return undiciFetch(input, { ...(init as object), dispatcher } as never);
    }) as unknown as typeof fetch;
    return { fetchImpl, lookups, calls: () => calls, close: () => dispatcher.close() };
  }

  it.each(["ENOTFOUND", "EAI_AGAIN"] as const)("gives up at once on %s with one line naming the host and the offline alternatives", async (code) => {
    const network = unresolvingFetch(code);
    const cacheDir = await freshCache();
    const lines: string[] = [];
    const started = performance.now();
    const error = await pullTauBench({
      cacheDir,
      baseUrl: "http://raw.example.invalid/mirror",
      manifest,
      fetchImpl: network.fetchImpl,
      onProgress: (line) => lines.push(line),
    }).catch((caught: unknown) => caught);
    const elapsed = performance.now() - started;
    await network.close();
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toContain(`cannot resolve the host raw.example.invalid (${code}`);
    expect(message).toContain("this machine cannot look it up (offline");
    expect(message).toContain("taubridge data import <dir>");
    expect(message).toContain("--data-dir <dir>");
    expect(network.lookups).toEqual(["raw.example.invalid"]);
    expect(network.calls()).toBe(1);
    expect(lines.some((line) => line.startsWith("retrying"))).toBe(false);
    expect(elapsed).toBeLessThan(5000);
    expect(await readdir(cacheDir)).toEqual([]);
  });
});

describe("importTauBench from a converted export", () => {
  it("recognises the export, checks every file against the manifest and installs what a pull installs", async () => {
    const pinned = await manifestWithOutputs();
    const exportDir = await writeExport("export");
    const pulled = await pullTauBench({ cacheDir: await freshCache(), baseUrl, manifest: pinned, now: fixedNow });
    const cacheDir = await freshCache();
    const lines: string[] = [];
    const result = await importTauBench({ checkoutDir: exportDir, cacheDir, manifest: pinned, now: fixedNow, onProgress: (line) => lines.push(line) });
    await expectInstalled(result.dataDir);
    expect(result.from).toBe("export");
    const source = JSON.parse(await readFile(join(result.dataDir, "SOURCE.json"), "utf8"));
    expect(source).toMatchObject({ method: "import", from: "export", source: exportDir, verified: true, commit: COMMIT });
    expect(source.files).toEqual(pulled.record.files);
    expect(lines).toContain(`importing the converted export ${exportDir} (example/fake-bench@0123456789ab)`);
  });

  it("names the missing file and installs nothing", async () => {
    const exportDir = await writeExport("export-missing");
    await rm(join(exportDir, "shop/tools_info.json"));
    const cacheDir = await freshCache();
    const error = await importTauBench({ checkoutDir: exportDir, cacheDir, manifest: await manifestWithOutputs() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DataError);
    expect((error as Error).message).toBe(`${exportDir} looks like a converted export but has no readable shop/tools_info.json (ENOENT); nothing was installed`);
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it("names a file that does not parse, with the task and the field", async () => {
    const exportDir = await writeExport("export-unparsable");
    await writeFile(join(exportDir, "shop/tasks_test.json"), '[{"user_id": "x", "actions": [], "instruction": 3, "outputs": []}]\n');
    await expect(importTauBench({ checkoutDir: exportDir, cacheDir: await freshCache(), manifest: await manifestWithOutputs() })).rejects.toThrow(
      `${exportDir}/shop/tasks_test.json: task 0: field instruction:`,
    );
    await writeFile(join(exportDir, "shop/tasks_test.json"), EXPECTED_TASKS);
    await writeFile(join(exportDir, "shop/items.json"), '{"lamp": ');
    await expect(importTauBench({ checkoutDir: exportDir, cacheDir: await freshCache(), manifest: await manifestWithOutputs() })).rejects.toThrow(`${exportDir}/shop/items.json: invalid JSON:`);
  });

  it("rejects a modified export unless verification is off", async () => {
    const exportDir = await writeExport("export-modified");
    await writeFile(join(exportDir, "shop/wiki.md"), "# Local edits\n");
    const pinned = await manifestWithOutputs();
    const cacheDir = await freshCache();
    await expect(importTauBench({ checkoutDir: exportDir, cacheDir, manifest: pinned })).rejects.toThrow(
      /^shop\/wiki\.md in .*export-modified differs from the data of the pinned commit 0123456789ab: expected sha256 [0-9a-f]{64}, got [0-9a-f]{64}; nothing was installed/,
    );
    expect(await readdir(cacheDir)).toEqual([]);
    const result = await importTauBench({ checkoutDir: exportDir, cacheDir, manifest: pinned, verify: false });
    expect(await readFile(join(result.dataDir, "shop/wiki.md"), "utf8")).toBe("# Local edits\n");
    expect(result.record.verified).toBe(false);
  });

  it.skipIf(!tauBenchDirectory)("imports the shared τ-bench export with the real manifest", async () => {
    const cacheDir = await freshCache();
    const result = await importTauBench({ checkoutDir: tauBenchDirectory!, cacheDir });
    expect(result.from).toBe("export");
    expect(result.record).toMatchObject({ method: "import", from: "export", verified: true, commit: "59a200c6d575d595120f1cb70fea53cef0632f6b" });
    expect(result.record.files).toHaveLength(23); // the data files and the 6 τ-bench sources its original prompts are read from
    for (const file of result.record.files) {
      const installed = await readFile(join(result.dataDir, file.target));
      expect(installed.equals(await readFile(join(tauBenchDirectory!, file.target)))).toBe(true);
    }
    // The τ-bench sources the original prompts are read from come along; nothing else of upstream-src/.
    expect(existsSync(join(result.dataDir, "upstream-src", "tau_bench", "envs", "user.py"))).toBe(true);
    expect(existsSync(join(result.dataDir, "upstream-src", "README.md"))).toBe(false);
  });

  it.skipIf(!tauBenchDirectory)("names the missing file of a broken copy of the shared export", async () => {
    const broken = join(root, "shared-broken");
    const manifestReal = loadTauBenchManifest();
    for (const output of manifestReal.outputs ?? []) {
      if (output.target === "airline/tools_info.json") continue;
      await mkdir(dirname(join(broken, output.target)), { recursive: true });
      await writeFile(join(broken, output.target), await readFile(join(tauBenchDirectory!, output.target)));
    }
    const cacheDir = await freshCache();
    await expect(importTauBench({ checkoutDir: broken, cacheDir })).rejects.toThrow(
      `${broken} looks like a converted export but has no readable airline/tools_info.json (ENOENT); nothing was installed`,
    );
    expect(await readdir(cacheDir)).toEqual([]);
  });

  if (!tauBenchDirectory) it.skip(missingSharedReason, () => undefined);
});

describe("importTauBench from a local directory", () => {
  it("verifies and installs from a checkout", async () => {
    const cacheDir = await freshCache();
    const result = await importTauBench({ checkoutDir: upstreamDir, cacheDir, manifest, now: fixedNow });
    await expectInstalled(result.dataDir);
    const source = JSON.parse(await readFile(join(result.dataDir, "SOURCE.json"), "utf8"));
    expect(source).toMatchObject({ method: "import", source: upstreamDir, verified: true, commit: COMMIT });
  });

  it("rejects a modified checkout unless verification is off", async () => {
    const modified = join(root, "modified");
    for (const path of Object.keys(FILES)) {
      await mkdir(dirname(join(modified, path)), { recursive: true });
      await writeFile(join(modified, path), FILES[path]);
    }
    await writeFile(join(modified, "pkg/envs/shop/wiki.md"), "# Local edits\n");
    const cacheDir = await freshCache();
    await expect(importTauBench({ checkoutDir: modified, cacheDir, manifest })).rejects.toThrow(
      /sha256 mismatch for pkg\/envs\/shop\/wiki\.md \(in .*modified\): expected [0-9a-f]{64}, got [0-9a-f]{64}/,
    );
    expect(await readdir(cacheDir)).toEqual([]);
    const lines: string[] = [];
    const result = await importTauBench({ checkoutDir: modified, cacheDir, manifest, verify: false, onProgress: (line) => lines.push(line) });
    expect(await readFile(join(result.dataDir, "shop/wiki.md"), "utf8")).toBe("# Local edits\n");
    expect(JSON.parse(await readFile(join(result.dataDir, "SOURCE.json"), "utf8")).verified).toBe(false);
    expect(lines).toContain("warning: pkg/envs/shop/wiki.md differs from the pinned commit 0123456789ab");
  });

  it("names a missing file of a checkout", async () => {
    const partial = join(root, "partial-checkout");
    for (const path of Object.keys(FILES).filter((name) => name !== "LICENSE")) {
      await mkdir(dirname(join(partial, path)), { recursive: true });
      await writeFile(join(partial, path), FILES[path]);
    }
    await expect(importTauBench({ checkoutDir: partial, cacheDir: await freshCache(), manifest })).rejects.toThrow(/has no readable LICENSE \(ENOENT\); is it a checkout of example\/fake-bench\?/);
  });

  it("says what it looked for when the directory is neither a checkout nor an export", async () => {
    const error = await importTauBench({ checkoutDir: join(upstreamDir, "pkg"), cacheDir: await freshCache(), manifest }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DataError);
    expect((error as Error).message).toBe(
      `${join(upstreamDir, "pkg")} is neither a checkout of example/fake-bench (it has no pkg/envs/shop/tasks_test.py) nor a converted export (it has no shop/tasks_test.json)`,
    );
  });

  it("reports Python syntax errors with file, line and column", async () => {
    const broken = join(root, "broken");
    for (const path of Object.keys(FILES)) {
      await mkdir(dirname(join(broken, path)), { recursive: true });
      await writeFile(join(broken, path), FILES[path]);
    }
    await writeFile(join(broken, "pkg/envs/shop/tasks_test.py"), 'TASKS_TEST = [\n    Task(user_id="x",\n]\n');
    await expect(importTauBench({ checkoutDir: broken, cacheDir: await freshCache(), manifest, verify: false })).rejects.toThrow(
      "pkg/envs/shop/tasks_test.py:3:1: closing parenthesis ']' does not match opening parenthesis '('",
    );
  });
});

describe("taubridge data (CLI)", () => {
  function run(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const program = new Command().exitOverride();
    registerDataCommand(program, { stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
    return { promise: program.parseAsync(["node", "taubridge", ...args]), out, err };
  }

  it("data path prints the resolved directory", async () => {
    const cacheDir = await freshCache();
    const { promise, out, err } = run(["data", "path", "--cache-dir", cacheDir]);
    await promise;
    expect(out.join("")).toBe(`${join(cacheDir, "tau-bench")}\n`);
    expect(err.join("")).toContain("not installed yet");
  });

  it("data pull rejects unknown datasets", async () => {
    await expect(run(["data", "pull", "tau3-bench"]).promise).rejects.toThrow('Unknown dataset "tau3-bench"; known: tau-bench, tau2-bench');
  });

  it("data import installs with a manifest file and prints a summary to stdout", async () => {
    const manifestPath = join(root, "fake-manifest.json");
    await writeFile(manifestPath, JSON.stringify(manifest));
    const cacheDir = await freshCache();
    const { promise, out, err } = run(["data", "import", upstreamDir, "--cache-dir", cacheDir, "--manifest", manifestPath]);
    await promise;
    await expectInstalled(join(cacheDir, "tau-bench"));
    expect(out.join("")).toContain(`tau-bench data installed at ${join(cacheDir, "tau-bench")}`);
    expect(out.join("")).toContain("8 upstream files");
    expect(out.join("")).toContain("all sha256 verified");
    expect(err.join("")).toContain("converted pkg/envs/shop/tasks_test.py → shop/tasks_test.json (2 tasks)");
  });

  it("data pull downloads with --source-url", async () => {
    const manifestPath = join(root, "fake-manifest.json");
    await writeFile(manifestPath, JSON.stringify(manifest));
    const cacheDir = await freshCache();
    const { promise, out } = run(["data", "pull", "tau-bench", "--cache-dir", cacheDir, "--source-url", baseUrl, "--manifest", manifestPath]);
    await promise;
    await expectInstalled(join(cacheDir, "tau-bench"));
    expect(out.join("")).toContain(`via pull from ${baseUrl}`);
  });

  it("data import of something that is neither a checkout of the pinned repository nor an export names what is missing", async () => {
    const cacheDir = await freshCache();
    const { promise } = run(["data", "import", upstreamDir, "--cache-dir", cacheDir, "--no-verify"]);
    await expect(promise).rejects.toThrow(
      `is neither a checkout of sierra-research/tau-bench (it has no tau_bench/envs/retail/tasks_test.py) nor a converted export (it has no retail/tasks_test.json)`,
    );
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it("data import of a converted export says so in the summary", async () => {
    const outputs = manifestOutputsOf(await convertUpstream(manifest, (path) => readFile(join(upstreamDir, path))));
    const manifestPath = join(root, "fake-manifest-with-outputs.json");
    await writeFile(manifestPath, JSON.stringify({ ...manifest, outputs }));
    const exportDir = await writeExport("cli-export");
    const cacheDir = await freshCache();
    const { promise, out, err } = run(["data", "import", exportDir, "--cache-dir", cacheDir, "--manifest", manifestPath]);
    await promise;
    await expectInstalled(join(cacheDir, "tau-bench"));
    expect(out.join("")).toContain("a converted export");
    expect(out.join("")).toContain("all sha256 verified; 6 data files written");
    expect(err.join("")).toContain(`importing the converted export ${exportDir}`);
  });
});

describe("defaults", () => {
  it("resolves the cache directory from the environment", () => {
    expect(defaultCacheDir({ TAUBRIDGE_CACHE_DIR: "/c/tb", XDG_CACHE_HOME: "/x" })).toBe("/c/tb");
    expect(defaultCacheDir({ XDG_CACHE_HOME: "/x" })).toBe("/x/taubridge");
    expect(defaultCacheDir({})).toMatch(/[/\\]\.cache[/\\]taubridge$/);
    expect(defaultDataDir({ TAUBRIDGE_CACHE_DIR: "/c/tb" })).toBe("/c/tb/tau-bench");
    expect(defaultDataDir({}, "/given")).toBe("/given/tau-bench");
  });

  it("rejects manifest paths that could escape the cache directory", () => {
    const bad = { ...manifest, files: [{ ...manifest.files[0], target: "../outside" }] };
    expect(() => parseManifest(bad, "bad manifest")).toThrow(/bad manifest is invalid:\n {2}files\.0\.target: must be a relative POSIX path/);
  });
});

describe("the real manifest", () => {
  const manifestReal = loadTauBenchManifest();

  it("pins the upstream commit and lists every file once", () => {
    expect(manifestReal.repository).toBe("sierra-research/tau-bench");
    expect(manifestReal.commit).toBe("59a200c6d575d595120f1cb70fea53cef0632f6b");
    const targets = new Set(manifestReal.files.filter((file) => file.kind !== "tool-module").map((file) => file.target));
    expect([...targets].sort()).toEqual(
      [
        "LICENSE",
        "airline/flights.json",
        "airline/reservations.json",
        "airline/tasks_test.json",
        "airline/tools_info.json",
        "airline/users.json",
        "airline/wiki.md",
        "few_shot_data/MockAirlineDomainEnv-few_shot.jsonl",
        "few_shot_data/MockRetailDomainEnv-few_shot.jsonl",
        "retail/orders.json",
        "retail/products.json",
        "retail/tasks_dev.json",
        "retail/tasks_test.json",
        "retail/tasks_train.json",
        "retail/tools_info.json",
        "retail/users.json",
        "retail/wiki.md",
        "upstream-src/tau_bench/agents/base.py",
        "upstream-src/tau_bench/agents/chat_react_agent.py",
        "upstream-src/tau_bench/agents/few_shot_agent.py",
        "upstream-src/tau_bench/agents/tool_calling_agent.py",
        "upstream-src/tau_bench/envs/base.py",
        "upstream-src/tau_bench/envs/user.py",
      ].sort(),
    );
    expect(manifestReal.files.filter((file) => file.kind === "tool-module" && file.target === "retail/tools_info.json")).toHaveLength(16);
    expect(manifestReal.files.filter((file) => file.kind === "tool-module" && file.target === "airline/tools_info.json")).toHaveLength(14);
  });

  it.skipIf(!tauBenchDirectory)("matches the shared export byte for byte (copies and expected outputs)", async () => {
    for (const file of manifestReal.files.filter((entry) => entry.kind === "copy")) {
      const content = await readFile(join(tauBenchDirectory!, file.target));
      expect({ target: file.target, sha256: sha(content), bytes: content.byteLength }).toEqual({
        target: file.target,
        sha256: file.sha256,
        bytes: file.bytes,
      });
    }
    for (const output of manifestReal.outputs ?? []) {
      const content = await readFile(join(tauBenchDirectory!, output.target));
      expect({ target: output.target, sha256: sha(content) }).toEqual({ target: output.target, sha256: output.sha256 });
    }
    expect(manifestReal.outputs).toHaveLength(17);
  });

  if (!tauBenchDirectory) it.skip(missingSharedReason, () => undefined);
});
