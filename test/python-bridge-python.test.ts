/**
 * The Python side's own unit tests (stdlib unittest, `test/bridge/python`): argument serialization
 * (floats stay floats; pydantic, dict, None; sentinels), the post-import hook (lazy import, `from`
 * imports see the patch), generic patch targets, the FastWorkflow patches against the stand-in
 * package (the three wildcard outcomes, pass-through with a single wildcard run, FastWorkflow's
 * abort after a parameter error, no second step after a failure, no retry when the channel is
 * lost), and injection (off without `TAUBRIDGE_BRIDGE=1`, on with it, chain-loading the next
 * `sitecustomize`). Needs only a Python 3 interpreter.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const python = process.env.TAUBRIDGE_PYTHON ?? "python3";
const testDirectory = fileURLToPath(new URL("./bridge/python", import.meta.url));
const available = spawnSync(python, ["-c", "import sys; assert sys.version_info >= (3, 8)"]).status === 0;
if (!available) console.warn(`skipped: no usable Python 3.8+ interpreter (${python}); set TAUBRIDGE_PYTHON`);

describe.skipIf(!available)("python bridge unit tests (unittest)", () => {
  it("pass", () => {
    const result = spawnSync(python, ["-m", "unittest", "discover", "-s", ".", "-v"], {
      cwd: testDirectory,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
    });
    const report = `${result.stdout}\n${result.stderr}`;
    expect(result.status, report).toBe(0);
    expect(report).toMatch(/Ran \d+ tests/);
    expect(report).not.toMatch(/FAILED/);
  });
});
