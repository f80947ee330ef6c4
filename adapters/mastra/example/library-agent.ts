/**
 * A public-library help-desk agent written the ordinary Mastra (0.24) way (`createTool` + zod, an
 * `Agent` over an AI SDK v5 OpenAI-compatible model), for taubridge's bundled `library` domain:
 *
 *   taubridge run --env library --agent-strategy mastra --agent-option module=adapters/mastra/example/library-agent.ts …
 *
 * The tools would call the library system's HTTP API (`LIBRARY_BACKEND_URL`); under the bridge each
 * validated call is answered from the benchmark environment instead and `callBackend` never runs.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible-v5";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { z } from "zod";

const BACKEND = process.env.LIBRARY_BACKEND_URL ?? "http://library-backend.invalid/api";

async function callBackend(operation: string, body: unknown): Promise<string> {
  const response = await fetch(`${BACKEND}/${operation}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`backend ${operation} failed: HTTP ${response.status}`);
  return response.text();
}

const memberId = z.string().describe("Library account id, e.g. 'ava_lindqvist_4102'.");
const loanId = z.string().describe("Loan id, e.g. 'L2001'.");
const bookId = z.string().describe("Book id, e.g. 'B1001'.");

export const libraryTools = {
  find_member_id_by_email: createTool({
    id: "find_member_id_by_email",
    description: "Look up a patron's account id from the email address on their library card.",
    inputSchema: z.object({ email: z.string().describe("Email address on the account.") }),
    execute: ({ context }) => callBackend("find_member_id_by_email", context),
  }),
  find_member_id_by_name_zip: createTool({
    id: "find_member_id_by_name_zip",
    description: "Look up a patron's account id from their first and last name and ZIP code, when they don't know the email on file.",
    inputSchema: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
    execute: ({ context }) => callBackend("find_member_id_by_name_zip", context),
  }),
  get_member_details: createTool({
    id: "get_member_details",
    description: "Open a patron's account: membership tier, fines owed, saved payment methods, loans and holds.",
    inputSchema: z.object({ member_id: memberId }),
    execute: ({ context }) => callBackend("get_member_details", context),
  }),
  get_loan_details: createTool({
    id: "get_loan_details",
    description: "Look up a loan: which book and copy, when it is due, renewals used so far and its status.",
    inputSchema: z.object({ loan_id: loanId }),
    execute: ({ context }) => callBackend("get_loan_details", context),
  }),
  search_catalog: createTool({
    id: "search_catalog",
    description: "Search the catalogue by words from a title or an author's name; shows how many copies are on the shelf.",
    inputSchema: z.object({ query: z.string().describe("Part of a title or an author's name.") }),
    execute: ({ context }) => callBackend("search_catalog", context),
  }),
  get_book_details: createTool({
    id: "get_book_details",
    description: "Look up a book: every copy and where it is, the replacement fee, and who is waiting in the hold queue.",
    inputSchema: z.object({ book_id: bookId }),
    execute: ({ context }) => callBackend("get_book_details", context),
  }),
  renew_loan: createTool({
    id: "renew_loan",
    description: "Push a loan's due date back two weeks, if the lending rules allow it. Ask the patron to confirm first.",
    inputSchema: z.object({ loan_id: loanId }),
    execute: ({ context }) => callBackend("renew_loan", context),
  }),
  place_hold: createTool({
    id: "place_hold",
    description: "Put the patron in line for a book that has no copy on the shelf. Ask the patron to confirm first.",
    inputSchema: z.object({ member_id: memberId, book_id: bookId }),
    execute: ({ context }) => callBackend("place_hold", context),
  }),
  pay_fine: createTool({
    id: "pay_fine",
    description: "Pay off some or all of a patron's fines with one of their saved payment methods. Confirm the amount and the method first.",
    inputSchema: z.object({ member_id: memberId, amount: z.number().describe("Amount in dollars."), payment_method_id: z.string().describe("Id of a saved payment method, e.g. 'card_5547'.") }),
    execute: ({ context }) => callBackend("pay_fine", context),
  }),
  report_lost_copy: createTool({
    id: "report_lost_copy",
    description: "Mark the copy on a loan as lost; its replacement fee goes onto the patron's fines. Tell them the fee and get a yes first.",
    inputSchema: z.object({ loan_id: loanId }),
    execute: ({ context }) => callBackend("report_lost_copy", context),
  }),
  transfer_to_human_agents: createTool({
    id: "transfer_to_human_agents",
    description: "Hand the patron over to a librarian, with a short summary of what they need.",
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
    description: "Do arithmetic (fines, fees, payments) instead of working it out by hand.",
    inputSchema: z.object({ expression: z.string().describe("An arithmetic expression, e.g. '12.5 + 8'.") }),
    execute: ({ context }) => callBackend("calculate", context),
  }),
};

export const instructions =
  "You work the help desk of a public library. Identify the patron by email, or by name and ZIP code, then help with " +
  "loans, renewals, holds, fines and lost books according to the lending rules. Confirm anything that changes an account first.";

export function createAgent({ baseURL = "https://api.openai.com/v1", model = "gpt-4o-mini", apiKey }: { baseURL?: string; model?: string; apiKey?: string } = {}) {
  const provider = createOpenAICompatible({ name: "library-llm", baseURL, ...(apiKey ? { apiKey } : {}) });
  return new Agent({ name: "library-help-desk", instructions, model: provider.chatModel(model), tools: libraryTools });
}
