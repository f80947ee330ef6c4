// Writes the classic-script form of the CLI bundle (dist/cli/classic/), which bin/taubridge.js runs
// on a Node.js without `module.enableCompileCache` (Node 20, 22.0) through `bin/code-cache.js`, so
// that a second start reuses V8's compiled code (a `vm.Script` code cache) as Node 22.1+ does for
// the ES modules of dist/cli/. Why: a τ² telecom run's main thread spends ~10% of its instructions
// compiling on Node 20, and Node 20 gives no way to hand V8 a code cache for an ES module
// (docs/benchmarks.md, "Node 20's missing compile cache").
//
// Each output file of the ESM bundle becomes one function `(exports, require, module,
// __taubridgeImportMeta, __taubridgeImport, __taubridgeDone) => …`, transformed by esbuild from the
// chunk as it is (same code, same order), with:
// - the bundle's `require` banner dropped: the loader's `require` is the chunk's `createRequire`
//   for anything but the chunks and the external packages imported statically;
// - static imports of chunks and of external packages as `require` calls the loader answers: a
//   chunk from the classic form, an external package with the namespace of its ES module, which
//   the loader imports (`import()`, so the same copy the ESM bundle and the frameworks load) before
//   the chunk runs (`manifest.json` lists, per chunk, every external its static imports reach);
// - every `import(…)` as `__taubridgeImport(…)`: the loader's for a chunk, else Node's own `import()`
//   from dist/cli/ (the chunk's folder), through `classic-host.js`;
// - `import.meta` as the chunk's own (`url` of its ESM file, `resolve` from dist/cli/);
// - the entry's one top-level `await main(…)` as `__taubridgeDone(main(…))`.
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { transform } from "esbuild";
import ts from "typescript";

/** The entry's top-level await (app/cli.ts), the only one a classic script cannot have. */
const TOP_LEVEL_AWAIT = /\nawait (main\([^\n]*\));\n*$/;

/**
 * Writes dist/cli/classic/ from the ESM bundle esbuild wrote to `outdir` (its `metafile`).
 * `banner` is the bundle's banner, dropped from each chunk. Throws when a chunk does not fit the
 * form (an external both imported and `require`d, another top-level await), which fails the build.
 */
export async function writeClassicForm({ outdir, metafile, banner, cwd }) {
  const chunks = chunkGraph(metafile, cwd);
  const folder = join(outdir, "classic");
  await mkdir(folder, { recursive: true });
  const hash = createHash("sha256");
  const manifest = { id: "", chunks: {} };
  for (const name of [...chunks.keys()].sort()) {
    const { code, live } = await classicSource(join(outdir, name), banner, name === "cli.js");
    await writeFile(join(folder, name), code);
    hash.update(name).update("\0").update(code).update("\0");
    manifest.chunks[name] = { preload: preloadsOf(name, chunks), live };
  }
  manifest.id = hash.digest("hex").slice(0, 32);
  await writeFile(join(folder, "manifest.json"), `${JSON.stringify(manifest)}\n`);
  // `import.meta.resolve` and `import()` answered from dist/cli/, the chunks' own folder.
  await writeFile(
    join(outdir, "classic-host.js"),
    "export const resolve = (specifier) => import.meta.resolve(specifier);\nexport const importModule = (specifier, options) => import(specifier, options);\n",
  );
}

/** Per output file of the bundle: the chunks it imports statically and the external packages it imports statically. */
function chunkGraph(metafile, cwd) {
  const chunks = new Map();
  const required = new Set();
  const imported = new Set();
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (!path.endsWith(".js")) continue;
    const statics = [];
    const externals = [];
    for (const record of output.imports) {
      if (record.path.startsWith("node:")) continue;
      if (record.kind === "require-call" && record.external) required.add(record.path);
      if (record.kind !== "import-statement") continue;
      if (record.external) {
        externals.push(record.path);
        imported.add(record.path);
      } else statics.push(basename(join(cwd, record.path)));
    }
    chunks.set(basename(path), { statics, externals });
  }
  const both = [...imported].filter((name) => required.has(name));
  if (both.length > 0) throw new Error(`classic form: ${both.join(", ")} both imported and required by the bundle; the loader could not tell the two apart`);
  return chunks;
}

/** The external packages `name`'s static imports reach, in the order an ES module graph evaluates them. */
function preloadsOf(name, chunks) {
  const seen = new Set();
  const order = [];
  const visit = (chunk) => {
    if (seen.has(chunk)) return;
    seen.add(chunk);
    const { statics, externals } = chunks.get(chunk);
    for (const dependency of statics) visit(dependency);
    for (const external of externals) if (!order.includes(external)) order.push(external);
  };
  visit(name);
  return order;
}

/** The classic-script function of one ESM output file, and its exports that can change after it has run ({@link liveExports}). */
async function classicSource(path, banner, entry) {
  let text = await readFile(path, "utf8");
  if (text.startsWith(banner)) text = text.slice(banner.length);
  if (entry) {
    const last = TOP_LEVEL_AWAIT.exec(text);
    if (!last || text.split("\nawait ").length !== 2) throw new Error("classic form: the entry's one top-level await (its last statement, `await main(…);`) is not there");
    text = `${text.slice(0, last.index)}\n__taubridgeDone(${last[1]});\n`;
  }
  const live = liveExports(text, path);
  text = withLoaderImports(text, path);
  const { code } = await transform(text, { format: "cjs", platform: "node", target: "node20", loader: "js", logLevel: "error" });
  return { code: `(function (exports, require, module, __taubridgeImportMeta, __taubridgeImport, __taubridgeDone) {"use strict";\n${code}\n})`, live };
}

/**
 * The names a chunk exports whose binding is assigned anywhere but its declaration (`x = …`,
 * `x += …`, `x++`, a destructuring target, a `for (x of …)`), found by parsing. Why: esbuild's
 * CommonJS form reads every export through two getters (`() => from[key]`, a load V8 sees with
 * every key, then `() => x`), ~1.5% of a 1,000-simulation run's main thread on Node 20; the loader
 * replaces them by the values once the chunk has run (`bin/code-cache.js`), which is what an ES
 * module's import reads for a binding nothing assigns again. These live ones keep their getters.
 * A name assigned in any scope counts (an inner variable of the same name too): a false "live"
 * only keeps a getter.
 */
export function liveExports(text, path) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const exported = new Map();
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement) || statement.moduleSpecifier || !statement.exportClause || !ts.isNamedExports(statement.exportClause)) continue;
    for (const element of statement.exportClause.elements) exported.set(element.name.text, (element.propertyName ?? element.name).text);
  }
  const assigned = new Set();
  const target = (node) => {
    if (ts.isIdentifier(node)) assigned.add(node.text);
    else if (ts.isParenthesizedExpression(node)) target(node.expression);
    else if (ts.isArrayLiteralExpression(node)) for (const element of node.elements) target(ts.isSpreadElement(element) ? element.expression : element);
    else if (ts.isObjectLiteralExpression(node)) {
      for (const property of node.properties) {
        if (ts.isShorthandPropertyAssignment(property)) assigned.add(property.name.text);
        else if (ts.isPropertyAssignment(property)) target(property.initializer);
        else if (ts.isSpreadAssignment(property)) target(property.expression);
      }
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) target(node.left);
  };
  const visit = (node) => {
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) target(node.left);
    else if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken))
      target(node.operand);
    else if ((ts.isForOfStatement(node) || ts.isForInStatement(node)) && !ts.isVariableDeclarationList(node.initializer)) target(node.initializer);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...exported]
    .filter(([, local]) => assigned.has(local))
    .map(([name]) => name)
    .sort();
}

/**
 * `text` with every `import(…)` as `__taubridgeImport(…)` and every `import.meta` as
 * `__taubridgeImportMeta`, found by parsing (TypeScript's parser), so that neither is touched
 * inside a string. Why not leave `import()` to V8: Node 20 loses a `vm.Script`'s dynamic-import
 * callback for code compiled from a code cache ("A dynamic import callback was not specified"),
 * and `vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER` prints an experimental-feature warning.
 */
function withLoaderImports(text, path) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const edits = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) edits.push([node.expression.getStart(source), node.expression.end, "__taubridgeImport"]);
    else if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword) edits.push([node.getStart(source), node.end, "__taubridgeImportMeta"]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  let result = text;
  for (const [start, end, replacement] of edits.sort((a, b) => b[0] - a[0])) result = result.slice(0, start) + replacement + result.slice(end);
  return result;
}
