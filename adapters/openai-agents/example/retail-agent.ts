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

const orderId = z.string().describe("The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.");
const itemIds = z.array(z.string()).describe("The item ids, such as ['1008292230']. There could be duplicate items in the list.");
const paymentMethodId = z.string().describe("The payment method id, such as 'gift_card_0000000' or 'credit_card_0000000'.");
const address = {
  address1: z.string().describe("The first line of the address, such as '123 Main St'."),
  address2: z.string().describe("The second line of the address, such as 'Apt 1' or ''."),
  city: z.string().describe("The city, such as 'San Francisco'."),
  state: z.string().describe("The state, such as 'CA'."),
  country: z.string().describe("The country, such as 'USA'."),
  zip: z.string().describe("The zip code, such as '12345'."),
};

const findUserIdByEmail = tool({
  name: "find_user_id_by_email",
  description: "Find user id by email. If the user is not found, the function will return an error message.",
  parameters: z.object({ email: z.string().describe("The email of the user, such as 'something@example.com'.") }),
  execute: (input) => callBackend("find_user_id_by_email", input),
});

const findUserIdByNameZip = tool({
  name: "find_user_id_by_name_zip",
  description: "Find user id by first name, last name, and zip code. Only call this if the user cannot be found by email.",
  parameters: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
  execute: (input) => callBackend("find_user_id_by_name_zip", input),
});

const getUserDetails = tool({
  name: "get_user_details",
  description: "Get the details of a user, including their orders.",
  parameters: z.object({ user_id: z.string().describe("The user id, such as 'sara_doe_496'.") }),
  execute: (input) => callBackend("get_user_details", input),
});

const getOrderDetails = tool({
  name: "get_order_details",
  description: "Get the status and details of an order.",
  parameters: z.object({ order_id: orderId }),
  execute: (input) => callBackend("get_order_details", input),
});

const getProductDetails = tool({
  name: "get_product_details",
  description: "Get the inventory details of a product.",
  parameters: z.object({ product_id: z.string().describe("The product id, such as '6086499569'. Different from the item id.") }),
  execute: (input) => callBackend("get_product_details", input),
});

const listAllProductTypes = tool({
  name: "list_all_product_types",
  description: "List the name and product id of all product types.",
  parameters: z.object({}),
  execute: () => callBackend("list_all_product_types", {}),
});

const cancelPendingOrder = tool({
  name: "cancel_pending_order",
  description: "Cancel a pending order after explicit user confirmation. The refund goes to the original payment method.",
  parameters: z.object({ order_id: orderId, reason: z.enum(["no longer needed", "ordered by mistake"]) }),
  execute: (input) => callBackend("cancel_pending_order", input),
});

const modifyPendingOrderAddress = tool({
  name: "modify_pending_order_address",
  description: "Modify the shipping address of a pending order after explicit user confirmation.",
  parameters: z.object({ order_id: orderId, ...address }),
  execute: (input) => callBackend("modify_pending_order_address", input),
});

const modifyPendingOrderItems = tool({
  name: "modify_pending_order_items",
  description: "Modify items in a pending order to new items of the same product type. Can only be called once per order.",
  parameters: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
  execute: (input) => callBackend("modify_pending_order_items", input),
});

const modifyPendingOrderPayment = tool({
  name: "modify_pending_order_payment",
  description: "Modify the payment method of a pending order after explicit user confirmation.",
  parameters: z.object({ order_id: orderId, payment_method_id: paymentMethodId }),
  execute: (input) => callBackend("modify_pending_order_payment", input),
});

const modifyUserAddress = tool({
  name: "modify_user_address",
  description: "Modify the default address of a user after explicit user confirmation.",
  parameters: z.object({ user_id: z.string(), ...address }),
  execute: (input) => callBackend("modify_user_address", input),
});

const returnDeliveredOrderItems = tool({
  name: "return_delivered_order_items",
  description: "Return some items of a delivered order after explicit user confirmation.",
  parameters: z.object({ order_id: orderId, item_ids: itemIds, payment_method_id: paymentMethodId }),
  execute: (input) => callBackend("return_delivered_order_items", input),
});

const exchangeDeliveredOrderItems = tool({
  name: "exchange_delivered_order_items",
  description: "Exchange items in a delivered order to new items of the same product type, after explicit user confirmation.",
  parameters: z.object({ order_id: orderId, item_ids: itemIds, new_item_ids: itemIds, payment_method_id: paymentMethodId }),
  execute: (input) => callBackend("exchange_delivered_order_items", input),
});

const transferToHumanAgents = tool({
  name: "transfer_to_human_agents",
  description: "Transfer the user to a human agent, with a summary of the user's issue.",
  parameters: z.object({ summary: z.string() }),
  execute: (input) => callBackend("transfer_to_human_agents", input),
});

const think = tool({
  name: "think",
  description: "Think about something; it does not change anything.",
  parameters: z.object({ thought: z.string() }),
  execute: ({ thought }) => `noted: ${thought}`,
});

const calculate = tool({
  name: "calculate",
  description: "Calculate the result of a mathematical expression.",
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
