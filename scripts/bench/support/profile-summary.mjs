// Summarises a V8 CPU profile (`node --cpu-prof`, e.g. from `scale.ts --cpu-prof <dir>`): the busy
// time (everything but `(idle)`), its share per area (garbage collection, node_modules packages,
// the project's folders, Node's own code) and the functions with the most self time.
//
//   node scripts/bench/support/profile-summary.mjs <file.cpuprofile> [top=30]
import { readFileSync } from "node:fs";

const [file, topArgument] = process.argv.slice(2);
if (!file) {
  console.error("usage: profile-summary.mjs <file.cpuprofile> [top]");
  process.exit(2);
}
const top = Number(topArgument ?? 30);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
// `TAUBRIDGE_PROFILE_FROM=<function>`: only the samples from the first one with that function on
// its stack (e.g. `postChat`: the steady state after start-up, loading and the first episodes' set-up).
const from = process.env.TAUBRIDGE_PROFILE_FROM;
let firstSample = 0;
if (from) {
  const onStack = (id) => {
    for (let at = id; at !== undefined; at = parentOf.get(at)) if (byId.get(at).callFrame.functionName === from) return true;
    return false;
  };
  firstSample = profile.samples.findIndex(onStack);
  if (firstSample < 0) firstSample = 0;
}
const selfMicros = new Map();
for (let index = firstSample; index < profile.samples.length; index++) {
  const id = profile.samples[index];
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
}

/** The area a frame's code belongs to. */
function area(callFrame) {
  const { url, functionName } = callFrame;
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packageMatch) return `pkg:${packageMatch[1]}`;
  if (url.startsWith("node:")) return "node-internal";
  const projectMatch = /\/(dist\/)?((?:src|app|domains)\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  return projectMatch ? projectMatch[2] : url;
}

const perArea = new Map();
const perFunction = new Map();
let total = 0;
let idle = 0;
for (const [id, micros] of selfMicros) {
  const { callFrame } = byId.get(id);
  total += micros;
  if (callFrame.functionName === "(idle)") {
    idle += micros;
    continue;
  }
  const where = area(callFrame);
  perArea.set(where, (perArea.get(where) ?? 0) + micros);
  const name = `${callFrame.functionName || "(anonymous)"} ${callFrame.url.replace(/^.*\/(node_modules|dist|src)\//, "$1/")}:${callFrame.lineNumber + 1}`;
  perFunction.set(name, (perFunction.get(name) ?? 0) + micros);
}
const busy = total - idle;
const rows = (map, limit = top) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, micros]) => `${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`);
console.log(`profile ${file}: ${(total / 1e6).toFixed(2)} s sampled, busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s`);
console.log("\nby area (self time, % of busy):");
console.log(rows(perArea).join("\n"));
console.log("\nby function (self time, % of busy):");
console.log(rows(perFunction).join("\n"));

// `TAUBRIDGE_PROFILE_CALLERS=name1,name2`: for each, the call stacks (3 frames up) with the most self time in it.
const wanted = (process.env.TAUBRIDGE_PROFILE_CALLERS ?? "").split(",").filter(Boolean);
if (wanted.length > 0) {
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (node) => `${node.callFrame.functionName || "(anonymous)"}@${node.callFrame.url.replace(/^.*\/(node_modules|dist|src)\//, "")}:${node.callFrame.lineNumber + 1}`;
  for (const name of wanted) {
    const stacks = new Map();
    for (const [id, micros] of selfMicros) {
      const node = byId.get(id);
      if (node.callFrame.functionName !== name) continue;
      const chain = [];
      for (let at = parent.get(id); at !== undefined && chain.length < Number(process.env.TAUBRIDGE_PROFILE_DEPTH ?? 4); at = parent.get(at)) chain.push(label(byId.get(at)));
      const key = chain.join(" < ");
      stacks.set(key, (stacks.get(key) ?? 0) + micros);
    }
    console.log(`\ncallers of ${name}:`);
    console.log(rows(stacks, 8).join("\n"));
  }
}

// `TAUBRIDGE_PROFILE_INCLUSIVE=name1,name2`: the time with each function anywhere on the stack (counted once per sample).
const inclusive = (process.env.TAUBRIDGE_PROFILE_INCLUSIVE ?? "").split(",").filter(Boolean);
if (inclusive.length > 0) {
  const totals = new Map(inclusive.map((name) => [name, 0]));
  for (const [id, micros] of selfMicros) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const name = byId.get(at).callFrame.functionName;
      if (totals.has(name) && !seen.has(name)) {
        seen.add(name);
        totals.set(name, totals.get(name) + micros);
      }
    }
  }
  console.log("\ninclusive (% of busy):");
  console.log(rows(totals, inclusive.length).join("\n"));
}
