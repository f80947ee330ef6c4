/**
 * A retail customer-service agent written the ordinary Mastra (0.24) way: `createTool` definitions
 * with zod input schemas whose `execute` calls the shop's HTTP backend, and an `Agent` over an
 * OpenAI-compatible model (Mastra 0.24 takes AI SDK v5 models; it bundles the v5 provider as
 * `@ai-sdk/openai-compatible-v5`).
 *
 * The module exports `createAgent({ baseURL, model, apiKey })` because the model object carries its
 * endpoint; the harness passes `--base-url`/`--model` in. Nothing here knows about taubridge: under
 * `--agent-strategy mastra` the bridge answers each validated tool call from the benchmark
 * environment, and `callBackend` never runs.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible-v5";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
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
  find_user_id_by_email: createTool({
    id: "find_user_id_by_email",
    description: "Look up a customer's account id from the email address they signed up with.",
    inputSchema: z.object({ email: z.string().describe("Email address on the account.") }),
    execute: ({ context }) => callBackend("find_user_id_by_email", context),
  }),
  find_user_id_by_name_zip: createTool({
    id: "find_user_id_by_name_zip",
    description: "Look up a customer's account id from their name and ZIP code, when they cannot give their email.",
    inputSchema: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
    execute: ({ context }) => callBackend("find_user_id_by_name_zip", context),
  }),
  get_user_details: createTool({
    id: "get_user_details",
    description: "Look up a customer's account: name, address, saved payment methods and order numbers.",
    inputSchema: z.object({ user_id: z.string().describe("Account id, e.g. 'sara_doe_496'.") }),
    execute: ({ context }) => callBackend("get_user_details", context),
  }),
  get_order_details: createTool({
    id: "get_order_details",
    description: "Look up an order: its status, items, shipping address and payments.",
    inputSchema: z.object({ order_id: orderId }),
    execute: ({ context }) => callBackend("get_order_details", context),
  }),
  get_product_details: createTool({
    id: "get_product_details",
    description: "Look up a product line: its variants, their item ids, prices and whether they are in stock.",
    inputSchema: z.object({ product_id: z.string().describe("Product line id (not an item id).") }),
    execute: ({ context }) => callBackend("get_product_details", context),
  }),
  list_all_product_types: createTool({
    id: "list_all_product_types",
    description: "Our product catalogue: every product line with its product id.",
    inputSchema: z.object({}),
    execute: () => callBackend("list_all_product_types", {}),
  }),
  cancel_pending_order: createTool({
    id: "cancel_pending_order",
    description: "Cancel an order that has not shipped yet. Ask the customer to confirm first.",
    inputSchema: z.object({ order_id: orderId, reason: z.enum(["no longer needed", "ordered by mistake"]) }),
    execute: ({ context }) => callBackend("cancel_pending_order", context),
  }),
  modify_pending_order_address: createTool({
    id: "modify_pending_order_address",
    description: "Change where a not-yet-shipped order will be delivered. Ask the customer to confirm first.",
    inputSchema: z.object({ order_id: orderId, ...address }),
    execute: ({ context }) => callBackend("modify_pending_order_address", context),
  }),
  modify_pending_order_items: createTool({
    id: "modify_pending_order_items",
    description: "Swap items in a not-yet-shipped order for other variants of the same product (size, color, …). An order can be changed this way only once, so gather every swap first.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: ({ context }) => callBackend("modify_pending_order_items", context),
  }),
  modify_pending_order_payment: createTool({
    id: "modify_pending_order_payment",
    description: "Switch a not-yet-shipped order to a different saved payment method. Ask the customer to confirm first.",
    inputSchema: z.object({ order_id: orderId, payment_method_id: paymentMethodId }),
    execute: ({ context }) => callBackend("modify_pending_order_payment", context),
  }),
  modify_user_address: createTool({
    id: "modify_user_address",
    description: "Update the address saved on the customer's account. Ask the customer to confirm first.",
    inputSchema: z.object({ user_id: z.string(), ...address }),
    execute: ({ context }) => callBackend("modify_user_address", context),
  }),
  return_delivered_order_items: createTool({
    id: "return_delivered_order_items",
    description: "Start a return for items from a delivered order and choose where the refund goes. Ask the customer to confirm first.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: ({ context }) => callBackend("return_delivered_order_items", context),
  }),
  exchange_delivered_order_items: createTool({
    id: "exchange_delivered_order_items",
    description: "Exchange delivered items for other variants of the same product; any price difference is settled with the chosen payment method. Ask the customer to confirm first.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: ({ context }) => callBackend("exchange_delivered_order_items", context),
  }),
  transfer_to_human_agents: createTool({
    id: "transfer_to_human_agents",
    description: "Hand the conversation to a person on our support team; include a short summary of what the customer needs.",
    inputSchema: z.object({ summary: z.string() }),
    execute: ({ context }) => callBackend("transfer_to_human_agents", context),
  }),
  think: createTool({
    id: "think",
    description: "Scratchpad for planning your next step. Nothing is looked up or changed.",
    inputSchema: z.object({ thought: z.string() }),
    execute: async ({ context }) => `noted: ${context.thought}`,
  }),
  calculate: createTool({
    id: "calculate",
    description: "Do arithmetic (totals, refunds, price differences) instead of working it out by hand.",
    inputSchema: z.object({ expression: z.string() }),
    execute: ({ context }) => callBackend("calculate", context),
  }),
};

export const instructions =
  "You are a customer service agent for an online retail store. Authenticate the user by email or by name and zip code, " +
  "look up their orders, and help them cancel, modify, return or exchange items following the store policy. " +
  "Confirm consequential actions with the user before calling a tool that changes an order.";

export function createAgent({ baseURL = "https://api.openai.com/v1", model = "gpt-4o-mini", apiKey }: { baseURL?: string; model?: string; apiKey?: string } = {}) {
  const provider = createOpenAICompatible({ name: "retail-llm", baseURL, ...(apiKey ? { apiKey } : {}) });
  return new Agent({
    name: "retail-support",
    instructions,
    model: provider.chatModel(model),
    tools: retailTools,
  });
}
