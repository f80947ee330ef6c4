/**
 * τ³'s shell sandbox against the original's own `SandboxManager` (`knowledge/sandbox_manager.py`
 * from the pinned sources, loaded by CPython 3.11: it needs only the standard library): the export
 * (every file name and byte, `INDEX.md`, `srt-settings.json`) for the knowledge base and for odd
 * document ids, the command screening, the output sanitizing, and — with `srt` and its system tools
 * installed — `run_command` on the same commands through both (exit codes, Python's text-mode
 * decoding, timeouts, errors Python raises on the input, the "dependencies" marker). Also: the
 * sandbox's environment keeps no secret, cleanup removes the directory, and a process that exits
 * without cleanup still removes it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { expect, it } from "vitest";
import {
  KnowledgeBase,
  type KnowledgeDocument,
  SandboxManager,
  SandboxRuntimeError,
  SRT_VERSION,
  checkSandboxAvailability,
  locateSandboxRuntime,
  sandboxEnvironment,
} from "../../../src/suites/tau2/knowledge/index.ts";
import { pyDecodeUtf8 } from "../../../src/value/index.ts";
import { python311 } from "../../support/python311.ts";
import { describeWithSandbox } from "../../support/sandbox-tools.ts";
import { describeWithTau2Data } from "../../support/shared-data.ts";

const USER = "alice";
const SANDBOX_ID = "0badcafe";
const BIN = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin");

/** Runs a Python program over the original `sandbox_manager.py` (module `sm`) with `inputs` as JSON; returns its JSON answer. */
function original(data: string, program: string, inputs: unknown, env: Record<string, string> = {}): unknown {
  const prelude = [
    "import importlib.util, json, sys",
    `spec = importlib.util.spec_from_file_location("sandbox_manager", ${JSON.stringify(join(data, "upstream-src", "src", "tau2", "knowledge", "sandbox_manager.py"))})`,
    "sm = importlib.util.module_from_spec(spec); spec.loader.exec_module(sm)",
    "sm._DEPS_VERIFIED = True",
    "inputs = json.loads(sys.stdin.read())",
  ].join("\n");
  const result = spawnSync("python3", ["-c", `${prelude}\n${program}`], {
    input: JSON.stringify(inputs),
    encoding: "utf8",
    env: { ...process.env, USER, LOGNAME: USER, LANG: "C.UTF-8", PATH: `${BIN}${delimiter}${process.env.PATH}`, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`python failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Every file of a directory (names sorted) with its text. */
function filesOf(directory: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(directory)
      .sort()
      .map((name) => [name, readFileSync(join(directory, name), "utf8")]),
  );
}

const ODD_DOCUMENTS: KnowledgeDocument[] = [
  { id: "b/../c", title: "Slashes and dots", content: "x" },
  { id: "a b\\c:d", title: "Spaces, backslash, colon", content: "y\n" },
  { id: "déjà_vu-2.0", title: "Accents — and a dash", content: "z" },
  { id: "snake_case", title: "Underscores", content: "" },
  { id: "٣²x", title: "Other digits", content: "w" },
  { id: "🙂 emoji", title: "Astral", content: "🙂" },
];

const ESCAPES = [
  "cat ../../etc/passwd",
  "cat /etc/hostname",
  "ls ~",
  "echo $HOME",
  `echo $${"{"}HOME}`,
  "cat 'a/../b'",
  'grep "/etc/x" file',
  "  /bin/ls",
  "ls;/bin/ls",
  "ls|/usr/bin/head",
  "ls&&/x",
  "echo a/b",
  "ls /1",
  "cat\u00a0/etc/x",
  "cat\x1c/etc/x",
  "cat\ufeff/etc/x",
  "echo '~' \"$HOME\"",
  "ls",
  "",
  "echo 'unterminated /etc",
];

const OUTPUTS = [
  "-rw-r--r-- 1 root root 75831 Nov 27 19:05 INDEX.md\n",
  "total 8\ndrwxr-xr-x  2 alice  staff  4096 Jan 11 21:44 .\n-rw-r--r--@ 1 alice staff 12 Feb  3  2024 a file.md\nlrwxrwxrwx 1 u g 4 Mar 10 10:10 link -> x\n",
  "-rw-r--r-- 1 alice alice 3 Nov 27 19:05 a.md\r\n",
  "/home/alice/notes and /Users/alice and /home/alicex and /home/alice\n",
  "-rw-r--r-- 1 ü g 1 Jan  1 00:00 ünïcode\u2028next\n",
  "",
  "plain text without listing\n",
];

describeWithTau2Data("τ³ shell sandbox: the export, screening and sanitizing against the original's SandboxManager (CPython)", (data) => {
  const runtime = locateSandboxRuntime();
  if (!runtime) throw new Error("@anthropic-ai/sandbox-runtime is not installed (npm ci)");
  const knowledgeBase = KnowledgeBase.load(join(data, "banking_knowledge", "documents"));

  it.skipIf(!python311())(
    "exports the knowledge base (and odd ids) with the original's file names, bytes, INDEX.md and srt settings",
    async () => {
      for (const [documents, allowWrites] of [
        [knowledgeBase.documents, false],
        [ODD_DOCUMENTS, true],
      ] as const) {
        const base = mkdtempSync(join(tmpdir(), "sandbox-export-"));
        const expected = original(
          data,
          [
            "m = sm.SandboxManager(allow_writes=inputs['allow_writes'], sandbox_id=inputs['id'], base_temp_dir=inputs['base'])",
            "m.export_documents(inputs['documents'], file_format='md')",
            "files = {name: open(m.kb_dir / name, encoding='utf-8').read() for name in sorted(m.list_files())}",
            "settings = open(m.settings_path, encoding='utf-8').read()",
            "m.cleanup()",
            "print(json.dumps({'files': files, 'settings': settings, 'dirs': [str(m.sandbox_dir), str(m.kb_dir)]}))",
          ].join("\n"),
          { allow_writes: allowWrites, id: SANDBOX_ID, base, documents },
        ) as { files: Record<string, string>; settings: string; dirs: string[] };
        const sandbox = await SandboxManager.create({ allowWrites, dataRoot: data, runtime, baseTempDir: base, sandboxId: SANDBOX_ID }, documents);
        try {
          expect([sandbox.sandboxDir, sandbox.kbDir]).toEqual(expected.dirs);
          expect(readFileSync(sandbox.settingsPath, "utf8")).toBe(expected.settings);
          const ours = filesOf(sandbox.kbDir);
          expect(Object.keys(ours)).toEqual(Object.keys(expected.files));
          expect(ours).toEqual(expected.files);
        } finally {
          await sandbox.cleanup();
        }
        expect(existsSync(sandbox.sandboxDir)).toBe(false);
        rmSync(base, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it.skipIf(!python311())("screens commands, sanitizes listings and names files as the original", async () => {
    const base = mkdtempSync(join(tmpdir(), "sandbox-screen-"));
    const sandbox = await SandboxManager.create({ allowWrites: false, dataRoot: data, runtime, baseTempDir: base, env: { USER, LOGNAME: USER, PATH: "/usr/bin" } }, []);
    try {
      const names = [...ODD_DOCUMENTS.map((document) => document.id), "x".repeat(300), "..hidden", "a..b...c"];
      const expected = original(
        data,
        [
          "m = sm.SandboxManager.__new__(sm.SandboxManager)",
          "print(json.dumps({'escapes': [m._has_escape_pattern(c) for c in inputs['escapes']], 'outputs': [m._sanitize_output(o, '') for o in inputs['outputs']], 'names': [m._sanitize_filename(n) for n in inputs['names']]}))",
        ].join("\n"),
        { escapes: ESCAPES, outputs: OUTPUTS, names },
      ) as { escapes: Array<string | null>; outputs: string[]; names: string[] };
      expect(ESCAPES.map((command) => sandbox.escapePattern(command) ?? null)).toEqual(expected.escapes);
      expect(OUTPUTS.map((output) => sandbox.sanitizeOutput(output))).toEqual(expected.outputs);
      const { sanitizeFilename } = await import("../../../src/suites/tau2/knowledge/index.ts");
      expect(names.map(sanitizeFilename)).toEqual(expected.names);
      expect(() => sandbox.escapePattern(5)).toThrow("expected string or bytes-like object, got 'int'");
      expect(() => sandbox.escapePattern(null)).toThrow("expected string or bytes-like object, got 'NoneType'");
    } finally {
      await sandbox.cleanup();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it.skipIf(!python311())("decodes output as Python's text mode does (strict UTF-8, the codec's error text)", () => {
    const samples = [[0xff], [0x61, 0x62, 0xe2, 0x28], [0xe2, 0x82, 0x28], [0xf0, 0x90, 0x80, 0x28], [0xe2, 0x82], [0xf0], [0xed, 0xa0, 0x80], [0xe0, 0x80], [0xc0, 0x80], [0x68, 0x69]];
    const expected = original(
      data,
      ["out = []", "for b in inputs:", "    try: out.append(['ok', bytes(b).decode('utf-8')])", "    except UnicodeDecodeError as e: out.append(['error', str(e)])", "print(json.dumps(out))"].join(
        "\n",
      ),
      samples,
    );
    const ours = samples.map((bytes) => {
      try {
        return ["ok", pyDecodeUtf8(Uint8Array.from(bytes))];
      } catch (error) {
        return ["error", (error as Error).message];
      }
    });
    expect(ours).toEqual(expected);
  });

  it("gives srt and the command a minimal environment: no key of the harness, the fixtures' locale on Linux", () => {
    const env = sandboxEnvironment({ PATH: "/usr/bin", HOME: "/home/x", USER: "x", OPENAI_API_KEY: "sk-secret", GITHUB_TOKEN: "t", LANG: "de_DE.UTF-8", LC_ALL: "de_DE.UTF-8" }, "linux");
    expect(env).toEqual({ PATH: "/usr/bin", HOME: "/home/x", USER: "x", LANG: "C.UTF-8" });
    expect(sandboxEnvironment({ PATH: "/bin", LANG: "en_US.UTF-8" }, "darwin")).toEqual({ PATH: "/bin", LANG: "en_US.UTF-8" });
  });

  it("names what is missing and how to install it (an empty PATH, another platform)", () => {
    const empty = mkdtempSync(join(tmpdir(), "no-tools-"));
    const none = checkSandboxAvailability({ PATH: empty }, "linux");
    expect(none).toEqual({ ok: false, problem: "srt cannot find rg, bwrap, socat, bash, which on PATH (install with: sudo apt-get install -y bubblewrap ripgrep socat)" });
    expect(checkSandboxAvailability({ PATH: empty }, "darwin")).toMatchObject({ ok: false, problem: expect.stringContaining("brew install ripgrep") });
    expect(checkSandboxAvailability({ PATH: empty }, "win32")).toEqual({ ok: false, problem: "the srt sandbox runs on Linux and macOS only, not on win32" });
  });

  it("runs srt 0.0.23 as pinned in package.json, and names a missing or different srt with the way to get the pinned one", () => {
    const manifest = JSON.parse(readFileSync(fileURLToPath(new URL("../../../package.json", import.meta.url)), "utf8")) as { dependencies: Record<string, string> };
    expect(manifest.dependencies["@anthropic-ai/sandbox-runtime"]).toBe(SRT_VERSION);
    expect(SRT_VERSION).toBe("0.0.23");
    const installed = locateSandboxRuntime();
    expect(installed?.version).toBe(SRT_VERSION);
    expect(existsSync(installed?.cli ?? "")).toBe(true);
    const path = { PATH: process.env.PATH };
    expect(checkSandboxAvailability(path, "linux", () => undefined)).toEqual({
      ok: false,
      problem: "srt (npm @anthropic-ai/sandbox-runtime@0.0.23, a dependency of taubridge) is not installed: reinstall taubridge's dependencies (npm ci)",
    });
    expect(checkSandboxAvailability(path, "linux", () => ({ node: process.execPath, cli: "cli.js", version: "0.0.24" }))).toEqual({
      ok: false,
      problem: "srt is @anthropic-ai/sandbox-runtime 0.0.24, but τ² requires exactly 0.0.23: reinstall taubridge's dependencies (npm ci)",
    });
  });
});

describeWithSandbox("τ³ shell sandbox: run_command through srt against the original's (CPython)", (data, runtime) => {
  const documents: KnowledgeDocument[] = [
    { id: "doc_a", title: "A", content: "alpha fee\nline two\n" },
    { id: "doc_b", title: "B", content: "beta\n" },
  ];
  const tooLong = `echo ${"x".repeat(140_000)}`;
  const commands: Array<[string, number]> = [
    ["ls -l INDEX.md", 30],
    ["ls", 30],
    ["printf 'a\\r\\nb\\rc'", 30],
    ["printf 'ok\\xff'", 30],
    ["printf 'ok\\xe2\\x82'", 30],
    ["echo out; echo err >&2; exit 4", 30],
    ["exit 3", 30],
    ["grep -c fee doc_a.md", 30],
    ["grep nothing doc_a.md", 30],
    ["cat nothing.md", 30],
    ["echo hi > x.md", 30],
    ["sleep 20", 2],
    ["echo a\u0000b", 30],
    [tooLong, 30],
    ["echo \ud800", 30],
    ["cat ../x", 30],
  ];

  it.skipIf(!python311())(
    "answers every command as the original's run_command (exit code, stdout, stderr)",
    async () => {
      const base = mkdtempSync(join(tmpdir(), "sandbox-run-"));
      const expected = original(
        data,
        [
          "m = sm.SandboxManager(allow_writes=False, sandbox_id=inputs['id'], base_temp_dir=inputs['base'])",
          "m.export_documents(inputs['documents'], file_format='md')",
          "out = [list(m.run_command(c, timeout=t)) for c, t in inputs['commands']]",
          "m.cleanup()",
          "print(json.dumps(out))",
        ].join("\n"),
        { id: SANDBOX_ID, base, documents, commands },
      ) as Array<[number, string, string]>;
      const sandbox = await SandboxManager.create({ allowWrites: false, dataRoot: data, runtime, baseTempDir: base, sandboxId: SANDBOX_ID, env: { ...process.env, USER, LOGNAME: USER } }, documents);
      try {
        const ours: Array<readonly [number, string, string]> = [];
        for (const [command, timeout] of commands) ours.push(await sandbox.runCommand(command, timeout));
        expect(ours).toEqual(expected);
      } finally {
        await sandbox.cleanup();
        rmSync(base, { recursive: true, force: true });
      }
    },
    300_000,
  );

  it("raises the original's SandboxRuntimeError (an infrastructure error) when srt's output says its dependencies are missing", async () => {
    const base = mkdtempSync(join(tmpdir(), "sandbox-marker-"));
    const sandbox = await SandboxManager.create({ allowWrites: false, dataRoot: data, runtime, baseTempDir: base }, documents);
    try {
      await expect(sandbox.runCommand("echo 'Sandbox dependencies are not available on this system.'")).rejects.toSatisfy((error) => SandboxRuntimeError.isInstance(error));
    } finally {
      await sandbox.cleanup();
    }
  }, 300_000);

  it("never lets the harness's keys reach a command; cleanup removes the directory; commands after it refuse", async () => {
    const base = mkdtempSync(join(tmpdir(), "sandbox-env-"));
    const secret = "sk-test-0123456789abcdefghij";
    const sandbox = await SandboxManager.create({ allowWrites: true, dataRoot: data, runtime, baseTempDir: base, env: { ...process.env, OPENAI_API_KEY: secret } }, documents);
    const [code, stdout] = await sandbox.runCommand("env; echo written > notes.md && cat notes.md");
    expect(code).toBe(0);
    expect(stdout).not.toContain(secret);
    expect(stdout).toContain("LANG=C.UTF-8\n");
    expect(stdout.endsWith("written\n")).toBe(true);
    await sandbox.cleanup();
    expect(existsSync(sandbox.sandboxDir)).toBe(false);
    await expect(sandbox.runCommand("ls")).rejects.toThrow(/was removed/);
  }, 300_000);

  it("a process that exits without cleanup still removes its sandbox directories", async () => {
    const base = mkdtempSync(join(tmpdir(), "sandbox-exit-"));
    const script = [
      `import { SandboxManager, locateSandboxRuntime } from ${JSON.stringify(join(import.meta.dirname, "..", "..", "..", "src", "suites", "tau2", "knowledge", "index.ts"))};`,
      `const sandbox = await SandboxManager.create({ allowWrites: false, dataRoot: ${JSON.stringify(data)}, runtime: locateSandboxRuntime(), baseTempDir: ${JSON.stringify(base)} }, [{ id: "d", title: "t", content: "c" }]);`,
      "console.log(sandbox.sandboxDir);",
      "process.exit(0);",
    ].join("\n");
    const child = await execa("node", ["--import", import.meta.resolve("tsx"), "--input-type=module", "-e", script], { reject: false });
    expect(child.exitCode, child.stderr).toBe(0);
    expect(child.stdout.trim()).toMatch(/agentic_search_[0-9a-f]{8}$/);
    expect(statSync(base).isDirectory()).toBe(true);
    expect(readdirSync(base)).toEqual([]);
  }, 300_000);
});
