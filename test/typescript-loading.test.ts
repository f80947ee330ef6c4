/**
 * A TypeScript agent module is loaded by Node itself where Node strips types (22.18+, 24) and the
 * module (with its relative TypeScript imports) is within what Node can strip, and through tsx
 * otherwise — on Node 20 always. Checked on whatever Node runs the suite (`.ci/run` runs it on 20,
 * 22 and 24), and by loading a module both ways through the built CLI.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { typeScriptLoader } from "../src/participants/typescript-modules.ts";

const nodeModule = (await import("node:module")).default as unknown as { stripTypeScriptTypes?: unknown };
const stripsTypes = Boolean((process.features as { typescript?: unknown }).typescript) && typeof nodeModule.stripTypeScriptTypes === "function";

function project(files: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-ts-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(directory, name, ".."), { recursive: true });
    writeFileSync(join(directory, name), text);
  }
  return directory;
}

describe("loading a TypeScript agent module", () => {
  it(`on this Node (${process.version}): natively when Node strips the module's types, else through tsx`, () => {
    const directory = project({
      "plain.mts": 'import { greet } from "./lib/greet.ts";\nimport type { Thing } from "./lib/types.ts";\nexport const respond = (input: Thing): string => greet(input.name);\n',
      "lib/greet.ts": 'export function greet(name: string): string {\n  return "hi " + name;\n}\n',
      "lib/types.ts": "export interface Thing { name: string }\n",
      "with-enum.ts": "enum Mode { A, B }\nexport const mode: Mode = Mode.A;\n",
      "extensionless.ts": 'import { greet } from "./lib/greet";\nexport const respond = () => greet("x");\n',
      "imports-enum.mts": 'import { mode } from "./with-enum.ts";\nexport const respond = () => mode;\n',
      "component.tsx": "export const view = (name: string) => name;\n",
    });
    expect(typeScriptLoader(join(directory, "plain.mts"))).toBe(stripsTypes ? "native" : "tsx");
    // What Node's stripping cannot load goes to tsx on every Node.
    for (const name of ["with-enum.ts", "extensionless.ts", "imports-enum.mts", "component.tsx"]) expect(typeScriptLoader(join(directory, name)), name).toBe("tsx");
  });

  it('in a CommonJS project (package.json without "type"), a .ts file with ES module syntax goes to tsx, as on Node 20 (Node would re-parse it and warn)', () => {
    const agent = 'import { greet } from "./greet.ts";\nexport const respond = (name: string): string => greet(name);\n';
    const greet = "export function greet(name: string): string {\n  return name;\n}\n";
    const commonJs = project({
      "package.json": "{}\n",
      "agent.ts": agent,
      "greet.ts": greet,
      "required.ts": 'const { join } = require("node:path");\nmodule.exports = { respond: (name: string): string => join(name) };\n',
    });
    expect(typeScriptLoader(join(commonJs, "agent.ts"))).toBe("tsx");
    expect(typeScriptLoader(join(commonJs, "required.ts"))).toBe(stripsTypes ? "native" : "tsx");
    const esm = project({ "package.json": '{ "type": "module" }\n', "agent.ts": agent, "greet.ts": greet });
    expect(typeScriptLoader(join(esm, "agent.ts"))).toBe(stripsTypes ? "native" : "tsx");
  });

  it("TAUBRIDGE_TYPESCRIPT forces one way", () => {
    const directory = project({ "agent.ts": "export const x: number = 1;\n" });
    const before = process.env.TAUBRIDGE_TYPESCRIPT;
    try {
      process.env.TAUBRIDGE_TYPESCRIPT = "tsx";
      expect(typeScriptLoader(join(directory, "agent.ts"))).toBe("tsx");
      process.env.TAUBRIDGE_TYPESCRIPT = "native";
      expect(typeScriptLoader(join(directory, "agent.ts"))).toBe("native");
    } finally {
      if (before === undefined) delete process.env.TAUBRIDGE_TYPESCRIPT;
      else process.env.TAUBRIDGE_TYPESCRIPT = before;
    }
  });
});
