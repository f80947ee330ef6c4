/**
 * A retail customer-service agent written the ordinary AI SDK 6 way: `tool()` definitions with zod
 * input schemas whose `execute` calls the shop's HTTP backend, assembled into a `ToolLoopAgent`
 * over an OpenAI-compatible model.
 *
 * The module exports a `createAgent({ baseURL, model, apiKey })` factory because an AI SDK model
 * object carries its endpoint; the harness passes `--base-url`/`--model` in. Nothing here knows
 * about taubridge: under `--agent-strategy vercel-ai` the bridge answers each validated tool call
 * from the benchmark environment, and `callBackend` never runs.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ToolLoopAgent, stepCountIs, tool } from "ai";
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

export const retailTools = {
  find_user_id_by_email: tool({
    description: "Look up a customer's account id from the email address they signed up with.",
    inputSchema: z.object({ email: z.string().describe("Email address on the account.") }),
    execute: (input) => callBackend("find_user_id_by_email", input),
  }),
  find_user_id_by_name_zip: tool({
    description: "Look up a customer's account id from their name and ZIP code, when they cannot give their email.",
    inputSchema: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
    execute: (input) => callBackend("find_user_id_by_name_zip", input),
  }),
  get_user_details: tool({
    description: "Look up a customer's account: name, address, saved payment methods and order numbers.",
    inputSchema: z.object({ user_id: z.string().describe("Account id, e.g. 'sara_doe_496'.") }),
    execute: (input) => callBackend("get_user_details", input),
  }),
  get_order_details: tool({
    description: "Look up an order: its status, items, shipping address and payments.",
    inputSchema: z.object({ order_id: orderId }),
    execute: (input) => callBackend("get_order_details", input),
  }),
  get_product_details: tool({
    description: "Look up a product line: its variants, their item ids, prices and whether they are in stock.",
    inputSchema: z.object({ product_id: z.string().describe("Product line id (not an item id).") }),
    execute: (input) => callBackend("get_product_details", input),
  }),
  list_all_product_types: tool({
    description: "Our product catalogue: every product line with its product id.",
    inputSchema: z.object({}),
    execute: () => callBackend("list_all_product_types", {}),
  }),
  cancel_pending_order: tool({
    description: "Cancel an order that has not shipped yet. Ask the customer to confirm first.",
    inputSchema: z.object({ order_id: orderId, reason: z.enum(["no longer needed", "ordered by mistake"]) }),
    execute: (input) => callBackend("cancel_pending_order", input),
  }),
  modify_pending_order_address: tool({
    description: "Change where a not-yet-shipped order will be delivered. Ask the customer to confirm first.",
    inputSchema: z.object({ order_id: orderId, ...address }),
    execute: (input) => callBackend("modify_pending_order_address", input),
  }),
  modify_pending_order_items: tool({
    description: "Swap items in a not-yet-shipped order for other variants of the same product (size, color, …). An order can be changed this way only once, so gather every swap first.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: (input) => callBackend("modify_pending_order_items", input),
  }),
  modify_pending_order_payment: tool({
    description: "Switch a not-yet-shipped order to a different saved payment method. Ask the customer to confirm first.",
    inputSchema: z.object({ order_id: orderId, payment_method_id: paymentMethodId }),
    execute: (input) => callBackend("modify_pending_order_payment", input),
  }),
  modify_user_address: tool({
    description: "Update the address saved on the customer's account. Ask the customer to confirm first.",
    inputSchema: z.object({ user_id: z.string(), ...address }),
    execute: (input) => callBackend("modify_user_address", input),
  }),
  return_delivered_order_items: tool({
    description: "Start a return for items from a delivered order and choose where the refund goes. Ask the customer to confirm first.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: (input) => callBackend("return_delivered_order_items", input),
  }),
  exchange_delivered_order_items: tool({
    description: "Exchange delivered items for other variants of the same product; any price difference is settled with the chosen payment method. Ask the customer to confirm first.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: (input) => callBackend("exchange_delivered_order_items", input),
  }),
  transfer_to_human_agents: tool({
    description: "Hand the conversation to a person on our support team; include a short summary of what the customer needs.",
    inputSchema: z.object({ summary: z.string() }),
    execute: (input) => callBackend("transfer_to_human_agents", input),
  }),
  think: tool({
    description: "Scratchpad for planning your next step. Nothing is looked up or changed.",
    inputSchema: z.object({ thought: z.string() }),
    execute: ({ thought }) => `noted: ${thought}`,
  }),
  calculate: tool({
    description: "Do arithmetic (totals, refunds, price differences) instead of working it out by hand.",
    inputSchema: z.object({ expression: z.string() }),
    execute: (input) => callBackend("calculate", input),
  }),
};

export const instructions =
  "You are a customer service agent for an online retail store. Authenticate the user by email or by name and zip code, " +
  "look up their orders, and help them cancel, modify, return or exchange items following the store policy. " +
  "Confirm consequential actions with the user before calling a tool that changes an order.";

export function createAgent({ baseURL = "https://api.openai.com/v1", model = "gpt-4o-mini", apiKey }: { baseURL?: string; model?: string; apiKey?: string } = {}) {
  const provider = createOpenAICompatible({ name: "retail-llm", baseURL, ...(apiKey ? { apiKey } : {}) });
  return new ToolLoopAgent({
    model: provider.chatModel(model),
    instructions,
    tools: retailTools,
    stopWhen: stepCountIs(30),
  });
}
