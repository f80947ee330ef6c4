/**
 * The retail tools against the reference fixtures: every retail tool probe, every ground-truth
 * replay step of the three retail splits, and the unchanged shared base afterwards. Plus focused
 * unit tests of the Python-typing branches that the fixtures do not reach.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BaseDatabase, EpisodeDatabase } from "../src/suites/tau-bench/engine/database.ts";
import { loadBaseDatabase } from "../src/suites/tau-bench/engine/database.ts";
import { invokeTool, ToolReturnedNoneError, type ToolImplementation } from "../src/suites/tau-bench/engine/tool.ts";
import { parsePythonJson, pyFloat, type PyDict, type PyValue } from "../src/value/index.ts";
import { retailTools } from "../domains/retail/tools.ts";
import { tauBenchDirectory, warnIfMissingShared } from "./support/shared-data.ts";

warnIfMissingShared();

const RETAIL_COLLECTIONS = ["orders", "products", "users"] as const;
const INITIAL_HASH = "5a4b2cb59f4d12dea7e4adff24a7f8fada510ead49372ea4a729a82bbb5f49b5";
const toolsByName = new Map(retailTools.map((tool) => [tool.name, tool]));

/** Reads a field of a parsed Python-JSON object. */
function field<T extends PyValue | undefined>(value: PyValue, key: string): T {
  if (!(value instanceof Map)) throw new Error(`expected an object with ${key}`);
  return value.get(key) as T;
}

function readPython(path: string): PyValue {
  return parsePythonJson(readFileSync(path, "utf8"));
}

function run(db: EpisodeDatabase, name: string, kwargs: Array<[string, PyValue]> | PyDict = []): string {
  const tool = toolsByName.get(name);
  if (!tool) throw new Error(`not a retail tool: ${name}`);
  return invokeTool(tool, "retail", db, kwargs instanceof Map ? kwargs : new Map(kwargs));
}

describe("retail tool registry", () => {
  it("has the 16 tools in tools_info order with Python class names", () => {
    expect(retailTools.map((tool) => tool.name)).toEqual([
      "calculate",
      "cancel_pending_order",
      "exchange_delivered_order_items",
      "find_user_id_by_email",
      "find_user_id_by_name_zip",
      "get_order_details",
      "get_product_details",
      "get_user_details",
      "list_all_product_types",
      "modify_pending_order_address",
      "modify_pending_order_items",
      "modify_pending_order_payment",
      "modify_user_address",
      "return_delivered_order_items",
      "think",
      "transfer_to_human_agents",
    ]);
    expect(retailTools.map((tool) => tool.className)).toEqual([
      "Calculate",
      "CancelPendingOrder",
      "ExchangeDeliveredOrderItems",
      "FindUserIdByEmail",
      "FindUserIdByNameZip",
      "GetOrderDetails",
      "GetProductDetails",
      "GetUserDetails",
      "ListAllProductTypes",
      "ModifyPendingOrderAddress",
      "ModifyPendingOrderItems",
      "ModifyPendingOrderPayment",
      "ModifyUserAddress",
      "ReturnDeliveredOrderItems",
      "Think",
      "TransferToHumanAgents",
    ]);
  });

  it.skipIf(!tauBenchDirectory)("matches tools_info.json names and required-parameter order", () => {
    const info = JSON.parse(readFileSync(join(tauBenchDirectory!, "retail", "tools_info.json"), "utf8")) as Array<{
      function: { name: string; parameters: { required?: string[] } };
    }>;
    expect(retailTools.map((tool) => [tool.name, tool.parameters])).toEqual(info.map((entry) => [entry.function.name, entry.function.parameters.required ?? []]));
  });
});

describe.skipIf(!tauBenchDirectory)("retail tools against the τ-bench fixtures", () => {
  let base: BaseDatabase;
  beforeAll(() => {
    base = loadBaseDatabase(join(tauBenchDirectory!, "retail"), RETAIL_COLLECTIONS);
  });

  it("hashes the unmodified data to the known initial hash", () => {
    expect(new EpisodeDatabase(base).tauBenchHash()).toBe(INITIAL_HASH);
  });

  describe("tool_probes.json (retail cases)", () => {
    const probes = tauBenchDirectory ? (readPython(join(tauBenchDirectory, "fixtures", "tool_probes.json")) as PyValue[]) : [];
    const retailCases = probes.filter((probe) => field<string>(probe, "domain") === "retail");

    it("has retail cases", () => {
      expect(retailCases.length).toBe(98);
    });

    it.each(retailCases.map((probe) => [field<string>(probe, "id"), probe] as const))("%s", (_id, probe) => {
      const db = new EpisodeDatabase(base);
      for (const call of field<PyValue[]>(probe, "calls")) {
        const name = field<string>(call, "name");
        const kwargs = field<PyDict>(call, "kwargs");
        const tool = toolsByName.get(name);
        if (!tool) {
          // Unknown names (`Unknown action book_flight`) are answered by the environment, not by a tool.
          expect(field<string>(call, "observation")).toBe(`Unknown action ${name}`);
          continue;
        }
        const exception = field<string | undefined>(call, "exception");
        if (exception !== undefined) {
          expect(() => invokeTool(tool, "retail", db, kwargs)).toThrow(ToolReturnedNoneError);
          continue;
        }
        expect(invokeTool(tool, "retail", db, kwargs)).toBe(field<string>(call, "observation"));
      }
      expect(db.tauBenchHash()).toBe(field<string>(probe, "data_hash_after"));
    });
  });

  for (const split of ["test", "train", "dev"] as const) {
    describe(`gt_replay_retail_${split}.json`, () => {
      const fixture = tauBenchDirectory
        ? (JSON.parse(readFileSync(join(tauBenchDirectory, "fixtures", `gt_replay_retail_${split}.json`), "utf8")) as {
            initial_data_hash: string;
            tasks: Array<{ task_index: number; steps: Array<{ name: string; observation: string }>; gt_data_hash: string }>;
          })
        : { initial_data_hash: "", tasks: [] };
      const tasks = tauBenchDirectory ? (readPython(join(tauBenchDirectory, "retail", `tasks_${split}.json`)) as PyValue[]) : [];

      it("covers every task with the known initial hash", () => {
        expect(fixture.initial_data_hash).toBe(INITIAL_HASH);
        expect(fixture.tasks.length).toBe(tasks.length);
      });

      it.each(fixture.tasks.map((task) => [task.task_index, task] as const))("task %i", (taskIndex, expected) => {
        const actions = field<PyValue[]>(tasks[taskIndex], "actions");
        expect(actions.length).toBe(expected.steps.length);
        const db = new EpisodeDatabase(base);
        actions.forEach((action, step) => {
          const name = field<string>(action, "name");
          expect(name).toBe(expected.steps[step].name);
          const tool = toolsByName.get(name) as ToolImplementation;
          expect(tool, `tool ${name}`).toBeDefined();
          const observation = invokeTool(tool, "retail", db, field<PyDict>(action, "kwargs"));
          expect(observation, `task ${taskIndex} step ${step} (${name})`).toBe(expected.steps[step].observation);
        });
        expect(db.tauBenchHash()).toBe(expected.gt_data_hash);
      });
    });
  }

  it("left the shared base untouched after all replays", () => {
    expect(new EpisodeDatabase(base).tauBenchHash()).toBe(INITIAL_HASH);
  });

  describe("Python-typing branches", () => {
    const fresh = () => new EpisodeDatabase(base);
    const itemIdsOf = (db: EpisodeDatabase, orderId: string) => ((db.get("orders", orderId) as PyDict).get("items") as PyDict[]).map((item) => item.get("item_id"));
    const modifyItems = (db: EpisodeDatabase, orderId: string, itemIds: PyValue, newItemIds: PyValue, paymentMethodId: string) =>
      run(db, "modify_pending_order_items", [
        ["order_id", orderId],
        ["item_ids", itemIds],
        ["new_item_ids", newItemIds],
        ["payment_method_id", paymentMethodId],
      ]);

    it("treats non-string ids as not found and unhashable ids as TypeError", () => {
      const db = fresh();
      expect(run(db, "get_order_details", [["order_id", 2611340]])).toBe("Error: order not found");
      expect(run(db, "get_order_details", [["order_id", pyFloat(1.5)]])).toBe("Error: order not found");
      expect(run(db, "get_order_details", [["order_id", null]])).toBe("Error: order not found");
      expect(run(db, "get_user_details", [["user_id", true]])).toBe("Error: user not found");
      expect(run(db, "get_product_details", [["product_id", ["9523456873"]]])).toBe("Error: unhashable type: 'list'");
      expect(
        run(db, "cancel_pending_order", [
          ["order_id", new Map()],
          ["reason", "no longer needed"],
        ]),
      ).toBe("Error: unhashable type: 'dict'");
      expect(
        run(db, "cancel_pending_order", [
          ["order_id", "#W6779827"],
          ["reason", ["no longer needed"]],
        ]),
      ).toBe("Error: invalid reason");
      expect(db.tauBenchHash()).toBe(INITIAL_HASH);
    });

    it("raises Python's AttributeError for non-string names and emails", () => {
      const db = fresh();
      expect(run(db, "find_user_id_by_email", [["email", 5]])).toBe("Error: 'int' object has no attribute 'lower'");
      expect(run(db, "find_user_id_by_email", [["email", null]])).toBe("Error: 'NoneType' object has no attribute 'lower'");
      expect(
        run(db, "find_user_id_by_name_zip", [
          ["first_name", ["Noah"]],
          ["last_name", "Brown"],
          ["zip", "80279"],
        ]),
      ).toBe("Error: 'list' object has no attribute 'lower'");
      // `and` short-circuits: last_name.lower() is only evaluated after a first-name match.
      expect(
        run(db, "find_user_id_by_name_zip", [
          ["first_name", "Nobodyhere"],
          ["last_name", 3],
          ["zip", "80279"],
        ]),
      ).toBe("Error: user not found");
      expect(
        run(db, "find_user_id_by_name_zip", [
          ["first_name", "Noah"],
          ["last_name", 3],
          ["zip", "80279"],
        ]),
      ).toBe("Error: 'int' object has no attribute 'lower'");
      // zip is compared with ==: an int never equals the string zip.
      expect(
        run(db, "find_user_id_by_name_zip", [
          ["first_name", "Noah"],
          ["last_name", "Brown"],
          ["zip", 80279],
        ]),
      ).toBe("Error: user not found");
    });

    it("iterates a string item list by character and rejects non-iterables with Python texts", () => {
      const db = fresh();
      const exchange = (itemIds: PyValue, newItemIds: PyValue) =>
        run(db, "exchange_delivered_order_items", [
          ["order_id", "#W4817420"],
          ["item_ids", itemIds],
          ["new_item_ids", newItemIds],
          ["payment_method_id", "gift_card_8168843"],
        ]);
      expect(exchange("6777246137", ["6777246137"])).toBe("Error: 6 not found");
      expect(exchange(6777246137, ["6777246137"])).toBe("Error: 'int' object is not iterable");
      expect(exchange(null, [])).toBe("Error: 'NoneType' object is not iterable");
      expect(exchange(new Map([["6777246137", 1]]), [])).toBe("Error: 'dict' object has no attribute 'count'");
      expect(exchange(["6777246137"], 5)).toBe("Error: object of type 'int' has no len()");
      expect(exchange(["6777246137"], "X")).toBe("Error: new item X not found or available");
      expect(exchange(["6777246137"], [["x"]])).toBe("Error: unhashable type: 'list'");
      expect(exchange(["6777246137"], [7])).toBe("Error: new item 7 not found or available");
      expect(exchange([1, true], [])).toBe("Error: 1 not found");
      expect(exchange([null], [])).toBe("Error: None not found");
      expect(exchange([pyFloat(2)], [])).toBe("Error: 2.0 not found");
      expect(db.tauBenchHash()).toBe(INITIAL_HASH);
      // Empty iterables of any kind pass; both lists are stored sorted (empty), the difference is int 0.
      expect(exchange("", new Map())).toContain('"exchange_items": [], "exchange_new_items": [], "exchange_payment_method_id": "gift_card_8168843", "exchange_price_difference": 0}');
    });

    it("exchange rounds the difference; an identical variant gives the float 0.0", () => {
      const result = run(fresh(), "exchange_delivered_order_items", [
        ["order_id", "#W4817420"],
        ["item_ids", ["6777246137"]],
        ["new_item_ids", ["6777246137"]],
        ["payment_method_id", "gift_card_8168843"],
      ]);
      expect(result).toContain('"exchange_price_difference": 0.0}');
    });

    it("return_delivered_order_items checks payment before items and sorts the ids", () => {
      const result = run(fresh(), "return_delivered_order_items", [
        ["order_id", "#W6304490"],
        ["item_ids", ["9375701158", "4983901480"]],
        ["payment_method_id", "credit_card_4420174"],
      ]);
      expect(result).toContain('"return_items": ["4983901480", "9375701158"], "return_payment_method_id": "credit_card_4420174"}');
      expect(
        run(fresh(), "return_delivered_order_items", [
          ["order_id", "#W6304490"],
          ["item_ids", 5],
          ["payment_method_id", "nope"],
        ]),
      ).toBe("Error: payment method not found");
      expect(
        run(fresh(), "return_delivered_order_items", [
          ["order_id", "#W6304490"],
          ["item_ids", 5],
          ["payment_method_id", "credit_card_4420174"],
        ]),
      ).toBe("Error: 'int' object is not iterable");
    });

    // #W9093821 (pending, credit_card_7422485) holds backpack 3557711149 (205.35) at positions 0 and 2.
    const twoBackpacks = "#W9093821";
    const backpack = "3557711149";
    const backpackItems = [backpack, "8917609800", backpack, "4035304400", "9747045638"];

    it("modify_pending_order_items: duplicate ids walk forward to the next matching item", () => {
      const db = fresh();
      expect(modifyItems(db, twoBackpacks, [backpack, backpack, backpack], ["7251508981", "5726859009", "6309044598"], "credit_card_7422485")).toBe(`Error: ${backpack} not found`);
      const result = modifyItems(db, twoBackpacks, [backpack, backpack], ["7251508981", "5726859009"], "credit_card_7422485");
      expect(itemIdsOf(db, twoBackpacks)).toEqual(["7251508981", "8917609800", "5726859009", "4035304400", "9747045638"]);
      // 0 + (212.04 − 205.35) + (200.48 − 205.35), unrounded, in Python's evaluation order.
      const diff = 0 + (212.04 - 205.35) + (200.48 - 205.35);
      expect(result).toContain(`{"transaction_type": "payment", "amount": ${pyFloat(diff)}, "payment_method_id": "credit_card_7422485"}]`);
      expect(result).toContain('"status": "pending (item modified)"');
    });

    it("modify_pending_order_items: a same-id modification keeps hitting the first item", () => {
      const db = fresh();
      modifyItems(db, twoBackpacks, [backpack, backpack], [backpack, "7251508981"], "credit_card_7422485");
      // Position 0 rewrites item 0 to itself; position 1 finds item 0 again and changes it.
      expect(itemIdsOf(db, twoBackpacks)).toEqual(["7251508981", "8917609800", backpack, "4035304400", "9747045638"]);
      // The shared base still has the original items.
      expect(itemIdsOf(fresh(), twoBackpacks)).toEqual(backpackItems);
    });

    // lucas_martin_4549's pending order, paid by gift_card_7728021 (int balance 68):
    // 5669664287 (543.68) at position 3, 3076708684 (535.97) at position 4, same product.
    const pendingOrder = "#W9318778";

    it("modify_pending_order_items: validation and rewrite can hit different items ([A, B] → [B, X])", () => {
      const db = fresh();
      modifyItems(db, pendingOrder, ["5669664287", "3076708684"], ["3076708684", "7166996157"], "credit_card_7862034");
      // Position 0 turns A into B; position 1 then finds that item (the first B) and makes it X.
      expect(itemIdsOf(db, pendingOrder).slice(3)).toEqual(["7166996157", "3076708684"]);
    });

    it("modify_pending_order_items keeps float noise and rounds the gift-card balance", () => {
      const db = fresh();
      const result = modifyItems(db, pendingOrder, ["3076708684"], ["5669664287"], "gift_card_7728021");
      expect(result).toContain('"amount": 7.709999999999923');
      const user = db.get("users", "lucas_martin_4549") as PyDict;
      const card = (user.get("payment_methods") as PyDict).get("gift_card_7728021") as PyDict;
      // int 68 − 7.709999999999923 → float, rounded half-even to 2 places.
      expect(card.get("balance")).toEqual(pyFloat(60.29));
      // A zero difference books a "refund" of 0.0 (a float, since the prices are floats).
      expect(modifyItems(fresh(), pendingOrder, ["3076708684"], ["3076708684"], "credit_card_7862034")).toContain(
        '{"transaction_type": "refund", "amount": 0.0, "payment_method_id": "credit_card_7862034"}]',
      );
    });

    it("keeps the tools' address key order and stores argument types as given", () => {
      const result = run(fresh(), "modify_user_address", [
        ["user_id", "noah_brown_6181"],
        ["zip", 12345],
        ["address1", "1 A St"],
        ["address2", ""],
        ["city", "X"],
        ["state", "CA"],
        ["country", "USA"],
      ]);
      expect(result).toContain('"address": {"address1": "1 A St", "address2": "", "city": "X", "state": "CA", "country": "USA", "zip": 12345}');
    });
  });
});
