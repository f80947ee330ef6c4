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

const orderId = z.string().describe("Order number including the leading '#', e.g. '#W0000000'.");
const itemIds = z.array(z.string()).describe("Item ids from the order; list an item twice if two of them are meant.");
const paymentMethodId = z.string().describe("Id of one of the customer's saved payment methods, e.g. 'credit_card_0000000'.");
const address = {
  address1: z.string().describe("Street and number."),
  address2: z.string().describe("Apartment, suite, etc.; empty string if none."),
  city: z.string(),
  state: z.string(),
  country: z.string(),
  zip: z.string(),
};

export const retailTools = [
  tool((input) => callBackend("find_user_id_by_email", input), {
    name: "find_user_id_by_email",
    description: "Look up a customer's account id from the email address they signed up with.",
    schema: z.object({ email: z.string().describe("Email address on the account.") }),
  }),
  tool((input) => callBackend("find_user_id_by_name_zip", input), {
    name: "find_user_id_by_name_zip",
    description: "Look up a customer's account id from their name and ZIP code, when they cannot give their email.",
    schema: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
  }),
  tool((input) => callBackend("get_user_details", input), {
    name: "get_user_details",
    description: "Look up a customer's account: name, address, saved payment methods and order numbers.",
    schema: z.object({ user_id: z.string().describe("Account id, e.g. 'sara_doe_496'.") }),
  }),
  tool((input) => callBackend("get_order_details", input), {
    name: "get_order_details",
    description: "Look up an order: its status, items, shipping address and payments.",
    schema: z.object({ order_id: orderId }),
  }),
  tool((input) => callBackend("get_product_details", input), {
    name: "get_product_details",
    description: "Look up a product line: its variants, their item ids, prices and whether they are in stock.",
    schema: z.object({ product_id: z.string().describe("Product line id (not an item id).") }),
  }),
  tool(() => callBackend("list_all_product_types", {}), {
    name: "list_all_product_types",
    description: "Our product catalogue: every product line with its product id.",
    schema: z.object({}),
  }),
  tool((input) => callBackend("cancel_pending_order", input), {
    name: "cancel_pending_order",
    description: "Cancel an order that has not shipped yet. Ask the customer to confirm first.",
    schema: z.object({ order_id: orderId, reason: z.enum(["no longer needed", "ordered by mistake"]) }),
  }),
  tool((input) => callBackend("modify_pending_order_address", input), {
    name: "modify_pending_order_address",
    description: "Change where a not-yet-shipped order will be delivered. Ask the customer to confirm first.",
    schema: z.object({ order_id: orderId, ...address }),
  }),
  tool((input) => callBackend("modify_pending_order_items", input), {
    name: "modify_pending_order_items",
    description: "Swap items in a not-yet-shipped order for other variants of the same product (size, color, …). An order can be changed this way only once, so gather every swap first.",
    schema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
  }),
  tool((input) => callBackend("modify_pending_order_payment", input), {
    name: "modify_pending_order_payment",
    description: "Switch a not-yet-shipped order to a different saved payment method. Ask the customer to confirm first.",
    schema: z.object({ order_id: orderId, payment_method_id: paymentMethodId }),
  }),
  tool((input) => callBackend("modify_user_address", input), {
    name: "modify_user_address",
    description: "Update the address saved on the customer's account. Ask the customer to confirm first.",
    schema: z.object({ user_id: z.string(), ...address }),
  }),
  tool((input) => callBackend("return_delivered_order_items", input), {
    name: "return_delivered_order_items",
    description: "Start a return for items from a delivered order and choose where the refund goes. Ask the customer to confirm first.",
    schema: z.object({ order_id: orderId, item_ids: itemIds, payment_method_id: paymentMethodId }),
  }),
  tool((input) => callBackend("exchange_delivered_order_items", input), {
    name: "exchange_delivered_order_items",
    description: "Exchange delivered items for other variants of the same product; any price difference is settled with the chosen payment method. Ask the customer to confirm first.",
    schema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
  }),
  tool((input) => callBackend("transfer_to_human_agents", input), {
    name: "transfer_to_human_agents",
    description: "Hand the conversation to a person on our support team; include a short summary of what the customer needs.",
    schema: z.object({ summary: z.string() }),
  }),
  tool(({ thought }) => `noted: ${thought}`, {
    name: "think",
    description: "Scratchpad for planning your next step. Nothing is looked up or changed.",
    schema: z.object({ thought: z.string() }),
  }),
  tool((input) => callBackend("calculate", input), {
    name: "calculate",
    description: "Do arithmetic (totals, refunds, price differences) instead of working it out by hand.",
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
