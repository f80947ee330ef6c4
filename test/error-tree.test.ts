/**
 * The error tree: every class identified by its `Symbol.for` marker (also across a second copy of
 * the package), never by constructor name; `name = new.target.name`; `cause` kept; and a source scan
 * that keeps every error class of the project in the tree with its own marker.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, DataError, InfraError, TaubridgeError, ToolCrashError, UnknownNameError, errorMarker } from "../src/errors/error-tree.ts";
import { ModelCallError, ModelTimeoutError } from "../src/model/errors.ts";
import { PythonBridgeSetupError, PythonAgentError } from "../bridge/transport/errors.ts";
import { ToolReturnedNoneError } from "../src/suites/tau-bench/engine/tool.ts";
import { PyException } from "../src/value/index.ts";
import { MissingRespondContentError } from "../src/suites/tau-bench/loop.ts";
import { JsonSyntaxError, parsePythonJson } from "../src/value/index.ts";
import { exitCodeForError } from "../src/cli/exit-codes.ts";

const root = join(import.meta.dirname, "..");

describe("error markers", () => {
  it("identify a class and its subclasses, and nothing else", () => {
    const unknown = new UnknownNameError("domain", "airlin", ["library"]);
    expect(UnknownNameError.isInstance(unknown)).toBe(true);
    expect(ConfigError.isInstance(unknown)).toBe(true);
    expect(TaubridgeError.isInstance(unknown)).toBe(true);
    expect(DataError.isInstance(unknown)).toBe(false);
    expect(UnknownNameError.isInstance(new ConfigError("x"))).toBe(false);

    const timeout = new ModelTimeoutError("slow", { role: "agent", provider: "p", model: "m", baseURL: "u", attempts: 1, retryable: true }, 5);
    expect(InfraError.isInstance(timeout)).toBe(true);
    expect(ModelCallError.isInstance(timeout)).toBe(true);
    expect(ToolCrashError.isInstance(timeout)).toBe(false);
    expect(InfraError.isInstance(new PythonBridgeSetupError("no framework"))).toBe(true);
    expect(InfraError.isInstance(new PythonAgentError("raised", undefined))).toBe(false);
  });

  it("reject non-errors and plain errors", () => {
    for (const value of [undefined, null, 0, "ConfigError", {}, new Error("x"), new TypeError("x")]) {
      expect(TaubridgeError.isInstance(value)).toBe(false);
      expect(ConfigError.isInstance(value)).toBe(false);
    }
  });

  it("match across a duplicate copy of the class (a package loaded twice)", () => {
    // What a second installed copy of taubridge declares: a different class object, the same marker.
    class ConfigErrorFromSecondCopy extends TaubridgeError {
      static readonly marker: symbol = errorMarker("ConfigError");
    }
    const fromCopy = new ConfigErrorFromSecondCopy("bad flag");
    expect(fromCopy instanceof ConfigError).toBe(false); // why instanceof is not enough
    expect(ConfigError.isInstance(fromCopy)).toBe(true);
    expect(ConfigErrorFromSecondCopy.isInstance(new ConfigError("bad flag"))).toBe(true);
    expect(exitCodeForError(fromCopy)).toBe(2);
  });

  it("match across a second module instance of src/errors/error-tree.ts", async () => {
    const copy = (await import(/* @vite-ignore */ `../src/errors/error-tree.ts?second-copy=${Date.now()}`)) as typeof import("../src/errors/error-tree.ts");
    expect(copy.ConfigError).not.toBe(ConfigError);
    const fromCopy = new copy.UnknownNameError("domain", "airlin", ["library"]);
    expect(fromCopy instanceof ConfigError).toBe(false);
    expect(ConfigError.isInstance(fromCopy)).toBe(true);
    expect(copy.ConfigError.isInstance(new UnknownNameError("domain", "x", []))).toBe(true);
    expect(InfraError.isInstance(new copy.ToolCrashError("t", new Error("boom")))).toBe(true);
    expect(exitCodeForError(fromCopy)).toBe(2);
  });

  it("do not match a foreign library's ConfigError (same class name, no marker)", () => {
    // A class expression: its name is "ConfigError" without shadowing ours.
    const ForeignConfigError = class ConfigError extends Error {
      constructor(message: string) {
        super(message);
        this.name = "ConfigError";
      }
    };
    const foreign = new ForeignConfigError("from another library");
    expect(foreign.constructor.name).toBe(ConfigError.name);
    expect(ConfigError.isInstance(foreign)).toBe(false);
    expect(TaubridgeError.isInstance(foreign)).toBe(false);
    expect(exitCodeForError(foreign)).toBe(1);
    // A foreign class that carries a marker of its own namespace does not match either.
    const otherLibrary = Object.defineProperty(new ForeignConfigError("x"), Symbol.for("other.error.ConfigError"), { value: true });
    expect(ConfigError.isInstance(otherLibrary)).toBe(false);
  });

  it("require every class to declare its own marker", () => {
    class Forgetful extends ConfigError {}
    expect(() => Forgetful.isInstance(new ConfigError("x"))).toThrow(/Forgetful declares no error marker/);
    // Its instances are still identified by the markers of the classes above it.
    expect(ConfigError.isInstance(new Forgetful("x"))).toBe(true);
  });
});

describe("error shape", () => {
  it("name is the concrete class, cause is kept, markers are neither enumerable nor serialised", () => {
    const cause = new TypeError("Cannot read properties of undefined (reading 'get')");
    const crash = new ToolCrashError("pay_fine", cause);
    expect(crash.name).toBe("ToolCrashError");
    expect(crash.cause).toBe(cause);
    expect(crash.toolName).toBe("pay_fine");
    expect(crash.message).toBe("tool pay_fine crashed (a harness bug, not the agent's action): TypeError: Cannot read properties of undefined (reading 'get')");
    expect(String(crash.stack)).toMatch(/^ToolCrashError: tool pay_fine crashed/);
    expect(Object.getOwnPropertySymbols(crash).every((symbol) => !Object.getOwnPropertyDescriptor(crash, symbol)!.enumerable)).toBe(true);
    expect(Object.keys(crash)).toEqual(["name", "toolName"]);
    expect(new UnknownNameError("domain", "x", []).name).toBe("UnknownNameError");
    expect(new PyException("'x'", "KeyError").name).toBe("PyException");
  });

  it("classes standing for a Python exception keep its name in pythonType (the printed text is unchanged)", () => {
    const none = new ToolReturnedNoneError("send_certificate");
    expect(none.name).toBe("ToolReturnedNoneError");
    expect(none.pythonType).toBe("ValidationError");
    expect(none.message.split("\n")[0]).toBe("1 validation error for EnvResponse");
    const missing = new MissingRespondContentError();
    expect(`${missing.pythonType}: ${missing.message}`).toBe("KeyError: 'content'");
    expect(new PyException("'x'", "KeyError").pythonType).toBe("KeyError");
  });

  it("JsonSyntaxError is in the tree", () => {
    let raised: unknown;
    try {
      parsePythonJson("{");
    } catch (error) {
      raised = error;
    }
    expect(JsonSyntaxError.isInstance(raised)).toBe(true);
    expect(TaubridgeError.isInstance(raised)).toBe(true);
  });
});

/** Every `.ts` source file of the project outside node_modules and tests' fixtures. */
function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(ts|mts|cts|js|mjs)$/.test(entry.name)) files.push(path);
  }
  return files;
}

describe("the project's error classes (source scan)", () => {
  const folders = ["src", "domains", "bridge", "adapters", "scripts"];
  const declarations = folders.flatMap((folder) =>
    sourceFiles(join(root, folder)).flatMap((file) => {
      const text = readFileSync(file, "utf8");
      return [...text.matchAll(/class\s+(\w+)\s+extends\s+(\w*Error|EpisodeStop|\w+Exception)\b[^{]*\{/g)].map((match) => ({
        file: relative(root, file),
        name: match[1],
        base: match[2],
        body: text.slice(match.index! + match[0].length, match.index! + match[0].length + 400),
      }));
    }),
  );

  it("finds the classes it checks", () => {
    expect(declarations.length).toBeGreaterThan(25);
  });

  it("every error class extends the tree, never a built-in error directly (except the root)", () => {
    const builtIns = new Set(["Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError"]);
    const outside = declarations.filter((item) => builtIns.has(item.base) && item.name !== "TaubridgeError").map((item) => `${item.file}: ${item.name} extends ${item.base}`);
    expect(outside).toEqual([]);
  });

  it("every error class declares its own marker named after it", () => {
    const missing = declarations.filter((item) => !item.body.includes(`errorMarker("${item.name}")`)).map((item) => `${item.file}: ${item.name}`);
    expect(missing).toEqual([]);
  });

  it("no two classes share a marker", () => {
    const names = declarations.map((item) => item.name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });
});
