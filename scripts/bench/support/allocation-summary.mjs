// Summarises an allocation profile (`allocation-profile.mjs`, or any `.heapprofile`): bytes allocated
// by function (self), and with each project function on the stack (inclusive), as shares of all bytes
// sampled.
//
//   node scripts/bench/support/allocation-summary.mjs <file.heapprofile> [top=30]
import { readFileSync } from "node:fs";

const [file, topArgument] = process.argv.slice(2);
if (!file) {
  console.error("usage: allocation-summary.mjs <file.heapprofile> [top]");
  process.exit(2);
}
const top = Number(topArgument ?? 30);
const profile = JSON.parse(readFileSync(file, "utf8"));
const name = (frame) => `${frame.functionName || "(anonymous)"} ${frame.url.replace(/.*\/(dist|node_modules)\//, "$1/")}:${frame.lineNumber + 1}`;
const self = new Map();
const inclusive = new Map();
let total = 0;
const stack = [];
(function visit(node) {
  const key = name(node.callFrame);
  const size = node.selfSize ?? 0;
  total += size;
  self.set(key, (self.get(key) ?? 0) + size);
  stack.push(key);
  if (size > 0) for (const each of new Set(stack)) inclusive.set(each, (inclusive.get(each) ?? 0) + size);
  for (const child of node.children ?? []) visit(child);
  stack.pop();
})(profile.head);
const share = (bytes) => `${((100 * bytes) / total).toFixed(1).padStart(5)}%`;
const rows = (map, keep) =>
  [...map]
    .filter(([key]) => keep(key))
    .sort((left, right) => right[1] - left[1])
    .slice(0, top)
    .map(([key, bytes]) => `${share(bytes)} ${(bytes / 1e6).toFixed(1).padStart(8)} MB  ${key}`)
    .join("\n");
console.log(`${file}: ${(total / 1e6).toFixed(1)} MB sampled\n\nby function (self, % of all bytes):\n${rows(self, () => true)}`);
console.log(`\nproject functions (inclusive):\n${rows(inclusive, (key) => /(^|\s)dist\/|\/src\//.test(key))}`);
