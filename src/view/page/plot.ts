/**
 * The pass^k plot: pass^k against k for one or more runs, each with its bootstrap confidence band
 * (the analysis layer's intervals), drawn as SVG by hand (a line, points and a shaded band).
 */
import type { RunStatistics } from "../../analysis/statistics.ts";
import { h, s } from "./dom.ts";

export const RUN_COLOURS = ["#1f6feb", "#d6336c", "#2f9e44", "#f08c00", "#7048e8", "#0b7285"];

/** An SVG plot of pass^k (k = 1…max trials) with bands; `series` in run order. */
export function passKPlot(series: ReadonlyArray<{ label: string; statistics: RunStatistics; colour: string }>): HTMLElement {
  const width = 420;
  const height = 240;
  const margin = { left: 44, right: 16, top: 14, bottom: 36 };
  const maxK = Math.max(1, ...series.map((run) => run.statistics.trials));
  const x = (k: number) => margin.left + (maxK === 1 ? (width - margin.left - margin.right) / 2 : ((k - 1) / (maxK - 1)) * (width - margin.left - margin.right));
  const y = (value: number) => margin.top + (1 - value) * (height - margin.top - margin.bottom);
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": "pass^k against k with confidence bands", "data-testid": "passk-plot" });
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    svg.appendChild(s("line", { x1: margin.left, x2: width - margin.right, y1: y(tick), y2: y(tick), stroke: "#e3e6ea" }));
    svg.appendChild(s("text", { x: margin.left - 6, y: y(tick) + 4, "text-anchor": "end", "font-size": 11, fill: "#555" }, tick.toFixed(2)));
  }
  for (let k = 1; k <= maxK; k++) svg.appendChild(s("text", { x: x(k), y: height - margin.bottom + 16, "text-anchor": "middle", "font-size": 11, fill: "#555" }, String(k)));
  svg.appendChild(s("text", { x: (margin.left + width - margin.right) / 2, y: height - 4, "text-anchor": "middle", "font-size": 12, fill: "#333" }, "k (trials that must all pass)"));
  svg.appendChild(
    s(
      "text",
      {
        x: 12,
        y: margin.top + (height - margin.top - margin.bottom) / 2,
        "text-anchor": "middle",
        "font-size": 12,
        fill: "#333",
        transform: `rotate(-90 12 ${margin.top + (height - margin.top - margin.bottom) / 2})`,
      },
      "pass^k",
    ),
  );
  for (const run of series) {
    const points = Object.entries(run.statistics.passK)
      .map(([k, estimate]) => ({ k: Number(k), ...estimate }))
      .filter((point) => point.value !== null)
      .sort((a, b) => a.k - b.k);
    const banded = points.filter((point) => point.low !== null && point.high !== null);
    if (banded.length > 0) {
      const upper = banded.map((point) => `${x(point.k)},${y(point.high as number)}`);
      const lower = banded.map((point) => `${x(point.k)},${y(point.low as number)}`).reverse();
      const band = banded.length === 1 ? bandOfOne(banded[0], x, y) : [...upper, ...lower].join(" ");
      svg.appendChild(s("polygon", { points: band, fill: run.colour, "fill-opacity": 0.15, stroke: "none", "data-testid": "passk-band" }));
    }
    if (points.length > 1)
      svg.appendChild(s("polyline", { points: points.map((point) => `${x(point.k)},${y(point.value as number)}`).join(" "), fill: "none", stroke: run.colour, "stroke-width": 2 }));
    for (const point of points)
      svg.appendChild(
        s(
          "circle",
          { cx: x(point.k), cy: y(point.value as number), r: 4, fill: run.colour, "data-k": point.k, "data-value": (point.value as number).toFixed(4) },
          s("title", {}, `${run.label}: pass^${point.k} = ${(point.value as number).toFixed(3)}${point.low !== null ? ` [${point.low.toFixed(3)}, ${(point.high as number).toFixed(3)}]` : ""}`),
        ),
      );
  }
  const legend = h("div", { class: "legend" }, ...series.map((run) => h("span", { class: "legend-item" }, h("span", { class: "swatch", style: `background:${run.colour}` }), run.label)));
  return h(
    "figure",
    { class: "plot" },
    svg as unknown as Node,
    legend,
    h("figcaption", {}, `Shaded: ${Math.round((series[0]?.statistics.confidence ?? 0.95) * 100)}% bootstrap interval over tasks and trials.`),
  );
}

/** A band for a single k: a narrow rectangle. */
function bandOfOne(point: { k: number; low: number | null; high: number | null }, x: (k: number) => number, y: (v: number) => number): string {
  const left = x(point.k) - 8;
  const right = x(point.k) + 8;
  return `${left},${y(point.high as number)} ${right},${y(point.high as number)} ${right},${y(point.low as number)} ${left},${y(point.low as number)}`;
}
