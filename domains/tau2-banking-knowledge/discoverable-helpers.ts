/** Small shared pieces of the discoverable tools: their sentences, Python truthiness and formats. */
import type { PyModel, PyValue } from "../../src/value/index.ts";
import { pyBool, pyFormatFixed, pyReplace, pyStr, pyTitle } from "../../src/value/index.ts";
import { nothingFound, queryDatabaseTool } from "./db-query.ts";
import type { BankTable } from "./data-model.ts";
import { agentSays } from "./messages.ts";

/** The sentences of one `KnowledgeTools` method: `say(position, ...fields)`. */
export type Say = (at: number, ...values: string[]) => string;

/** `say` for a method of `KnowledgeTools`. */
export const sayer =
  (method: string): Say =>
  (at, ...values) =>
    agentSays(method, at, ...values);

/** Python `not value`. */
export const falsy = (value: PyValue | undefined): boolean => !pyBool(value ?? null);

/** f-string `{value}`. */
export const str = (value: PyValue | undefined): string => pyStr(value ?? null);

/** `f"{value:.2f}"`. */
export const money = (value: PyValue | undefined): string => pyFormatFixed(value ?? null, 2);

/** `value.replace('_', ' ').title()`. */
export const titled = (value: PyValue | undefined): string => pyTitle(pyReplace(value ?? null, "_", " "));

/**
 * The read tools' pattern: a query by interpolated constraint (`at.constraint`), then the header
 * lines (`at.header`, the first one's field filled with `value`) and either the query text or the
 * "none found" line (`at.none`), joined by newlines (`at.join`).
 */
export function historyReport(db: PyModel, say: Say, table: BankTable, value: PyValue, at: { constraint: number; header: readonly number[]; none: number; join: number }): string {
  const result = queryDatabaseTool(db, table, say(at.constraint, str(value)));
  const [first, second, third, fourth] = at.header;
  const parts = [say(first), "", say(third), say(fourth, str(value))];
  void second;
  parts.push(nothingFound(result) ? say(at.none) : result);
  return parts.join(say(at.join));
}
