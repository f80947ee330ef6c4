/**
 * Discoverable agent tools of `KnowledgeTools` (`tools.py`), second part: statement credits,
 * account flags, closing a card account, paying a card from checking and credit limit increases —
 * in the original's definition order.
 */
import { type Tau2Method, tau2DiscoverableTool } from "../../src/suites/tau2/engine/toolkit.ts";
import {
  PyException,
  PyFloat,
  type PyDict,
  type PyValue,
  pyBool,
  pyContains,
  pyEquals,
  pyFloatOf,
  pyFormatFixed,
  pyFormatThousands,
  pyGreaterThan,
  pyInt,
  pyIsInteger,
  pyJsonDumpsIndented,
  pyLessOrEqual,
  pyNotEquals,
  pyReplace,
  pySorted,
  pyStr,
  pySub,
  pyUpper,
} from "../../src/value/index.ts";
import { addToDb, field, getRecord, nothingFound, queryDatabaseTool, tableData, updateRecordInDb } from "./db-query.ts";
import { type Say, falsy, historyReport, money, sayer, str, titled } from "./discoverable-helpers.ts";
import { TODAY, accountFlagId, creditLimitRequestId, transactionId } from "./ids.ts";
import { parseBalance } from "./user-tools.ts";

const dict = (...entries: Array<readonly [string, PyValue]>): PyDict => new Map(entries);

const STATEMENT_CREDIT_REASONS = [
  "goodwill_adjustment",
  "promotional_credit",
  "annual_fee_reversal",
  "late_fee_reversal",
  "interest_charge_reversal",
  "dispute_resolution",
  "price_match",
  "retention_offer",
  "error_correction",
  "other",
];
const FLAG_TYPES = ["annual_fee_waived", "promotional_apr", "rewards_bonus", "other"];
const FLAG_REASONS = ["retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"];
const DENIAL_REASONS = [
  "insufficient_account_age",
  "cooldown_period_active",
  "pending_disputes",
  "pending_replacement_card",
  "past_due_balance",
  "high_utilization",
  "insufficient_payment_history",
  "requested_amount_exceeds_limit",
  "other",
];

/** Whether `query_database_tool("credit_card_accounts", {"account_id": …})` finds nothing (constraint literal at `at`). */
function cardAccountMissing(db: Parameters<typeof queryDatabaseTool>[0], say: Say, at: number, accountId: PyValue): boolean {
  return nothingFound(queryDatabaseTool(db, "credit_card_accounts", say(at, str(accountId))));
}

/** `float(str(value).replace("$", "").replace(",", ""))`, 0.0 when that fails. */
function moneyText(value: PyValue): PyFloat {
  try {
    return pyFloatOf(pyReplace(pyReplace(pyStr(value), "$", ""), ",", ""));
  } catch (error) {
    if (PyException.isInstance(error) && (error.pythonType === "ValueError" || error.pythonType === "TypeError")) return new PyFloat(0);
    throw error;
  }
}

const applyStatementCredit = tau2DiscoverableTool("apply_statement_credit_8472", "write", ["user_id", "credit_card_account_id", "amount", "reason"], ({ db }, a) => {
  const say = sayer("apply_statement_credit_8472");
  if (falsy(a.user_id) || falsy(a.credit_card_account_id) || a.amount === null || falsy(a.reason)) return say(0);
  if (pyLessOrEqual(a.amount, 0)) return say(1);
  if (!pyContains(STATEMENT_CREDIT_REASONS, a.reason)) return say(12, pyStr(STATEMENT_CREDIT_REASONS));
  if (cardAccountMissing(db, say, 14, a.credit_card_account_id)) return say(17, str(a.credit_card_account_id));
  const id = transactionId(a.user_id, "STATEMENT_CREDIT", a.reason, a.amount, say(19));
  const record = dict(
    ["transaction_id", id],
    ["user_id", a.user_id],
    ["credit_card_account_id", a.credit_card_account_id],
    ["credit_card_type", say(24)],
    ["merchant_name", say(26)],
    ["transaction_amount", say(28, money(a.amount))],
    ["transaction_date", TODAY],
    ["category", say(31)],
    ["status", "COMPLETED"],
    ["rewards_earned", say(35)],
    ["credit_reason", a.reason],
  );
  if (!addToDb(db, "credit_card_transaction_history", id, record)) return say(38, id);
  return say(39, id, str(a.user_id), str(a.credit_card_account_id), money(a.amount), titled(a.reason), TODAY);
});

const applyAccountFlag = tau2DiscoverableTool("apply_credit_card_account_flag_6147", "write", ["credit_card_account_id", "user_id", "flag_type", "expiration_date", "reason"], ({ db }, a) => {
  const say = sayer("apply_credit_card_account_flag_6147");
  if (["credit_card_account_id", "user_id", "flag_type", "expiration_date", "reason"].some((key) => falsy(a[key]))) return say(0);
  if (!pyContains(FLAG_TYPES, a.flag_type)) return say(5, pyStr(FLAG_TYPES));
  if (!pyContains(FLAG_REASONS, a.reason)) return say(11, pyStr(FLAG_REASONS));
  if (cardAccountMissing(db, say, 13, a.credit_card_account_id)) return say(16, str(a.credit_card_account_id));
  const id = accountFlagId(a.credit_card_account_id, a.flag_type, a.expiration_date);
  const record = dict(
    ["flag_id", id],
    ["credit_card_account_id", a.credit_card_account_id],
    ["user_id", a.user_id],
    ["flag_type", a.flag_type],
    ["effective_date", TODAY],
    ["expiration_date", a.expiration_date],
    ["reason", a.reason],
    ["applied_at", TODAY],
    ["status", "ACTIVE"],
  );
  if (!addToDb(db, "credit_card_account_flags", id, record)) return say(28, id);
  return say(33, id, str(a.credit_card_account_id), str(a.user_id), titled(a.flag_type), TODAY, str(a.expiration_date), titled(a.reason));
});

const closeCardAccount = tau2DiscoverableTool("close_credit_card_account_7834", "write", ["credit_card_account_id", "user_id"], ({ db }, { credit_card_account_id, user_id }) => {
  const say = sayer("close_credit_card_account_7834");
  if (falsy(credit_card_account_id) || falsy(user_id)) return say(0);
  if (cardAccountMissing(db, say, 2, credit_card_account_id)) return say(5, str(credit_card_account_id));
  const updated = updateRecordInDb(db, "credit_card_accounts", credit_card_account_id, [
    ["status", "CLOSED"],
    ["closed_date", TODAY],
    ["closed_by", user_id],
  ]);
  if (updated === null) return say(11, str(credit_card_account_id));
  const args = dict(["credit_card_account_id", credit_card_account_id], ["user_id", user_id]);
  return say(12, pyJsonDumpsIndented(args, 2), str(credit_card_account_id));
});

const payFromChecking = tau2DiscoverableTool("pay_credit_card_from_checking_9182", "write", ["user_id", "checking_account_id", "credit_card_account_id", "amount"], ({ db }, a) => {
  const say = sayer("pay_credit_card_from_checking_9182");
  if (falsy(a.user_id) || falsy(a.checking_account_id) || falsy(a.credit_card_account_id) || a.amount === null) return say(0);
  let amount: PyFloat;
  try {
    amount = pyFloatOf(a.amount);
    if (pyLessOrEqual(amount, 0)) return say(1);
  } catch (error) {
    if (PyException.isInstance(error) && (error.pythonType === "ValueError" || error.pythonType === "TypeError")) return say(2);
    throw error;
  }
  const checking = getRecord(db, "accounts", a.checking_account_id);
  if (checking === null) return say(3, str(a.checking_account_id));
  if (pyNotEquals(field(checking, "user_id"), a.user_id)) return say(5, str(a.checking_account_id), str(a.user_id));
  if (pyNotEquals(field(checking, "class"), "checking")) return say(8, str(a.checking_account_id));
  const balance = parseBalance(field(checking, "current_holdings", field(checking, "balance", 0)));
  if (pyGreaterThan(amount, balance)) return say(9, money(balance), money(amount));
  const card = getRecord(db, "credit_card_accounts", a.credit_card_account_id);
  if (card === null) return say(10, str(a.credit_card_account_id));
  if (pyNotEquals(field(card, "user_id"), a.user_id)) return say(12, str(a.credit_card_account_id), str(a.user_id));
  const cardBalance = moneyText(field(card, "current_balance", say(14)));
  if (pyGreaterThan(amount, cardBalance)) return say(19, money(amount), money(cardBalance));
  const newChecking = pySub(balance, amount);
  const newCard = pySub(cardBalance, amount);
  checking.set("current_holdings", say(21, money(newChecking)));
  card.set("current_balance", say(23, money(newCard)));
  return say(24, money(amount), str(a.checking_account_id), str(a.credit_card_account_id), money(newChecking), money(newCard));
});

const submitLimitIncrease = tau2DiscoverableTool("submit_credit_limit_increase_request_7392", "write", ["credit_card_account_id", "user_id", "requested_increase_amount"], ({ db }, a) => {
  const say = sayer("submit_credit_limit_increase_request_7392");
  if (falsy(a.credit_card_account_id) || falsy(a.user_id) || a.requested_increase_amount === null) return say(0);
  let asFloat: PyFloat;
  try {
    asFloat = pyFloatOf(a.requested_increase_amount);
  } catch (error) {
    if (PyException.isInstance(error) && (error.pythonType === "ValueError" || error.pythonType === "TypeError")) return say(1);
    throw error;
  }
  if (!pyIsInteger(asFloat)) return say(2);
  const amount = pyInt(asFloat);
  if (pyLessOrEqual(amount, 0)) return say(3);
  const card = getRecord(db, "credit_card_accounts", a.credit_card_account_id);
  if (card === null) return say(4, str(a.credit_card_account_id));
  if (pyNotEquals(field(card, "user_id"), a.user_id)) return say(6, str(a.credit_card_account_id), str(a.user_id));
  const id = creditLimitRequestId(a.credit_card_account_id, a.user_id, amount);
  const record = dict(
    ["request_id", id],
    ["credit_card_account_id", a.credit_card_account_id],
    ["user_id", a.user_id],
    ["requested_increase_amount", amount],
    ["submitted_at", TODAY],
    ["status", "PENDING"],
  );
  if (!addToDb(db, "credit_limit_increase_requests", id, record)) return say(15);
  return say(16, id, str(a.credit_card_account_id), pyFormatThousands(amount));
});

const limitIncreaseHistory = tau2DiscoverableTool("get_credit_limit_increase_history_4829", "read", ["credit_card_account_id"], ({ db }, { credit_card_account_id }) => {
  const say = sayer("get_credit_limit_increase_history_4829");
  if (falsy(credit_card_account_id)) return say(0);
  return historyReport(db, say, "credit_limit_increase_requests", credit_card_account_id, { constraint: 2, header: [3, 4, 5, 6], none: 9, join: 10 });
});

const paymentHistory = tau2DiscoverableTool("get_payment_history_6183", "read", ["credit_card_account_id", "months"], ({ db }, { credit_card_account_id, months }) => {
  const say = sayer("get_payment_history_6183");
  if (falsy(credit_card_account_id) || months === null) return say(0);
  let count: number | bigint;
  try {
    count = pyInt(months);
    if (pyLessOrEqual(count, 0)) return say(1);
  } catch (error) {
    if (PyException.isInstance(error) && (error.pythonType === "ValueError" || error.pythonType === "TypeError")) return say(2);
    throw error;
  }
  const found = [...tableData(db, "payment_history").values()].filter((payment) => pyEquals(field(payment as PyDict, "credit_card_account_id"), credit_card_account_id)) as PyDict[];
  if (found.length === 0) return say(4, str(credit_card_account_id));
  const sorted = pySorted(found, { key: (payment) => (pyBool(field(payment as PyDict, "payment_date")) ? field(payment as PyDict, "payment_date") : ""), reverse: true }) as PyDict[];
  const payments = sorted.slice(0, Number(count));
  let onTime = 0;
  for (const payment of payments) {
    if (!pyEquals(field(payment, "status"), "ON_TIME")) break;
    onTime++;
  }
  const parts = [say(9, str(credit_card_account_id), String(count)), say(10, String(onTime))];
  for (const payment of payments) parts.push(say(11, str(field(payment, "payment_date")), str(field(payment, "amount")), str(field(payment, "status"))));
  return parts.join(say(12));
});

/** `approve_credit_limit_increase_5847`'s eligibility: open disputes, pending replacement orders, a bad account status. */
function limitIncreaseBlocked(db: Parameters<typeof tableData>[0], card: PyDict, accountId: PyValue, userId: PyValue): boolean {
  for (const dispute of tableData(db, "transaction_disputes").values()) {
    if (pyEquals(field(dispute as PyDict, "user_id"), userId) && pyContains(["SUBMITTED", "UNDER_REVIEW", "PENDING"], field(dispute as PyDict, "status"))) return true;
  }
  for (const order of tableData(db, "credit_card_orders").values()) {
    if (pyEquals(field(order as PyDict, "credit_card_account_id"), accountId) && pyContains(["PENDING", "PROCESSING", "SHIPPED"], field(order as PyDict, "status"))) return true;
  }
  return pyContains(["PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED"], pyUpper(field(card, "account_status", "")));
}

const approveLimitIncrease = tau2DiscoverableTool("approve_credit_limit_increase_5847", "write", ["credit_card_account_id", "user_id", "new_credit_limit"], ({ db }, a) => {
  const say = sayer("approve_credit_limit_increase_5847");
  if (falsy(a.credit_card_account_id) || falsy(a.user_id) || a.new_credit_limit === null) return say(0);
  const card = getRecord(db, "credit_card_accounts", a.credit_card_account_id);
  if (card === null) return say(1, str(a.credit_card_account_id));
  if (pyNotEquals(field(card, "user_id"), a.user_id)) return say(3, str(a.credit_card_account_id), str(a.user_id));
  if (limitIncreaseBlocked(db, card, a.credit_card_account_id, a.user_id)) return say(22);
  const current = moneyText(field(card, "credit_limit", say(24)));
  const limit = pyFloatOf(a.new_credit_limit);
  card.set("credit_limit", say(30, money(limit)));
  const increase = pySub(limit, current);
  const id = creditLimitRequestId(a.credit_card_account_id, a.user_id, increase);
  const record = dict(
    ["request_id", id],
    ["credit_card_account_id", a.credit_card_account_id],
    ["user_id", a.user_id],
    ["previous_limit", say(35, money(current))],
    ["new_limit", say(37, money(limit))],
    ["increase_amount", say(39, money(increase))],
    ["decision_date", TODAY],
    ["status", "APPROVED"],
  );
  addToDb(db, "credit_limit_increase_requests", id, record);
  return say(44, str(a.credit_card_account_id), money(current), money(limit), money(increase), TODAY);
});

const denyLimitIncrease = tau2DiscoverableTool("deny_credit_limit_increase_5848", "write", ["credit_card_account_id", "user_id", "denial_reason"], ({ db }, a) => {
  const say = sayer("deny_credit_limit_increase_5848");
  if (falsy(a.credit_card_account_id) || falsy(a.user_id) || falsy(a.denial_reason)) return say(0);
  if (!pyContains(DENIAL_REASONS, a.denial_reason)) return say(10, DENIAL_REASONS.join(", "));
  if (getRecord(db, "credit_card_accounts", a.credit_card_account_id) === null) return say(11, str(a.credit_card_account_id));
  const id = creditLimitRequestId(a.credit_card_account_id, a.user_id, new PyFloat(0));
  const record = dict(
    ["request_id", id],
    ["credit_card_account_id", a.credit_card_account_id],
    ["user_id", a.user_id],
    ["denial_reason", a.denial_reason],
    ["decision_date", TODAY],
    ["status", "DENIED"],
  );
  addToDb(db, "credit_limit_increase_requests", id, record);
  return say(20, str(a.credit_card_account_id), str(a.denial_reason), TODAY);
});

/** The second part of `KnowledgeTools`' discoverable tools, in definition order. */
export const creditDiscoverableTools: Tau2Method[] = [
  applyStatementCredit,
  applyAccountFlag,
  closeCardAccount,
  payFromChecking,
  submitLimitIncrease,
  limitIncreaseHistory,
  paymentHistory,
  approveLimitIncrease,
  denyLimitIncrease,
];

export { pyFormatFixed, updateRecordInDb };
