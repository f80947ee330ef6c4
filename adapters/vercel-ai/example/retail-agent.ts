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
  find_user_id_by_email: tool({
    description: "Find user id by email. If the user is not found, the function will return an error message.",
    inputSchema: z.object({ email: z.string().describe("The email of the user, such as 'something@example.com'.") }),
    execute: (input) => callBackend("find_user_id_by_email", input),
  }),
  find_user_id_by_name_zip: tool({
    description: "Find user id by first name, last name, and zip code. Only call this if the user cannot be found by email.",
    inputSchema: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
    execute: (input) => callBackend("find_user_id_by_name_zip", input),
  }),
  get_user_details: tool({
    description: "Get the details of a user, including their orders.",
    inputSchema: z.object({ user_id: z.string().describe("The user id, such as 'sara_doe_496'.") }),
    execute: (input) => callBackend("get_user_details", input),
  }),
  get_order_details: tool({
    description: "Get the status and details of an order.",
    inputSchema: z.object({ order_id: orderId }),
    execute: (input) => callBackend("get_order_details", input),
  }),
  get_product_details: tool({
    description: "Get the inventory details of a product.",
    inputSchema: z.object({ product_id: z.string().describe("The product id, such as '6086499569'. Different from the item id.") }),
    execute: (input) => callBackend("get_product_details", input),
  }),
  list_all_product_types: tool({
    description: "List the name and product id of all product types.",
    inputSchema: z.object({}),
    execute: () => callBackend("list_all_product_types", {}),
  }),
  cancel_pending_order: tool({
    description: "Cancel a pending order after explicit user confirmation.",
    inputSchema: z.object({ order_id: orderId, reason: z.enum(["no longer needed", "ordered by mistake"]) }),
    execute: (input) => callBackend("cancel_pending_order", input),
  }),
  modify_pending_order_address: tool({
    description: "Modify the shipping address of a pending order after explicit user confirmation.",
    inputSchema: z.object({ order_id: orderId, ...address }),
    execute: (input) => callBackend("modify_pending_order_address", input),
  }),
  modify_pending_order_items: tool({
    description: "Modify items in a pending order to new items of the same product type. Can only be called once per order.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: (input) => callBackend("modify_pending_order_items", input),
  }),
  modify_pending_order_payment: tool({
    description: "Modify the payment method of a pending order after explicit user confirmation.",
    inputSchema: z.object({ order_id: orderId, payment_method_id: paymentMethodId }),
    execute: (input) => callBackend("modify_pending_order_payment", input),
  }),
  modify_user_address: tool({
    description: "Modify the default address of a user after explicit user confirmation.",
    inputSchema: z.object({ user_id: z.string(), ...address }),
    execute: (input) => callBackend("modify_user_address", input),
  }),
  return_delivered_order_items: tool({
    description: "Return some items of a delivered order after explicit user confirmation.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: (input) => callBackend("return_delivered_order_items", input),
  }),
  exchange_delivered_order_items: tool({
    description: "Exchange items in a delivered order to new items of the same product type, after explicit user confirmation.",
    inputSchema: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
    execute: (input) => callBackend("exchange_delivered_order_items", input),
  }),
  transfer_to_human_agents: tool({
    description: "Transfer the user to a human agent, with a summary of the user's issue.",
    inputSchema: z.object({ summary: z.string() }),
    execute: (input) => callBackend("transfer_to_human_agents", input),
  }),
  think: tool({
    description: "Think about something; it does not change anything.",
    inputSchema: z.object({ thought: z.string() }),
    execute: ({ thought }) => `noted: ${thought}`,
  }),
  calculate: tool({
    description: "Calculate the result of a mathematical expression.",
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
