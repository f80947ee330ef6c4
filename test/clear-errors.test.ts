/**
 * Hardening, class 4 (unclear errors and wrong exit codes), on both suites: every refusal is one
 * line naming the file (and where in it), with exit code 2 for bad input. Invalid UTF-8 anywhere
 * taubridge reads text is refused as Python's `json.load` refuses it (never replaced by U+FFFD).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeUtf8 } from "../src/data/data-files.ts";
import { fileSha256, rememberFileSha256 } from "../src/data/pinned-files.ts";
import { KnowledgeBase } from "../src/suites/tau2/knowledge/knowledge-base.ts";
import { runCli, runTau2 } from "./support/cli.ts";
import { linkedDataCopy, spliceBytes } from "./support/data-copies.ts";
import { describeWithTau2Data, tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";

warnIfMissingShared();

const LIBRARY_DATA = join(import.meta.dirname, "..", "domains", "library", "data");
const TAU2_FIXTURE = join(import.meta.dirname, "fixtures", "tau2-results", "v1", "mock-oracle-3-tasks-2-trials.json");
const TAU2_OFFLINE = ["--domain", "mock", "--agent", "oracle", "--user", "scripted"];

function temporary(name: string, content: string | Uint8Array): string {
  const path = join(mkdtempSync(join(tmpdir(), "taubridge-errors-")), name);
  writeFileSync(path, content);
  return path;
}

/** Expects exit 2, nothing on stdout, and exactly `line` on stderr. */
function expectRefusal(result: { exitCode?: number; stdout: unknown; stderr: unknown }, line: string): void {
  expect(String(result.stderr).trim()).toBe(`taubridge: ${line}`);
  expect(String(result.stdout)).toBe("");
  expect(result.exitCode).toBe(2);
}

describe("invalid UTF-8 is refused as Python refuses it, naming the file and the byte offset", () => {
  it("decodes strictly, with Python's reasons, and keeps a BOM as the old reader did", () => {
    expect(() => decodeUtf8(Buffer.from([0x7b, 0xff]), "f.json")).toThrow("f.json: not valid UTF-8 (byte 0xff at offset 1: invalid start byte)");
    expect(() => decodeUtf8(Buffer.from([0x22, 0xc3, 0x28]), "f.json")).toThrow("f.json: not valid UTF-8 (byte 0xc3 at offset 1: invalid continuation byte)");
    expect(() => decodeUtf8(Buffer.from([0x22, 0xe2, 0x82]), "f.json")).toThrow("f.json: not valid UTF-8 (byte 0xe2 at offset 1: unexpected end of data)");
    // Surrogates and overlong forms are not UTF-8 either (Python: "invalid continuation byte" / "invalid start byte").
    expect(() => decodeUtf8(Buffer.from([0xed, 0xa0, 0x80]), "f")).toThrow("f: not valid UTF-8 (byte 0xed at offset 0: invalid continuation byte)");
    expect(() => decodeUtf8(Buffer.from([0xc0, 0x80]), "f")).toThrow("f: not valid UTF-8 (byte 0xc0 at offset 0: invalid start byte)");
    expect(decodeUtf8(Buffer.from('\ufeff["é"]'), "f")).toBe('\ufeff["é"]');
  });

  it("a τ³ knowledge-base document", () => {
    const file = temporary("doc.json", spliceBytes('{"id": "doc", "title": "t", "content": "caf"}', '"caf', [0xe9, 0x22]));
    expect(() => KnowledgeBase.load(join(file, ".."))).toThrow(`${file}: not valid UTF-8 (byte 0xe9 at offset 43: invalid continuation byte)`);
  });

  describe.concurrent("τ-bench", () => {
    it("a task file (--task-file)", async () => {
      const file = temporary("tasks.json", spliceBytes(readFileSync(join(LIBRARY_DATA, "tasks_test.json")), '"instruction": "', [0xff]));
      const offset = readFileSync(file).indexOf(0xff);
      expectRefusal(await runCli(["run", "--task-file", file, "--log-dir", join(file, "..", "logs"), "--quiet"]), `${file}: not valid UTF-8 (byte 0xff at offset ${offset}: invalid start byte)`);
    });

    it("a data file of the domain (its policy)", async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "taubridge-errors-"));
      cpSync(LIBRARY_DATA, dataDir, { recursive: true });
      const policy = join(dataDir, "policy.md");
      writeFileSync(policy, spliceBytes(readFileSync(policy), "# ", [0xe2, 0x28, 0xa1]));
      expectRefusal(await runCli(["run", "--data-dir", dataDir, "--log-dir", join(dataDir, "logs"), "--quiet"]), `${policy}: not valid UTF-8 (byte 0xe2 at offset 2: invalid continuation byte)`);
    });

    it("a results file (report, rescore, records)", async () => {
      const entry = { task_id: 0, reward: 1.0, info: { note: "caf" }, traj: [], trial: 0 };
      const file = temporary("results.json", spliceBytes(JSON.stringify([entry]), '"caf', [0xe9]));
      const offset = readFileSync(file).indexOf(0xe9);
      const line = `${file}: not valid UTF-8 (byte 0xe9 at offset ${offset}: invalid continuation byte)`;
      expectRefusal(await runCli(["report", file]), line);
      expectRefusal(await runCli(["rescore", file, "--env", "library"]), line);
      expectRefusal(await runCli(["records", file]), line);
    });

    it("a checkpoint line that is not UTF-8 is a torn line: discarded, its episode runs again", async () => {
      const logDir = mkdtempSync(join(tmpdir(), "taubridge-errors-"));
      const first = await runCli(["run", "--task-ids", "0", "1", "--log-dir", logDir, "--quiet"]);
      expect(first.exitCode).toBe(0);
      const checkpoint = /Results saved to (.+)\.json/.exec(first.stdout)![1] + ".checkpoint.jsonl";
      const lines = readFileSync(checkpoint, "utf8").trimEnd().split("\n");
      // Task 1's line with a byte that is not UTF-8 inside a string, then a valid line after it: not the last line.
      writeFileSync(checkpoint, Buffer.concat([Buffer.from(`${lines[0]}\n${lines[1]}\n`), spliceBytes(`${lines[2]}\n`, '"instruction": "', [0xff])]));
      const second = await runCli(["run", "--task-ids", "0", "1", "--log-dir", logDir, "--format", "json"]);
      expect(second.exitCode).toBe(0);
      expect(second.stderr).toContain("discarded 1 torn checkpoint line(s); those episodes run again");
      expect(second.stderr).toMatch(/resumed 1 finished episodes, running 1 /);
    });
  });

  describeWithTau2Data("τ²", (tau2Data) => {
    it.concurrent("a task file of the task set", async () => {
      const tasks = spliceBytes(readFileSync(join(tau2Data, "mock", "tasks.json")), '"id": "', [0xc3, 0x28]);
      const dataDir = linkedDataCopy(tau2Data, { "mock/tasks.json": tasks });
      const file = join(dataDir, "mock", "tasks.json");
      const offset = tasks.indexOf(0xc3);
      const result = await runTau2(TAU2_OFFLINE, { data: dataDir, saveTo: join(dataDir, "out", "results.json") });
      expectRefusal(result, `${file}: not valid UTF-8 (byte 0xc3 at offset ${offset}: invalid continuation byte)`);
    });

    it.concurrent("a database of the domain", async () => {
      const db = spliceBytes(readFileSync(join(tau2Data, "mock", "db.json")), '"', [0xf0, 0x28, 0x8c, 0xbc]);
      const dataDir = linkedDataCopy(tau2Data, { "mock/db.json": db });
      const result = await runTau2(TAU2_OFFLINE, { data: dataDir, saveTo: join(dataDir, "out", "results.json") });
      expectRefusal(result, `${join(dataDir, "mock", "db.json")}: not valid UTF-8 (byte 0xf0 at offset ${db.indexOf(0xf0)}: invalid continuation byte)`);
    });

    it.concurrent("a results file (report, rescore, records)", async () => {
      const file = temporary("results.json", spliceBytes(readFileSync(TAU2_FIXTURE), '"timestamp": "', [0xff]));
      const line = `${file}: not valid UTF-8 (byte 0xff at offset ${readFileSync(file).indexOf(0xff)}: invalid start byte)`;
      expectRefusal(await runCli(["report", file]), line);
      expectRefusal(await runCli(["rescore", file, "--data-dir", tau2Data]), line);
      expectRefusal(await runCli(["records", file]), line);
    });
  });
});

describe.concurrent("a results file given the other suite's data or domain names the file's suite", () => {
  /** A data directory laid out as `dataset`'s (what tells the two apart when there is no SOURCE.json). */
  function dataDirOf(dataset: "tau-bench" | "tau2-bench"): string {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-errors-"));
    mkdirSync(join(directory, "upstream-src", dataset === "tau-bench" ? "tau_bench" : join("src", "tau2")), { recursive: true });
    return directory;
  }

  it("a τ² results file with τ-bench's data or domain (rescore, report, records)", async () => {
    const tauData = dataDirOf("tau-bench");
    const hint = "(pass τ²-bench's --env and --data-dir)";
    expectRefusal(await runCli(["rescore", TAU2_FIXTURE, "--data-dir", tauData]), `${TAU2_FIXTURE} is a τ²-bench results file, but --data-dir ${tauData} holds τ-bench data ${hint}`);
    expectRefusal(await runCli(["report", TAU2_FIXTURE, "--data-dir", tauData]), `${TAU2_FIXTURE} is a τ²-bench results file, but --data-dir ${tauData} holds τ-bench data ${hint}`);
    expectRefusal(await runCli(["rescore", TAU2_FIXTURE, "--env", "library"]), `${TAU2_FIXTURE} is a τ²-bench results file, but --env library is a τ-bench domain ${hint}`);
    expectRefusal(await runCli(["records", TAU2_FIXTURE, "--env", "library"]), `${TAU2_FIXTURE} is a τ²-bench results file, but --env library is a τ-bench domain ${hint}`);
  });

  it("a τ-bench results file with τ²'s data or domain", async () => {
    const file = temporary("results.json", JSON.stringify([{ task_id: 0, reward: 1.0, info: {}, traj: [], trial: 0 }]));
    const tau2Data = dataDirOf("tau2-bench");
    const hint = "(pass τ-bench's --env and --data-dir)";
    expectRefusal(await runCli(["rescore", file, "--env", "retail", "--data-dir", tau2Data]), `${file} is a τ-bench results file, but --data-dir ${tau2Data} holds τ²-bench data ${hint}`);
    expectRefusal(await runCli(["rescore", file, "--env", "mock"]), `${file} is a τ-bench results file, but --env mock is a τ²-bench domain ${hint}`);
  });
});

describe.concurrent("an output folder under a regular file is a one-line refusal, exit 2", () => {
  it("τ-bench --log-dir", async () => {
    const file = temporary("plain-file", "");
    expectRefusal(await runCli(["run", "--task-ids", "0", "--log-dir", join(file, "logs"), "--quiet"]), `--log-dir ${join(file, "logs")}: ${file} is a file, not a folder`);
  });

  describeWithTau2Data("τ²", (tau2Data) => {
    it.concurrent("--save-to", async () => {
      const file = temporary("plain-file", "");
      const saveTo = join(file, "out", "results.json");
      expectRefusal(await runTau2(TAU2_OFFLINE, { data: tau2Data, saveTo }), `--save-to ${saveTo}: ${file} is a file, not a folder`);
    });
  });
});

/** A framework module whose `createAgent` throws on its first call (the check before any episode). */
const THROWING_FACTORY = "export function createAgent() {\n  throw new Error('no API key configured');\n}\n";
const FRAMEWORK_FLAGS = ["--model", "gpt-test", "--base-url", "http://127.0.0.1:9/v1"];

describe.concurrent("a framework module whose createAgent throws names the module (exit 2, before any episode)", () => {
  it("τ-bench", async () => {
    const module = temporary("throwing-agent.mjs", THROWING_FACTORY);
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-errors-"));
    const result = await runCli(["run", "--agent-strategy", "vercel-ai", "--agent-option", `module=${module}`, ...FRAMEWORK_FLAGS, "--task-ids", "0", "--log-dir", logDir, "--quiet"]);
    expectRefusal(result, `createAgent() in ${module} threw: no API key configured`);
  });

  describeWithTau2Data("τ²", (tau2Data) => {
    it.concurrent("tau2 run", async () => {
      const module = temporary("throwing-agent.mjs", THROWING_FACTORY);
      const saveTo = join(mkdtempSync(join(tmpdir(), "taubridge-errors-")), "results.json");
      const result = await runTau2(["--domain", "mock", "--agent", "vercel-ai", "--agent-option", `module=${module}`, ...FRAMEWORK_FLAGS, "--user", "scripted", "--num-tasks", "1"], {
        data: tau2Data,
        saveTo,
      });
      expectRefusal(result, `createAgent() in ${module} threw: no API key configured`);
    });
  });
});

const python = process.env.TAUBRIDGE_PYTHON ?? "python3";
const pythonAvailable = spawnSync(python, ["-c", "import sys; assert sys.version_info >= (3, 8)"]).status === 0;

describe.skipIf(!pythonAvailable)("a Python agent that returns a dict where text is expected ends as a JS function agent's non-text reply does", () => {
  /** A folder with `dict_agent.py`, whose `respond` returns a dict. */
  function dictAgent(): string {
    const directory = mkdtempSync(join(tmpdir(), "taubridge-errors-"));
    writeFileSync(join(directory, "dict_agent.py"), 'def respond(message):\n    return {"text": "Hello, how can I help?"}\n');
    return directory;
  }
  const DICT_ERROR = "dict_agent:respond returned a dict, not the reply text (a str): {'text': 'Hello, how can I help?'}";

  it.concurrent("τ-bench: the episode's error names the callable and what it returned; nothing reaches the user", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "taubridge-errors-"));
    const options = ["entry=dict_agent:respond", `pythonPath=${dictAgent()}`].flatMap((option) => ["--agent-option", option]);
    const result = await runCli(["run", "--agent-strategy", "python-bridge", ...options, "--task-ids", "0", "--log-dir", logDir, "--quiet"]);
    expect(result.exitCode).toBe(0);
    const [entry] = JSON.parse(readFileSync(/Results saved to (.+\.json)/.exec(result.stdout)![1], "utf8"));
    expect(entry.taubridge.termination).toBe("agent_error");
    expect(entry.taubridge.error.message).toContain(DICT_ERROR);
    expect(JSON.stringify(entry.traj)).not.toContain("how can I help");
  });

  describeWithTau2Data("τ²", (tau2Data) => {
    // τ² records any participant that crashes its turn as an infrastructure error (its orchestrator
    // crashes), the JS function agent's non-text reply too: the Python agent now ends the same way.
    it.concurrent("tau2 run", async () => {
      const saveTo = join(mkdtempSync(join(tmpdir(), "taubridge-errors-")), "results.json");
      const options = ["entry=dict_agent:respond", `pythonPath=${dictAgent()}`].flatMap((option) => ["--agent-option", option]);
      const result = await runTau2(["--domain", "mock", "--agent", "python-bridge", ...options, "--user", "scripted", "--num-tasks", "1", "--retry-delay", "0"], { data: tau2Data, saveTo });
      expect(result.exitCode).toBe(3);
      const [simulation] = JSON.parse(readFileSync(saveTo, "utf8")).simulations;
      expect(simulation.termination_reason).toBe("infrastructure_error");
      expect(simulation.info.error).toContain(DICT_ERROR);
      expect(JSON.stringify(simulation.messages)).not.toContain("how can I help");
    });
  });
});

describe("data files that differ from the pinned export are used with one warning line naming them", () => {
  const WARNING = "[taubridge] warning: data files differ from the pinned export, so scores may not compare with published ones:";

  it("hashes a file once per process while its size and modification time stay", () => {
    const file = temporary("data.json", "[]");
    rememberFileSha256(file, "recorded-by-a-reader");
    expect(fileSha256(file)).toBe("recorded-by-a-reader");
    writeFileSync(file, "[1]"); // another size: hashed again
    expect(fileSha256(file)).toBe(createHash("sha256").update("[1]").digest("hex"));
  });

  it.skipIf(!tauBenchDirectory).concurrent("τ-bench: a changed policy is named; the pinned data gives no warning", async () => {
    const data = tauBenchDirectory as string;
    const changed = linkedDataCopy(data, { "retail/wiki.md": `${readFileSync(join(data, "retail", "wiki.md"), "utf8")}\nA local rule.\n` });
    const run = (dataDir: string) => runCli(["run", "--env", "retail", "--data-dir", dataDir, "--task-ids", "0", "--log-dir", mkdtempSync(join(tmpdir(), "taubridge-errors-")), "--quiet"]);
    const [edited, pristine] = await Promise.all([run(changed), run(data)]);
    expect(edited.exitCode).toBe(0);
    expect(String(edited.stderr).trim()).toBe(`${WARNING} retail/wiki.md (tau-bench; \`taubridge data pull tau-bench\` restores the pinned files)`);
    expect(pristine.exitCode).toBe(0);
    expect(String(pristine.stderr)).not.toContain("warning");
  });

  describeWithTau2Data("τ²", (tau2Data) => {
    it.concurrent("a changed database and policy are named; the pinned data gives no warning", async () => {
      const changed = linkedDataCopy(tau2Data, {
        "mock/policy.md": `${readFileSync(join(tau2Data, "mock", "policy.md"), "utf8")}\nA local rule.\n`,
        "mock/db.json": `${readFileSync(join(tau2Data, "mock", "db.json"), "utf8")}\n`,
      });
      const run = (dataDir: string) => runTau2([...TAU2_OFFLINE, "--num-tasks", "1"], { data: dataDir, saveTo: join(mkdtempSync(join(tmpdir(), "taubridge-errors-")), "results.json") });
      const [edited, pristine] = await Promise.all([run(changed), run(tau2Data)]);
      expect(edited.exitCode).toBe(0);
      expect(String(edited.stderr).trim()).toBe(`${WARNING} mock/db.json, mock/policy.md (tau2-bench; \`taubridge data pull tau2-bench\` restores the pinned files)`);
      expect(pristine.exitCode).toBe(0);
      expect(String(pristine.stderr)).not.toContain("warning");
    });
  });
});
