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

export const retailTools = {
  find_user_id_by_email: createTool({
    id: "find_user_id_by_email",
    description: "Find user id by email. If the user is not found, the function will return an error message.",
    inputSchema: z.object({ email: z.string().describe("The email of the user, such as 'something@example.com'.") }),
    execute: ({ context }) => callBackend("find_user_id_by_email", context),
  }),
  find_user_id_by_name_zip: createTool({
    id: "find_user_id_by_name_zip",
    description: "Find user id by first name, last name, and zip code. Only call this if the user cannot be found by email.",
    inputSchema: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
    execute: ({ context }) => callBackend("find_user_id_by_name_zip", context),
  }),
  get_user_details: createTool({
    id: "get_user_details",
    description: "Get the details of a user, including their orders.",
    inputSchema: z.object({ user_id: z.string().describe("The user id, such as 'sara_doe_496'.") }),
    execute: ({ context }) => callBackend("get_user_details", context),
  }),
  get_order_details: createTool({
    id: "get_order_details",
    description: "Get the status and details of an order.",
    inputSchema: z.object({ order_id: orderId }),
    execute: ({ context }) => callBackend("get_order_details", context),
  }),
  get_product_details: createTool({
    id: "get_product_details",
    description: "Get the inventory details of a product.",
    inputSchema: z.object({ product_id: z.string().describe("The product id, such as '6086499569'. Different from the item id.") }),
    execute: ({ context }) => callBackend("get_product_details", context),
  }),
  list_all_product_types: createTool({
    id: "list_all_product_types",
    description: "List the name and product id of all product types.",
    inputSchema: z.object({}),
    execute: () => callBackend("list_all_product_types", {}),
  }),
  cancel_pending_order: createTool({
    id: "cancel_pending_order",
    description: "Cancel a pending order after explicit user confirmation.",
    inputSchema: z.object({ order_id: orderId, reason: z.enum(["no longer needed", "ordered by mistake"]) }),
    execute: ({ context }) => callBackend("cancel_pending_order", context),
  }),
  modify_pending_order_address: createTool({
    id: "modify_pending_order_address",
    description: "Modify the shipping address of a pending order after explicit user confirmation.",
    inputSchema: z.object({ order_id: orderId, ...address }),
    execute: ({ context }) => callBackend("modify_pending_order_address", context),
  }),
  modify_pending_order_items: createTool({
    id: "modify_pending_order_items",
    description: "Modify items in a pending order to new items of the same product type. Can only be called once per order.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: ({ context }) => callBackend("modify_pending_order_items", context),
  }),
  modify_pending_order_payment: createTool({
    id: "modify_pending_order_payment",
    description: "Modify the payment method of a pending order after explicit user confirmation.",
    inputSchema: z.object({ order_id: orderId, payment_method_id: paymentMethodId }),
    execute: ({ context }) => callBackend("modify_pending_order_payment", context),
  }),
  modify_user_address: createTool({
    id: "modify_user_address",
    description: "Modify the default address of a user after explicit user confirmation.",
    inputSchema: z.object({ user_id: z.string(), ...address }),
    execute: ({ context }) => callBackend("modify_user_address", context),
  }),
  return_delivered_order_items: createTool({
    id: "return_delivered_order_items",
    description: "Return some items of a delivered order after explicit user confirmation.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: ({ context }) => callBackend("return_delivered_order_items", context),
  }),
  exchange_delivered_order_items: createTool({
    id: "exchange_delivered_order_items",
    description: "Exchange items in a delivered order to new items of the same product type, after explicit user confirmation.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: ({ context }) => callBackend("exchange_delivered_order_items", context),
  }),
  transfer_to_human_agents: createTool({
    id: "transfer_to_human_agents",
    description: "Transfer the user to a human agent, with a summary of the user's issue.",
    inputSchema: z.object({ summary: z.string() }),
    execute: ({ context }) => callBackend("transfer_to_human_agents", context),
  }),
  think: createTool({
    id: "think",
    description: "Think about something; it does not change anything.",
    inputSchema: z.object({ thought: z.string() }),
    execute: async ({ context }) => `noted: ${context.thought}`,
  }),
  calculate: createTool({
    id: "calculate",
    description: "Calculate the result of a mathematical expression.",
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
