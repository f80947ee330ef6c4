/**
 * τ³ banking's user toolkit (`tools.py`, `KnowledgeUserTools`): the customer's own actions, the
 * discoverable tools the agent gives them, and their generic caller. It works on the agent's
 * database object (one `db` for both toolkits), so both hashes are always equal.
 */
import {
  type Tau2Method,
  type Tau2ToolkitDefinition,
  type Tau2ToolkitInstance,
  callMethod,
  discoverableToolsByName,
  hasDiscoverableTool,
  signatureParameters,
  tau2DiscoverableTool,
  tau2Tool,
} from "../../src/suites/tau2/engine/toolkit.ts";
import {
  PyException,
  PyFloat,
  type PyDict,
  type PyModel,
  type PyValue,
  pyBool,
  pyContains,
  pyCount,
  pyDictGet,
  pyFloatOf,
  pyFormatFixed,
  pyGetItem,
  pyGreaterThan,
  pyInt,
  pyIsDigit,
  pyIterate,
  pyJsonDumpsIndented,
  pyJsonLoads,
  pyLessOrEqual,
  pyLjust,
  pyMul,
  pyAdd,
  pyReplace,
  pySha256Hexdigest,
  pyStr,
  pyTypeError,
  pyTypeName,
} from "../../src/value/index.ts";
import { addToDb, field, getRecord, nothingFound, queryDatabaseTool, tableData } from "./db-query.ts";
import { TODAY, applicationId, disputeId, referralId, referralLinkId, transactionId, userDiscoverableToolCallId } from "./ids.ts";
import { bankText, userSays } from "./messages.ts";

/** `VALID_CREDIT_CARD_TYPES` (class data the tool compares). */
const VALID_CREDIT_CARD_TYPES = [
  "Bronze Rewards Card",
  "Business Bronze Rewards Card",
  "Business Gold Rewards Card",
  "Business Platinum Rewards Card",
  "Business Silver Rewards Card",
  "Crypto-Cash Back",
  "Diamond Elite Card",
  "EcoCard",
  "Gold Rewards Card",
  "Green Rewards Card",
  "Platinum Rewards Card",
  "Silver Rewards Card",
  "Silver Zoom Card",
];

const f = (value: number): PyFloat => new PyFloat(value);

/** `CREDIT_CARD_REWARDS`: card type → category → percentage (`default` for the rest). */
const CREDIT_CARD_REWARDS: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, number]>]> = [
  ["Bronze Rewards Card", [["default", 1.0]]],
  [
    "Silver Rewards Card",
    [
      ["Travel", 4.0],
      ["Software", 4.0],
      ["default", 1.0],
    ],
  ],
  ["Gold Rewards Card", [["default", 2.5]]],
  ["Platinum Rewards Card", [["default", 10.0]]],
  ["Business Bronze Rewards Card", [["default", 1.0]]],
  [
    "Business Silver Rewards Card",
    [
      ["Travel", 10.0],
      ["Software", 10.0],
      ["default", 1.0],
    ],
  ],
  [
    "Green Rewards Card",
    [
      ["Sustainable", 3.0],
      ["default", 1.0],
    ],
  ],
  [
    "Business Gold Rewards Card",
    [
      ["Operations", 2.5],
      ["default", 1.0],
    ],
  ],
  [
    "Business Platinum Rewards Card",
    [
      ["Travel", 4.0],
      ["Software", 4.0],
      ["Media", 4.0],
      ["default", 1.5],
    ],
  ],
  [
    "Silver Zoom Card",
    [
      ["Transportation", 3.0],
      ["default", 1.0],
    ],
  ],
  ["Diamond Elite Card", [["default", 5.0]]],
  [
    "EcoCard",
    [
      ["Green", 5.0],
      ["default", 1.0],
    ],
  ],
  ["Crypto-Cash Back", [["default", 2.0]]],
];
const REWARDS: PyDict = new Map(CREDIT_CARD_REWARDS.map(([card, rates]) => [card, new Map(rates.map(([category, rate]) => [category, f(rate)]))]));

/** `_check_tool_given`: the error text when the agent has not given the tool, else null. */
function checkToolGiven(db: PyModel, name: string): string | null {
  const result = queryDatabaseTool(db, "user_discoverable_tools", userSays("_check_tool_given", 1, name));
  return result.includes(userSays("_check_tool_given", 2)) ? userSays("_check_tool_given", 3, name) : null;
}

/** `_log_user_tool_call`. */
function logUserToolCall(db: PyModel, name: string, args: PyDict): void {
  const record: PyDict = new Map<string, PyValue>([
    ["tool_name", name],
    ["arguments", args],
    ["called_at", TODAY],
    ["status", "CALLED"],
  ]);
  addToDb(db, "user_discoverable_tool_calls", userDiscoverableToolCallId(name, args), record);
}

/** `dict(...)` of named values in order. */
const dict = (...entries: Array<readonly [string, PyValue]>): PyDict => new Map(entries);

/** `_parse_balance` / the local `parse_balance` of deposit_check: a number, or `"$1,234.50"` text. */
export function parseBalance(value: PyValue): PyFloat {
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean" || value instanceof PyFloat) return pyFloatOf(value);
  if (typeof value === "string") return pyFloatOf(pyReplace(pyReplace(value, "$", ""), ",", ""));
  return f(0);
}

const userDiscoverable: Tau2Method[] = [
  tau2DiscoverableTool("submit_cash_back_dispute_0589", "write", ["user_id", "transaction_id"], ({ db }, { user_id, transaction_id }) => {
    const name = "submit_cash_back_dispute_0589";
    const error = checkToolGiven(db, name);
    if (error) return error;
    const args = dict(["user_id", user_id], ["transaction_id", transaction_id]);
    logUserToolCall(db, name, args);
    const id = disputeId(user_id, transaction_id);
    let autoResolve: PyValue = false;
    const config = tableData(db, "task_config");
    if (config.size > 0) autoResolve = pyDictGet(pyDictGet(config, "dispute_settings", new Map()), "auto_resolve_disputes", false);
    const base: Array<readonly [string, PyValue]> = [
      ["dispute_id", id],
      ["user_id", user_id],
      ["transaction_id", transaction_id],
      ["submitted_at", TODAY],
    ];
    const resolved = pyBool(autoResolve);
    const record = resolved ? dict(...base, ["status", "RESOLVED"], ["resolution", "APPROVED"]) : dict(...base, ["status", "SUBMITTED"]);
    const status = userSays(name, resolved ? 15 : 22);
    const added = addToDb(db, "cash_back_disputes", id, record);
    return userSays(name, 24, pyJsonDumpsIndented(args, 2)) + (added ? userSays(name, 25, id, status) : userSays(name, 26));
  }),
  tau2DiscoverableTool("get_referral_link", "write", ["user_id", "card_name"], ({ db }, { user_id, card_name }) => {
    const name = "get_referral_link";
    const error = checkToolGiven(db, name);
    if (error) return error;
    const args = dict(["user_id", user_id], ["card_name", card_name]);
    logUserToolCall(db, name, args);
    const id = referralLinkId(user_id, card_name);
    const record = dict(["referral_id", id], ["referrer_id", user_id], ["referred_account_type", card_name], ["referral_status", "NO_PROGRESS"], ["date", TODAY]);
    const added = addToDb(db, "referrals", id, record);
    return userSays(name, 11, pyJsonDumpsIndented(args, 2)) + (added ? userSays(name, 12, id, id) : userSays(name, 13));
  }),
  tau2DiscoverableTool("get_card_last_4_digits", "read", ["credit_card_account_id"], ({ db }, { credit_card_account_id }) => {
    const name = "get_card_last_4_digits";
    const error = checkToolGiven(db, name);
    if (error) return error;
    const args = dict(["credit_card_account_id", credit_card_account_id]);
    logUserToolCall(db, name, args);
    const account = pyStr(credit_card_account_id);
    const result = queryDatabaseTool(db, "credit_card_accounts", userSays(name, 4, account));
    if (nothingFound(result)) return userSays(name, 7, account);
    let last4 = "";
    for (const char of pySha256Hexdigest(userSays(name, 8, account))) {
      if (!pyIsDigit(char)) continue;
      last4 += char;
      if (last4.length === 4) break;
    }
    return userSays(name, 11, pyJsonDumpsIndented(args, 2), pyLjust(last4, 4, userSays(name, 10)));
  }),
  tau2DiscoverableTool("deposit_check_3847", "write", ["account_id", "check_amount"], ({ db }, { account_id, check_amount }) => {
    const name = "deposit_check_3847";
    const error = checkToolGiven(db, name);
    if (error) return error;
    const args = dict(["account_id", account_id], ["check_amount", check_amount]);
    logUserToolCall(db, name, args);
    let amount: PyFloat;
    try {
      amount = pyFloatOf(check_amount);
    } catch (caught) {
      if (PyException.isInstance(caught) && (caught.pythonType === "ValueError" || caught.pythonType === "TypeError")) return userSays(name, 4, pyStr(check_amount));
      throw caught;
    }
    if (pyLessOrEqual(amount, 0)) return userSays(name, 5);
    const account = getRecord(db, "accounts", account_id);
    if (account === null) return userSays(name, 6, pyStr(account_id));
    if (!pyContains(["ACTIVE", "OPEN"], field(account, "status"))) return userSays(name, 10, pyStr(account_id));
    const current = parseBalance(field(account, "current_holdings", field(account, "balance", 0)));
    const balance = pyAdd(current, amount);
    account.set("current_holdings", userSays(name, 18, pyFormatFixed(balance, 2)));
    return userSays(name, 19, pyJsonDumpsIndented(args, 2), pyStr(account_id), pyFormatFixed(amount, 2), pyFormatFixed(current, 2), pyFormatFixed(balance, 2));
  }),
];

/** `call_discoverable_user_tool`: the signature checks, then the method (its TypeError as text). */
function callDiscoverableUserTool(self: Tau2ToolkitInstance, name: PyValue, argumentsText: PyValue): PyValue {
  const say = (at: number, ...values: string[]) => userSays("call_discoverable_user_tool", at, ...values);
  if (!hasDiscoverableTool(self.definition, name)) return say(0, pyStr(name));
  let args: PyValue;
  try {
    args = pyJsonLoads(argumentsText, { parseIntAsFloat: true });
  } catch (error) {
    if (PyException.isInstance(error) && error.pythonType === "JSONDecodeError") return say(1, error.message);
    throw error;
  }
  const method = discoverableToolsByName(self.definition).get(name as string) as Tau2Method;
  const parameters = signatureParameters(method);
  for (const parameter of parameters.values()) if (parameter.defaultValue === undefined && !pyContains(args, parameter.name)) return say(3, parameter.name);
  for (const argName of pyIterate(args)) if (!pyContains(parameters, argName)) return say(4, pyStr(argName));
  try {
    if (!(args instanceof Map)) throw pyTypeError(`KnowledgeUserTools.${method.name}() argument after ** must be a mapping, not ${pyTypeName(args)}`);
    return callMethod(self, method, args);
  } catch (error) {
    if (PyException.isInstance(error) && error.pythonType === "TypeError") return say(5, method.name, error.message);
    throw error;
  }
}

const userTools: Tau2Method[] = [
  tau2Tool(
    "apply_for_credit_card",
    "write",
    ["card_type", "customer_name", "annual_income", ["rho_bank_subscription", false]],
    ({ db }, { card_type, customer_name, annual_income, rho_bank_subscription }) => {
      const name = "apply_for_credit_card";
      if (!pyContains(VALID_CREDIT_CARD_TYPES, card_type)) return userSays(name, 0, pyStr(card_type), pyStr(VALID_CREDIT_CARD_TYPES));
      let income: PyFloat;
      try {
        income = pyFloatOf(annual_income);
      } catch (error) {
        if (PyException.isInstance(error) && (error.pythonType === "ValueError" || error.pythonType === "TypeError")) return userSays(name, 1);
        throw error;
      }
      const id = applicationId(card_type, customer_name, income, rho_bank_subscription);
      const record = dict(
        ["application_id", id],
        ["card_type", card_type],
        ["customer_name", customer_name],
        ["annual_income", income],
        ["rho_bank_subscription", rho_bank_subscription],
        ["status", "PENDING"],
        ["date", TODAY],
      );
      if (!addToDb(db, "credit_card_applications", id, record)) return userSays(name, 11, id);
      return userSays(name, 12);
    },
  ),
  tau2Tool("submit_referral", "write", ["user_id", "account_type"], ({ db }, { user_id, account_type }) => {
    const id = referralId(user_id, account_type);
    const record = dict(["referral_id", id], ["referrer_id", user_id], ["referred_account_type", account_type], ["referral_status", "NO_PROGRESS"], ["date", TODAY]);
    if (!addToDb(db, "referrals", id, record)) return userSays("submit_referral", 7, id);
    return userSays("submit_referral", 8, id, pyStr(user_id), pyStr(account_type), TODAY);
  }),
  tau2Tool("call_discoverable_user_tool", "write", ["discoverable_tool_name", ["arguments", "{}"]], (self, args) => callDiscoverableUserTool(self, args.discoverable_tool_name, args.arguments)),
  tau2Tool("list_discoverable_user_tools", "read", [], ({ db }) => {
    const result = queryDatabaseTool(db, "user_discoverable_tools", userSays("list_discoverable_user_tools", 1));
    if (result.includes(userSays("list_discoverable_user_tools", 2))) return userSays("list_discoverable_user_tools", 3);
    return userSays("list_discoverable_user_tools", 4, result);
  }),
  tau2Tool("request_human_agent_transfer", "write", [], ({ db }) => {
    const name = "request_human_agent_transfer";
    const existing = queryDatabaseTool(db, "human_transfer_requests", userSays(name, 1));
    const count = nothingFound(existing) ? 1 : pyCount(existing, "request_id") + 1;
    const id = userSays(name, 5, String(count));
    addToDb(db, "human_transfer_requests", id, dict(["request_id", id], ["request_number", count], ["requested_at", TODAY], ["status", "PENDING"]));
    return userSays(name, 12, String(count));
  }),
  tau2Tool("submit_transaction", "write", ["user_id", "credit_card_type", "merchant_name", "amount", "category"], ({ db }, { user_id, credit_card_type, merchant_name, amount, category }) => {
    const name = "submit_transaction";
    if (!pyContains(REWARDS, credit_card_type)) return userSays(name, 0, pyStr(credit_card_type), pyStr([...REWARDS.keys()]));
    const id = transactionId(user_id, credit_card_type, merchant_name, amount, category);
    const rates = pyGetItem(REWARDS, credit_card_type);
    const rate = pyDictGet(rates, category, pyGetItem(rates, "default"));
    const points = pyInt(pyMul(amount, rate));
    const record = dict(
      ["transaction_id", id],
      ["user_id", user_id],
      ["credit_card_type", credit_card_type],
      ["merchant_name", merchant_name],
      ["transaction_amount", userSays(name, 7, pyFormatFixed(amount, 2))],
      ["transaction_date", TODAY],
      ["category", category],
      ["status", "COMPLETED"],
      ["rewards_earned", userSays(name, 13, String(points))],
    );
    if (!addToDb(db, "credit_card_transaction_history", id, record)) return userSays(name, 15, id);
    return userSays(name, 16, id, pyStr(user_id), pyStr(credit_card_type), pyStr(merchant_name), pyFormatFixed(amount, 2), pyStr(category), TODAY, String(points), pyStr(rate));
  }),
];

/** `KnowledgeUserTools`: discoverable tools first (definition order), then the tools the simulator may list. */
export const knowledgeUserTools: Tau2ToolkitDefinition = {
  className: "KnowledgeUserTools",
  methods: [...userDiscoverable, ...userTools],
};

export { bankText, pyGreaterThan };
