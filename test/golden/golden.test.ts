/**
 * The golden guard: every scenario of `scenarios.ts` is run through the CLI and what it printed
 * and wrote (masked only where a run differs by nature: `mask.ts`) must equal
 * `expected/<scenario>.golden` byte for byte. It catches any change of behaviour while the code is
 * restructured. Record the files once with `TAUBRIDGE_GOLDEN_RECORD=1`; after that a change to a
 * golden file is a deliberate, reviewed change (listed in `CHANGES.md`).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { missing, runScenario } from "./run-scenario.ts";
import { SCENARIOS } from "./scenarios.ts";

const EXPECTED = join(import.meta.dirname, "expected");
const RECORD = process.env.TAUBRIDGE_GOLDEN_RECORD === "1";
/** A directory to write every scenario's output whole into (digests included), for diffing two commits locally. */
const DUMP = process.env.TAUBRIDGE_GOLDEN_DUMP;

describe.concurrent("golden outputs", () => {
  for (const scenario of SCENARIOS) {
    const reason = missing(scenario.needs);
    if (reason) {
      it.skip(`${scenario.name} (skipped: ${reason})`, () => undefined);
      continue;
    }
    it(scenario.name, async () => {
      const { stored: actual, whole } = await runScenario(scenario);
      if (DUMP) {
        mkdirSync(DUMP, { recursive: true });
        writeFileSync(join(DUMP, `${scenario.name}.txt`), whole);
      }
      const path = join(EXPECTED, `${scenario.name}.golden`);
      if (RECORD) {
        mkdirSync(EXPECTED, { recursive: true });
        writeFileSync(path, actual);
        return;
      }
      expect(existsSync(path), `${path} is missing: record it with TAUBRIDGE_GOLDEN_RECORD=1`).toBe(true);
      const expected = readFileSync(path, "utf8");
      if (actual !== expected) writeFileSync(`${path}.actual`, actual);
      expect(actual, `differs from ${path} (the run's output is in ${path}.actual)`).toBe(expected);
    }, 900_000); // a hang detector: one scenario takes a minute alone, several times that on a machine running other suites
  }
});
