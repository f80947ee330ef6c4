/**
 * A mobile carrier's support agent written the ordinary Mastra (0.24) way: `createTool`
 * definitions with zod input schemas that call the carrier's account API, and an `Agent` over an
 * OpenAI-compatible model. Nothing here knows about taubridge: under `--agent mastra` on a τ²
 * telecom run the bridge answers each tool call from the benchmark, and `callAccounts` never runs.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible-v5";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { z } from "zod";

const ACCOUNTS = process.env.TELECOM_ACCOUNTS_URL ?? "http://telecom-accounts.invalid/api";

async function callAccounts(operation: string, body: unknown): Promise<string> {
  const response = await fetch(`${ACCOUNTS}/${operation}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`accounts ${operation} failed: HTTP ${response.status}`);
  return response.text();
}

const line = { customer_id: z.string().describe("Customer id, e.g. 'C1001'."), line_id: z.string().describe("Line id, e.g. 'L1002'.") };

export const telecomTools = {
  get_customer_by_phone: createTool({
    id: "get_customer_by_phone",
    description: "Find the customer who owns a phone number.",
    inputSchema: z.object({ phone_number: z.string() }),
    execute: ({ context }) => callAccounts("get_customer_by_phone", context),
  }),
  get_details_by_id: createTool({
    id: "get_details_by_id",
    description: "Look up a customer, line, device, plan or bill by its id.",
    inputSchema: z.object({ id: z.string() }),
    execute: ({ context }) => callAccounts("get_details_by_id", context),
  }),
  enable_roaming: createTool({
    id: "enable_roaming",
    description: "Allow a line to use partner networks abroad.",
    inputSchema: z.object(line),
    execute: ({ context }) => callAccounts("enable_roaming", context),
  }),
  transfer_to_human_agents: createTool({
    id: "transfer_to_human_agents",
    description: "Hand the customer to a person on our team, with a short summary.",
    inputSchema: z.object({ summary: z.string() }),
    execute: ({ context }) => callAccounts("transfer_to_human_agents", context),
  }),
};

export const instructions =
  "You help a mobile carrier's customers with their lines and phones. Identify the customer, check the line, fix what you can on the account, and walk them through settings on their phone.";

export function createAgent({ baseURL = "https://api.openai.com/v1", model = "gpt-4o-mini", apiKey }: { baseURL?: string; model?: string; apiKey?: string } = {}) {
  const provider = createOpenAICompatible({ name: "telecom-llm", baseURL, ...(apiKey ? { apiKey } : {}) });
  return new Agent({ name: "carrier-support", instructions, model: provider.chatModel(model), tools: telecomTools });
}
