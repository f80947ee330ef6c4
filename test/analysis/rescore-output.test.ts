/**
 * `rescore -o <dir>` writes the re-scored results files (as τ²'s `evaluate-trajs -o`) and `rescore`
 * takes directories of results. A file whose reward was tampered with comes back byte for byte as
 * the run wrote it: the re-scored reward (and its reward info) replaces the recorded one, and
 * everything else stays as recorded.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runTau2 } from "../support/cli.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";

const V1_ORACLE = join(import.meta.dirname, "..", "fixtures", "results", "v1", "library-test-oracle-none-0.0_ids_0-6_user-none-scripted.json");

/** The text with the first `"reward": 1.0` after `from` turned into 0.0 (the file's layout kept). */
function flipFirstReward(text: string, from = 0): string {
  const at = text.indexOf('"reward": 1.0', from);
  if (at < 0) throw new Error("no reward of 1.0 to flip");
  return `${text.slice(0, at)}"reward": 0.0${text.slice(at + '"reward": 1.0'.length)}`;
}

const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), `taubridge-rescore-${prefix}-`));

describe("rescore -o on a τ-bench results file (library domain)", () => {
  it("writes the re-scored file into the directory: the flipped reward is restored and the file equals the untampered one", async () => {
    const root = scratch("tau");
    const original = readFileSync(V1_ORACLE, "utf8");
    const tampered = flipFirstReward(original);
    expect(tampered).not.toBe(original);
    mkdirSync(join(root, "in"));
    writeFileSync(join(root, "in", "run.json"), tampered);
    writeFileSync(join(root, "in", "run.meta.json"), "{}"); // a status sidecar: not a results file
    const result = await runCli(["rescore", join(root, "in"), "--env", "library", "-o", join(root, "out"), "--format", "json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ total: 4, agree: 3, output: join(root, "out", "run.json") });
    expect(readFileSync(join(root, "out", "run.json"), "utf8")).toBe(original);
    expect(existsSync(join(root, "out", "run.meta.json"))).toBe(false);
    // The input is left as it was.
    expect(readFileSync(join(root, "in", "run.json"), "utf8")).toBe(tampered);
  });

  it("refuses to overwrite an input and two inputs of one name, before writing anything", async () => {
    const root = scratch("tau-refuse");
    mkdirSync(join(root, "a"));
    mkdirSync(join(root, "b"));
    const text = readFileSync(V1_ORACLE, "utf8");
    for (const folder of ["a", "b"]) writeFileSync(join(root, folder, "run.json"), text);
    const over = await runCli(["rescore", join(root, "a", "run.json"), "--env", "library", "-o", join(root, "a")]);
    expect(over.exitCode).toBe(2);
    expect(over.stderr).toContain(`${join(root, "a", "run.json")} would be overwritten`);
    const twice = await runCli(["rescore", root, "--env", "library", "-o", join(root, "out")]);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain("would both be written to");
    expect(existsSync(join(root, "out"))).toBe(false);
  });
});

describeWithTau2Data("rescore -o on a τ² results file (mock domain)", (data) => {
  it("restores a flipped reward: the written file equals the run's own", async () => {
    const root = scratch("tau2");
    const run = await runTau2(["--domain", "mock", "--agent", "oracle", "--user", "scripted", "--num-trials", "1"], { data, saveTo: join(root, "run.json") });
    expect(run.exitCode, run.stderr).toBe(0);
    const original = readFileSync(join(root, "run.json"), "utf8");
    mkdirSync(join(root, "in"));
    writeFileSync(join(root, "in", "results.json"), flipFirstReward(original, original.indexOf('"simulations": [')));
    const result = await runCli(["rescore", join(root, "in"), "--data-dir", data, "-o", join(root, "out")]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("Rewards: 9/10 agree with the recorded rewards");
    expect(result.stderr).toContain(`wrote ${join(root, "out", "results.json")}`);
    expect(readFileSync(join(root, "out", "results.json"), "utf8")).toBe(original);
  });
});
