// The import rules of the repository, checked in `npm test` (`npm run depcheck`):
// 1. the per-module rules of .dependency-cruiser.cjs (layers, no file-level cycles, published code
//    never importing tests), reported the way `depcruise` reports them;
// 2. no folder-level cycles: folders (src/<layer>, src/suites/<suite>, and the top-level folders)
//    form a graph whose arrows all point one way. dependency-cruiser checks cycles between
//    modules only, so this script collapses its module graph into folders and looks for cycles.
// Usage: node scripts/check-dependencies.mjs   (exit 1 with every violation listed)
import { createRequire } from "node:module";
import { cruise } from "dependency-cruiser";

const require = createRequire(import.meta.url);
const config = require("../.dependency-cruiser.cjs");
const ROOTS = ["app", "src", "bridge", "adapters", "domains"];

/** The folder a module belongs to: src/suites/<suite>, src/<layer>, or the top-level folder. */
export function folderOf(path) {
  const parts = path.split("/");
  if (parts[0] === "src" && parts[1] === "suites" && parts.length > 3) return `src/suites/${parts[2]}`;
  if (parts[0] === "src" && parts.length > 2) return `src/${parts[1]}`;
  return parts.length > 1 ? parts[0] : ".";
}

/** Folder → folder edges with one example import each. */
function folderGraph(modules) {
  const edges = new Map();
  for (const module of modules) {
    if (module.source.includes("node_modules")) continue;
    for (const dependency of module.dependencies) {
      if (dependency.coreModule || dependency.resolved.includes("node_modules")) continue;
      const from = folderOf(module.source);
      const to = folderOf(dependency.resolved);
      if (from === to) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from).has(to)) edges.get(from).set(to, `${module.source} → ${dependency.resolved}`);
    }
  }
  return edges;
}

/** Strongly connected components with more than one folder (Tarjan). */
function folderCycles(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  let counter = 0;
  const visit = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    for (let member = stack.pop(); ; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

const result = await cruise(ROOTS, { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } });
const { modules, summary } = result.output;
const problems = summary.violations.map(
  (violation) =>
    `${violation.rule.severity} ${violation.rule.name}: ${violation.from} → ${violation.to}${violation.cycle ? ` (cycle: ${violation.cycle.map((step) => step.name ?? step).join(" → ")})` : ""}`,
);
const edges = folderGraph(modules);
for (const cycle of folderCycles(edges)) {
  const arrows = cycle.flatMap((from) => cycle.filter((to) => edges.get(from)?.has(to)).map((to) => `    ${from} → ${to}: ${edges.get(from).get(to)}`));
  problems.push(`error no-folder-cycles: ${cycle.join(", ")} import each other:\n${arrows.join("\n")}`);
}
if (problems.length > 0) {
  process.stderr.write(`${problems.join("\n")}\n\n✘ ${problems.length} dependency violation(s)\n`);
  process.exit(1);
}
process.stdout.write(`✔ no dependency violations, no folder-level cycles (${modules.length} modules, ${edges.size} folders with outgoing imports)\n`);
