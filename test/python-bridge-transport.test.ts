/**
 * The Node side of the Python channel, against the real Python bridge (no framework, no data): the
 * ready handshake, requests both ways (a Python→Node call nested in a Node→Python call), floats
 * surviving the trip as JSON text, library prints kept off the protocol stream, and every failure
 * mode ending as a typed InfraError with the child's last stderr lines: a crash, garbage on the
 * stream, a missed handshake, a missing interpreter, a request timeout. Also the dedicated-fd
 * channel, the `sitecustomize` and `run` launches, orderly shutdown, and two children side by side.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InfraError } from "../src/errors/error-tree.ts";
import { PythonAgentError, PythonBridgeChild, PythonBridgeError, PythonBridgeSetupError, type PythonChildOptions, type ToolExecuteParams } from "../bridge/transport/index.ts";

const python = process.env.TAUBRIDGE_PYTHON ?? "python3";
const available = spawnSync(python, ["-c", "import sys; assert sys.version_info >= (3, 8)"]).status === 0;
if (!available) console.warn(`skipped: no usable Python 3.8+ interpreter (${python}); set TAUBRIDGE_PYTHON`);

const children: PythonBridgeChild[] = [];
async function start(options: PythonChildOptions = {}): Promise<PythonBridgeChild> {
  const child = await PythonBridgeChild.start({ debug: true, readyTimeoutMs: 20_000, ...options });
  children.push(child);
  return child;
}

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.close({ timeoutMs: 2_000 })));
});

describe.skipIf(!available)("python bridge transport", () => {
  it("says ready with the interpreter and what it watches, answers requests, and shuts down cleanly", async () => {
    const child = await start();
    expect(child.ready.protocol).toBe(1);
    expect(child.ready.pythonVersion).toMatch(/^3\.\d+/);
    expect(child.ready.launch).toBe("module");
    expect(child.ready.channel).toBe("stdio");
    expect(child.ready.watched).toEqual(expect.arrayContaining(["fastworkflow.command_executor", "fastworkflow.workflow_agent"]));
    expect(child.ready.pid).toBe(child.pid);
    expect(await child.request("debug.echo", { a: [1, "x"] })).toEqual({ a: [1, "x"] });
    expect(await child.request("bridge.ping")).toEqual({ pong: true, pid: child.pid });
    const exit = await child.close();
    expect(exit.exitCode).toBe(0);
    expect(child.isClosed).toBe(true);
    await expect(child.request("debug.echo", {})).rejects.toBeInstanceOf(PythonBridgeError);
  });

  it("serves the child's tool.execute while the parent's request is pending, keeping Python floats in the JSON text", async () => {
    const seen: ToolExecuteParams[] = [];
    const child = await start({
      methods: {
        "tool.execute": (params) => {
          seen.push(params as ToolExecuteParams);
          return { output: `observation for ${(params as ToolExecuteParams).toolName}` };
        },
      },
    });
    const result = await child.request<{ outputs: string[]; microseconds: number[] }>("debug.call_tool", {
      toolName: "pay_fine",
      rawArguments: '{"member_id": "m1", "amount": 8.0, "count": 2}',
      repeat: 3,
    });
    expect(result.outputs).toEqual(["observation for pay_fine", "observation for pay_fine", "observation for pay_fine"]);
    expect(seen).toHaveLength(3);
    expect(seen[0]!.rawArguments).toBe('{"member_id": "m1", "amount": 8.0, "count": 2}');
    expect(new Set(seen.map((call) => call.toolCallId)).size).toBe(3);
  });

  it("a passthrough answer and a failing parent handler both reach Python; the channel stays usable", async () => {
    let fail = false;
    const child = await start({
      methods: {
        "tool.execute": () => {
          if (fail) throw new Error("harness exploded");
          return { passthrough: true };
        },
      },
    });
    const passed = await child.request<{ outputs: Array<string | null> }>("debug.call_tool", { toolName: "x", arguments: {} });
    expect(passed.outputs).toEqual([null]);
    fail = true;
    const error = await child.request("debug.call_tool", { toolName: "x", arguments: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PythonBridgeError);
    expect((error as Error).message).toMatch(/harness exploded/);
    expect(await child.request("debug.echo", 1)).toBe(1);
  });

  it("keeps print(), sys.__stdout__ and fd-1 writes of library code off the protocol stream", async () => {
    const lines: string[] = [];
    const child = await start({ onStderr: (line) => lines.push(line) });
    await child.request("debug.print", { text: "chatty library" });
    expect(await child.request("debug.echo", "still fine")).toBe("still fine");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.filter((line) => line === "chatty library")).toHaveLength(3);
  });

  it("a child that dies mid-request rejects every pending request with an InfraError carrying its last stderr lines", async () => {
    const child = await start();
    const slow = child.request("debug.sleep", { seconds: 30 });
    const dying = child.request("debug.exit", { code: 7, stderr: "Traceback: something broke" });
    for (const pending of [dying, slow]) {
      const error = await pending.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PythonBridgeError);
      expect(InfraError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/exited with code 7/);
      expect((error as PythonBridgeError).stderrTail).toContain("Traceback: something broke");
    }
    expect((await child.exited).exitCode).toBe(7);
  });

  it("garbage on the protocol stream fails the channel and kills the child", async () => {
    const child = await start();
    const error = await child.request("debug.garbage", { text: "Traceback (most recent call last): oops" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PythonBridgeError);
    expect((error as Error).message).toMatch(/non-protocol line/);
    expect((await child.exited).signal).toBe("SIGKILL");
    await expect(child.request("debug.echo", 1)).rejects.toBeInstanceOf(PythonBridgeError);
  });

  it("a request that takes too long rejects with a timeout; the child is still there for the caller to stop", async () => {
    const child = await start();
    const error = await child.request("debug.sleep", { seconds: 5 }, { timeoutMs: 200 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PythonBridgeError);
    expect((error as Error).message).toMatch(/timed out after 200 ms/);
    child.kill();
    expect((await child.exited).signal).toBe("SIGKILL");
  });

  it("a child that never says ready, or exits before it, or cannot be started, fails the handshake", async () => {
    const silent = await PythonBridgeChild.start({ python: "sleep", launch: "sitecustomize", program: ["30"], readyTimeoutMs: 300 }).catch((caught: unknown) => caught);
    expect(silent).toBeInstanceOf(PythonBridgeError);
    expect((silent as Error).message).toMatch(/bridge\.ready within 300 ms/);

    const early = await PythonBridgeChild.start({
      launch: "sitecustomize",
      program: ["-S", "-c", "import sys; sys.stderr.write('early failure\\n'); sys.exit(4)"],
    }).catch((caught: unknown) => caught);
    expect(early).toBeInstanceOf(PythonBridgeError);
    expect((early as Error).message).toMatch(/exited with code 4/);
    expect((early as PythonBridgeError).stderrTail).toContain("early failure");

    const missing = await PythonBridgeChild.start({ python: "/nonexistent/python3" }).catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(PythonBridgeError);
    expect((missing as Error).message).toMatch(/cannot start the python bridge/);
  });

  it("maps the child's error codes: setup errors are infrastructure, agent exceptions are not", async () => {
    const child = await start();
    const setup = await child.request("session.start", { driver: "fastworkflow", workflowPath: "/nonexistent/workflow" }).catch((caught: unknown) => caught);
    expect(setup).toBeInstanceOf(PythonBridgeSetupError);
    expect(InfraError.isInstance(setup)).toBe(true);
    expect((setup as Error).message).toMatch(/workflow directory not found/);

    const directory = mkdtempSync(join(tmpdir(), "tb-entry-"));
    writeFileSync(join(directory, "tb_raising_agent.py"), "def reply(message):\n    raise ValueError('agent bug: ' + message)\n");
    const agent = await start({ pythonPath: [directory] });
    await agent.request("session.start", { driver: "entry", entry: "tb_raising_agent:reply" });
    const raised = await agent.request("session.user_turn", { text: "hi" }).catch((caught: unknown) => caught);
    expect(raised).toBeInstanceOf(PythonAgentError);
    expect(InfraError.isInstance(raised)).toBe(false);
    expect((raised as PythonAgentError).pythonTraceback).toMatch(/ValueError: agent bug: hi/);
  });

  it("speaks over a dedicated fd, leaving stdin/stdout to the program", async () => {
    const lines: string[] = [];
    const child = await start({ channel: "fd", onStderr: (line) => lines.push(line) });
    expect(child.ready.channel).toBe("fd:3");
    await child.request("debug.print", { text: "stdout stays stdout" });
    expect(await child.request("debug.echo", "ok")).toBe("ok");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines).toContain("stdout stays stdout");
  });

  it("bridges an unchanged command line through sitecustomize, and `-m taubridge_bridge run <script>`", async () => {
    const viaSite = await start({ launch: "sitecustomize", program: ["-c", "print('the user program ran')"] });
    expect(viaSite.ready.launch).toBe("sitecustomize");
    expect(await viaSite.request("debug.echo", "site")).toBe("site");
    for (let waited = 0; waited < 5_000 && !viaSite.stderrTail().includes("the user program ran"); waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(viaSite.stderrTail()).toContain("the user program ran");
    expect((await viaSite.close()).exitCode).toBe(0);

    const directory = mkdtempSync(join(tmpdir(), "tb-run-"));
    writeFileSync(join(directory, "program.py"), "import sys\nprint('script args', sys.argv[1:])\n");
    const viaRun = await start({ program: ["run", join(directory, "program.py"), "--flag"] });
    expect(viaRun.ready.launch).toBe("run");
    expect(await viaRun.request("debug.echo", "run")).toBe("run");
    // The program runs concurrently on the main thread; shutting down ends the process wherever it is.
    for (let waited = 0; waited < 5_000 && !viaRun.stderrTail().includes("script args ['--flag']"); waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(viaRun.stderrTail()).toContain("script args ['--flag']");
    expect((await viaRun.close()).exitCode).toBe(0);
  });

  it("runs children side by side without crosstalk", async () => {
    const calls = new Map<string, string[]>();
    const make = (name: string) =>
      start({
        methods: {
          "tool.execute": (params) => {
            calls.set(name, [...(calls.get(name) ?? []), (params as ToolExecuteParams).toolName]);
            return { output: name };
          },
        },
      });
    const [first, second] = await Promise.all([make("first"), make("second")]);
    expect(first.pid).not.toBe(second.pid);
    const [a, b] = await Promise.all([
      first.request<{ outputs: string[] }>("debug.call_tool", { toolName: "from_first", arguments: {}, repeat: 20 }),
      second.request<{ outputs: string[] }>("debug.call_tool", { toolName: "from_second", arguments: {}, repeat: 20 }),
    ]);
    expect(new Set(a.outputs)).toEqual(new Set(["first"]));
    expect(new Set(b.outputs)).toEqual(new Set(["second"]));
    expect(new Set(calls.get("first"))).toEqual(new Set(["from_first"]));
    expect(new Set(calls.get("second"))).toEqual(new Set(["from_second"]));
  });
});
