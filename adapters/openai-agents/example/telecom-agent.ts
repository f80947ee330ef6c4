/**
 * A mobile carrier's support agent written the ordinary OpenAI Agents SDK way: zod-typed tools
 * whose `execute` calls the carrier's account API, and one exported `Agent`. Nothing here knows
 * about taubridge: under `--agent openai-agents` on a τ² telecom run the bridge answers each tool
 * call from the benchmark, and `callAccounts` never runs.
 */
import { Agent, tool } from "@openai/agents";
import { z } from "zod";

const ACCOUNTS = process.env.TELECOM_ACCOUNTS_URL ?? "http://telecom-accounts.invalid/api";

async function callAccounts(operation: string, body: unknown): Promise<string> {
  const response = await fetch(`${ACCOUNTS}/${operation}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`accounts ${operation} failed: HTTP ${response.status}`);
  return response.text();
}

const line = { customer_id: z.string().describe("Customer id, e.g. 'C1001'."), line_id: z.string().describe("Line id, e.g. 'L1002'.") };

export const agent = new Agent({
  name: "Carrier support",
  instructions:
    "You help a mobile carrier's customers with their lines and phones. Identify the customer, check the line, fix what you can on the account, and walk them through settings on their phone.",
  model: "gpt-4o-mini",
  tools: [
    tool({
      name: "get_customer_by_phone",
      description: "Find the customer who owns a phone number.",
      parameters: z.object({ phone_number: z.string() }),
      execute: (input) => callAccounts("get_customer_by_phone", input),
    }),
    tool({
      name: "get_details_by_id",
      description: "Look up a customer, line, device, plan or bill by its id.",
      parameters: z.object({ id: z.string() }),
      execute: (input) => callAccounts("get_details_by_id", input),
    }),
    tool({ name: "enable_roaming", description: "Allow a line to use partner networks abroad.", parameters: z.object(line), execute: (input) => callAccounts("enable_roaming", input) }),
    tool({
      name: "transfer_to_human_agents",
      description: "Hand the customer to a person on our team, with a short summary.",
      parameters: z.object({ summary: z.string() }),
      execute: (input) => callAccounts("transfer_to_human_agents", input),
    }),
  ],
});
