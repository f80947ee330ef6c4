/**
 * String-valued Python expressions as prompt sources write them: literals of every quote form,
 * implicit and `+` concatenation, `.strip()` / `.lstrip()` / `.rstrip()`, f-strings (kept as
 * templates or filled from known names), and `str.format` with named fields.
 *
 * Why: prompt templates are module constants or f-strings inside functions; the project keeps
 * them as templates read from the source and fills them exactly as Python would.
 */
import { PythonSourceError } from "./modules.ts";
import type { FStringPart, PyBlock, PyExpr, PyFunctionDef, PythonSourceFile } from "./syntax.ts";

/** A string template: literal text and replacement fields (f-string fields keep their expression source). */
export type StringTemplate = readonly FStringPart[];

/** Python's `str.isspace()` characters (what `.strip()` removes): JS `\s` plus the separators 0x1c–0x1f and 0x85. */
function isPythonSpace(char: string): boolean {
  const code = char.charCodeAt(0);
  return /\s/.test(char) || (code >= 0x1c && code <= 0x1f) || code === 0x85;
}

function strip(text: string, which: "lstrip" | "rstrip"): string {
  let start = 0;
  let end = text.length;
  if (which === "lstrip") while (start < end && isPythonSpace(text[start])) start++;
  else while (end > start && isPythonSpace(text[end - 1])) end--;
  return text.slice(start, end);
}

/**
 * The template an expression builds: string literals, f-strings, `+` of those, and
 * `.strip()`-family calls (applied to the literal edges; an f-string with a field at a stripped edge
 * is an error, since its value is unknown here).
 */
export function stringTemplateOf(file: PythonSourceFile, expression: PyExpr): StringTemplate {
  switch (expression.kind) {
    case "constant":
      if (typeof expression.value === "string") return [{ text: expression.value }];
      break;
    case "fstring":
      return expression.parts;
    case "binary":
      if (expression.operator === "+") return joinParts([...stringTemplateOf(file, expression.left), ...stringTemplateOf(file, expression.right)]);
      break;
    case "call": {
      const callee = expression.callee;
      if (callee.kind === "attribute" && (callee.name === "strip" || callee.name === "lstrip" || callee.name === "rstrip") && expression.positional.length === 0 && expression.keywords.length === 0) {
        return stripTemplate(file, expression, stringTemplateOf(file, callee.object), callee.name);
      }
      break;
    }
    default:
      break;
  }
  return file.fail(expression.start, "expected a string expression (literals, f-strings, '+', .strip())");
}

function joinParts(parts: readonly FStringPart[]): FStringPart[] {
  const joined: FStringPart[] = [];
  for (const part of parts) {
    const last = joined.at(-1);
    if ("text" in part && last && "text" in last) joined[joined.length - 1] = { text: last.text + part.text };
    else joined.push(part);
  }
  return joined;
}

function stripTemplate(file: PythonSourceFile, expression: PyExpr, parts: StringTemplate, which: "strip" | "lstrip" | "rstrip"): StringTemplate {
  const result = [...parts];
  if (which !== "rstrip" && result.length > 0) {
    const first = result[0];
    if (!("text" in first)) file.fail(expression.start, "cannot strip a template that starts with a field");
    result[0] = { text: strip(first.text, "lstrip") };
  }
  if (which !== "lstrip" && result.length > 0) {
    const last = result[result.length - 1];
    if (!("text" in last)) file.fail(expression.start, "cannot strip a template that ends with a field");
    result[result.length - 1] = { text: strip(last.text, "rstrip") };
  }
  return result;
}

/** The plain string an expression evaluates to; f-string fields must be names given in `names`. */
export function stringValueOf(file: PythonSourceFile, expression: PyExpr, names: Readonly<Record<string, string>> = {}): string {
  return fillTemplate(stringTemplateOf(file, expression), (field) => {
    if (!Object.hasOwn(names, field.expression) || field.conversion || field.formatSpec) {
      file.fail(expression.start, `f-string field {${field.expression}} has no known value here`);
    }
    return names[field.expression];
  });
}

/** Fills a template's fields with `valueOf(field)`. */
export function fillTemplate(template: StringTemplate, valueOf: (field: Exclude<FStringPart, { text: string }>) => string): string {
  return template.map((part) => ("text" in part ? part.text : valueOf(part))).join("");
}

/** The fields of a template, in order. */
export function templateFields(template: StringTemplate): Exclude<FStringPart, { text: string }>[] {
  return template.filter((part): part is Exclude<FStringPart, { text: string }> => !("text" in part));
}

/**
 * Python's `template.format(**values)` for named fields: `{name}` is replaced, `{{`/`}}` are
 * braces. A field that is not in `values`, or positional/attribute/format-spec fields, are a
 * {@link PythonSourceError} (Python would raise too), so a template change cannot go unnoticed.
 */
export function pythonFormat(template: string, values: Readonly<Record<string, string>>, what = "template"): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (whole, field: string | undefined) => {
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    if (field === undefined || !/^[A-Za-z_]\w*$/.test(field) || !Object.hasOwn(values, field)) {
      throw new PythonSourceError(`${what}: unsupported or unknown format field {${field ?? ""}}`);
    }
    return values[field];
  });
}

/** The named fields `{name}` of a `str.format` template, in order of first use. */
export function formatFields(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(/\{\{|\}\}|\{([^{}]*)\}/g)) if (match[1] !== undefined && !names.includes(match[1])) names.push(match[1]);
  return names;
}

/**
 * Every string literal in a function's body, in source order, as templates: adjacent literals
 * joined as Python joins them, f-strings with their fields, the docstring left out. Why: τ²'s tools
 * word their results and errors in literals inside the methods; a domain reads them from here by
 * position instead of writing the original's sentences again.
 */
export function stringLiteralsOf(file: PythonSourceFile, definition: PyFunctionDef): StringTemplate[] {
  const literals: StringTemplate[] = [];
  const body = file.docstringOf(definition.body) === undefined ? definition.body : definition.body.slice(1);
  const visit = (blocks: readonly PyBlock[]): void => {
    for (const block of blocks) {
      let index = block.line.start;
      while (index < block.line.end) {
        if (file.tokens[index].type !== "string") {
          index++;
          continue;
        }
        const start = index;
        while (index < block.line.end && file.tokens[index].type === "string") index++;
        literals.push(stringTemplateOf(file, file.expressionIn(start, index)));
      }
      visit(block.children);
    }
  };
  visit(body);
  return literals;
}
