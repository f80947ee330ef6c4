/**
 * τ³ banking's database model (`domains/banking_knowledge/data_model.py`, `TransactionalDB`): 23
 * tables of untyped records, each a `DatabaseTable{data, notes}`, in the original's field order
 * (the order shows in `model_dump` and so in the hash; tables missing from `db.json` default to
 * empty and still count). The knowledge base is not part of it.
 */
import { type PyModelSchema, pyModelSchema, pyModelValidate, pyT } from "../../src/value/index.ts";

export const databaseTableModel: PyModelSchema = pyModelSchema("DatabaseTable", [
  ["data", pyT.dict(pyT.dict(pyT.any)), () => new Map()],
  ["notes", pyT.str, () => ""],
]);

/** The tables, in `TransactionalDB`'s declaration order. */
export const BANK_TABLES = [
  "users",
  "accounts",
  "debit_cards",
  "referrals",
  "credit_card_applications",
  "user_discoverable_tools",
  "user_discoverable_tool_calls",
  "verification_history",
  "credit_card_transaction_history",
  "cash_back_disputes",
  "bank_account_transaction_history",
  "credit_card_accounts",
  "agent_discoverable_tools",
  "task_config",
  "human_transfer_requests",
  "transaction_disputes",
  "credit_card_orders",
  "debit_card_orders",
  "credit_card_closure_reasons",
  "credit_card_account_flags",
  "credit_limit_increase_requests",
  "payment_history",
  "debit_card_disputes",
] as const;

export type BankTable = (typeof BANK_TABLES)[number];

/** `TransactionalDB(DB)`: `DB` forbids extra keys. */
export const transactionalDbModel: PyModelSchema = pyModelSchema(
  "TransactionalDB",
  BANK_TABLES.map((table) => [table, pyT.model(() => databaseTableModel), () => pyModelValidate(databaseTableModel, new Map())] as const),
  "forbid",
);

/**
 * `db_query._load_databases`: the tables `query_database_tool` knows, in the order it lists them
 * (its "Available: [...]" error shows this order).
 */
export const QUERYABLE_TABLES: readonly BankTable[] = [
  "users",
  "accounts",
  "referrals",
  "credit_card_applications",
  "user_discoverable_tools",
  "user_discoverable_tool_calls",
  "agent_discoverable_tools",
  "task_config",
  "verification_history",
  "credit_card_transaction_history",
  "cash_back_disputes",
  "bank_account_transaction_history",
  "credit_card_accounts",
  "human_transfer_requests",
  "transaction_disputes",
  "credit_card_orders",
  "credit_card_closure_reasons",
  "credit_card_account_flags",
  "debit_cards",
  "debit_card_orders",
  "debit_card_disputes",
  "credit_limit_increase_requests",
  "payment_history",
];
