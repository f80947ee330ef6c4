/**
 * Discoverable agent tools of `KnowledgeTools` (`tools.py`), last part: debit cards — ordering,
 * the three activation tools, closing, freezing, fraud alerts, PINs, listing and temporary limit
 * increases — in the original's definition order, with `_validate_pin` and
 * `_validate_activation_common`.
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
  pyGreaterThan,
  pyInt,
  pyIsDigit,
  pyIsInteger,
  pyJsonDumpsIndented,
  pyLen,
  pyLessOrEqual,
  pyLessThan,
  pyLower,
  pyMul,
  pyNeg,
  pyNotEquals,
  pyReplace,
  pySorted,
  pyStr,
  pySub,
  pyUpper,
} from "../../src/value/index.ts";
import { addToDb, field, getRecord, tableData } from "./db-query.ts";
import { strptime } from "./calendar.ts";
import { type Say, falsy, money, sayer, str, titled } from "./discoverable-helpers.ts";
import { TODAY, debitCardId, debitCardOrderId, deterministicId } from "./ids.ts";
import { bankText } from "./messages.ts";

const dict = (...entries: Array<readonly [string, PyValue]>): PyDict => new Map(entries);

/** Lines of a result: a literal position, a position with its fields, or a literal empty line; joined by the literal at `join`. */
function compose(say: Say, join: number, items: ReadonlyArray<number | readonly [number, ...string[]] | "">): string {
  return items.map((item) => (item === "" ? "" : typeof item === "number" ? say(item) : say(item[0], ...(item.slice(1) as string[])))).join(say(join));
}

/** Python `float(x)`; null when it raises ValueError/TypeError. */
function floatOrNull(value: PyValue): PyFloat | null {
  try {
    return pyFloatOf(value);
  } catch (error) {
    if (PyException.isInstance(error) && (error.pythonType === "ValueError" || error.pythonType === "TypeError")) return null;
    throw error;
  }
}

const digitsOf = (text: string): string => [...text].filter((char) => pyIsDigit(char)).join("");

/** `_validate_pin`: an error sentence, or null. */
function validatePin(pin: PyValue): string | null {
  const say = (at: number) => bankText.say("_validate_pin", at);
  if (!pyBool(pin) || !pyIsDigit(pin) || pyLen(pin) !== 4) return say(0);
  const sequential = Array.from({ length: 14 }, (_, index) => say(index + 1));
  if (pyContains(sequential, pin)) return say(15);
  if (new Set(pin as string).size === 1) return say(16);
  return null;
}

/** `_validate_activation_common`: `[error, card]`. */
function validateActivation(db: Parameters<typeof tableData>[0], a: Record<string, PyValue>, allowed: readonly string[], tool: string): [string | null, PyDict | null] {
  const say = (at: number, ...values: string[]) => bankText.say("_validate_activation_common", at, ...values);
  if (!["card_id", "last_4_digits", "expiration_date", "cvv", "pin"].every((key) => pyBool(a[key]))) return [say(5), null];
  const pinError = validatePin(a.pin);
  if (pinError) return [say(6, pinError), null];
  if (!pyIsDigit(a.cvv) || pyLen(a.cvv) !== 3) return [say(7), null];
  if (!pyIsDigit(a.last_4_digits) || pyLen(a.last_4_digits) !== 4) return [say(8), null];
  const card = getRecord(db, "debit_cards", a.card_id);
  if (card === null) return [say(9, str(a.card_id)), null];
  const reason = field(card, "issue_reason", "new_account");
  if (!pyContains(allowed as string[], reason)) {
    const reasonMap: PyDict = new Map();
    for (let at = 11; at <= 28; at += 2) reasonMap.set(say(at), say(at + 1));
    const correct = pyDictGet(reasonMap, reason, say(30));
    return [say(31, str(reason), str(correct), tool), null];
  }
  if (pyEquals(field(card, "status"), "ACTIVE")) return [say(34, str(a.card_id)), null];
  if (pyNotEquals(field(card, "status"), "PENDING")) return [say(37, str(a.card_id), str(field(card, "status"))), null];
  if (pyNotEquals(field(card, "last_4_digits"), a.last_4_digits)) return [say(39), null];
  const accountId = field(card, "account_id");
  const account = pyBool(accountId) ? getRecord(db, "accounts", accountId) : null;
  if (account !== null && pyNotEquals(field(account, "status"), "OPEN")) return [say(43, str(accountId)), null];
  return [null, card];
}

const ORDER_PARAMETERS = ["account_id", "user_id", "delivery_option", "delivery_fee", "card_design", "design_fee", "shipping_address", ["excess_replacement_fee", null]] as const;

/** The fees of an order as `[delivery, design, excess]`, or the refusal text. */
function orderFees(say: Say, a: Record<string, PyValue>): [PyFloat | null, PyFloat | null, PyValue] | string {
  const delivery = a.delivery_fee === null ? null : floatOrNull(a.delivery_fee);
  if (a.delivery_fee !== null && delivery === null) return say(0);
  const design = a.design_fee === null ? null : floatOrNull(a.design_fee);
  if (a.design_fee !== null && design === null) return say(1);
  const excessRaw = pyBool(a.excess_replacement_fee) ? a.excess_replacement_fee : 0;
  return [delivery, design, floatOrNull(excessRaw) ?? 0];
}

/** `order_debit_card_5739`'s account checks: the refusal text, or the account and its holdings. */
function orderAccount(db: Parameters<typeof tableData>[0], say: Say, a: Record<string, PyValue>): string | [PyDict, PyFloat] {
  const account = getRecord(db, "accounts", a.account_id);
  if (account === null) return say(11, str(a.account_id));
  if (pyNotEquals(field(account, "class"), "checking")) return say(14, str(a.account_id), str(field(account, "class")));
  if (pyNotEquals(field(account, "status"), "OPEN")) return say(17, str(a.account_id), str(field(account, "status")));
  if (pyNotEquals(field(account, "user_id"), a.user_id)) return say(19, str(a.account_id), str(a.user_id));
  let holdings: PyFloat;
  try {
    holdings = pyFloatOf(pyReplace(pyStr(field(account, "current_holdings", "0")), say(22), ""));
  } catch (error) {
    if (!(PyException.isInstance(error) && error.pythonType === "ValueError")) throw error;
    holdings = new PyFloat(0);
  }
  if (pyLessThan(holdings, 25.0)) return say(24, money(holdings));
  for (const order of tableData(db, "debit_card_orders").values()) {
    if (pyEquals(field(order as PyDict, "account_id"), a.account_id) && pyEquals(field(order as PyDict, "status"), "PENDING")) return say(28, str(a.account_id));
  }
  const active = [...tableData(db, "debit_cards").values()].filter((card) => pyEquals(field(card as PyDict, "account_id"), a.account_id) && pyEquals(field(card as PyDict, "status"), "ACTIVE")).length;
  if (active >= 1) return say(32, str(a.account_id));
  return [account, holdings];
}

/** The new card's `issue_reason`: from the last closed card of the account, else first card / new account. */
function issueReason(cards: PyDict[]): string {
  const closed = cards.find((card) => pyEquals(field(card, "status"), "CLOSED"));
  if (closed) {
    const reason = field(closed, "closure_reason", "first_card");
    if (pyContains(["lost", "stolen", "fraud", "fraud_suspected"], reason)) return pyEquals(reason, "fraud_suspected") ? "fraud" : (reason as string);
    return "first_card";
  }
  return cards.length > 0 ? "first_card" : "new_account";
}

/** The card `order_debit_card_5739` issues (PENDING, details derived from its id). */
function issueCard(db: Parameters<typeof tableData>[0], say: Say, a: Record<string, PyValue>, design: string): string {
  const cardId = debitCardId(a.account_id, a.user_id, TODAY);
  const seed = say(73, cardId);
  const last4 = digitsOf(deterministicId(seed + say(74), 8))
    .slice(0, 4)
    .padStart(4, "0");
  const cvv = digitsOf(deterministicId(seed + say(75), 6))
    .slice(0, 3)
    .padStart(3, "0");
  const user = getRecord(db, "users", a.user_id);
  const holder = user === null ? "CARDHOLDER" : pyUpper(field(user, "name", "CARDHOLDER"));
  const [month, , year] = TODAY.split(say(81));
  const day = ["01", "03", "05", "07", "08", "10", "12"].includes(month) ? "31" : month === "02" ? "28" : "30";
  const expiration = say(93, month, day, String(Number(year) + 4));
  const cards = [...tableData(db, "debit_cards").values()].filter((card) => pyEquals(field(card as PyDict, "account_id"), a.account_id)) as PyDict[];
  const record = dict(
    ["card_id", cardId],
    ["account_id", a.account_id],
    ["user_id", a.user_id],
    ["cardholder_name", holder],
    ["last_4_digits", last4],
    ["cvv", cvv],
    ["status", "PENDING"],
    ["issue_date", TODAY],
    ["expiration_date", expiration],
    ["card_design", design],
    ["issue_reason", issueReason(cards)],
  );
  addToDb(db, "debit_cards", cardId, record);
  return cardId;
}

const orderDebitCard = tau2DiscoverableTool("order_debit_card_5739", "write", ORDER_PARAMETERS, ({ db }, a) => {
  const say = sayer("order_debit_card_5739");
  const fees = orderFees(say, a);
  if (typeof fees === "string") return fees;
  const [delivery, design, excess] = fees;
  if (!pyBool(a.account_id) || !pyBool(a.user_id) || !pyBool(a.delivery_option) || delivery === null || !pyBool(a.card_design) || design === null || !pyBool(a.shipping_address)) return say(2);
  const deliveries = ["STANDARD", "EXPEDITED", "RUSH"];
  if (!deliveries.includes(pyUpper(a.delivery_option))) return say(6, pyStr(deliveries));
  const option = pyUpper(a.delivery_option);
  const designs = ["CLASSIC", "PREMIUM", "CUSTOM"];
  if (!designs.includes(pyUpper(a.card_design))) return say(10, pyStr(designs));
  const cardDesign = pyUpper(a.card_design);
  const checked = orderAccount(db, say, a);
  if (typeof checked === "string") return checked;
  const [account, holdings] = checked;
  const total = pyAdd(pyAdd(delivery, design), excess);
  if (pyGreaterThan(total, 0) && pyLessThan(holdings, total)) return say(33, money(total), money(holdings));
  const expected = say(35 + 2 * deliveries.indexOf(option));
  const orderId = debitCardOrderId(a.account_id, a.user_id, option);
  const record = dict(
    ["order_id", orderId],
    ["account_id", a.account_id],
    ["user_id", a.user_id],
    ["delivery_option", option],
    ["card_design", cardDesign],
    ["shipping_address", a.shipping_address],
    ["delivery_fee", delivery],
    ["design_fee", design],
    ["excess_replacement_fee", excess],
    ["total_fee", total],
    ["order_date", TODAY],
    ["expected_delivery", expected],
    ["status", "PENDING"],
  );
  if (!addToDb(db, "debit_card_orders", orderId, record)) return say(55);
  const charged = pyGreaterThan(total, 0);
  if (charged) {
    account.set("current_holdings", say(57, money(pySub(holdings, total))));
    const parts = [
      ...(pyGreaterThan(delivery, 0) ? [say(58, pyStr(delivery))] : []),
      ...(pyGreaterThan(design, 0) ? [say(59, pyStr(design))] : []),
      ...(pyGreaterThan(excess, 0) ? [say(60, pyFormatFixed(excess, 0))] : []),
    ];
    const feeId = say(62, orderId.slice(-8));
    addToDb(
      db,
      "bank_account_transaction_history",
      feeId,
      dict(
        ["transaction_id", feeId],
        ["account_id", a.account_id],
        ["date", TODAY],
        ["description", say(61, parts.join(", "))],
        ["amount", pyNeg(total)],
        ["type", "debit_card_fee"],
        ["status", "posted"],
      ),
    );
  }
  const cardId = issueCard(db, say, a, cardDesign);
  const lines = [122, [123, orderId], [124, cardId], [125, str(a.account_id)], [126, option], [127, cardDesign], [128, str(a.shipping_address)], [129, expected], "", 131] as Array<
    number | [number, ...string[]] | ""
  >;
  if (charged) {
    const details = [
      ...(pyGreaterThan(delivery, 0) ? [say(132, pyStr(delivery))] : []),
      ...(pyGreaterThan(design, 0) ? [say(133, pyStr(design))] : []),
      ...(pyGreaterThan(excess, 0) ? [say(134, pyFormatFixed(excess, 0))] : []),
    ];
    lines.push([135, money(total), details.join(", "), str(a.account_id)], [136, money(pySub(holdings, total))]);
  } else {
    lines.push(137);
  }
  return compose(say, 138, lines);
});

/** The three activation tools: allowed issue reasons, what happens to the account's other active cards, the result lines. */
interface Activation {
  name: string;
  allowed: string[];
  defaultReason: string;
  retire(card: PyDict, reason: PyValue, say: Say): void;
  lines(cardId: string, reason: PyValue, retired: string[], say: Say): string;
}

function activationTool(activation: Activation): Tau2Method {
  return tau2DiscoverableTool(activation.name, "write", ["card_id", "last_4_digits", "expiration_date", "cvv", "pin"], ({ db }, a) => {
    const say = sayer(activation.name);
    const [error, card] = validateActivation(db, a, activation.allowed, activation.name);
    if (error) return error;
    const active = card as PyDict;
    const accountId = field(active, "account_id");
    const reason = field(active, "issue_reason", activation.defaultReason);
    active.set("status", "ACTIVE");
    active.set("activated_date", TODAY);
    const retired: string[] = [];
    for (const [otherId, other] of tableData(db, "debit_cards")) {
      if (pyNotEquals(otherId, a.card_id) && pyEquals(field(other as PyDict, "account_id"), accountId) && pyEquals(field(other as PyDict, "status"), "ACTIVE")) {
        activation.retire(other as PyDict, reason, say);
        retired.push(otherId);
      }
    }
    return activation.lines(str(a.card_id), reason, retired, say);
  });
}

const activateNew = activationTool({
  name: "activate_debit_card_8291",
  allowed: ["new_account", "first_card"],
  defaultReason: "new_account",
  retire: (card, _reason, say) => {
    card.set("status", "DEACTIVATED");
    card.set("deactivated_date", TODAY);
    card.set("deactivation_reason", say(19));
  },
  lines: (cardId, _reason, retired, say) => compose(say, 28, [20, [21, cardId], 22, [23, TODAY], "", 25, 26, ...(retired.length > 0 ? [[27, retired.join(", ")] as [number, string]] : [])]),
});

const activateReplacement = activationTool({
  name: "activate_debit_card_8292",
  allowed: ["lost", "stolen", "fraud"],
  defaultReason: "lost",
  retire: (card, reason, say) => {
    card.set("status", "DEACTIVATED");
    card.set("deactivated_date", TODAY);
    card.set("deactivation_reason", say(22, str(reason)));
  },
  lines: (cardId, reason, retired, say) =>
    compose(say, 37, [
      23,
      [24, cardId],
      [25, titled(reason)],
      26,
      [27, TODAY],
      "",
      29,
      "",
      31,
      32,
      33,
      ...(pyEquals(reason, "fraud") ? [35] : []),
      ...(retired.length > 0 ? [[36, retired.join(", ")] as [number, string]] : []),
    ]),
});

const activateReissue = activationTool({
  name: "activate_debit_card_8293",
  allowed: ["expired", "damaged", "upgrade", "bank_reissue"],
  defaultReason: "expired",
  retire: (card, reason, say) => {
    card.set("status", "GRACE_PERIOD");
    card.set("grace_period_ends", TODAY);
    card.set("deactivation_reason", say(23, str(reason)));
  },
  lines: (cardId, reason, retired, say) =>
    compose(say, 36, [
      24,
      [25, cardId],
      [26, titled(reason)],
      27,
      [28, TODAY],
      "",
      30,
      ...(retired.length > 0 ? [[31, retired.join(", ")] as [number, string], 32] : []),
      ...(pyContains(["expired", "bank_reissue"], reason) ? [35] : []),
    ]),
});

const closeDebitCard = tau2DiscoverableTool("close_debit_card_4721", "write", ["card_id", "reason"], ({ db }, { card_id, reason }) => {
  const say = sayer("close_debit_card_4721");
  if (falsy(card_id) || falsy(reason)) return say(0);
  const reasons = ["lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"];
  if (!reasons.includes(pyLower(reason))) return say(7, pyStr(reasons));
  const lowered = pyLower(reason);
  const card = getRecord(db, "debit_cards", card_id);
  if (card === null) return say(8, str(card_id));
  if (!pyContains(["ACTIVE", "PENDING"], field(card, "status"))) return say(12, str(card_id), str(field(card, "status")));
  const previous = field(card, "status");
  card.set("status", "CLOSED");
  card.set("closed_date", TODAY);
  card.set("closure_reason", lowered);
  const lines: Array<number | [number, ...string[]] | ""> = [18, [19, str(card_id)], [20, str(previous)], 21, [22, titled(lowered)], [23, TODAY], ""];
  if (["lost", "stolen", "fraud_suspected"].includes(lowered)) lines.push(28, 29, ...(lowered === "fraud_suspected" ? [31, 32] : []));
  lines.push("", 34, 35);
  return compose(say, 36, lines);
});

const freezeDebitCard = tau2DiscoverableTool("freeze_debit_card_3892", "write", ["card_id"], ({ db }, { card_id }) => {
  const say = sayer("freeze_debit_card_3892");
  if (falsy(card_id)) return say(0);
  const card = getRecord(db, "debit_cards", card_id);
  if (card === null) return say(1, str(card_id));
  if (pyEquals(field(card, "status"), "FROZEN")) return say(4, str(card_id));
  if (pyNotEquals(field(card, "status"), "ACTIVE")) return say(7, str(card_id), str(field(card, "status")));
  card.set("status", "FROZEN");
  card.set("frozen_date", TODAY);
  return compose(say, 23, [11, [12, str(card_id)], 13, [14, TODAY], "", 16, 17, 18, 19, "", 21, 22]);
});

const unfreezeDebitCard = tau2DiscoverableTool("unfreeze_debit_card_3893", "write", ["card_id"], ({ db }, { card_id }) => {
  const say = sayer("unfreeze_debit_card_3893");
  if (falsy(card_id)) return say(0);
  const card = getRecord(db, "debit_cards", card_id);
  if (card === null) return say(1, str(card_id));
  if (pyEquals(field(card, "status"), "ACTIVE")) return say(4, str(card_id));
  if (pyNotEquals(field(card, "status"), "FROZEN")) return say(7, str(card_id), str(field(card, "status")));
  const accountId = field(card, "account_id");
  const account = pyBool(accountId) ? getRecord(db, "accounts", accountId) : null;
  if (account !== null && pyNotEquals(field(account, "status"), "OPEN")) return say(11, str(accountId));
  card.set("status", "ACTIVE");
  card.set("unfrozen_date", TODAY);
  return compose(say, 22, [15, [16, str(card_id)], 17, [18, TODAY], "", 20, 21]);
});

const clearFraudAlert = tau2DiscoverableTool("clear_debit_card_fraud_alert_4892", "write", ["card_id", "reason"], ({ db }, { card_id, reason }) => {
  const say = sayer("clear_debit_card_fraud_alert_4892");
  if (falsy(card_id)) return say(0);
  if (falsy(reason)) return say(1);
  const reasons = ["customer_verified", "velocity_clear"];
  if (!pyContains(reasons, reason)) return say(4, str(reason), reasons.join(", "));
  const card = getRecord(db, "debit_cards", card_id);
  if (card === null) return say(5, str(card_id));
  if (pyEquals(reason, "velocity_clear")) {
    if (!pyBool(field(card, "velocity_blocked", false))) return say(8, str(card_id));
    card.set("velocity_blocked", false);
    card.set("velocity_cleared_date", TODAY);
    return compose(say, 18, [11, [12, str(card_id)], [13, TODAY], "", 15, 16, 17]);
  }
  if (!pyBool(field(card, "fraud_alert_active", false))) return say(21, str(card_id));
  if (pyEquals(field(card, "alert_source"), "bank_initiated")) return say(24);
  card.set("fraud_alert_active", false);
  card.set("alert_source", null);
  card.set("fraud_alert_cleared_date", TODAY);
  return compose(say, 36, [28, [29, str(card_id)], [30, TODAY], "", 32, 33, "", 35]);
});

const resetPin = tau2DiscoverableTool("reset_debit_card_pin_6284", "write", ["card_id", "last_4_digits", "new_pin"], ({ db }, a) => {
  const say = sayer("reset_debit_card_pin_6284");
  if (!["card_id", "last_4_digits", "new_pin"].every((key) => pyBool(a[key]))) return say(0);
  if (!pyIsDigit(a.last_4_digits) || pyLen(a.last_4_digits) !== 4) return say(1);
  const pinError = validatePin(a.new_pin);
  if (pinError) return say(2, pinError);
  const card = getRecord(db, "debit_cards", a.card_id);
  if (card === null) return say(3, str(a.card_id));
  if (pyNotEquals(field(card, "last_4_digits"), a.last_4_digits)) return say(5);
  if (pyNotEquals(field(card, "status"), "ACTIVE")) return say(8, str(field(card, "status")));
  card.set("pin_last_changed", TODAY);
  card.set("pin_locked", false);
  card.set("pin_attempts_remaining", 3);
  return compose(say, 21, [12, [13, str(a.card_id)], [14, TODAY], "", 16, 17, 18, "", 20]);
});

const changePin = tau2DiscoverableTool("change_debit_card_pin_6285", "write", ["card_id", "current_pin", "new_pin"], ({ db }, a) => {
  const say = sayer("change_debit_card_pin_6285");
  if (!["card_id", "current_pin", "new_pin"].every((key) => pyBool(a[key]))) return say(0);
  if (!pyIsDigit(a.current_pin) || pyLen(a.current_pin) !== 4) return say(1);
  const pinError = validatePin(a.new_pin);
  if (pinError) return say(2, pinError);
  if (pyEquals(a.current_pin, a.new_pin)) return say(3);
  const card = getRecord(db, "debit_cards", a.card_id);
  if (card === null) return say(4, str(a.card_id));
  if (pyNotEquals(field(card, "status"), "ACTIVE")) return say(7, str(field(card, "status")));
  card.set("pin_last_changed", TODAY);
  return compose(say, 17, [9, [10, str(a.card_id)], [11, TODAY], "", 13, 14, "", 16]);
});

/** A card as `get_debit_cards_by_account_id_7823` lists it: id first, two fields renamed (moved last). */
function listedCard(id: string, card: PyDict): PyDict {
  const info: PyDict = new Map<string, PyValue>([["card_id", id]]);
  for (const [key, value] of card) info.set(key, value as PyValue);
  const rename = (from: string, to: string) => {
    const value = info.get(from) as PyValue;
    info.delete(from);
    info.set(to, value);
  };
  if (info.has("last_4_digits") && !info.has("card_number_last_4")) rename("last_4_digits", "card_number_last_4");
  if (info.has("issue_date") && !info.has("date_issued")) rename("issue_date", "date_issued");
  else if (info.has("created_date") && !info.has("date_issued")) rename("created_date", "date_issued");
  return info;
}

const debitCardsByAccount = tau2DiscoverableTool("get_debit_cards_by_account_id_7823", "read", ["account_id"], ({ db }, { account_id }) => {
  const say = sayer("get_debit_cards_by_account_id_7823");
  if (falsy(account_id)) return say(0);
  const account = getRecord(db, "accounts", account_id);
  if (account === null) return say(1, str(account_id));
  if (!pyContains(["checking", "business_checking"], pyLower(field(account, "class", "")))) return say(6, str(account_id));
  const cards: PyDict[] = [];
  for (const [id, card] of tableData(db, "debit_cards")) if (pyEquals(field(card as PyDict, "account_id"), account_id)) cards.push(listedCard(id, card as PyDict));
  if (cards.length === 0) return say(21, str(account_id));
  const sorted = pySorted(cards, { key: (card) => (pyBool(field(card as PyDict, "date_issued")) ? field(card as PyDict, "date_issued") : ""), reverse: true });
  return pyJsonDumpsIndented(sorted, 2);
});

/** `request_temporary_debit_card_limit_increase_8374`'s current limit of the requested kind: `[limit, field, name]` or a refusal. */
function currentLimit(say: Say, card: PyDict, account: PyDict, kind: PyValue): [PyValue, string, string] | string {
  if (!pyEquals(kind, "atm")) return [field(card, "daily_purchase_limit"), "daily_purchase_limit", say(42)];
  let limit = field(card, "daily_atm_limit");
  if (limit === null) {
    const level = pyLower(field(account, "level", ""));
    const defaults = [500, 600, 400, 500, 750, 1500, 300, 600, 1000];
    if (level.includes(say(37))) return say(38);
    const index = defaults.findIndex((_, at) => say(28 + at) === level);
    if (index < 0) return say(39, str(field(account, "level")));
    limit = defaults[index];
  }
  return [limit, "daily_atm_limit", say(25)];
}

const temporaryLimitIncrease = tau2DiscoverableTool("request_temporary_debit_card_limit_increase_8374", "write", ["card_id", "limit_type", "new_limit"], ({ db }, a) => {
  const say = sayer("request_temporary_debit_card_limit_increase_8374");
  if (falsy(a.card_id)) return say(0);
  if (falsy(a.limit_type)) return say(1);
  if (!pyContains(["atm", "purchase"], a.limit_type)) return say(4, str(a.limit_type));
  if (a.new_limit === null) return say(5);
  const asFloat = floatOrNull(a.new_limit);
  if (asFloat === null) return say(6, str(a.new_limit));
  if (!pyIsInteger(asFloat)) return say(7, pyStr(asFloat));
  const limit = pyInt(asFloat);
  if (pyLessOrEqual(limit, 0)) return say(8);
  const card = getRecord(db, "debit_cards", a.card_id);
  if (card === null) return say(9, str(a.card_id));
  if (pyNotEquals(field(card, "status"), "ACTIVE")) return say(12, str(a.card_id), str(field(card, "status")));
  const accountId = field(card, "account_id");
  const account = pyBool(accountId) ? getRecord(db, "accounts", accountId) : null;
  if (account === null) return say(14, str(a.card_id));
  if (pyNotEquals(field(account, "status"), "OPEN")) return say(17, str(accountId), str(field(account, "status")));
  const opened = field(account, "date_opened");
  if (pyBool(opened)) {
    try {
      const age = Math.floor((strptime(TODAY, false) - strptime(opened, false)) / 86_400_000);
      if (age < 60) return say(21, String(age));
    } catch (error) {
      if (!(PyException.isInstance(error) && error.pythonType === "ValueError")) throw error;
    }
  }
  const current = currentLimit(say, card, account, a.limit_type);
  if (typeof current === "string") return current;
  const [original, limitField, limitName] = current;
  if (original === null) return say(43, pyLower(limitName));
  const maxAllowed = pyInt(pyMul(original, new PyFloat(1.5)));
  if (pyGreaterThan(limit, maxAllowed)) return say(44, String(limit), String(maxAllowed), pyStr(original));
  if (pyLessOrEqual(limit, original)) return say(45, String(limit), pyStr(original));
  const kind = str(a.limit_type);
  card.set(limitField, limit);
  card.set(say(46, kind), true);
  card.set(say(47, kind), original);
  card.set(say(48, kind), TODAY);
  return compose(say, 63, [
    [49, limitName],
    [50, str(a.card_id)],
    [51, pyStr(original)],
    [52, String(limit)],
    [53, pyStr(pySub(limit, original))],
    "",
    55,
    56,
    [57, pyStr(original)],
    58,
    "",
    60,
    61,
    62,
  ]);
});

/** The last part of `KnowledgeTools`' discoverable tools, in definition order. */
export const debitCardDiscoverableTools: Tau2Method[] = [
  orderDebitCard,
  activateNew,
  activateReplacement,
  activateReissue,
  closeDebitCard,
  freezeDebitCard,
  unfreezeDebitCard,
  clearFraudAlert,
  resetPin,
  changePin,
  debitCardsByAccount,
  temporaryLimitIncrease,
];

export { pyGreaterOrEqual };
