/**
 * Docstrings read the way τ²'s tools read them: `inspect.cleandoc`, then the `docstring_parser`
 * package's automatic style (`parse(text)`), which for the Google-style docstrings of the tool
 * methods yields a short description (first line), a long description (the rest before the first
 * section, stripped) and the `Args:` / `Returns:` / `Raises:` entries.
 *
 * Why here and exact: the short and long descriptions and each argument's description are what the
 * model sees as the tool's description and parameter descriptions, so they must come out byte for
 * byte as the original builds them.
 */
import { DataError, errorMarker } from "../../errors/error-tree.ts";

/** One `Args:` entry. */
export interface DocstringParam {
  name: string;
  /** The type written in parentheses (`name (int): ...`), if any. */
  typeName?: string;
  description: string;
}

/** A parsed docstring. */
export interface ParsedDocstring {
  shortDescription?: string;
  longDescription?: string;
  params: DocstringParam[];
  returns?: { typeName?: string; description: string };
  raises: { typeName?: string; description: string }[];
}

/** `inspect.cleandoc`: tabs expanded, common indentation of lines after the first removed, blank edges dropped. */
export function cleandoc(text: string): string {
  const lines = expandTabs(text).split("\n");
  let margin = Number.POSITIVE_INFINITY;
  for (const line of lines.slice(1)) {
    const content = line.replace(/^\s+/, "").length;
    if (content > 0) margin = Math.min(margin, line.length - content);
  }
  lines[0] = lines[0].replace(/^\s+/, "");
  if (margin < Number.POSITIVE_INFINITY) for (let index = 1; index < lines.length; index++) lines[index] = lines[index].slice(margin);
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n");
}

function expandTabs(text: string, size = 8): string {
  if (!text.includes("\t")) return text;
  return text
    .split("\n")
    .map((line) => {
      let out = "";
      for (const char of line) out += char === "\t" ? " ".repeat(size - (out.length % size)) : char;
      return out;
    })
    .join("\n");
}

type SectionKind = "param" | "raises" | "attribute" | "examples" | "returns" | "yields";
type SectionType = "multiple" | "singular" | "singular-or-multiple";
const SECTIONS: ReadonlyArray<[string, SectionKind, SectionType]> = [
  ["Arguments", "param", "multiple"],
  ["Args", "param", "multiple"],
  ["Parameters", "param", "multiple"],
  ["Params", "param", "multiple"],
  ["Raises", "raises", "multiple"],
  ["Exceptions", "raises", "multiple"],
  ["Except", "raises", "multiple"],
  ["Attributes", "attribute", "multiple"],
  ["Example", "examples", "singular"],
  ["Examples", "examples", "singular"],
  ["Returns", "returns", "singular-or-multiple"],
  ["Yields", "yields", "singular-or-multiple"],
];
const SECTION_BY_TITLE = new Map(SECTIONS.map(([title, kind, type]) => [title, { kind, type }]));
const TITLES = new RegExp(`^(${SECTIONS.map(([title]) => `(${title})`).join("|")}):[ \\t\\r\\f\\v]*$`, "gm");
const TYPED_ARG = /^\s*(.+?)\s*\(\s*(.*[^\s]+)\s*\)/;
const MULTIPLE = /^(\s*[^:\s]+:)|^([^:]*\]:.*)/;

/** A docstring the Google reader cannot read (`docstring_parser` raises `ParseError` there, then falls back to another style). */
export class DocstringSyntaxError extends DataError {
  static readonly marker: symbol = errorMarker("DocstringSyntaxError");
}

function splitDescription(chunk: string, result: ParsedDocstring): void {
  const newline = chunk.indexOf("\n");
  const first = newline < 0 ? chunk : chunk.slice(0, newline);
  result.shortDescription = first === "" ? undefined : first;
  if (newline >= 0) {
    const long = chunk.slice(newline + 1).trim();
    result.longDescription = long === "" ? undefined : long;
  }
}

/**
 * Parses a docstring as `docstring_parser.parse` does in its automatic mode for the styles τ²
 * uses: Google sections if present (they give the most entries), else just the descriptions.
 * ReST, Numpydoc and Epydoc fields are not read (τ²'s tools use none).
 */
export function parseDocstring(docstring: string | undefined): ParsedDocstring {
  const result: ParsedDocstring = { params: [], raises: [] };
  if (!docstring) return result;
  const text = cleandoc(docstring);
  try {
    return parseGoogle(text);
  } catch (error) {
    if (!DocstringSyntaxError.isInstance(error)) throw error;
    // docstring_parser then falls back to the other styles; for a docstring with no ReST fields
    // that is the ReST reading: descriptions up to the first line starting with ':'.
    const fallback: ParsedDocstring = { params: [], raises: [] };
    const field = /^:/m.exec(text);
    splitDescription(field ? text.slice(0, field.index) : text, fallback);
    return fallback;
  }
}

function parseGoogle(text: string): ParsedDocstring {
  const result: ParsedDocstring = { params: [], raises: [] };
  TITLES.lastIndex = 0;
  const first = TITLES.exec(text);
  splitDescription(first ? text.slice(0, first.index) : text, result);
  if (!first) return result;
  const meta = text.slice(first.index);
  TITLES.lastIndex = 0;
  const matches = [...meta.matchAll(TITLES)];
  const chunks = new Map<string, string>();
  matches.forEach((match, index) => {
    const start = match.index! + match[0].length;
    const end = index + 1 < matches.length ? matches[index + 1].index! : meta.length;
    let details = meta.slice(start, end);
    const unknown = /\n\S/.exec(details);
    if (unknown) details = details.slice(0, unknown.index);
    chunks.set(match[1], stripNewlines(details));
  });
  for (const [title, chunk] of chunks) {
    const section = SECTION_BY_TITLE.get(title)!;
    const indent = /^\s*/.exec(chunk)![0];
    if (section.type !== "multiple") {
      addEntry(result, section, cleandoc(chunk));
      continue;
    }
    const starts = [...chunk.matchAll(new RegExp(`^${escapeRegExp(indent)}(?=\\S)`, "gm"))];
    if (starts.length === 0) throw new DocstringSyntaxError(`No specification for "${title}": "${chunk}"`);
    starts.forEach((match, index) => {
      const from = match.index! + match[0].length;
      const to = index + 1 < starts.length ? starts[index + 1].index! : chunk.length;
      addEntry(result, section, stripNewlines(chunk.slice(from, to)));
    });
  }
  return result;
}

function addEntry(result: ParsedDocstring, section: { kind: SectionKind; type: SectionType }, text: string): void {
  const single = section.type === "singular" || (section.type === "singular-or-multiple" && !MULTIPLE.test(text));
  if (single) {
    if (section.kind === "returns") result.returns = { description: text };
    return;
  }
  const colon = text.indexOf(":");
  if (colon < 0) throw new DocstringSyntaxError(`Expected a colon in ${JSON.stringify(text)}.`);
  const before = text.slice(0, colon);
  let description = text.slice(colon + 1);
  if (description) {
    if (description[0] === " ") description = description.slice(1);
    const newline = description.indexOf("\n");
    if (newline >= 0) description = `${description.slice(0, newline)}\n${cleandoc(description.slice(newline + 1))}`;
    description = stripNewlines(description);
  }
  const typed = TYPED_ARG.exec(before);
  let name = before;
  let typeName: string | undefined;
  if (typed) {
    name = typed[1];
    typeName = typed[2].replace(/, optional$|\?$/, "");
  }
  if (section.kind === "param") result.params.push({ name, typeName, description });
  else if (section.kind === "raises") result.raises.push({ typeName: before, description });
  else if (section.kind === "returns") result.returns = { typeName: before, description };
}

function stripNewlines(text: string): string {
  return text.replace(/^\n+|\n+$/g, "");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
