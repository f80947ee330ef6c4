/**
 * A public-library help-desk agent written the ordinary LangChain v1 way (`tool()` functions with zod
 * schemas, a `ChatOpenAI` model, `createAgent`), for taubridge's bundled `library` domain:
 *
 *   taubridge run --env library --agent-strategy langchain --agent-option module=adapters/langchain/example/library-agent.ts …
 *
 * The tools would call the library system's HTTP API (`LIBRARY_BACKEND_URL`); under the bridge each
 * validated call is answered from the benchmark environment instead and `callBackend` never runs.
 */
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool } from "langchain";
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

export const libraryTools = [
  tool((input) => callBackend("find_member_id_by_email", input), {
    name: "find_member_id_by_email",
    description: "Look up a patron's account id from the email address on their library card.",
    schema: z.object({ email: z.string().describe("Email address on the account.") }),
  }),
  tool((input) => callBackend("find_member_id_by_name_zip", input), {
    name: "find_member_id_by_name_zip",
    description: "Look up a patron's account id from their first and last name and ZIP code, when they don't know the email on file.",
    schema: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
  }),
  tool((input) => callBackend("get_member_details", input), {
    name: "get_member_details",
    description: "Open a patron's account: membership tier, fines owed, saved payment methods, loans and holds.",
    schema: z.object({ member_id: memberId }),
  }),
  tool((input) => callBackend("get_loan_details", input), {
    name: "get_loan_details",
    description: "Look up a loan: which book and copy, when it is due, renewals used so far and its status.",
    schema: z.object({ loan_id: loanId }),
  }),
  tool((input) => callBackend("search_catalog", input), {
    name: "search_catalog",
    description: "Search the catalogue by words from a title or an author's name; shows how many copies are on the shelf.",
    schema: z.object({ query: z.string().describe("Part of a title or an author's name.") }),
  }),
  tool((input) => callBackend("get_book_details", input), {
    name: "get_book_details",
    description: "Look up a book: every copy and where it is, the replacement fee, and who is waiting in the hold queue.",
    schema: z.object({ book_id: bookId }),
  }),
  tool((input) => callBackend("renew_loan", input), {
    name: "renew_loan",
    description: "Push a loan's due date back two weeks, if the lending rules allow it. Ask the patron to confirm first.",
    schema: z.object({ loan_id: loanId }),
  }),
  tool((input) => callBackend("place_hold", input), {
    name: "place_hold",
    description: "Put the patron in line for a book that has no copy on the shelf. Ask the patron to confirm first.",
    schema: z.object({ member_id: memberId, book_id: bookId }),
  }),
  tool((input) => callBackend("pay_fine", input), {
    name: "pay_fine",
    description: "Pay off some or all of a patron's fines with one of their saved payment methods. Confirm the amount and the method first.",
    schema: z.object({ member_id: memberId, amount: z.number().describe("Amount in dollars."), payment_method_id: z.string().describe("Id of a saved payment method, e.g. 'card_5547'.") }),
  }),
  tool((input) => callBackend("report_lost_copy", input), {
    name: "report_lost_copy",
    description: "Mark the copy on a loan as lost; its replacement fee goes onto the patron's fines. Tell them the fee and get a yes first.",
    schema: z.object({ loan_id: loanId }),
  }),
  tool((input) => callBackend("transfer_to_human_agents", input), {
    name: "transfer_to_human_agents",
    description: "Hand the patron over to a librarian, with a short summary of what they need.",
    schema: z.object({ summary: z.string() }),
  }),
  tool(({ thought }) => `noted: ${thought}`, {
    name: "think",
    description: "Scratchpad for planning your next step. Nothing is looked up or changed.",
    schema: z.object({ thought: z.string() }),
  }),
  tool((input) => callBackend("calculate", input), {
    name: "calculate",
    description: "Do arithmetic (fines, fees, payments) instead of working it out by hand.",
    schema: z.object({ expression: z.string().describe("An arithmetic expression, e.g. '12.5 + 8'.") }),
  }),
];

export const systemPrompt =
  "You work the help desk of a public library. Identify the patron by email, or by name and ZIP code, then help with " +
  "loans, renewals, holds, fines and lost books according to the lending rules. Confirm anything that changes an account first.";

export default function createLibraryAgent({ baseURL, model = "gpt-4o-mini", apiKey }: { baseURL?: string; model?: string; apiKey?: string } = {}) {
  const llm = new ChatOpenAI({ model, temperature: 0, ...(apiKey ? { apiKey } : {}), ...(baseURL ? { configuration: { baseURL } } : {}) });
  return createAgent({ model: llm, tools: libraryTools, systemPrompt });
}
