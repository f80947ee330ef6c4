/**
 * Tables of the analysis commands: box drawing on a terminal (cli-table3, as `report`), Markdown
 * for pull-request comments and `$GITHUB_STEP_SUMMARY`. No colour codes.
 */
import Table from "cli-table3";

/** A table as text (box drawing) or Markdown (a pipe table; `|` in cells escaped). */
export function renderTable(head: readonly string[], rows: ReadonlyArray<readonly string[]>, format: "text" | "markdown"): string {
  if (format === "markdown") {
    const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replaceAll("|", "\\|").replaceAll("\n", " ")).join(" | ")} |`;
    return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
  }
  const table = new Table({ head: [...head], style: { head: [], border: [] } });
  table.push(...rows.map((row) => [...row]));
  return table.toString();
}

/** A number with fixed digits, `n/a` for null. */
export function formatNumber(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(digits);
}
