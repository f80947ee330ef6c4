/**
 * Lists the string literals of τ² source functions with their positions, the way
 * `UpstreamMessages` (src/suites/tau2/engine/upstream-messages.ts) addresses them. For writing a domain's
 * message table: `npx tsx scripts/dev/list-upstream-literals.ts <file.py> [Class.method ...]`.
 */
import { readFileSync } from "node:fs";
import { stringLiteralsOf } from "../../src/data/python-source/strings.ts";
import { PythonSourceFile } from "../../src/data/python-source/syntax.ts";

const [path, ...names] = process.argv.slice(2);
if (!path) throw new Error("usage: list-upstream-literals.ts <file.py> [Class.method ...]");
const file = new PythonSourceFile(readFileSync(path, "utf8"), path);
const functions = [
  ...file.functions().map((definition) => ({ name: definition.name, definition })),
  ...file.classes().flatMap((owner) => owner.methods.map((definition) => ({ name: `${owner.name}.${definition.name}`, definition }))),
];
for (const { name, definition } of functions) {
  if (names.length > 0 && !names.includes(name)) continue;
  const literals = stringLiteralsOf(file, definition);
  if (literals.length === 0) continue;
  process.stdout.write(`## ${name}\n`);
  literals.forEach((literal, index) => {
    const text = literal.map((part) => ("text" in part ? part.text : `{${part.expression}${part.conversion ? `!${part.conversion}` : ""}${part.formatSpec ? `:${part.formatSpec}` : ""}}`)).join("");
    process.stdout.write(`  ${index}: ${JSON.stringify(text)}\n`);
  });
}
