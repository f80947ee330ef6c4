/**
 * The end state against the gold end state, row by row (`Suite.endStateDiffs`, shown by `taubridge
 * view`), on real runs of the official data: τ-bench retail task 33 (its one write is
 * `modify_user_address`) and τ² airline task 12 (its one write is `update_reservation_baggages`),
 * each run by the oracle (no difference) and then with one argument of that write changed in the
 * results file (exactly that row and field differ, with both values as the suite renders them).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createOfflineRegistries } from "../../app/offline-registries.ts";
import { diffDatabases, stateDiffSummary } from "../../src/metrics/state-diff.ts";
import type { Registries } from "../../src/run/registries.ts";
import type { ViewData } from "../../src/view/view-model.ts";
import { parsePythonJson, type PyDict, pyJsonDumps, pyJsonDumpsIndented } from "../../src/value/index.ts";
import { runCli, runTau2 } from "../support/cli.ts";
import { describeWithTau2Data, missingSharedReason, tauBenchDirectory } from "../support/shared-data.ts";

const TIMEOUT = 400_000;

/** Rewrites one tool call's argument in a results file, losslessly (Python number types kept). */
function withArgument(source: string, target: string, edit: (document: unknown) => void): void {
  const document = parsePythonJson(readFileSync(source, "utf8"));
  edit(document);
  writeFileSync(target, pyJsonDumpsIndented(document, 2));
}

describe("the table/row/field diff", () => {
  const how = { render: (value: never) => pyJsonDumps(value), same: (a: never, b: never) => pyJsonDumps(a) === pyJsonDumps(b) };
  const db = (orders: Array<[string, Record<string, unknown>]>) =>
    parsePythonJson(JSON.stringify({ orders: Object.fromEntries(orders), users: { u1: { name: "Ann", address: { zip: "1" } } } })) as PyDict;

  it("names each changed field by its path, and rows only on one side as added or removed", () => {
    const gold = db([
      ["#1", { status: "cancelled", items: [1, 2] }],
      ["#2", { status: "pending", items: [] }],
    ]);
    const actual = db([
      ["#1", { status: "pending", items: [1, 2] }],
      ["#3", { status: "pending", items: [] }],
    ]);
    (actual.get("users") as PyDict).set("u1", parsePythonJson('{"name": "Ann", "address": {"zip": "2"}}'));
    const tables = diffDatabases(gold, actual, how);
    expect(tables).toEqual([
      {
        table: "orders",
        omittedRows: 0,
        rows: [
          { key: "#1", change: "changed", fields: [{ field: "status", gold: '"cancelled"', actual: '"pending"' }] },
          { key: "#2", change: "removed", fields: [{ field: "", gold: '{"status": "pending", "items": []}', actual: null }] },
          { key: "#3", change: "added", fields: [{ field: "", gold: null, actual: '{"status": "pending", "items": []}' }] },
        ],
      },
      { table: "users", omittedRows: 0, rows: [{ key: "u1", change: "changed", fields: [{ field: "address.zip", gold: '"1"', actual: '"2"' }] }] },
    ]);
    expect(stateDiffSummary({ status: "computed", tables, reason: null, compared: null })).toBe("4 rows differ: 3 rows in orders, 1 in users");
    expect(diffDatabases(gold, gold, how)).toEqual([]);
  });
});

describe.skipIf(!tauBenchDirectory)("τ-bench retail: task 33 by the oracle, then with the new zip changed", () => {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-state-diff-"));
  let registries: Registries;
  let passing: string;
  const changed = join(directory, "changed", "results.json");

  beforeAll(async () => {
    const run = await runCli([
      "run",
      "--env",
      "retail",
      "--data-dir",
      tauBenchDirectory as string,
      "--agent-strategy",
      "oracle",
      "--user-strategy",
      "scripted",
      "--task-ids",
      "33",
      "--log-dir",
      directory,
      "--no-resume",
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    passing = join(directory, readdirSync(directory).find((name) => name.endsWith(".json") && !name.endsWith(".meta.json")) as string);
    mkdirSync(join(directory, "changed"));
    withArgument(passing, changed, (document) => {
      for (const step of ((document as PyDict[])[0].get("taubridge") as PyDict).get("steps") as PyDict[]) {
        const action = step.get("action") as PyDict;
        if (action.get("name") === "modify_user_address") (action.get("kwargs") as PyDict).set("zip", "99999");
      }
    });
    registries = await createOfflineRegistries();
  }, TIMEOUT);

  it(
    "the oracle's episode: no difference; the changed one: exactly users/<its user> address.zip, gold against actual",
    async () => {
      const suite = registries.suites.get("tau-bench");
      const clean = await suite.endStateDiffs!({ path: passing, registries, dataDir: tauBenchDirectory });
      expect(clean.domain).toBe("retail");
      expect(clean.episodes.get("33#0")).toMatchObject({ status: "computed", tables: [], reason: null });
      // The copy has no checkpoint beside it: the domain is inferred from the tools it calls.
      const diff = await suite.endStateDiffs!({ path: changed, registries, dataDir: tauBenchDirectory });
      const task = JSON.parse(readFileSync(join(tauBenchDirectory as string, "retail", "tasks_test.json"), "utf8"))[33] as {
        user_id: string;
        actions: Array<{ name: string; kwargs: Record<string, string> }>;
      };
      const goldZip = task.actions.find((action) => action.name === "modify_user_address")?.kwargs.zip;
      expect(diff.episodes.get("33#0")?.tables).toEqual([
        { table: "users", omittedRows: 0, rows: [{ key: task.user_id, change: "changed", fields: [{ field: "address.zip", gold: JSON.stringify(goldZip), actual: '"99999"' }] }] },
      ]);
    },
    TIMEOUT,
  );

  it(
    "taubridge view embeds it per episode, and says why when the data is not there",
    async () => {
      const folder = mkdtempSync(join(tmpdir(), "taubridge-state-diff-view-"));
      const view = await runCli(["view", changed, "--data-dir", tauBenchDirectory as string, "--bundle", folder]);
      expect(view.exitCode, view.stderr).toBe(0);
      const data = JSON.parse(readFileSync(join(folder, "view-data.json"), "utf8")) as ViewData;
      expect(data.runs[0].episodes[0].stateDiff.tables[0].rows[0].fields[0].field).toBe("address.zip");
      const missing = mkdtempSync(join(tmpdir(), "taubridge-state-diff-nodata-"));
      const without = await runCli(["view", changed, "--data-dir", missing, "--bundle", folder]);
      expect(without.exitCode, without.stderr).toBe(0);
      const unavailable = (JSON.parse(readFileSync(join(folder, "view-data.json"), "utf8")) as ViewData).runs[0].episodes[0].stateDiff;
      expect(unavailable.status).toBe("unavailable");
      expect(unavailable.reason).toContain(missing);
    },
    TIMEOUT,
  );
});
if (!tauBenchDirectory) console.warn(missingSharedReason);

describeWithTau2Data("τ² airline: task 12 by the oracle, then with total_baggages changed", (tau2Data) => {
  const directory = mkdtempSync(join(tmpdir(), "taubridge-state-diff-tau2-"));
  const passing = join(directory, "airline.json");
  const changed = join(directory, "airline-changed.json");
  let registries: Registries;

  beforeAll(async () => {
    const run = await runTau2(["--domain", "airline", "--task-ids", "12", "--agent", "oracle", "--user", "scripted"], { data: tau2Data, saveTo: passing });
    expect(run.exitCode, run.stderr).toBe(0);
    withArgument(passing, changed, (document) => {
      const [simulation] = (document as PyDict).get("simulations") as PyDict[];
      for (const message of simulation.get("messages") as PyDict[])
        for (const call of (message.get("tool_calls") as PyDict[] | null) ?? []) if (call.get("name") === "update_reservation_baggages") (call.get("arguments") as PyDict).set("total_baggages", 1);
    });
    registries = await createOfflineRegistries({ tau2: true });
  }, TIMEOUT);

  it(
    "the oracle's simulation: no difference; the changed one: exactly reservations/YAX4DR total_baggages 2 against 1",
    async () => {
      const suite = registries.suites.get("tau2");
      const clean = await suite.endStateDiffs!({ path: passing, registries, dataDir: tau2Data });
      expect(clean.episodes.get("12#0")).toMatchObject({ status: "computed", tables: [] });
      const diff = await suite.endStateDiffs!({ path: changed, registries, dataDir: tau2Data });
      const tasks = JSON.parse(readFileSync(join(tau2Data, "airline", "tasks.json"), "utf8")) as Array<{
        id: string;
        evaluation_criteria: { actions: Array<{ name: string; arguments: Record<string, unknown> }> };
      }>;
      const gold = tasks.find((task) => task.id === "12")?.evaluation_criteria.actions.find((action) => action.name === "update_reservation_baggages")?.arguments;
      expect(gold?.total_baggages).toBe(2);
      expect(diff.episodes.get("12#0")).toMatchObject({
        status: "computed",
        tables: [{ table: "reservations", omittedRows: 0, rows: [{ key: gold?.reservation_id, change: "changed", fields: [{ field: "total_baggages", gold: "2", actual: "1" }] }] }],
      });
      expect(stateDiffSummary(diff.episodes.get("12#0")!)).toBe("1 row differs: 1 row in reservations");
    },
    TIMEOUT,
  );
});
