/**
 * A public-library help-desk agent written the ordinary OpenAI Agents SDK way (zod-typed `tool()`s,
 * one exported `Agent`), for taubridge's bundled `library` domain:
 *
 *   taubridge run --env library --agent-strategy openai-agents --agent-option module=adapters/openai-agents/example/library-agent.ts …
 *
 * The tools would call the library system's HTTP API (`LIBRARY_BACKEND_URL`); under the bridge each
 * validated call is answered from the benchmark environment instead and `callBackend` never runs.
 */
import { Agent, tool } from "@openai/agents";
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

const findMemberIdByEmail = tool({
  name: "find_member_id_by_email",
  description: "Look up a patron's account id from the email address on their library card.",
  parameters: z.object({ email: z.string().describe("Email address on the account.") }),
  execute: (input) => callBackend("find_member_id_by_email", input),
});

const findMemberIdByNameZip = tool({
  name: "find_member_id_by_name_zip",
  description: "Look up a patron's account id from their first and last name and ZIP code, when they don't know the email on file.",
  parameters: z.object({ first_name: z.string(), last_name: z.string(), zip: z.string() }),
  execute: (input) => callBackend("find_member_id_by_name_zip", input),
});

const getMemberDetails = tool({
  name: "get_member_details",
  description: "Open a patron's account: membership tier, fines owed, saved payment methods, loans and holds.",
  parameters: z.object({ member_id: memberId }),
  execute: (input) => callBackend("get_member_details", input),
});

const getLoanDetails = tool({
  name: "get_loan_details",
  description: "Look up a loan: which book and copy, when it is due, renewals used so far and its status.",
  parameters: z.object({ loan_id: loanId }),
  execute: (input) => callBackend("get_loan_details", input),
});

const searchCatalog = tool({
  name: "search_catalog",
  description: "Search the catalogue by words from a title or an author's name; shows how many copies are on the shelf.",
  parameters: z.object({ query: z.string().describe("Part of a title or an author's name.") }),
  execute: (input) => callBackend("search_catalog", input),
});

const getBookDetails = tool({
  name: "get_book_details",
  description: "Look up a book: every copy and where it is, the replacement fee, and who is waiting in the hold queue.",
  parameters: z.object({ book_id: bookId }),
  execute: (input) => callBackend("get_book_details", input),
});

const renewLoan = tool({
  name: "renew_loan",
  description: "Push a loan's due date back two weeks, if the lending rules allow it. Ask the patron to confirm first.",
  parameters: z.object({ loan_id: loanId }),
  execute: (input) => callBackend("renew_loan", input),
});

const placeHold = tool({
  name: "place_hold",
  description: "Put the patron in line for a book that has no copy on the shelf. Ask the patron to confirm first.",
  parameters: z.object({ member_id: memberId, book_id: bookId }),
  execute: (input) => callBackend("place_hold", input),
});

const payFine = tool({
  name: "pay_fine",
  description: "Pay off some or all of a patron's fines with one of their saved payment methods. Confirm the amount and the method first.",
  parameters: z.object({ member_id: memberId, amount: z.number().describe("Amount in dollars."), payment_method_id: z.string().describe("Id of a saved payment method, e.g. 'card_5547'.") }),
  execute: (input) => callBackend("pay_fine", input),
});

const reportLostCopy = tool({
  name: "report_lost_copy",
  description: "Mark the copy on a loan as lost; its replacement fee goes onto the patron's fines. Tell them the fee and get a yes first.",
  parameters: z.object({ loan_id: loanId }),
  execute: (input) => callBackend("report_lost_copy", input),
});

const transferToHumanAgents = tool({
  name: "transfer_to_human_agents",
  description: "Hand the patron over to a librarian, with a short summary of what they need.",
  parameters: z.object({ summary: z.string() }),
  execute: (input) => callBackend("transfer_to_human_agents", input),
});

const think = tool({
  name: "think",
  description: "Scratchpad for planning your next step. Nothing is looked up or changed.",
  parameters: z.object({ thought: z.string() }),
  execute: ({ thought }) => `noted: ${thought}`,
});

const calculate = tool({
  name: "calculate",
  description: "Do arithmetic (fines, fees, payments) instead of working it out by hand.",
  parameters: z.object({ expression: z.string().describe("An arithmetic expression, e.g. '12.5 + 8'.") }),
  execute: (input) => callBackend("calculate", input),
});

export const agent = new Agent({
  name: "Library help desk",
  instructions:
    "You work the help desk of a public library. Identify the patron by email, or by name and ZIP code, then help with " +
    "loans, renewals, holds, fines and lost books according to the lending rules. Confirm anything that changes an account first.",
  model: "gpt-4o-mini",
  tools: [
    findMemberIdByEmail,
    findMemberIdByNameZip,
    getMemberDetails,
    getLoanDetails,
    searchCatalog,
    getBookDetails,
    renewLoan,
    placeHold,
    payFine,
    reportLostCopy,
    transferToHumanAgents,
    think,
    calculate,
  ],
});
