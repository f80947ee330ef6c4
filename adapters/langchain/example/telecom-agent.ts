/**
 * A mobile carrier's support agent written the ordinary LangChain v1 way: `tool()` functions with
 * zod schemas that call the carrier's account API, a `ChatOpenAI` model and `createAgent`. Nothing
 * here knows about taubridge: under `--agent langchain` on a τ² telecom run the bridge answers each
 * tool call from the benchmark, and `callAccounts` never runs.
 */
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool } from "langchain";
import { z } from "zod";

const ACCOUNTS = process.env.TELECOM_ACCOUNTS_URL ?? "http://telecom-accounts.invalid/api";

async function callAccounts(operation: string, body: unknown): Promise<string> {
  const response = await fetch(`${ACCOUNTS}/${operation}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`accounts ${operation} failed: HTTP ${response.status}`);
  return response.text();
}

const line = { customer_id: z.string().describe("Customer id, e.g. 'C1001'."), line_id: z.string().describe("Line id, e.g. 'L1002'.") };

export const telecomTools = [
  tool((input) => callAccounts("get_customer_by_phone", input), {
    name: "get_customer_by_phone",
    description: "Find the customer who owns a phone number.",
    schema: z.object({ phone_number: z.string() }),
  }),
  tool((input) => callAccounts("get_details_by_id", input), {
    name: "get_details_by_id",
    description: "Look up a customer, line, device, plan or bill by its id.",
    schema: z.object({ id: z.string() }),
  }),
  tool((input) => callAccounts("enable_roaming", input), { name: "enable_roaming", description: "Allow a line to use partner networks abroad.", schema: z.object(line) }),
  tool((input) => callAccounts("transfer_to_human_agents", input), {
    name: "transfer_to_human_agents",
    description: "Hand the customer to a person on our team, with a short summary.",
    schema: z.object({ summary: z.string() }),
  }),
];

export const systemPrompt =
  "You help a mobile carrier's customers with their lines and phones. Identify the customer, check the line, fix what you can on the account, and walk them through settings on their phone.";

export default function createTelecomAgent({ baseURL, model = "gpt-4o-mini", apiKey }: { baseURL?: string; model?: string; apiKey?: string } = {}) {
  const llm = new ChatOpenAI({ model, temperature: 0, ...(apiKey ? { apiKey } : {}), ...(baseURL ? { configuration: { baseURL } } : {}) });
  return createAgent({ model: llm, tools: telecomTools, systemPrompt });
}
