/**
 * A retail customer-service agent written the ordinary LangChain v1 way: `tool()` functions with
 * zod schemas that call the shop's HTTP backend, a `ChatOpenAI` model, and `createAgent` (the
 * LangGraph-based agent loop).
 *
 * The module's default export is a factory `({ baseURL, model, apiKey }) => agent` because the chat
 * model carries its endpoint; the harness passes `--base-url`/`--model` in. Nothing here knows about
 * taubridge: under `--agent-strategy langchain` the bridge answers each validated tool call from the
 * benchmark environment, and `callBackend` never runs.
 */
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool } from "langchain";
import { z } from "zod";

const BACKEND = process.env.RETAIL_BACKEND_URL ?? "http://retail-backend.invalid/api";

async function callBackend(operation: string, body: unknown): Promise<string> {
  const response = await fetch(`${BACKEND}/${operation}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`backend ${operation} failed: HTTP ${response.status}`);
  return response.text();
}

const orderId = z.string().describe("The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.");
const itemIds = z.array(z.string()).describe("The item ids, such as ['1008292230']. There could be duplicate items in the list.");
const paymentMethodId = z.string().describe("The payment method id, such as 'gift_card_0000000' or 'credit_card_0000000'.");
const address = {
  address1: z.string().describe("The first line of the address, such as '123 Main St'."),
  address2: z.string().describe("The second line of the address, such as 'Apt 1' or ''."),
  city: z.string(),
  state: z.string(),
  country: z.string(),
  zip: z.string(),
};

export const retailTools = [
  tool((input) => callBackend("find_user_id_by_email", input), {
    name: "find_user_id_by_email",
    description: "Find user id by email. If the user is not found, the function will return an error message.",
    schema: z.object({ email: z.string().describe("The email of the user, such as 'something@example.com'.") }),
  }),
  tool((input) => callBackend("find_user_id_by_name_zip", input), {
    name: "find_user_id_by_name_zip",
    description: "Find user id by first name, last name, and zip code. Only call this if the user cannot be found by email.",
    schema: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
  }),
  tool((input) => callBackend("get_user_details", input), {
    name: "get_user_details",
    description: "Get the details of a user, including their orders.",
    schema: z.object({ user_id: z.string().describe("The user id, such as 'sara_doe_496'.") }),
  }),
  tool((input) => callBackend("get_order_details", input), {
    name: "get_order_details",
    description: "Get the status and details of an order.",
    schema: z.object({ order_id: orderId }),
  }),
  tool((input) => callBackend("get_product_details", input), {
    name: "get_product_details",
    description: "Get the inventory details of a product.",
    schema: z.object({ product_id: z.string().describe("The product id, such as '6086499569'. Different from the item id.") }),
  }),
  tool(() => callBackend("list_all_product_types", {}), {
    name: "list_all_product_types",
    description: "List the name and product id of all product types.",
    schema: z.object({}),
  }),
  tool((input) => callBackend("cancel_pending_order", input), {
    name: "cancel_pending_order",
    description: "Cancel a pending order after explicit user confirmation.",
    schema: z.object({ order_id: orderId, reason: z.enum(["no longer needed", "ordered by mistake"]) }),
  }),
  tool((input) => callBackend("modify_pending_order_address", input), {
    name: "modify_pending_order_address",
    description: "Modify the shipping address of a pending order after explicit user confirmation.",
    schema: z.object({ order_id: orderId, ...address }),
  }),
  tool((input) => callBackend("modify_pending_order_items", input), {
    name: "modify_pending_order_items",
    description: "Modify items in a pending order to new items of the same product type. Can only be called once per order.",
    schema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
  }),
  tool((input) => callBackend("modify_pending_order_payment", input), {
    name: "modify_pending_order_payment",
    description: "Modify the payment method of a pending order after explicit user confirmation.",
    schema: z.object({ order_id: orderId, payment_method_id: paymentMethodId }),
  }),
  tool((input) => callBackend("modify_user_address", input), {
    name: "modify_user_address",
    description: "Modify the default address of a user after explicit user confirmation.",
    schema: z.object({ user_id: z.string(), ...address }),
  }),
  tool((input) => callBackend("return_delivered_order_items", input), {
    name: "return_delivered_order_items",
    description: "Return some items of a delivered order after explicit user confirmation.",
    schema: z.object({ order_id: orderId, item_ids: itemIds, payment_method_id: paymentMethodId }),
  }),
  tool((input) => callBackend("exchange_delivered_order_items", input), {
    name: "exchange_delivered_order_items",
    description: "Exchange items in a delivered order to new items of the same product type, after explicit user confirmation.",
    schema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
  }),
  tool((input) => callBackend("transfer_to_human_agents", input), {
    name: "transfer_to_human_agents",
    description: "Transfer the user to a human agent, with a summary of the user's issue.",
    schema: z.object({ summary: z.string() }),
  }),
  tool(({ thought }) => `noted: ${thought}`, {
    name: "think",
    description: "Think about something; it does not change anything.",
    schema: z.object({ thought: z.string() }),
  }),
  tool((input) => callBackend("calculate", input), {
    name: "calculate",
    description: "Calculate the result of a mathematical expression.",
    schema: z.object({ expression: z.string() }),
  }),
];

export const systemPrompt =
  "You are a customer service agent for an online retail store. Authenticate the user by email or by name and zip code, " +
  "look up their orders, and help them cancel, modify, return or exchange items following the store policy. " +
  "Confirm consequential actions with the user before calling a tool that changes an order.";

export default function createRetailAgent({ baseURL, model = "gpt-4o-mini", apiKey }: { baseURL?: string; model?: string; apiKey?: string } = {}) {
  const llm = new ChatOpenAI({ model, temperature: 0, ...(apiKey ? { apiKey } : {}), ...(baseURL ? { configuration: { baseURL } } : {}) });
  return createAgent({ model: llm, tools: retailTools, systemPrompt });
}
