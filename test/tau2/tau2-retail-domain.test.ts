import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import type { Tau2Environment, Tau2ToolResult } from "../../src/suites/tau2/engine/environment.ts";
import { readTau2Tasks } from "../../src/suites/tau2/tasks.ts";
import { type PyDict, type PyModel, parsePythonJson, pyGetAttr, pyRepr } from "../../src/value/index.ts";
import { tau2RetailDomain } from "../../domains/tau2-retail/index.ts";
import { retailMessages } from "../../domains/tau2-retail/messages.ts";
import { describeWithTau2Data, missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";
import { itMatchesTheReferenceFixtures } from "./fixture-checks.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);

/** One assistant tool step; arguments are JSON text so ints and floats keep their Python types. */
function call(environment: Tau2Environment, name: string, argumentsJson: string): Tau2ToolResult {
  return environment.getResponse({ id: "call", name, arguments: parsePythonJson(argumentsJson) as PyDict, requestor: "assistant" });
}

/** `db.<table>[key]` of the agent database, as a model. */
function row(environment: Tau2Environment, table: string, key: string): PyModel {
  return (pyGetAttr(environment.agent.db, table) as PyDict).get(key) as PyModel;
}

describeWithTau2Data("τ² retail domain against the reference fixtures", () => {
  const domain = loadTau2Domain(tau2RetailDomain, data as string);
  const tasks = new Map(readTau2Tasks(join(data as string, "retail", "tasks.json")).map((task) => [task.id, task]));

  itMatchesTheReferenceFixtures("retail", data as string, tau2RetailDomain, domain, tasks);

  // The expected values below came from running the original RetailTools (CPython 3.11.7, pydantic 2.13)
  // on the same calls; the hashes are its `get_db_hash()` afterwards.
  describe("behaviour beyond the fixtures", () => {
    const giftCard = (environment: Tau2Environment, user: string, id: string): string => pyRepr((row(environment, "users", user).get("payment_methods") as PyDict).get(id));

    it("gives every swapped item the price and options of the last variant looked up (τ²'s loop variable)", () => {
      const environment = domain.createEnvironment();
      const result = call(
        environment,
        "modify_pending_order_items",
        `{"order_id": "#W9318778", "item_ids": ["6342039236", "2143041831"], "new_item_ids": ["3616838507", "5606522780"], "payment_method_id": "gift_card_7728021"}`,
      );
      expect(result.content).toContain(
        `{"name": "Mechanical Keyboard", "product_id": "1656367028", "item_id": "3616838507", "price": 1902.67, "options": {"frame size": "large", "color": "red", "type": "mountain"}}`,
      );
      expect(result.content).toContain(`{"transaction_type": "refund", "amount": 192.6299999999999, "payment_method_id": "gift_card_7728021"}`);
      expect(giftCard(environment, "lucas_martin_4549", "gift_card_7728021")).toContain("'balance': 260.63");
      expect(environment.hash().agent).toBe("df331501b173cb3c220c714997ace14a2d976efaa6c80fedb2c8db1b75ab7d69");
    });

    it("charges a gift card the unrounded difference and rounds the balance; refuses one that cannot pay", () => {
      const environment = domain.createEnvironment();
      const result = call(environment, "modify_pending_order_items", `{"order_id": "#W9318778", "item_ids": ["6342039236"], "new_item_ids": ["7706410293"], "payment_method_id": "gift_card_7728021"}`);
      expect(result.content).toContain(`{"transaction_type": "payment", "amount": 24.25000000000003, "payment_method_id": "gift_card_7728021"}`);
      expect(giftCard(environment, "lucas_martin_4549", "gift_card_7728021")).toContain("'balance': 43.75");
      expect(environment.hash().agent).toBe("9b71b4cd564c8d7ebe59a0a184d3d160d8695c47e6e1543fd90c38c6b76b3fc8");
      const other = domain.createEnvironment();
      expect(call(other, "modify_pending_order_items", `{"order_id": "#W9318778", "item_ids": ["2143041831"], "new_item_ids": ["3624655057"], "payment_method_id": "gift_card_7728021"}`).content).toBe(
        `Error: ${retailMessages.text("giftCardShortForNewItem")}`,
      );
    });

    it("treats 'pending (item modified)' as pending for the address and payment tools only", () => {
      const environment = domain.createEnvironment();
      call(environment, "modify_pending_order_items", `{"order_id": "#W9318778", "item_ids": ["6342039236"], "new_item_ids": ["7706410293"], "payment_method_id": "gift_card_7728021"}`);
      expect(call(environment, "cancel_pending_order", `{"order_id": "#W9318778", "reason": "no longer needed"}`).content).toBe(`Error: ${retailMessages.text("cancelNeedsPending")}`);
      expect(call(environment, "modify_pending_order_payment", `{"order_id": "#W9318778", "payment_method_id": "credit_card_7862034"}`).content).toBe(
        `Error: ${retailMessages.text("notExactlyOnePayment")}`,
      );
      expect(call(environment, "return_delivered_order_items", `{"order_id": "#W9318778", "item_ids": ["6342039236"], "payment_method_id": "gift_card_7728021"}`).content).toBe(
        `Error: ${retailMessages.text("returnNeedsDelivered")}`,
      );
      expect(call(environment, "get_item_details", `{"item_id": ["x"]}`).content).toBe("Error: unhashable type: 'list'");
      const address = call(environment, "modify_pending_order_address", `{"order_id": "#W9318778", "address1": "a", "address2": "", "city": "c", "state": "s", "country": "USA", "zip": "1"}`);
      expect(address.content).toContain(`"address": {"address1": "a", "address2": "", "city": "c", "country": "USA", "state": "s", "zip": "1"}`);
    });

    it("keeps the int 0 of an empty exchange's rounded difference, and records a 0.0 refund for an empty modification", () => {
      const exchange = domain.createEnvironment();
      expect(call(exchange, "exchange_delivered_order_items", `{"order_id": "#W4817420", "item_ids": [], "new_item_ids": [], "payment_method_id": "gift_card_8168843"}`).content).toContain(
        `"exchange_items": [], "exchange_new_items": [], "exchange_payment_method_id": "gift_card_8168843", "exchange_price_difference": 0, "return_items": null`,
      );
      expect(exchange.hash().agent).toBe("d2c55899e22c0003ea27bfa27c877ec31cdfc62367302732bbe53fba44749542");
      const modify = domain.createEnvironment();
      expect(call(modify, "modify_pending_order_items", `{"order_id": "#W9318778", "item_ids": [], "new_item_ids": [], "payment_method_id": "gift_card_7728021"}`).content).toContain(
        `{"transaction_type": "refund", "amount": 0.0, "payment_method_id": "gift_card_7728021"}], "cancel_reason": null`,
      );
      expect(giftCard(modify, "lucas_martin_4549", "gift_card_7728021")).toContain("'balance': 68.0");
    });

    it("sorts exchanged ids and rounds the difference; checks duplicates, availability and the product", () => {
      const environment = domain.createEnvironment();
      const result = call(
        environment,
        "exchange_delivered_order_items",
        `{"order_id": "#W4817420", "item_ids": ["6700049080", "6777246137"], "new_item_ids": ["5925362855", "4579334072"], "payment_method_id": "gift_card_8168843"}`,
      );
      expect(result.content).toContain(
        `"exchange_items": ["6700049080", "6777246137"], "exchange_new_items": ["4579334072", "5925362855"], "exchange_payment_method_id": "gift_card_8168843", "exchange_price_difference": 43.85`,
      );
      expect(environment.hash().agent).toBe("f576dc9632726ca84d916b5360a694768d0589e6b42250c7eaf7e2ff5139bea5");
      const other = domain.createEnvironment();
      const exchange = (items: string, newItems: string) =>
        call(other, "exchange_delivered_order_items", `{"order_id": "#W4817420", "item_ids": ${items}, "new_item_ids": ${newItems}, "payment_method_id": "gift_card_8168843"}`).content;
      expect(exchange(`["6777246137", "6777246137"]`, `["x", "y"]`)).toBe("Error: Number of 6777246137 not found.");
      expect(exchange(`"6777246137"`, `"6777246137"`)).toBe("Error: Number of 6 not found.");
      expect(exchange(`["6700049080"]`, `["4859937227"]`)).toBe("Error: New item 4859937227 not found or available");
      expect(exchange(`["6700049080"]`, `["4579334072"]`)).toBe("Error: Variant not found");
    });

    it("refunds a gift card at once when cancelling, and fails the Python way on odd arguments", () => {
      const environment = domain.createEnvironment();
      expect(call(environment, "cancel_pending_order", `{"order_id": "#W6779827", "reason": ["no longer needed"]}`).content).toBe("Error: unhashable type: 'list'");
      const cancelled = call(environment, "cancel_pending_order", `{"order_id": "#W6779827", "reason": "ordered by mistake"}`);
      expect(cancelled.content).toContain(
        `"status": "cancelled", "fulfillments": [], "payment_history": [{"transaction_type": "payment", "amount": 4079.45, "payment_method_id": "gift_card_7219486"}, {"transaction_type": "refund", "amount": 4079.45, "payment_method_id": "gift_card_7219486"}], "cancel_reason": "ordered by mistake"`,
      );
      expect(giftCard(environment, "ethan_lopez_6291", "gift_card_7219486")).toContain("'balance': 4128.45");
      expect(call(environment, "find_user_id_by_email", `{"email": 5}`).content).toBe("Error: 'int' object has no attribute 'lower'");
      expect(call(environment, "find_user_id_by_name_zip", `{"first_name": "Lucas", "last_name": null, "zip": "1"}`).content).toBe("Error: 'NoneType' object has no attribute 'lower'");
    });
  });
});
