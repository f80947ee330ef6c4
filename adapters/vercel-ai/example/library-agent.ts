/**
 * A public-library help-desk agent written the ordinary AI SDK 6 way (`tool()` + zod, a
 * `ToolLoopAgent` over an OpenAI-compatible model), for taubridge's bundled `library` domain:
 *
 *   taubridge run --env library --agent-strategy vercel-ai --agent-option module=adapters/vercel-ai/example/library-agent.ts …
 *
 * The tools would call the library system's HTTP API (`LIBRARY_BACKEND_URL`); under the bridge each
 * validated call is answered from the benchmark environment instead and `callBackend` never runs.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ToolLoopAgent, stepCountIs, tool } from "ai";
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
  find_member_id_by_email: tool({
    description: "Look up a patron's account id from the email address on their library card.",
    inputSchema: z.object({ email: z.string().describe("Email address on the account.") }),
    execute: (input) => callBackend("find_member_id_by_email", input),
  }),
  find_member_id_by_name_zip: tool({
    description: "Look up a patron's account id from their first and last name and ZIP code, when they don't know the email on file.",
    inputSchema: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
    execute: (input) => callBackend("find_member_id_by_name_zip", input),
  }),
  get_member_details: tool({
    description: "Open a patron's account: membership tier, fines owed, saved payment methods, loans and holds.",
    inputSchema: z.object({ member_id: memberId }),
    execute: (input) => callBackend("get_member_details", input),
  }),
  get_loan_details: tool({
    description: "Look up a loan: which book and copy, when it is due, renewals used so far and its status.",
    inputSchema: z.object({ loan_id: loanId }),
    execute: (input) => callBackend("get_loan_details", input),
  }),
  search_catalog: tool({
    description: "Search the catalogue by words from a title or an author's name; shows how many copies are on the shelf.",
    inputSchema: z.object({ query: z.string().describe("Part of a title or an author's name.") }),
    execute: (input) => callBackend("search_catalog", input),
  }),
  get_book_details: tool({
    description: "Look up a book: every copy and where it is, the replacement fee, and who is waiting in the hold queue.",
    inputSchema: z.object({ book_id: bookId }),
    execute: (input) => callBackend("get_book_details", input),
  }),
  renew_loan: tool({
    description: "Push a loan's due date back two weeks, if the lending rules allow it. Ask the patron to confirm first.",
    inputSchema: z.object({ loan_id: loanId }),
    execute: (input) => callBackend("renew_loan", input),
  }),
  place_hold: tool({
    description: "Put the patron in line for a book that has no copy on the shelf. Ask the patron to confirm first.",
    inputSchema: z.object({ member_id: memberId, book_id: bookId }),
    execute: (input) => callBackend("place_hold", input),
  }),
  pay_fine: tool({
    description: "Pay off some or all of a patron's fines with one of their saved payment methods. Confirm the amount and the method first.",
    inputSchema: z.object({ member_id: memberId, amount: z.number().describe("Amount in dollars."), payment_method_id: z.string().describe("Id of a saved payment method, e.g. 'card_5547'.") }),
    execute: (input) => callBackend("pay_fine", input),
  }),
  report_lost_copy: tool({
    description: "Mark the copy on a loan as lost; its replacement fee goes onto the patron's fines. Tell them the fee and get a yes first.",
    inputSchema: z.object({ loan_id: loanId }),
    execute: (input) => callBackend("report_lost_copy", input),
  }),
  transfer_to_human_agents: tool({
    description: "Hand the patron over to a librarian, with a short summary of what they need.",
    inputSchema: z.object({ summary: z.string() }),
    execute: (input) => callBackend("transfer_to_human_agents", input),
  }),
  think: tool({
    description: "Scratchpad for planning your next step. Nothing is looked up or changed.",
    inputSchema: z.object({ thought: z.string() }),
    execute: ({ thought }) => `noted: ${thought}`,
  }),
  calculate: tool({
    description: "Do arithmetic (fines, fees, payments) instead of working it out by hand.",
    inputSchema: z.object({ expression: z.string().describe("An arithmetic expression, e.g. '12.5 + 8'.") }),
    execute: (input) => callBackend("calculate", input),
  }),
};

export const instructions =
  "You work the help desk of a public library. Identify the patron by email, or by name and ZIP code, then help with " +
  "loans, renewals, holds, fines and lost books according to the lending rules. Confirm anything that changes an account first.";

export function createAgent({ baseURL = "https://api.openai.com/v1", model = "gpt-4o-mini", apiKey }: { baseURL?: string; model?: string; apiKey?: string } = {}) {
  const provider = createOpenAICompatible({ name: "library-llm", baseURL, ...(apiKey ? { apiKey } : {}) });
  return new ToolLoopAgent({ model: provider.chatModel(model), instructions, tools: libraryTools, stopWhen: stepCountIs(30) });
}
