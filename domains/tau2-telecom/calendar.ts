/**
 * The telecom domain's clock and the little `datetime.date` arithmetic its tools do. "Today" is
 * fixed (τ² `get_today()`: 2025-02-25, the scenario's "now" being 2025-02-25 12:08 EST), so every
 * date a tool writes is reproducible. Dates are ISO text, as the value model holds them.
 */

/** τ²'s `get_today()`. */
export const TODAY = "2025-02-25";

interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

function parse(iso: string): CalendarDate {
  const [year, month, day] = iso.split("-").map(Number);
  return { year, month, day };
}

function format(date: CalendarDate): string {
  const pad = (value: number, width: number) => String(value).padStart(width, "0");
  return `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}`;
}

/** `date(year, month, day)`. */
export function makeDate(year: number, month: number, day: number): string {
  return format({ year, month, day });
}

/** `date + timedelta(days=days)` (negative days subtract). */
export function addDays(iso: string, days: number): string {
  const { year, month, day } = parse(iso);
  const moved = new Date(Date.UTC(year, month - 1, day + days));
  return format({ year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() });
}

/** `date.replace(day=1)`. */
export function firstOfMonth(iso: string): string {
  return format({ ...parse(iso), day: 1 });
}

/** The parts of a date (`date.year`, `date.month`). */
export function dateParts(iso: string): CalendarDate {
  return parse(iso);
}
