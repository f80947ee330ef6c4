/**
 * τ³ banking's database helpers (`domains/banking_knowledge/db_query.py`): tables by name,
 * constraint queries over untyped records and `query_database_tool`'s text, which most read tools
 * return as is and several tools test for "No records found".
 */
import {
  PyException,
  type PyDict,
  type PyModel,
  type PyValue,
  pyContains,
  pyDictGet,
  pyEquals,
  pyGetAttr,
  pyGetItem,
  pyGreaterOrEqual,
  pyGreaterThan,
  pyIterate,
  pyJsonLoads,
  pyLessOrEqual,
  pyLessThan,
  pyNotEquals,
  pySetItem,
  pyStr,
  pyTypeName,
} from "../../src/value/index.ts";
import { type BankTable, QUERYABLE_TABLES } from "./data-model.ts";
import { queryText } from "./messages.ts";

/** `db.<table>.data`. */
export function tableData(db: PyModel, table: BankTable): PyDict {
  return pyGetAttr(pyGetAttr(db, table), "data") as PyDict;
}

/**
 * `db.<table>.data.get(id)` (a record, or null); the tools' `id in db.<table>.data` then
 * `db.<table>.data[id]` comes to the same. A dict lookup: a list or dict id raises `unhashable type`.
 */
export function getRecord(db: PyModel, table: BankTable, id: PyValue): PyDict | null {
  return pyDictGet(tableData(db, table), id) as PyDict | null;
}

/** `record.get(field, fallback)` on an untyped record. */
export function field(record: PyDict, name: string, fallback: PyValue = null): PyValue {
  return record.has(name) ? (record.get(name) as PyValue) : fallback;
}

/** `add_to_db`: false when the id exists already. */
export function addToDb(db: PyModel, table: BankTable, id: string, record: PyDict): boolean {
  const data = tableData(db, table);
  if (pyContains(data, id)) return false;
  pySetItem(data, id, record);
  return true;
}

/** `update_record_in_db`: the updated record, or null when the id is unknown. */
export function updateRecordInDb(db: PyModel, table: BankTable, id: PyValue, updates: ReadonlyArray<readonly [string, PyValue]>): PyDict | null {
  const data = tableData(db, table);
  if (!pyContains(data, id)) return null;
  const record = pyGetItem(data, id) as PyDict;
  for (const [name, value] of updates) pySetItem(record, name, value);
  return record;
}

type Comparison = (actual: PyValue, expected: PyValue) => boolean;

const strOf = (value: PyValue): string => pyStr(value);

/** `_get_comparison_op`: unknown operator names compare with `==`. */
const OPERATORS: Readonly<Record<string, Comparison>> = {
  eq: pyEquals,
  ne: pyNotEquals,
  gt: pyGreaterThan,
  gte: pyGreaterOrEqual,
  lt: pyLessThan,
  lte: pyLessOrEqual,
  contains: (actual, expected) => (actual === null ? false : pyContains(actual, expected)),
  startswith: (actual, expected) => (actual === null ? false : strOf(actual).startsWith(strOf(expected))),
  endswith: (actual, expected) => (actual === null ? false : strOf(actual).endsWith(strOf(expected))),
  in: (actual, expected) => pyContains(expected, actual),
  nin: (actual, expected) => !pyContains(expected, actual),
};

/** `_record_matches`: every `field[__op]` constraint holds; a comparison that raises TypeError/ValueError is a mismatch. */
function recordMatches(record: PyDict, constraints: PyDict): boolean {
  for (const [key, expected] of constraints) {
    const cut = key.lastIndexOf("__");
    const [name, op] = cut >= 0 ? [key.slice(0, cut), key.slice(cut + 2)] : [key, "eq"];
    const compare = OPERATORS[op] ?? pyEquals;
    try {
      if (!compare(field(record, name), expected)) return false;
    } catch (error) {
      if (PyException.isInstance(error) && (error.pythonType === "TypeError" || error.pythonType === "ValueError")) return false;
      throw error;
    }
  }
  return true;
}

/** `query_db(name, db, return_ids=True, **constraints)`: `[id, record]` pairs in table order (`limit` is the function's own keyword). */
export function queryDb(db: PyModel, table: BankTable, constraints: PyDict): Array<[string, PyDict]> {
  const { limit, ...rest } = { limit: constraints.get("limit") ?? null, constraints: new Map([...constraints].filter(([key]) => key !== "limit")) };
  const results: Array<[string, PyDict]> = [];
  for (const [id, record] of tableData(db, table)) {
    if (!recordMatches(record as PyDict, rest.constraints)) continue;
    results.push([id, record as PyDict]);
    if (limit !== null && pyGreaterOrEqual(results.length, limit)) break;
  }
  return results;
}

/**
 * `query_database_tool(name, constraints)`: the formatted records, or the original's error and
 * no-result texts (a bad constraint JSON is returned, not raised; so is any failure of the query).
 */
export function queryDatabaseTool(db: PyModel, name: string, constraints: PyValue): string {
  const say = (at: number, ...values: string[]) => queryText.say("query_database_tool", at, ...values);
  if (!(QUERYABLE_TABLES as readonly string[]).includes(name)) return say(1, name, pyStr(QUERYABLE_TABLES as unknown as PyValue[]));
  let parsed: PyValue = new Map();
  try {
    if (constraints !== "" && constraints !== null) parsed = pyJsonLoads(constraints);
  } catch (error) {
    if (PyException.isInstance(error) && error.pythonType === "JSONDecodeError") return say(2, error.message);
    if (PyException.isInstance(error)) return say(9, error.message);
    throw error;
  }
  let results: Array<[string, PyDict]>;
  try {
    if (!(parsed instanceof Map)) throw new PyException(`tau2.domains.banking_knowledge.db_query.query_db() argument after ** must be a mapping, not ${pyTypeName(parsed)}`, "TypeError");
    for (const reserved of ["db_name", "db", "return_ids"]) {
      if (parsed.has(reserved)) throw new PyException(`tau2.domains.banking_knowledge.db_query.query_db() got multiple values for keyword argument '${reserved}'`, "TypeError");
    }
    results = queryDb(db, name as BankTable, parsed);
  } catch (error) {
    if (PyException.isInstance(error)) return say(9, error.message);
    throw error;
  }
  if (results.length === 0) return say(3, name);
  const lines = [say(4, String(results.length), name)];
  results.forEach(([id, record], index) => {
    lines.push(say(5, String(index + 1), id));
    for (const [key, value] of record) lines.push(say(6, key, pyStr(value as PyValue)));
    lines.push("");
  });
  return lines.join("\n");
}

/** Whether a query text says nothing was found (the tools' `"No records found" in result` tests). */
export function nothingFound(result: string): boolean {
  return result.includes("No records found") || result.includes("No results found");
}

export { pyIterate };
