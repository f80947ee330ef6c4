/**
 * The `library` domain's tools: a public-library help desk over three collections
 * (`members`, `catalog`, `loans`).
 *
 * The domain is taubridge's own, but its tools follow τ-bench's conventions so the same engine,
 * hash and reward apply unchanged: arguments arrive unvalidated from the model, a failure is a
 * thrown {@link PyException} that the environment turns into `Error: <message>`, successful reads
 * and writes return Python `json.dumps` text of the record (keys in insertion order), and money is
 * kept as Python floats rounded with `round(x, 2)`.
 *
 * Everything is deterministic: "today" is the fixed date {@link LIBRARY_TODAY} (also stated in the
 * policy), dates are `YYYY-MM-DD` strings, and no tool reads the clock.
 */
import type { EpisodeDatabase } from "../../src/suites/tau-bench/engine/database.ts";
import type { ToolImplementation } from "../../src/suites/tau-bench/engine/tool.ts";
import {
  PyException,
  isPyNumber,
  pyAdd,
  pyCompareStrings,
  pyEquals,
  pyFloat,
  pyGreaterOrEqual,
  pyGreaterThan,
  pyJsonDumps,
  pyKeyError,
  pyLessOrEqual,
  pyLower,
  pyMul,
  pyRound,
  pyStr,
  pySub,
  toNumber,
  type PyDict,
  type PyNumber,
  type PyValue,
} from "../../src/value/index.ts";
import { calculateTool, thinkTool, transferToHumanAgentsTool } from "../common/index.ts";

// ---------------------------------------------------------------------------------------------
// Policy constants (the policy text states the same numbers; change both together)
// ---------------------------------------------------------------------------------------------

/** The fixed "today" of every episode, so due dates and overdue checks never depend on the clock. */
export const LIBRARY_TODAY = "2025-03-14";
/** A renewal moves the due date this many days past the current due date. */
export const RENEWAL_DAYS = 14;
/** A loan more than this many days overdue can no longer be renewed. */
export const MAX_OVERDUE_DAYS_FOR_RENEWAL = 7;
/** Renewals are blocked while the fines balance is strictly above this amount. */
export const RENEWAL_FINE_LIMIT = 10.0;
/** Renewals allowed per loan, by membership tier. */
export const MAX_RENEWALS: Readonly<Record<string, number>> = { standard: 2, student: 2, patron: 3 };
/** Open holds allowed per member, by membership tier. */
export const HOLD_LIMITS: Readonly<Record<string, number>> = { standard: 3, student: 3, patron: 5 };
/** Students are charged this share of a lost copy's replacement fee. */
export const STUDENT_REPLACEMENT_SHARE = 0.5;

const MEMBERS = "members";
const CATALOG = "catalog";
const LOANS = "loans";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function fail(message: string): never {
  throw new PyException(message);
}

/** A field of a record (the data is ours, so a missing field is a data bug: Python's KeyError). */
function field(record: PyValue | undefined, key: string): PyValue {
  if (!(record instanceof Map) || !record.has(key)) throw pyKeyError(key);
  return record.get(key)!;
}

function text(record: PyValue | undefined, key: string): string {
  return field(record, key) as string;
}

function list(record: PyValue | undefined, key: string): PyValue[] {
  return field(record, key) as PyValue[];
}

function tierLimit(table: Readonly<Record<string, number>>, tier: string): number {
  if (!Object.hasOwn(table, tier)) throw pyKeyError(tier);
  return table[tier];
}

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a `YYYY-MM-DD` date (UTC, so no time zone or DST can shift it). */
function dayNumber(date: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new PyException(`invalid date '${date}'`, "ValueError");
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / DAY_MS;
}

/** `date + days` as `YYYY-MM-DD`. */
export function addDays(date: string, days: number): string {
  return new Date((dayNumber(date) + days) * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

function getRecord(db: EpisodeDatabase, collection: string, key: PyValue, missing: string): PyDict {
  if (!db.has(collection, key)) fail(missing);
  return db.get(collection, key as string) as PyDict;
}

/** A read-only tool that returns one record by id. */
function lookupTool(name: string, className: string, parameter: string, collection: string, missing: string): ToolImplementation {
  return {
    name,
    className,
    parameters: [parameter],
    kind: "read",
    invoke(db, args) {
      return pyJsonDumps(getRecord(db, collection, args[parameter], missing));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Identification
// ---------------------------------------------------------------------------------------------

/** Member id by e-mail address (case-insensitive); the first match in file order wins. */
export const findMemberIdByEmailTool: ToolImplementation = {
  name: "find_member_id_by_email",
  className: "FindMemberIdByEmail",
  parameters: ["email"],
  kind: "read",
  invoke(db, { email }) {
    const wanted = pyLower(email);
    for (const [memberId, member] of db.entries(MEMBERS)) {
      if (pyLower(text(member, "email")) === wanted) return memberId;
    }
    fail("member not found");
  },
};

/** Member id by first and last name (case-insensitive) and ZIP code (exact). */
export const findMemberIdByNameZipTool: ToolImplementation = {
  name: "find_member_id_by_name_zip",
  className: "FindMemberIdByNameZip",
  parameters: ["first_name", "last_name", "zip"],
  kind: "read",
  invoke(db, { first_name, last_name, zip }) {
    const first = pyLower(first_name);
    const last = pyLower(last_name);
    for (const [memberId, member] of db.entries(MEMBERS)) {
      const name = field(member, "name");
      if (pyLower(text(name, "first_name")) === first && pyLower(text(name, "last_name")) === last && pyEquals(field(member, "zip"), zip)) {
        return memberId;
      }
    }
    fail("member not found");
  },
};

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

/** The full catalog record of a book, including every copy's branch and status and the hold queue. */
export const getBookDetailsTool = lookupTool("get_book_details", "GetBookDetails", "book_id", CATALOG, "book not found");
/** The full loan record. */
export const getLoanDetailsTool = lookupTool("get_loan_details", "GetLoanDetails", "loan_id", LOANS, "loan not found");
/** The full member record (profile, fines, payment methods, loan ids, holds, payments). */
export const getMemberDetailsTool = lookupTool("get_member_details", "GetMemberDetails", "member_id", MEMBERS, "member not found");

/**
 * Books whose title or author contains the query (case-insensitive), sorted by title then book id,
 * each with its number of copies on the shelf. No match is an empty list, not an error.
 */
export const searchCatalogTool: ToolImplementation = {
  name: "search_catalog",
  className: "SearchCatalog",
  parameters: ["query"],
  kind: "read",
  invoke(db, { query }) {
    const wanted = pyLower(query);
    const hits: PyDict[] = [];
    for (const [bookId, book] of db.entries(CATALOG)) {
      const title = text(book, "title");
      const author = text(book, "author");
      if (!pyLower(title).includes(wanted) && !pyLower(author).includes(wanted)) continue;
      const available = list(book, "copies").filter((copy) => field(copy, "status") === "available").length;
      hits.push(
        new Map<string, PyValue>([
          ["book_id", bookId],
          ["title", title],
          ["author", author],
          ["year", field(book, "year")],
          ["available_copies", available],
        ]),
      );
    }
    hits.sort((a, b) => pyCompareStrings(a.get("title") as string, b.get("title") as string) || pyCompareStrings(a.get("book_id") as string, b.get("book_id") as string));
    return pyJsonDumps(hits);
  },
};

// ---------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------

/**
 * Renews an active loan by {@link RENEWAL_DAYS} days past its current due date. Checks, in order:
 * the loan exists; it is active; the tier's renewal limit; at most
 * {@link MAX_OVERDUE_DAYS_FOR_RENEWAL} days overdue; no other member holds the title; the member's
 * fines are not above {@link RENEWAL_FINE_LIMIT}. Returns the updated loan.
 */
export const renewLoanTool: ToolImplementation = {
  name: "renew_loan",
  className: "RenewLoan",
  parameters: ["loan_id"],
  kind: "write",
  invoke(db, { loan_id }) {
    const loan = getRecord(db, LOANS, loan_id, "loan not found");
    if (field(loan, "status") !== "active") fail("only active loans can be renewed");
    const memberId = text(loan, "member_id");
    const member = db.get(MEMBERS, memberId);
    const tier = text(member, "tier");
    const limit = tierLimit(MAX_RENEWALS, tier);
    if (pyGreaterOrEqual(field(loan, "renewals"), limit)) {
      fail(`loan has already been renewed ${limit} times, the limit for the ${tier} tier`);
    }
    const overdue = daysBetween(text(loan, "due_date"), LIBRARY_TODAY);
    if (overdue > MAX_OVERDUE_DAYS_FOR_RENEWAL) {
      fail(`loan is ${overdue} days overdue; loans more than ${MAX_OVERDUE_DAYS_FOR_RENEWAL} days overdue cannot be renewed`);
    }
    const book = db.get(CATALOG, text(loan, "book_id"));
    if (list(book, "holds").some((holder) => holder !== memberId)) fail("another member has a hold on this book");
    if (pyGreaterThan(field(member, "fines_balance"), RENEWAL_FINE_LIMIT)) {
      fail("renewals are blocked while the fines balance is above 10.00");
    }
    const updated = db.mutable(LOANS, loan_id as string);
    updated.set("due_date", addDays(text(loan, "due_date"), RENEWAL_DAYS));
    updated.set("renewals", pyAdd(field(loan, "renewals"), 1));
    return pyJsonDumps(updated);
  },
};

/**
 * Puts a member in a book's hold queue. Holds are only for books with no copy on the shelf.
 * Checks, in order: member, book, duplicate hold, already borrowed, a copy is available, the
 * tier's hold limit. Returns the member, book, title and queue position.
 */
export const placeHoldTool: ToolImplementation = {
  name: "place_hold",
  className: "PlaceHold",
  parameters: ["member_id", "book_id"],
  kind: "write",
  invoke(db, { member_id, book_id }) {
    const member = getRecord(db, MEMBERS, member_id, "member not found");
    const book = getRecord(db, CATALOG, book_id, "book not found");
    const memberId = member_id as string;
    const bookId = book_id as string;
    const holds = list(member, "holds");
    if (holds.includes(bookId)) fail("member already has a hold on this book");
    const borrowed = list(member, "loans").some((loanId) => {
      const loan = db.get(LOANS, loanId as string);
      return field(loan, "book_id") === bookId && field(loan, "status") === "active";
    });
    if (borrowed) fail("member already has this book on loan");
    if (list(book, "copies").some((copy) => field(copy, "status") === "available")) {
      fail("a copy is available on the shelf, so no hold is needed");
    }
    const limit = tierLimit(HOLD_LIMITS, text(member, "tier"));
    if (holds.length >= limit) fail(`hold limit of ${limit} reached for the ${text(member, "tier")} tier`);
    const updatedBook = db.mutable(CATALOG, bookId);
    const queue = list(updatedBook, "holds");
    queue.push(memberId);
    list(db.mutable(MEMBERS, memberId), "holds").push(bookId);
    return pyJsonDumps(
      new Map<string, PyValue>([
        ["member_id", memberId],
        ["book_id", bookId],
        ["title", text(book, "title")],
        ["queue_position", queue.length],
      ]),
    );
  },
};

/**
 * Pays part or all of a member's fines with one of the member's saved payment methods. The amount
 * is stored as a float whatever JSON form the model used (`8` or `8.0`), so the end state does not
 * depend on number formatting; the balance is `round(balance - amount, 2)`. Returns the member.
 */
export const payFineTool: ToolImplementation = {
  name: "pay_fine",
  className: "PayFine",
  parameters: ["member_id", "amount", "payment_method_id"],
  kind: "write",
  invoke(db, { member_id, amount, payment_method_id }) {
    const member = getRecord(db, MEMBERS, member_id, "member not found");
    const methods = list(member, "payment_methods");
    if (!methods.some((method) => pyEquals(field(method, "payment_method_id"), payment_method_id))) fail("payment method not found");
    if (!isPyNumber(amount)) fail("amount must be a number");
    const paid = pyFloat(toNumber(amount));
    if (paid.value <= 0) fail("amount must be positive");
    const balance = field(member, "fines_balance") as PyNumber;
    // `not paid <= balance` rather than `paid > balance`, so a NaN amount is refused here too.
    if (!pyLessOrEqual(paid, balance)) fail(`amount exceeds the fines balance of ${pyStr(pyFloat(toNumber(balance)))}`);
    const updated = db.mutable(MEMBERS, member_id as string);
    updated.set("fines_balance", pyRound(pySub(balance, paid), 2));
    list(updated, "payments").push(
      new Map<string, PyValue>([
        ["amount", paid],
        ["payment_method_id", payment_method_id as string],
        ["date", LIBRARY_TODAY],
      ]),
    );
    return pyJsonDumps(updated);
  },
};

/**
 * Closes an active loan as lost: the loan becomes `lost` with a `replacement_fee` key appended,
 * the copy becomes `lost`, and the fee is added to the member's fines (students pay
 * {@link STUDENT_REPLACEMENT_SHARE} of it, rounded to cents). Returns the loan.
 */
export const reportLostCopyTool: ToolImplementation = {
  name: "report_lost_copy",
  className: "ReportLostCopy",
  parameters: ["loan_id"],
  kind: "write",
  invoke(db, { loan_id }) {
    const loan = getRecord(db, LOANS, loan_id, "loan not found");
    if (field(loan, "status") !== "active") fail("only active loans can be reported lost");
    const memberId = text(loan, "member_id");
    const bookId = text(loan, "book_id");
    const member = db.get(MEMBERS, memberId);
    let fee = field(db.get(CATALOG, bookId), "replacement_fee") as PyNumber;
    if (text(member, "tier") === "student") fee = pyRound(pyMul(fee, pyFloat(STUDENT_REPLACEMENT_SHARE)), 2);

    const updatedLoan = db.mutable(LOANS, loan_id as string);
    updatedLoan.set("status", "lost");
    updatedLoan.set("replacement_fee", fee);
    const copyId = text(loan, "copy_id");
    for (const copy of list(db.mutable(CATALOG, bookId), "copies")) {
      if (field(copy, "copy_id") === copyId) (copy as PyDict).set("status", "lost");
    }
    const updatedMember = db.mutable(MEMBERS, memberId);
    updatedMember.set("fines_balance", pyRound(pyAdd(field(member, "fines_balance"), fee), 2));
    return pyJsonDumps(updatedLoan);
  },
};

/**
 * Every library tool in registration order (the order of `data/tools_info.json`): alphabetical, as
 * in τ-bench, with the shared `calculate`, `think` and `transfer_to_human_agents` in their places.
 */
export const libraryTools: readonly ToolImplementation[] = [
  calculateTool,
  findMemberIdByEmailTool,
  findMemberIdByNameZipTool,
  getBookDetailsTool,
  getLoanDetailsTool,
  getMemberDetailsTool,
  payFineTool,
  placeHoldTool,
  renewLoanTool,
  reportLostCopyTool,
  searchCatalogTool,
  thinkTool,
  transferToHumanAgentsTool,
];
