/**
 * A retail customer-service agent written the ordinary OpenAI Agents SDK way: zod-typed tools
 * whose `execute` calls the shop's HTTP backend, and one exported `Agent`.
 *
 * Nothing here knows about taubridge. Under `--agent-strategy openai-agents` the bridge intercepts
 * each tool call after the SDK has validated it and answers it from the benchmark environment,
 * so `callBackend` never runs (the adapter's tests assert exactly that). Run outside the bridge,
 * the tools would call `RETAIL_BACKEND_URL`.
 */
import { Agent, tool } from "@openai/agents";
import { z } from "zod";

const BACKEND = process.env.RETAIL_BACKEND_URL ?? "http://retail-backend.invalid/api";

async function callBackend(operation: string, body: unknown): Promise<string> {
  const response = await fetch(`${BACKEND}/${operation}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`backend ${operation} failed: HTTP ${response.status}`);
  return response.text();
}

const orderId = z.string().describe("Order number including the leading '#', e.g. '#W0000000'.");
const itemIds = z.array(z.string()).describe("Item ids from the order; list an item twice if two of them are meant.");
const paymentMethodId = z.string().describe("Id of one of the customer's saved payment methods, e.g. 'credit_card_0000000'.");
const address = {
  address1: z.string().describe("Street and number."),
  address2: z.string().describe("Apartment, suite, etc.; empty string if none."),
  city: z.string().describe("City."),
  state: z.string().describe("State or region code."),
  country: z.string().describe("Country."),
  zip: z.string().describe("Postal code."),
};

const findUserIdByEmail = tool({
  name: "find_user_id_by_email",
  description: "Look up a customer's account id from the email address they signed up with.",
  parameters: z.object({ email: z.string().describe("Email address on the account.") }),
  execute: (input) => callBackend("find_user_id_by_email", input),
});

const findUserIdByNameZip = tool({
  name: "find_user_id_by_name_zip",
  description: "Look up a customer's account id from their name and ZIP code, when they cannot give their email.",
  parameters: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
  execute: (input) => callBackend("find_user_id_by_name_zip", input),
});

const getUserDetails = tool({
  name: "get_user_details",
  description: "Look up a customer's account: name, address, saved payment methods and order numbers.",
  parameters: z.object({ user_id: z.string().describe("Account id, e.g. 'sara_doe_496'.") }),
  execute: (input) => callBackend("get_user_details", input),
});

const getOrderDetails = tool({
  name: "get_order_details",
  description: "Look up an order: its status, items, shipping address and payments.",
  parameters: z.object({ order_id: orderId }),
  execute: (input) => callBackend("get_order_details", input),
});

const getProductDetails = tool({
  name: "get_product_details",
  description: "Look up a product line: its variants, their item ids, prices and whether they are in stock.",
  parameters: z.object({ product_id: z.string().describe("Product line id (not an item id).") }),
  execute: (input) => callBackend("get_product_details", input),
});

const listAllProductTypes = tool({
  name: "list_all_product_types",
  description: "Our product catalogue: every product line with its product id.",
  parameters: z.object({}),
  execute: () => callBackend("list_all_product_types", {}),
});

const cancelPendingOrder = tool({
  name: "cancel_pending_order",
  description: "Cancel an order that has not shipped yet; the money goes back to how it was paid. Ask the customer to confirm first.",
  parameters: z.object({ order_id: orderId, reason: z.enum(["no longer needed", "ordered by mistake"]) }),
  execute: (input) => callBackend("cancel_pending_order", input),
});

const modifyPendingOrderAddress = tool({
  name: "modify_pending_order_address",
  description: "Change where a not-yet-shipped order will be delivered. Ask the customer to confirm first.",
  parameters: z.object({ order_id: orderId, ...address }),
  execute: (input) => callBackend("modify_pending_order_address", input),
});

const modifyPendingOrderItems = tool({
  name: "modify_pending_order_items",
  description: "Swap items in a not-yet-shipped order for other variants of the same product (size, color, …). An order can be changed this way only once, so gather every swap first.",
  parameters: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
  execute: (input) => callBackend("modify_pending_order_items", input),
});

const modifyPendingOrderPayment = tool({
  name: "modify_pending_order_payment",
  description: "Switch a not-yet-shipped order to a different saved payment method. Ask the customer to confirm first.",
  parameters: z.object({ order_id: orderId, payment_method_id: paymentMethodId }),
  execute: (input) => callBackend("modify_pending_order_payment", input),
});

const modifyUserAddress = tool({
  name: "modify_user_address",
  description: "Update the address saved on the customer's account. Ask the customer to confirm first.",
  parameters: z.object({ user_id: z.string(), ...address }),
  execute: (input) => callBackend("modify_user_address", input),
});

const returnDeliveredOrderItems = tool({
  name: "return_delivered_order_items",
  description: "Start a return for items from a delivered order and choose where the refund goes. Ask the customer to confirm first.",
  parameters: z.object({ order_id: orderId, item_ids: itemIds, payment_method_id: paymentMethodId }),
  execute: (input) => callBackend("return_delivered_order_items", input),
});

const exchangeDeliveredOrderItems = tool({
  name: "exchange_delivered_order_items",
  description: "Exchange delivered items for other variants of the same product; any price difference is settled with the chosen payment method. Ask the customer to confirm first.",
  parameters: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
  execute: (input) => callBackend("exchange_delivered_order_items", input),
});

const transferToHumanAgents = tool({
  name: "transfer_to_human_agents",
  description: "Hand the conversation to a person on our support team; include a short summary of what the customer needs.",
  parameters: z.object({ summary: z.string() }),
  execute: (input) => callBackend("transfer_to_human_agents", input),
});

const think = tool({
  name: "think",
  description: "Scratchpad for planning your next step. Nothing is looked up or changed.",
  parameters: z.object({ thought: z.string() }),
  execute: ({ thought }) => `noted: ${thought}`,
});

const calculate = tool({
  name: "calculate",
  description: "Do arithmetic (totals, refunds, price differences) instead of working it out by hand.",
  parameters: z.object({ expression: z.string() }),
  execute: (input) => callBackend("calculate", input),
});

export const agent = new Agent({
  name: "Retail support",
  instructions:
    "You are a customer service agent for an online retail store. Authenticate the user by email or by name and zip code, " +
    "look up their orders, and help them cancel, modify, return or exchange items following the store policy. " +
    "Confirm consequential actions with the user before calling a tool that changes an order.",
  model: "gpt-4o-mini",
  tools: [
    findUserIdByEmail,
    findUserIdByNameZip,
    getUserDetails,
    getOrderDetails,
    getProductDetails,
    listAllProductTypes,
    cancelPendingOrder,
    modifyPendingOrderAddress,
    modifyPendingOrderItems,
    modifyPendingOrderPayment,
    modifyUserAddress,
    returnDeliveredOrderItems,
    exchangeDeliveredOrderItems,
    transferToHumanAgents,
    think,
    calculate,
  ],
});
