/**
 * Discoverable agent tools of `KnowledgeTools` (`tools.py`), first part: rewards, the transfer
 * protocols, credit and debit card disputes, ATM deposit images, replacement cards and closure
 * reasons — in the original's definition order.
 */
import { type Tau2Method, tau2DiscoverableTool } from "../../src/suites/tau2/engine/toolkit.ts";
import { type PyDict, type PyValue, pyAbs, pyBool, pyContains, pyEquals, pyGreaterThan, pyJsonDumpsIndented, pyLessOrEqual, pyStr, pyUpper } from "../../src/value/index.ts";
import { addToDb, field, getRecord, nothingFound, queryDatabaseTool, updateRecordInDb } from "./db-query.ts";
import { falsy, historyReport, money, sayer, str, titled } from "./discoverable-helpers.ts";
import { TODAY, closureReasonId, creditCardOrderId, disputeId } from "./ids.ts";

const dict = (...entries: Array<readonly [string, PyValue]>): PyDict => new Map(entries);

const CC_CARD_ACTIONS = ["keep_active", "cancel_and_reissue"];
const CC_DISPUTE_REASONS = [
  "unauthorized_fraudulent_charge",
  "duplicate_charge",
  "incorrect_amount",
  "goods_services_not_received",
  "goods_services_not_as_described",
  "canceled_subscription_still_charging",
  "refund_never_processed",
];
const RESOLUTIONS = ["full_refund", "partial_refund"];

const DEBIT_CATEGORIES = [
  "unauthorized_transaction",
  "atm_cash_discrepancy",
  "atm_deposit_not_credited",
  "duplicate_charge",
  "incorrect_amount",
  "goods_services_not_received",
  "recurring_charge_after_cancellation",
  "card_present_fraud",
  "card_not_present_fraud",
];
const DEBIT_TRANSACTION_TYPES = ["pin_purchase", "signature_purchase", "online_purchase", "atm_withdrawal", "atm_deposit", "recurring_payment", "person_to_person"];
const PIN_STATUSES = ["yes_shared", "yes_observed", "no", "unknown"];
const DEBIT_CARD_ACTIONS = ["keep_active", "freeze_pending_investigation", "close_and_reissue"];
const FRAUD_CATEGORIES = ["unauthorized_transaction", "card_present_fraud", "card_not_present_fraud"];
const REPLACEMENT_REASONS = ["fraud_suspected", "lost", "stolen", "damaged", "expired", "other"];
const CLOSURE_REASONS = ["annual_fee", "not_using_card", "found_better_card", "unhappy_with_rewards", "simplifying_finances", "negative_experience", "other"];

/** A transfer-protocol tool: one fixed sentence. */
const fixedSentence = (name: string): Tau2Method => tau2DiscoverableTool(name, "generic", [], () => sayer(name)(0));

const fileCreditCardDispute = tau2DiscoverableTool(
  "file_credit_card_transaction_dispute_4829",
  "write",
  [
    "transaction_id",
    "card_action",
    "card_last_4_digits",
    "full_name",
    "user_id",
    "phone",
    "email",
    "address",
    "contacted_merchant",
    "purchase_date",
    "issue_noticed_date",
    "dispute_reason",
    "resolution_requested",
    "eligible_for_provisional_credit",
    ["partial_refund_amount", null],
  ],
  ({ db }, a) => {
    const say = sayer("file_credit_card_transaction_dispute_4829");
    if (falsy(a.transaction_id) || falsy(a.user_id)) return say(0);
    if (!pyContains(CC_CARD_ACTIONS, a.card_action)) return say(3, pyStr(CC_CARD_ACTIONS));
    if (!pyContains(CC_DISPUTE_REASONS, a.dispute_reason)) return say(11, pyStr(CC_DISPUTE_REASONS));
    if (!pyContains(RESOLUTIONS, a.resolution_requested)) return say(14, pyStr(RESOLUTIONS));
    if (pyEquals(a.resolution_requested, "partial_refund") && a.partial_refund_amount === null) return say(16);
    const id = disputeId(a.user_id, a.transaction_id);
    const record = dict(
      ["dispute_id", id],
      ...[
        "transaction_id",
        "user_id",
        "card_action",
        "card_last_4_digits",
        "full_name",
        "phone",
        "email",
        "address",
        "contacted_merchant",
        "purchase_date",
        "issue_noticed_date",
        "dispute_reason",
        "resolution_requested",
        "partial_refund_amount",
        "eligible_for_provisional_credit",
      ].map((key) => [key, a[key]] as const),
      ["provisional_credit_given", a.eligible_for_provisional_credit],
      ["submitted_at", TODAY],
      ["status", "SUBMITTED"],
    );
    if (!addToDb(db, "transaction_disputes", id, record)) return say(38);
    const parts = [say(39), "", say(41), say(42, id), say(43, str(a.transaction_id)), say(44, titled(a.dispute_reason)), say(45, titled(a.resolution_requested))];
    if (pyBool(a.partial_refund_amount)) parts.push(say(46, money(a.partial_refund_amount)));
    parts.push(pyBool(a.eligible_for_provisional_credit) ? say(47) : say(48));
    return parts.join(say(49));
  },
);

const DEBIT_DISPUTE_PARAMETERS = [
  "transaction_id",
  "account_id",
  "card_id",
  "user_id",
  "dispute_category",
  "transaction_date",
  "discovery_date",
  "disputed_amount",
  "transaction_type",
  "card_in_possession",
  "pin_compromised",
  "contacted_merchant",
  "police_report_filed",
  "written_statement_provided",
  "provisional_credit_eligible",
  "customer_max_liability_amount",
  "card_action",
];

/** The validation of `file_debit_card_transaction_dispute_6281`, in order: an error text or null. */
function debitDisputeError(a: Record<string, PyValue>): string | null {
  const say = sayer("file_debit_card_transaction_dispute_6281");
  const required = [
    "transaction_id",
    "account_id",
    "card_id",
    "user_id",
    "dispute_category",
    "transaction_date",
    "discovery_date",
    "disputed_amount",
    "transaction_type",
    "pin_compromised",
    "card_action",
  ];
  if (!required.every((key) => pyBool(a[key]))) return say(0);
  if (a.customer_max_liability_amount === null) return say(1);
  if ([a.card_in_possession, a.contacted_merchant, a.police_report_filed, a.written_statement_provided].some((value) => value === null)) return say(2);
  if (!pyContains(DEBIT_CATEGORIES, a.dispute_category)) return say(12, pyStr(DEBIT_CATEGORIES));
  if (!pyContains(DEBIT_TRANSACTION_TYPES, a.transaction_type)) return say(20, pyStr(DEBIT_TRANSACTION_TYPES));
  if (!pyContains(PIN_STATUSES, a.pin_compromised)) return say(25, pyStr(PIN_STATUSES));
  if (!pyContains(DEBIT_CARD_ACTIONS, a.card_action)) return say(29, pyStr(DEBIT_CARD_ACTIONS));
  if (pyLessOrEqual(a.disputed_amount, 0)) return say(30);
  return null;
}

const fileDebitCardDispute = tau2DiscoverableTool("file_debit_card_transaction_dispute_6281", "write", DEBIT_DISPUTE_PARAMETERS, ({ db }, a) => {
  const say = sayer("file_debit_card_transaction_dispute_6281");
  const error = debitDisputeError(a);
  if (error !== null) return error;
  const id = disputeId(a.user_id, a.transaction_id);
  const fraud = pyContains(FRAUD_CATEGORIES, a.dispute_category);
  const pinShared = pyEquals(a.pin_compromised, "yes_shared");
  const eligible = a.provisional_credit_eligible;
  const record = dict(
    ["dispute_id", id],
    ...DEBIT_DISPUTE_PARAMETERS.slice(0, 15).map((key) => [key, a[key]] as const),
    ["provisional_credit_issued", eligible],
    ["provisional_credit_amount", pyBool(eligible) ? a.disputed_amount : null],
    ["customer_max_liability_amount", a.customer_max_liability_amount],
    ["card_action", a.card_action],
    ["is_fraud_category", fraud],
    ["pin_shared_voluntarily", pinShared],
    ["submitted_at", TODAY],
    ["status", "OPEN"],
  );
  if (!addToDb(db, "debit_card_disputes", id, record)) return say(61);
  const parts = [say(62, id), say(63, str(a.transaction_id)), say(64, str(a.account_id)), say(65, titled(a.dispute_category)), say(66, money(a.disputed_amount)), say(67, titled(a.card_action))];
  parts.push(pyBool(eligible) ? say(68, money(a.disputed_amount)) : say(69));
  if (pinShared) parts.push(say(70));
  if (fraud && !pyBool(a.police_report_filed) && pyGreaterThan(a.disputed_amount, 500)) parts.push(say(71));
  return parts.join(say(72));
});

const setRecurringBlock = tau2DiscoverableTool("set_debit_card_recurring_block_7382", "write", ["card_id", "block_recurring"], ({ db }, { card_id, block_recurring }) => {
  const say = sayer("set_debit_card_recurring_block_7382");
  if (falsy(card_id)) return say(0);
  const card = getRecord(db, "debit_cards", card_id);
  if (card === null || card.size === 0) return say(1, str(card_id));
  const status = pyUpper(field(card, "status", ""));
  if (status !== "ACTIVE") return say(5, status);
  card.set("recurring_blocked", block_recurring);
  return pyBool(block_recurring) ? say(7, str(card_id)) : say(8, str(card_id));
});

/** The read tools that report a query by an interpolated id (literals: constraint 2, header 3–6, none 9, join 10). */
const historyTool = (name: string, parameter: string, table: Parameters<typeof historyReport>[2]): Tau2Method =>
  tau2DiscoverableTool(name, "read", [parameter], ({ db }, args) => {
    const say = sayer(name);
    if (falsy(args[parameter])) return say(0);
    return historyReport(db, say, table, args[parameter], { constraint: 2, header: [3, 4, 5, 6], none: 9, join: 10 });
  });

/** Known ATM deposits with images: transaction id → the positions of its atm id, contents and notes. */
const DEPOSIT_IMAGES: Readonly<Record<string, readonly [number, number, number]>> = {
  btxn_834027370c20: [12, 17, 19],
  btxn_test_deposit_001: [22, 27, 29],
  btxn_test_atm_dep_partial: [32, 37, 39],
};

const atmDepositImages = tau2DiscoverableTool("get_atm_deposit_images_8473", "read", ["transaction_id"], ({ db }, { transaction_id }) => {
  const say = sayer("get_atm_deposit_images_8473");
  if (falsy(transaction_id)) return say(0);
  const txn = getRecord(db, "bank_account_transaction_history", transaction_id);
  if (txn === null) return say(1, str(transaction_id));
  if (!pyEquals(field(txn, "type"), "atm_deposit")) return say(4, str(transaction_id));
  const description = field(txn, "description", "");
  const upper = pyUpper(description);
  if (!upper.includes("RHO-BANK") && !upper.includes("RHOBANK")) return say(9, str(transaction_id));
  const known = typeof transaction_id === "string" ? DEPOSIT_IMAGES[transaction_id] : undefined;
  if (known) return say(40, transaction_id as string, say(known[0]), str(field(txn, "date", "Unknown")), say(known[1]), say(known[2]));
  return say(41, str(transaction_id), str(description), str(field(txn, "date", "Unknown")), money(pyAbs(field(txn, "amount", 0))));
});

const orderReplacementCard = tau2DiscoverableTool(
  "order_replacement_credit_card_7291",
  "write",
  ["credit_card_account_id", "user_id", "shipping_address", "reason", ["expedited_shipping", false]],
  ({ db }, a) => {
    const say = sayer("order_replacement_credit_card_7291");
    if (falsy(a.credit_card_account_id) || falsy(a.user_id) || falsy(a.shipping_address) || falsy(a.reason)) return say(0);
    if (!pyContains(REPLACEMENT_REASONS, a.reason)) return say(7, pyStr(REPLACEMENT_REASONS));
    if (nothingFound(queryDatabaseTool(db, "credit_card_accounts", say(9, str(a.credit_card_account_id))))) return say(12, str(a.credit_card_account_id));
    const id = creditCardOrderId(a.credit_card_account_id, a.user_id, a.reason);
    const record = dict(
      ["order_id", id],
      ["credit_card_account_id", a.credit_card_account_id],
      ["user_id", a.user_id],
      ["shipping_address", a.shipping_address],
      ["reason", a.reason],
      ["expedited_shipping", a.expedited_shipping],
      ["order_date", TODAY],
      ["status", "ORDERED"],
      ["old_card_cancelled", true],
    );
    if (!addToDb(db, "credit_card_orders", id, record)) return say(24);
    updateRecordInDb(db, "credit_card_accounts", a.credit_card_account_id, [
      ["status", "CLOSED"],
      ["closed_date", TODAY],
    ]);
    const expedited = pyBool(a.expedited_shipping);
    const parts = [
      say(32, id),
      say(33, str(a.credit_card_account_id)),
      say(34, titled(a.reason)),
      say(35, str(a.shipping_address)),
      say(36, say(expedited ? 28 : 29)),
      say(37, say(expedited ? 30 : 31)),
      "",
      say(39),
    ];
    return parts.join(say(40));
  },
);

const logClosureReason = tau2DiscoverableTool("log_credit_card_closure_reason_4521", "write", ["credit_card_account_id", "user_id", "closure_reason"], ({ db }, a) => {
  const say = sayer("log_credit_card_closure_reason_4521");
  if (falsy(a.credit_card_account_id) || falsy(a.user_id) || falsy(a.closure_reason)) return say(0);
  if (!pyContains(CLOSURE_REASONS, a.closure_reason)) return say(8, pyStr(CLOSURE_REASONS));
  const id = closureReasonId(a.credit_card_account_id, a.user_id);
  const record = dict(
    ["record_id", id],
    ["credit_card_account_id", a.credit_card_account_id],
    ["user_id", a.user_id],
    ["closure_reason", a.closure_reason],
    ["logged_at", TODAY],
    ["status", "LOGGED"],
  );
  addToDb(db, "credit_card_closure_reasons", id, record);
  const args = dict(["credit_card_account_id", a.credit_card_account_id], ["user_id", a.user_id], ["closure_reason", a.closure_reason]);
  return say(17, pyJsonDumpsIndented(args, 2), str(a.closure_reason), str(a.credit_card_account_id));
});

/** The first part of `KnowledgeTools`' discoverable tools, in definition order (statement credits and on: agent-discoverable-accounts.ts). */
export const cardDiscoverableTools: Tau2Method[] = [
  tau2DiscoverableTool("example_agent_tool_0000", "write", [], () => sayer("example_agent_tool_0000")(0)),
  tau2DiscoverableTool("update_transaction_rewards_3847", "write", ["transaction_id", "new_rewards_earned"], ({ db }, { transaction_id, new_rewards_earned }) => {
    const say = sayer("update_transaction_rewards_3847");
    if (falsy(transaction_id) || falsy(new_rewards_earned)) return say(0);
    if (updateRecordInDb(db, "credit_card_transaction_history", transaction_id, [["rewards_earned", new_rewards_earned]]) === null) return say(3, str(transaction_id));
    const args = dict(["transaction_id", transaction_id], ["new_rewards_earned", new_rewards_earned]);
    return say(4, pyJsonDumpsIndented(args, 2), str(transaction_id), str(new_rewards_earned));
  }),
  fixedSentence("initial_transfer_to_human_agent_0218"),
  fixedSentence("initial_transfer_to_human_agent_1822"),
  fixedSentence("emergency_credit_bureau_incident_transfer_1114"),
  fileCreditCardDispute,
  fileDebitCardDispute,
  setRecurringBlock,
  historyTool("get_debit_dispute_status_7483", "user_id", "debit_card_disputes"),
  atmDepositImages,
  orderReplacementCard,
  historyTool("get_user_dispute_history_7291", "user_id", "transaction_disputes"),
  historyTool("get_pending_replacement_orders_5765", "credit_card_account_id", "credit_card_orders"),
  logClosureReason,
  historyTool("get_closure_reason_history_8293", "credit_card_account_id", "credit_card_closure_reasons"),
];
