import { resolve, sep } from "node:path";
import type { RunFacets } from "../core/suite.ts";

/**
 * Row labels for several results files in one table: the file name without `.json`, with as many of
 * its last folders as it takes to tell the files apart, numbered (`[1] …`) so each footer can say
 * which row it belongs to. One file keeps its plain name.
 */
export function resultsLabels(paths: readonly string[]): string[] {
  const parts = paths.map((path) => resolve(path).split(sep).filter(Boolean));
  const name = (index: number, depth: number) =>
    parts[index]
      .slice(-1 - depth)
      .join("/")
      .replace(/\.json$/, "");
  if (paths.length === 1) return [name(0, 0)];
  return paths.map((_, index) => {
    let depth = 0;
    const clashes = () => paths.some((__, other) => other !== index && name(other, depth) === name(index, depth));
    while (depth < parts[index].length - 1 && clashes()) depth++;
    return `[${index + 1}] ${name(index, depth)}`;
  });
}

/**
 * A run's title as the run's own report prints it: `tool-calling (gpt-4o) on retail/test`, and the
 * retrieval variant of a τ³ banking_knowledge run (`… on banking_knowledge with bm25`).
 */
export function runTitle(facets: RunFacets): string {
  const retrieval = facets.retrieval ? ` with ${facets.retrieval}` : "";
  return `${facets.agent ?? "?"} (${facets.model ?? "model unknown"}) on ${facets.domain ?? "?"}${retrieval}`;
}

/** The facets in the order a label names them. */
const FACET_ORDER = ["suite", "domain", "retrieval", "agent", "model", "user"] as const;

function facetValue(facets: RunFacets, name: (typeof FACET_ORDER)[number]): string | null {
  return facets[name] ?? null;
}

/** `name=value, …` for the given facets. */
function facetText(facets: RunFacets, names: readonly (typeof FACET_ORDER)[number][]): string {
  return names.map((name) => `${name}=${facetValue(facets, name) ?? "?"}`).join(", ");
}

/**
 * Row labels for a report over several results files: each row is named by the facets in which
 * the files differ (`[1] model=gpt-4o, user=llm (gpt-4o)`), and `shared` says once what every row
 * has in common. When a file does not record what ran (the originals' files) or the files differ in
 * nothing recorded (one run copied twice), rows are told apart by their paths
 * ({@link resultsLabels}); a row whose facets repeat another's gets its path too. One file: its
 * run's title.
 */
export function reportRowLabels(files: ReadonlyArray<{ path: string; title: string; facets?: RunFacets | null }>): { labels: string[]; shared: string | null } {
  const pathLabels = resultsLabels(files.map((file) => file.path));
  const facets = files.map((file) => file.facets ?? null);
  if (files.length === 1) return { labels: [facets[0] ? runTitle(facets[0]) : files[0].title !== files[0].path ? files[0].title : pathLabels[0]], shared: null };
  if (facets.some((entry) => entry === null)) return { labels: pathLabels, shared: null };
  const known = facets as RunFacets[];
  const present = FACET_ORDER.filter((name) => known.some((entry) => facetValue(entry, name) !== null));
  const differing = present.filter((name) => new Set(known.map((entry) => facetValue(entry, name))).size > 1);
  const common = present.filter((name) => !differing.includes(name));
  const shared = common.length > 0 ? facetText(known[0], common) : null;
  if (differing.length === 0) return { labels: pathLabels, shared };
  const texts = known.map((entry) => facetText(entry, differing));
  const labels = texts.map((text, index) => {
    const repeated = texts.some((other, otherIndex) => otherIndex !== index && other === text);
    return `[${index + 1}] ${text}${repeated ? ` (${pathLabels[index].replace(/^\[\d+\] /, "")})` : ""}`;
  });
  return { labels, shared };
}
