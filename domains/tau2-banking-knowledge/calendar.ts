/**
 * `datetime.strptime` for the two formats the banking tools parse (`%m/%d/%Y` and `%m/%d/%Y
 * %H:%M:%S`) and day arithmetic against the frozen "now" (2025-11-14 03:40:00): a ValueError (as a
 * PyException) for text that does not match or a date that does not exist.
 */
import { PyException, type PyValue, pyTypeName } from "../../src/value/index.ts";

const MONTH = "(1[0-2]|0[1-9]|[1-9])";
const DAY = "(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])";
const DATE = new RegExp(`^${MONTH}/${DAY}/(\\d{4})$`);
const DATE_TIME = new RegExp(`^${MONTH}/${DAY}/(\\d{4}) (2[0-3]|[0-1]\\d|\\d):([0-5]\\d|\\d):(6[0-1]|[0-5]\\d|\\d)$`);

/** Milliseconds since the epoch (UTC, naive) of a parsed datetime. */
export function strptime(value: PyValue, withTime: boolean): number {
  if (typeof value !== "string") throw new PyException(`strptime() argument 1 must be str, not ${pyTypeName(value)}`, "TypeError");
  const format = withTime ? "%m/%d/%Y %H:%M:%S" : "%m/%d/%Y";
  const match = (withTime ? DATE_TIME : DATE).exec(value);
  if (!match) throw new PyException(`time data ${JSON.stringify(value).replace(/^"|"$/g, "'")} does not match format '${format}'`, "ValueError");
  const [month, day, year] = [Number(match[1]), Number(match[2].trim()), Number(match[3])];
  const time = Date.UTC(year, month - 1, day, Number(match[4] ?? 0), Number(match[5] ?? 0), Number(match[6] ?? 0));
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) throw new PyException("day is out of range for month", "ValueError");
  return time;
}

/** `get_now()` as milliseconds (naive UTC). */
export const NOW_MS = Date.UTC(2025, 10, 14, 3, 40, 0);

/** `(get_now() - strptime(text, "%m/%d/%Y")).days`. */
export function daysSince(value: PyValue): number {
  return Math.floor((NOW_MS - strptime(value, false)) / 86_400_000);
}

/** `datetime.min` as milliseconds: sorts before every parsed date. */
export const DATETIME_MIN = Number.NEGATIVE_INFINITY;
