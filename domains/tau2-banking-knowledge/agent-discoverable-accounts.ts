/**
 * Discoverable agent tools of `KnowledgeTools` (`tools.py`), third part: bank accounts — opening
 * and closing, listing, transfers, credits, interest reports and transaction history — in the
 * original's definition order.
 */
import { type Tau2Method, tau2DiscoverableTool } from "../../src/suites/tau2/engine/toolkit.ts";
import {
  PyException,
  PyFloat,
  type PyDict,
  type PyValue,
  pyAdd,
  pyBool,
  pyContains,
  pyDictGet,
  pyEquals,
  pyFloatOf,
  pyFormatFixed,
  pyGreaterOrEqual,
  pyLessOrEqual,
  pyLessThan,
  pyLower,
  pyNotEquals,
  pyRound,
  pyStr,
  pySub,
} from "../../src/value/index.ts";
import { addToDb, field, getRecord, nothingFound, queryDatabaseTool, queryDb, tableData } from "./db-query.ts";
import { DATETIME_MIN, daysSince, strptime } from "./calendar.ts";
import { falsy, money, sayer, str } from "./discoverable-helpers.ts";
import { TODAY, deterministicId } from "./ids.ts";
import { parseBalance } from "./user-tools.ts";

const dict = (...entries: Array<readonly [string, PyValue]>): PyDict => new Map(entries);

/** `_get_account_balance`. */
const accountBalance = (account: PyDict): PyFloat => parseBalance(field(account, "current_holdings", field(account, "balance", 0)));

/** `float(x)` with the tool's own text for a ValueError/TypeError. */
function floatOr(value: PyValue, fallback: () => string): PyFloat | string {
  try {
    return pyFloatOf(value);
  } catch (error) {
    if (PyException.isInstance(error) && (error.pythonType === "ValueError" || error.pythonType === "TypeError")) return fallback();
    throw error;
  }
}

/** `get_account_age_days`: days since `date_opened`, 0 when it does not parse. */
function accountAgeDays(account: PyDict): number {
  try {
    return daysSince(field(account, "date_opened", ""));
  } catch (error) {
    if (PyException.isInstance(error) && error.pythonType === "ValueError") return 0;
    throw error;
  }
}

const accountType = (account: PyDict): PyValue => field(account, "account_type", field(account, "class", ""));
const isOpen = (account: PyDict): boolean => pyContains(["OPEN", "ACTIVE"], field(account, "status", ""));

/** The eligibility rules of `open_bank_account_4821` per requested type: true when they are met. */
function openingEligible(accounts: PyDict[], type: PyValue): boolean {
  if (pyEquals(type, "savings")) return accounts.some((account) => pyContains(["checking", "personal_checking"], accountType(account)) && isOpen(account) && accountAgeDays(account) >= 14);
  if (pyEquals(type, "business_checking")) {
    if (accounts.some((account) => pyEquals(field(account, "status"), "CLOSED"))) return false;
    return accounts.some((account) => pyContains(["checking", "personal_checking"], accountType(account)) && isOpen(account));
  }
  if (pyEquals(type, "business_savings")) {
    for (const account of accounts) if (pyLessThan(accountBalance(account), 0)) return false;
    return accounts.some((account) => pyEquals(accountType(account), "business_checking") && isOpen(account) && accountAgeDays(account) >= 30);
  }
  return true;
}

const openBankAccount = tau2DiscoverableTool("open_bank_account_4821", "write", ["user_id", "account_type", "account_class"], ({ db }, a) => {
  const say = sayer("open_bank_account_4821");
  if (falsy(a.user_id) || falsy(a.account_type) || falsy(a.account_class)) return say(0);
  const types = ["checking", "savings", "business_checking", "business_savings"];
  if (!pyContains(types, a.account_type)) return say(5, pyStr(types));
  const accounts = [...tableData(db, "accounts").values()].filter((account) => pyEquals(field(account as PyDict, "user_id"), a.user_id)) as PyDict[];
  if (!openingEligible(accounts, a.account_type)) return say(20);
  const id = deterministicId(say(48, str(a.user_id), str(a.account_type), str(a.account_class)));
  const record = dict(
    ["account_id", id],
    ["user_id", a.user_id],
    ["account_type", a.account_type],
    ["account_class", a.account_class],
    ["current_holdings", say(54)],
    ["status", "OPEN"],
    ["date_opened", TODAY],
  );
  if (!addToDb(db, "accounts", id, record)) return say(59, id);
  return say(60, id, str(a.user_id), str(a.account_type), str(a.account_class), TODAY);
});

/** The early-closure fee schedules: level → [fee, window in days]; the level names are read from the source (their positions). */
const CHECKING_FEES: ReadonlyArray<readonly [number, number, number]> = [
  [0, 15, 30],
  [3, 15, 30],
  [6, 15, 30],
  [9, 25, 60],
  [12, 25, 60],
  [15, 50, 90],
  [18, 100, 180],
];
const SAVINGS_FEES: ReadonlyArray<readonly [number, number, number]> = [
  [21, 20, 60],
  [24, 35, 90],
  [27, 35, 90],
  [30, 75, 180],
  [33, 75, 180],
  [36, 75, 180],
  [39, 150, 270],
  [42, 150, 270],
  [45, 150, 270],
];

/** The fee the closure must keep back (0 when waived or outside the window); a string is the refusal. */
function earlyClosureFee(account: PyDict, balance: PyFloat, waive: PyValue, say: (at: number) => string): number | PyFloat | string {
  if (pyBool(waive)) return new PyFloat(0);
  const level = field(account, "level", "");
  const accountClass = field(account, "class", "");
  const opened = field(account, "date_opened", "");
  const table = pyEquals(accountClass, "checking") ? CHECKING_FEES : pyEquals(accountClass, "savings") ? SAVINGS_FEES : [];
  const config = table.find(([at]) => pyEquals(say(at), level));
  if (!config || !pyBool(opened)) return new PyFloat(0);
  let age: number;
  try {
    age = daysSince(opened);
  } catch (error) {
    if (PyException.isInstance(error) && error.pythonType === "ValueError") return new PyFloat(0);
    throw error;
  }
  if (age >= config[2]) return new PyFloat(0);
  if (pyLessThan(balance, config[1])) return say(64);
  return config[1];
}

const closeBankAccount = tau2DiscoverableTool(
  "close_bank_account_7392",
  "write",
  ["account_id", ["reason", "Customer requested closure"], ["waive_early_closure_fee", false]],
  ({ db }, { account_id, reason, waive_early_closure_fee }) => {
    const say = sayer("close_bank_account_7392");
    if (falsy(account_id)) return say(48);
    const account = getRecord(db, "accounts", account_id);
    if (account === null) return say(49, str(account_id));
    if (pyEquals(field(account, "status"), "CLOSED")) return say(52, str(account_id));
    const balance = accountBalance(account);
    const fee = earlyClosureFee(account, balance, waive_early_closure_fee, say);
    if (typeof fee === "string") return fee;
    if (pyNotEquals(pySub(balance, fee), 0)) return say(65, money(balance));
    account.set("status", "CLOSED");
    account.set("date_closed", TODAY);
    account.set("closure_reason", reason);
    account.set("early_closure_fee_waived", waive_early_closure_fee);
    return say(71, str(account_id), str(field(account, "account_type", "N/A")), str(field(account, "account_class", "N/A")), TODAY, str(reason), pyBool(waive_early_closure_fee) ? "Yes" : "No");
  },
);

const allUserAccounts = tau2DiscoverableTool("get_all_user_accounts_by_user_id_3847", "read", ["user_id"], ({ db }, { user_id }) => {
  const say = sayer("get_all_user_accounts_by_user_id_3847");
  if (falsy(user_id)) return say(0);
  const accounts = queryDatabaseTool(db, "accounts", say(2, str(user_id)));
  const cards = queryDatabaseTool(db, "credit_card_accounts", say(4, str(user_id)));
  const parts = [say(5), "", say(7), say(8, str(user_id)), "", say(10)];
  parts.push(nothingFound(accounts) ? say(13) : accounts);
  parts.push(say(14));
  parts.push(nothingFound(cards) ? say(17) : cards);
  return parts.join(say(18));
});

const transferFunds = tau2DiscoverableTool("transfer_funds_between_bank_accounts_7291", "write", ["source_account_id", "destination_account_id", "amount"], ({ db }, a) => {
  const say = sayer("transfer_funds_between_bank_accounts_7291");
  if (falsy(a.source_account_id) || falsy(a.destination_account_id) || a.amount === null) return say(0);
  const amount = floatOr(a.amount, () => say(1, str(a.amount)));
  if (typeof amount === "string") return amount;
  if (pyLessOrEqual(amount, 0)) return say(2);
  if (pyEquals(a.source_account_id, a.destination_account_id)) return say(3);
  const source = getRecord(db, "accounts", a.source_account_id);
  if (source === null) return say(4, str(a.source_account_id));
  const destination = getRecord(db, "accounts", a.destination_account_id);
  if (destination === null) return say(5, str(a.destination_account_id));
  if (!pyContains(["ACTIVE", "OPEN"], field(source, "status"))) return say(9, str(a.source_account_id));
  if (!pyContains(["ACTIVE", "OPEN"], field(destination, "status"))) return say(13, str(a.destination_account_id));
  const sourceBalance = accountBalance(source);
  if (pyLessThan(sourceBalance, amount)) return say(14, money(sourceBalance), money(amount));
  const destinationBalance = accountBalance(destination);
  const newSource = pySub(sourceBalance, amount);
  const newDestination = pyAdd(destinationBalance, amount);
  source.set("current_holdings", say(16, money(newSource)));
  destination.set("current_holdings", say(18, money(newDestination)));
  return say(19, money(amount), str(a.source_account_id), money(newSource), str(a.destination_account_id), money(newDestination));
});

/** The two account-credit tools differ in the accepted classes and types, the texts' positions and the balance format. */
interface CreditVariant {
  name: string;
  types: string[];
  classes: string[];
  seed: string;
  at: { missing: number; invalid: number; positive: number; types: number; notFound: number; wrongClass: number; inactive: number; balance: number; done: number };
  description(type: PyValue, say: (at: number) => string): string;
}

function accountCreditTool(variant: CreditVariant): Tau2Method {
  return tau2DiscoverableTool(variant.name, "write", ["account_id", "amount", "credit_type"], ({ db }, a) => {
    const say = sayer(variant.name);
    const at = variant.at;
    if (falsy(a.account_id) || a.amount === null || falsy(a.credit_type)) return say(at.missing);
    const amount = floatOr(a.amount, () => say(at.invalid));
    if (typeof amount === "string") return amount;
    if (pyLessOrEqual(amount, 0)) return say(at.positive);
    if (!pyContains(variant.types, a.credit_type)) return say(at.types, pyStr(variant.types));
    const account = getRecord(db, "accounts", a.account_id);
    if (account === null) return say(at.notFound, str(a.account_id));
    if (!pyContains(variant.classes, pyLower(field(account, "class", "")))) return say(at.wrongClass, str(a.account_id));
    if (!pyContains(["ACTIVE", "OPEN"], field(account, "status"))) return say(at.inactive, str(a.account_id));
    const current = accountBalance(account);
    const balance = pyAdd(current, amount);
    account.set("current_holdings", say(at.balance, money(balance)));
    const id = `txn_${deterministicId(`${variant.seed}:${str(a.account_id)}:${str(a.credit_type)}:${pyStr(amount)}:${TODAY}`)}`;
    const record = dict(
      ["transaction_id", id],
      ["account_id", a.account_id],
      ["date", TODAY],
      ["description", variant.description(a.credit_type, say)],
      ["amount", amount],
      ["type", a.credit_type],
      ["status", "posted"],
    );
    tableData(db, "bank_account_transaction_history").set(id, record);
    return say(at.done, id, str(a.account_id), str(a.credit_type), money(amount), money(current), money(balance));
  });
}

const checkingCredit = accountCreditTool({
  name: "apply_checking_account_credit_5829",
  types: ["rebate_credit", "fee_refund"],
  classes: ["checking"],
  seed: "checking_credit",
  at: { missing: 0, invalid: 1, positive: 2, types: 5, notFound: 6, wrongClass: 10, inactive: 14, balance: 16, done: 29 },
  description: (type, say) => say(pyEquals(type, "rebate_credit") ? 19 : 20),
});

const savingsCredit = accountCreditTool({
  name: "apply_savings_account_credit_6831",
  types: ["interest_correction", "fee_refund", "goodwill_credit"],
  classes: ["saving", "savings"],
  seed: "savings_credit",
  at: { missing: 0, invalid: 1, positive: 2, types: 6, notFound: 7, wrongClass: 12, inactive: 16, balance: 18, done: 33 },
  description: (type, say) => say(pyEquals(type, "interest_correction") ? 21 : pyEquals(type, "fee_refund") ? 23 : 24),
});

const interestReport = tau2DiscoverableTool("submit_interest_discrepancy_report_7294", "write", ["account_id", "user_id", "expected_apy", "actual_apy", "amount_difference"], ({ db }, a) => {
  const say = sayer("submit_interest_discrepancy_report_7294");
  if (falsy(a.account_id) || falsy(a.user_id) || a.expected_apy === null || a.actual_apy === null || a.amount_difference === null) return say(0);
  const numbers = [a.expected_apy, a.actual_apy, a.amount_difference].map((value) => floatOr(value, () => say(1)));
  const refusal = numbers.find((value) => typeof value === "string");
  if (refusal !== undefined) return refusal;
  const [expected, actual, difference] = numbers as PyFloat[];
  const account = getRecord(db, "accounts", a.account_id);
  if (account === null) return say(2, str(a.account_id));
  const user = getRecord(db, "users", a.user_id);
  if (user === null) return say(3, str(a.user_id));
  const id = `IDR_${deterministicId(`interest_report:${str(a.account_id)}:${str(a.user_id)}:${pyStr(expected)}:${pyStr(actual)}:${TODAY}`)}`;
  // The original adds the report to a table the database does not have: add_to_db returns False and nothing is stored.
  return say(
    19,
    id,
    str(a.account_id),
    str(pyDictGet(account, "level", "Unknown")),
    str(pyDictGet(user, "name", "Unknown")),
    pyStr(expected),
    pyStr(actual),
    pyStr(pyRound(pySub(expected, actual), 4)),
    money(difference),
  );
});

/** `txn_sort_key`: the date with time, else the date, else `datetime.min`. */
function transactionTime(record: PyDict): number {
  const text = pyStr(field(record, "date", ""));
  for (const withTime of [true, false]) {
    try {
      return strptime(text, withTime);
    } catch (error) {
      if (!(PyException.isInstance(error) && error.pythonType === "ValueError")) throw error;
    }
  }
  return DATETIME_MIN;
}

const bankTransactions = tau2DiscoverableTool("get_bank_account_transactions_9173", "read", ["account_id"], ({ db }, { account_id }) => {
  const say = sayer("get_bank_account_transactions_9173");
  if (falsy(account_id)) return say(0);
  if (getRecord(db, "accounts", account_id) === null) return say(1, str(account_id));
  const found = queryDb(db, "bank_account_transaction_history", new Map([["account_id", account_id]]));
  const keyed = found.map((entry, index) => ({ entry, index, time: transactionTime(entry[1]) }));
  keyed.sort((left, right) => (left.time === right.time ? left.index - right.index : right.time - left.time));
  const parts = [say(7), "", say(9), say(10, str(account_id))];
  if (keyed.length > 0) {
    const lines = [say(11, String(keyed.length))];
    keyed.forEach(({ entry: [id, record] }, index) => {
      lines.push(say(12, String(index + 1), id));
      for (const [key, value] of record) lines.push(say(13, key, pyStr(value as PyValue)));
      lines.push("");
    });
    parts.push(lines.join(say(15)));
  } else {
    parts.push(say(16));
  }
  return parts.join(say(17));
});

/** The third part of `KnowledgeTools`' discoverable tools, in definition order. */
export const accountDiscoverableTools: Tau2Method[] = [openBankAccount, closeBankAccount, allUserAccounts, transferFunds, checkingCredit, savingsCredit, interestReport, bankTransactions];

export { addToDb, pyFormatFixed, pyGreaterOrEqual };
