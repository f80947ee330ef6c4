/**
 * τ³ banking's deterministic record ids (`domains/banking_knowledge/utils.py`): the first bytes of
 * the SHA-256 of a seed string, so the same call always writes the same record (and hash). Also
 * the domain's frozen clock (`get_today_str`, `get_now`).
 */
import { type PyValue, pyAppend, pyBool, pyFormatFixed, pyJoin, pyJsonDumpsSortedKeys, pyReplace, pySha256Hexdigest, pyStr } from "../../src/value/index.ts";

/** `get_today_str()`: the scenario date, MM/DD/YYYY. */
export const TODAY = "11/14/2025";

/** `get_now().isoformat()`. */
export const NOW_ISO = "2025-11-14T03:40:00";

/** `_deterministic_id(seed, length)`: `length` hex characters of the seed's SHA-256. */
export function deterministicId(seed: string, length = 16): string {
  return pySha256Hexdigest(seed).slice(0, length - (length % 2));
}

/** f-string interpolation of any value (`str()`). */
const s = (value: PyValue | undefined): string => pyStr(value);

/**
 * `generate_transaction_id`: `txn_` + 12 hex over the details (amount as `:.2f`), joined with
 * `":".join`, so a detail that is not a str raises `sequence item <i>: expected str instance, …`.
 */
export function transactionId(userId: PyValue, cardType: PyValue, merchant: PyValue, amount: PyValue, category: PyValue, date: PyValue = null): string {
  const seedParts: PyValue[] = ["transaction", userId, cardType, merchant, pyFormatFixed(amount, 2), category];
  if (pyBool(date)) pyAppend(seedParts, date);
  return `txn_${deterministicId(pyJoin(":", seedParts), 12)}`;
}

/** `generate_referral_id`: `":".join` of the details (a non-str detail raises, as in the original). */
export function referralId(referrerId: PyValue, accountType: PyValue, date: PyValue = null): string {
  const seedParts: PyValue[] = ["referral", referrerId, accountType];
  if (pyBool(date)) pyAppend(seedParts, date);
  return deterministicId(pyJoin(":", seedParts), 16);
}

/** `generate_application_id` (income already `float()`-normalized by the caller). */
export function applicationId(cardType: PyValue, name: PyValue, income: PyValue, subscription: PyValue): string {
  return deterministicId(`credit_card:${s(cardType)}:${s(name)}:${s(income)}:${s(subscription)}`, 16);
}

/** `generate_verification_id`: `<user_id>_<time with ' '→'_' and ':' '-' removed>` (`str.replace`: a non-str time raises AttributeError). */
export function verificationId(userId: PyValue, timeVerified: PyValue): string {
  return `${s(userId)}_${pyReplace(pyReplace(pyReplace(timeVerified, " ", "_"), ":", ""), "-", "")}`;
}

/** `generate_user_discoverable_tool_id`. */
export const userDiscoverableToolId = (name: string): string => deterministicId(`user_discoverable_tool:${name}`, 16);

/** `generate_user_discoverable_tool_call_id` (arguments as `json.dumps(sort_keys=True)`). */
export const userDiscoverableToolCallId = (name: string, args: PyValue): string => deterministicId(`user_discoverable_tool_call:${name}:${pyJsonDumpsSortedKeys(args)}`, 16);

/** `generate_agent_discoverable_tool_id`. */
export const agentDiscoverableToolId = (name: string): string => deterministicId(`agent_discoverable_tool:${name}`, 16);

/** `generate_dispute_id`. */
export const disputeId = (userId: PyValue, transactionIdValue: PyValue): string => `dsp_${deterministicId(`dispute:${s(userId)}:${s(transactionIdValue)}`, 12)}`;

/** `generate_referral_link_id`. */
export const referralLinkId = (userId: PyValue, cardName: PyValue): string => deterministicId(`referral_link:${s(userId)}:${s(cardName)}`, 16);

/** `generate_credit_card_order_id`. */
export const creditCardOrderId = (accountId: PyValue, userId: PyValue, reason: PyValue): string => `ccord_${deterministicId(`credit_card_order:${s(accountId)}:${s(userId)}:${s(reason)}`, 12)}`;

/** `generate_closure_reason_id`. */
export const closureReasonId = (accountId: PyValue, userId: PyValue): string => `clsr_${deterministicId(`closure_reason:${s(accountId)}:${s(userId)}`, 12)}`;

/** `generate_account_flag_id`. */
export const accountFlagId = (accountId: PyValue, flagType: PyValue, expiration: PyValue): string => `ccflag_${deterministicId(`account_flag:${s(accountId)}:${s(flagType)}:${s(expiration)}`, 12)}`;

/** `generate_credit_limit_increase_request_id`. */
export const creditLimitRequestId = (accountId: PyValue, userId: PyValue, amount: PyValue): string =>
  `cli_${deterministicId(`cli_request:${s(accountId)}:${s(userId)}:${pyFormatFixed(amount, 2)}`, 12)}`;

/** `generate_bank_account_transaction_id`. */
export const bankTransactionId = (accountId: PyValue, date: PyValue, description: PyValue, amount: PyValue, type: PyValue): string =>
  `btxn_${deterministicId(`bank_txn:${s(accountId)}:${s(date)}:${s(description)}:${pyFormatFixed(amount, 2)}:${s(type)}`, 12)}`;

/** `generate_debit_card_order_id`. */
export const debitCardOrderId = (accountId: PyValue, userId: PyValue, delivery: PyValue): string => `dcord_${deterministicId(`debit_card_order:${s(accountId)}:${s(userId)}:${s(delivery)}`, 12)}`;

/** `generate_debit_card_id`. */
export const debitCardId = (accountId: PyValue, userId: PyValue, issueDate: PyValue): string => `dbc_${deterministicId(`debit_card:${s(accountId)}:${s(userId)}:${s(issueDate)}`, 12)}`;
