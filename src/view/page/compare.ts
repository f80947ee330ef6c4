/** Several runs side by side on the same tasks: the paired comparison (`compareRuns`) and per-task cells, differences highlighted. */
import type { PageData, PageEpisode } from "../view-model.ts";
import { fmt, h, rewardColour } from "./dom.ts";
import { passKPlot, RUN_COLOURS } from "./plot.ts";
import type { PageState } from "./state.ts";
import { type Navigate, table } from "./summary.ts";

const signed = (value: number | null) => (value === null ? "n/a" : `${value >= 0 ? "+" : ""}${value.toFixed(3)}`);

/** The compare view. */
export function compareView(data: PageData, state: PageState, navigate: Navigate): HTMLElement {
  const comparison = data.comparison;
  if (!comparison) return h("section", { "data-testid": "compare" }, h("p", {}, "Give taubridge view two or more results files to compare them."));
  const rows = comparison.candidates.map((candidate) => {
    const c = candidate.comparison;
    return [
      candidate.label,
      `${fmt(c.baselinePassRate)} → ${fmt(c.candidatePassRate)}`,
      signed(c.difference),
      c.low === null ? "n/a" : `[${signed(c.low)}, ${signed(c.high)}]`,
      c.pValue === null ? "n/a" : c.pValue.toPrecision(3),
      h("span", { class: `verdict ${c.verdict.replace(" ", "-")}`, "data-testid": "verdict" }, c.verdict),
      String(c.pairedTasks),
      candidate.differences === null ? "manifests not recorded" : candidate.differences.length === 0 ? "only the agent" : candidate.differences.map((difference) => difference.field).join(", "),
    ];
  });
  const runs = data.runs;
  const byRun = runs.map((run) => {
    const tasks = new Map<string, PageEpisode[]>();
    for (const episode of run.episodes) {
      const key = `${episode.domain ?? ""}\u0000${episode.taskId}`;
      const list = tasks.get(key) ?? [];
      list.push(episode);
      tasks.set(key, list);
    }
    return tasks;
  });
  const taskKeys = [...new Set(byRun.flatMap((tasks) => [...tasks.keys()]))];
  const rate = (list: readonly PageEpisode[] | undefined) => {
    const scored = (list ?? []).filter((episode) => episode.termination !== "infra_error");
    return scored.length === 0 ? null : scored.filter((episode) => Math.abs(episode.reward - 1) <= 1e-6).length / scored.length;
  };
  const onlyDiffering = state.filters.reward === "differs";
  const taskRows = taskKeys
    .map((key) => {
      const rates = byRun.map((tasks) => rate(tasks.get(key)));
      const known = rates.filter((value): value is number => value !== null);
      const differs = known.length > 1 && Math.max(...known) !== Math.min(...known);
      return { key, rates, differs };
    })
    .filter((row) => !onlyDiffering || row.differs);
  return h(
    "section",
    { "data-testid": "compare" },
    h("h2", {}, `${runs.length} runs side by side (baseline: ${comparison.baseline.label})`),
    passKPlot(runs.map((run) => ({ label: run.label, statistics: run.statistics, colour: RUN_COLOURS[run.index % RUN_COLOURS.length] }))),
    h("h3", {}, "Paired comparison against the baseline"),
    table(
      ["Candidate", "Pass rate", "Difference", `${Math.round((1 - (comparison.candidates[0]?.comparison.alpha ?? 0.05)) * 100)}% CI`, "Sign-flip p", "Verdict", "Paired tasks", "Runs differ in"],
      rows,
      "comparison-table",
    ),
    h(
      "label",
      {},
      h("input", {
        type: "checkbox",
        "data-testid": "only-differing",
        checked: onlyDiffering,
        onchange: (event: Event) => navigate({ filters: { ...state.filters, reward: (event.target as HTMLInputElement).checked ? "differs" : undefined } }),
      }),
      " only tasks where the runs differ",
    ),
    h(
      "table",
      { class: "compare-tasks", "data-testid": "compare-tasks" },
      h("thead", {}, h("tr", {}, h("th", {}, "Task"), ...runs.map((run) => h("th", {}, run.label)))),
      h(
        "tbody",
        {},
        ...taskRows.map((row) =>
          h(
            "tr",
            { class: row.differs ? "differs" : "", "data-testid": "compare-row", "data-differs": row.differs ? "yes" : "no" },
            h("td", {}, row.key.split("\u0000")[1]),
            ...runs.map((run, runIndex) =>
              h(
                "td",
                {},
                ...(byRun[runIndex].get(row.key) ?? [])
                  .slice()
                  .sort((a, b) => a.trial - b.trial)
                  .map((episode) =>
                    h("button", {
                      class: "cell",
                      style: `background:${episode.termination === "infra_error" ? "#6c757d" : rewardColour(episode.reward)}`,
                      title: `${run.label}: trial ${episode.trial}, reward ${episode.reward}`,
                      onclick: () => navigate({ view: "episode", run: runIndex, episode: episode.key }),
                    }),
                  ),
                h("span", { class: "muted" }, ` ${fmt(row.rates[runIndex], 2)}`),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}
