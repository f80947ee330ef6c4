/**
 * A mobile carrier's support agent written the ordinary AI SDK 6 way: `tool()` definitions with zod
 * input schemas whose `execute` calls the carrier's account API, in a `ToolLoopAgent` over an
 * OpenAI-compatible model. Nothing here knows about taubridge: under `--agent vercel-ai` on a τ²
 * telecom run the bridge answers each validated tool call from the benchmark, and `callAccounts`
 * never runs.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ToolLoopAgent, stepCountIs, tool } from "ai";
import { z } from "zod";

const ACCOUNTS = process.env.TELECOM_ACCOUNTS_URL ?? "http://telecom-accounts.invalid/api";

async function callAccounts(operation: string, body: unknown): Promise<string> {
  const response = await fetch(`${ACCOUNTS}/${operation}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`accounts ${operation} failed: HTTP ${response.status}`);
  return response.text();
}

const line = { customer_id: z.string().describe("Customer id, e.g. 'C1001'."), line_id: z.string().describe("Line id, e.g. 'L1002'.") };

export const telecomTools = {
  get_customer_by_phone: tool({
    description: "Find the customer who owns a phone number.",
    inputSchema: z.object({ phone_number: z.string() }),
    execute: (input) => callAccounts("get_customer_by_phone", input),
  }),
  get_details_by_id: tool({
    description: "Look up a customer, line, device, plan or bill by its id.",
    inputSchema: z.object({ id: z.string() }),
    execute: (input) => callAccounts("get_details_by_id", input),
  }),
  enable_roaming: tool({
    description: "Allow a line to use partner networks abroad.",
    inputSchema: z.object(line),
    execute: (input) => callAccounts("enable_roaming", input),
  }),
  transfer_to_human_agents: tool({
    description: "Hand the customer to a person on our team, with a short summary.",
    inputSchema: z.object({ summary: z.string() }),
    execute: (input) => callAccounts("transfer_to_human_agents", input),
  }),
};

export const instructions =
  "You help a mobile carrier's customers with their lines and phones. Identify the customer, check the line, fix what you can on the account, and walk them through settings on their phone.";

export function createAgent({ baseURL = "https://api.openai.com/v1", model = "gpt-4o-mini", apiKey }: { baseURL?: string; model?: string; apiKey?: string } = {}) {
  const provider = createOpenAICompatible({ name: "telecom-llm", baseURL, ...(apiKey ? { apiKey } : {}) });
  return new ToolLoopAgent({ model: provider.chatModel(model), instructions, tools: telecomTools, stopWhen: stepCountIs(30) });
}
