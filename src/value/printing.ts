/**
 * Python's texts of a value: `repr`, `str`, and `json.dumps` (compact, one-line and indented).
 *
 * τ-bench's observations are `json.dumps` text (each tool's `invoke`) and its data hash digests
 * `str(...)` text (tau_bench/envs/base.py, consistent_hash), so these printers must agree with
 * CPython 3.11 byte for byte.
 */
import { pyFloatRepr } from "./float-repr.ts";
import { parsePythonJson } from "./lossless-json.ts";
import { PyFloat, isPyInt, type PyDict, type PyValue } from "./values.ts";

export { pyFloatRepr };

// ---------------------------------------------------------------------------------------------
// repr / str (CPython: Objects/unicodeobject.c, unicode_repr; float repr in float-repr.ts)
// ---------------------------------------------------------------------------------------------

const PLAIN_ASCII = /^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/; // printable ASCII without ' and \
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, "0");
}

/** Python `repr(str)`. */
export function pyStrRepr(text: string): string {
  if (PLAIN_ASCII.test(text)) return `'${text}'`;
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === "\\") out += "\\\\";
    else if (char === quote) out += `\\${quote}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code < 0x7f) out += char;
    else if (code === 0x20 || !NOT_PRINTABLE.test(char)) out += char;
    else if (code <= 0xff) out += `\\x${hex(code, 2)}`;
    else if (code <= 0xffff) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return out + quote;
}

/** Python `str(x)`, as f-strings format values in error texts (`Certificate ... with amount 50.0.`). */
export function pyStr(value: PyValue | undefined): string {
  // str() and repr() differ only for strings (no quotes) among the values we model.
  return typeof value === "string" ? value : pyRepr(value);
}

/** Python `repr(x)` of a value (dicts as `{'k': v}`, lists as `[...]`). */
export function pyRepr(value: PyValue | undefined): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "string") return pyStrRepr(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (isPyInt(value)) return String(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  const parts: string[] = [];
  for (const [key, item] of value) parts.push(`${pyStrRepr(key)}: ${pyRepr(item)}`);
  return `{${parts.join(", ")}}`;
}

// ---------------------------------------------------------------------------------------------
// json.dumps with default settings (CPython: Lib/json/encoder.py, JSONEncoder, ensure_ascii)
// ---------------------------------------------------------------------------------------------

const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/; // printable ASCII without " and \

const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/g;

/**
 * A JSON string literal as Python's `json.dumps` (ensure_ascii=True) writes it. `JSON.stringify`
 * already escapes the quote, the backslash, the five short forms (b f n r t), other control
 * characters and lone surrogates exactly as Python does (lowercase hex); Python also escapes DEL
 * and every non-ASCII UTF-16 unit (a pair as two escapes), which is the second pass. Both passes
 * run in native code, which matters for result files full of long policies and trajectories.
 */
export function pyJsonString(text: string): string {
  if (text.length >= LONG_STRING) return longJsonString(text);
  let json = shortStrings.get(text);
  if (json === undefined) {
    json = jsonStringOf(text);
    if (shortStrings.size >= MAX_SHORT_REMEMBERED) shortStrings.clear();
    shortStrings.set(text, json);
  }
  return json;
}

/**
 * Short strings' JSON texts, remembered: a database hash writes the same field names and values
 * for every environment, and a map lookup is cheaper than the escaping checks.
 */
const shortStrings = new Map<string, string>();
const MAX_SHORT_REMEMBERED = 16_384;

function jsonStringOf(text: string): string {
  if (PLAIN_JSON.test(text)) return `"${text}"`;
  return JSON.stringify(text).replace(NOT_PRINTABLE_ASCII, (unit) => `\\u${hex(unit.charCodeAt(0), 4)}`);
}

/** Strings this long are remembered: a policy (tens of kilobytes) is written into every simulation of a results file. */
const LONG_STRING = 1024;
const MAX_REMEMBERED = 64;
const longStrings = new Map<string, string>();

function longJsonString(text: string): string {
  let json = longStrings.get(text);
  if (json === undefined) {
    json = jsonStringOf(text);
    if (longStrings.size >= MAX_REMEMBERED) longStrings.delete(longStrings.keys().next().value as string);
    longStrings.set(text, json);
  }
  return json;
}

function jsonFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "Infinity";
  if (value === -Infinity) return "-Infinity";
  return pyFloatRepr(value);
}

/** Python `json.dumps(value)` with default separators (`", "`, `": "`) and insertion-ordered keys. */
export function pyJsonDumps(value: PyValue | undefined): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pyJsonString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof PyFloat) return jsonFloat(value.value);
  if (isPyInt(value)) return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    let out = "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) out += ", ";
      out += pyJsonDumps(value[index]);
    }
    return out + "]";
  }
  if (value.size === 0) return "{}";
  let out = "{";
  let first = true;
  for (const [key, item] of value) {
    if (!first) out += ", ";
    first = false;
    out += `${pyJsonString(key)}: ${pyJsonDumps(item)}`;
  }
  return out + "}";
}

function byCodePoint(left: string, right: string): number {
  if (left === right) return 0;
  const a = Array.from(left);
  const b = Array.from(right);
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    if (a[index] !== b[index]) return a[index].codePointAt(0)! - b[index].codePointAt(0)!;
  }
  return a.length - b.length;
}

/** Python dict keys sorted as `sorted()` orders strs (by code point). */
export function pySortedKeys(dict: PyDict): string[] {
  const keys = [...dict.keys()];
  return keys.every((key) => PLAIN_JSON.test(key)) ? keys.sort() : keys.sort(byCodePoint);
}

/** A model's field names (its schema's), sorted: a database holds many instances of few models. */
const sortedFieldNames = new WeakMap<object, string[]>();

/**
 * {@link pySortedKeys}, from the model's schema when the dict is a model instance holding exactly
 * its fields (checked: same count, every field present), so the keys are not sorted again.
 */
function sortedKeysOf(dict: PyDict): string[] {
  const schema = (dict as { schema?: { fields: ReadonlyArray<{ name: string }> } }).schema;
  if (schema === undefined || dict.size !== schema.fields.length) return pySortedKeys(dict);
  let sorted = sortedFieldNames.get(schema);
  if (sorted === undefined) {
    sorted = pySortedKeys(new Map(schema.fields.map((field) => [field.name, null])));
    sortedFieldNames.set(schema, sorted);
  }
  for (const key of sorted) if (!dict.has(key)) return pySortedKeys(dict);
  return sorted;
}

/**
 * Python `json.dumps(value, sort_keys=True)`: τ²'s database hash digests this text of
 * `model_dump()` (dates and datetimes are already held as their `str()` text, as `default=str` writes them).
 */
export function pyJsonDumpsSortedKeys(value: PyValue | undefined): string {
  if (!(value instanceof Map) && !Array.isArray(value)) return pyJsonDumps(value);
  const parts: string[] = [];
  sortedKeysParts(value, parts);
  return parts.join(""); // one flat string: callers compare and hash these texts
}

function sortedKeysParts(value: PyValue | undefined, parts: string[]): void {
  if (value instanceof Map) {
    if (value.size === 0) {
      parts.push("{}");
      return;
    }
    const keys = sortedKeysOf(value);
    for (let index = 0; index < keys.length; index++) {
      parts.push(index === 0 ? "{" : ", ", pyJsonString(keys[index]), ": ");
      sortedKeysParts(value.get(keys[index]), parts);
    }
    parts.push("}");
  } else if (Array.isArray(value)) {
    if (value.length === 0) {
      parts.push("[]");
      return;
    }
    for (let index = 0; index < value.length; index++) {
      parts.push(index === 0 ? "[" : ", ");
      sortedKeysParts(value[index], parts);
    }
    parts.push("]");
  } else parts.push(pyJsonDumps(value));
}

// ---------------------------------------------------------------------------------------------
// Indented json.dump (results files)
// ---------------------------------------------------------------------------------------------

/** JSON text of a scalar in a mixed value (an integral JS number prints as an int); undefined for containers. */
function mixedJsonScalar(value: unknown): string | undefined {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pyJsonString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof PyFloat) return jsonFloat(value.value);
  if (typeof value === "bigint") return String(value);
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : jsonFloat(value);
  return undefined;
}

/**
 * A value printed once by {@link printedJson}, which the mixed printers then place as text. An
 * episode's results-file entry is written twice (its checkpoint line as it finishes, the results
 * file at the end): printing it once and deriving the one-line form from the indented text halves
 * that work. The indented text is used where it lands at the level it was printed for; the one-line
 * text is the indented text with its line breaks taken out (JSON strings hold no raw line break,
 * so every line break is layout: `,` + break + indentation becomes `, `, any other break goes).
 */
export class PrintedJson {
  private known: unknown;
  private parse: (() => unknown) | undefined;

  constructor(
    value: unknown,
    readonly indent: number,
    readonly level: number,
    readonly indented: string,
    /**
     * `indented` as the pieces it was joined from, if it was (a τ² simulation: its text around its
     * policy, and the policy's one shared text): a document printed in pieces places these, so
     * writing it never makes one flat copy of `indented` (with the policy copied into it).
     */
    readonly pieces?: readonly string[],
  ) {
    this.known = value;
  }

  /**
   * Text printed elsewhere (a worker process printed an episode's entry for its place in the
   * results file): placed as it is, and read back as a value only if it must be printed at another
   * place.
   */
  static fromText(indented: string, indent: number, level: number, pieces?: readonly string[]): PrintedJson {
    const printed = new PrintedJson(undefined, indent, level, indented, pieces);
    printed.parse = () => parsePythonJson(indented);
    return printed;
  }

  /** The value that was printed. */
  get value(): unknown {
    if (this.parse) {
      this.known = this.parse();
      this.parse = undefined;
    }
    return this.known;
  }

  /**
   * The value as `json.dumps(value)` prints it (separators `", "` and `": "`). Made anew when asked
   * (an episode's checkpoint line asks once), not kept: a run keeps every episode's indented text
   * for its results file, and keeping the one-line text too held as much again (at 1,000 τ²
   * simulations ~170 MB of live heap by the end, every copy of the policy twice), which the garbage
   * collector walked in every full collection.
   */
  get line(): string {
    return this.indented.replace(/,\n */g, ", ").replace(/\n */g, "");
  }

  /**
   * `prefix`, the UTF-8 bytes of {@link line}, then `suffix`, in one buffer (a checkpoint line,
   * written with one `write`). Made from the indented text's bytes in place: every line break
   * (never inside a string: the printers escape control characters) is dropped with the
   * indentation after it, and one after a comma becomes a space. The two replacements of
   * {@link line} made two string copies of every episode (~46 KB each for a τ² simulation): with
   * the buffer made from them, ~15% of the bytes a scale run allocates (allocation-rate profile).
   */
  lineBytes(prefix: Uint8Array, suffix: Uint8Array): Buffer {
    return Buffer.from(compactLineBytes([this.indented], prefix, suffix));
  }
}

/** The memory {@link compactLineBytes} writes its lines in, grown as needed and reused by the next line. */
let lineScratch = Buffer.allocUnsafeSlow(0);

/**
 * `prefix`, the one-line form of the indented text made of `pieces` (in order), then `suffix`: the
 * bytes of {@link PrintedJson.lineBytes}, written in memory reused by the next call, so the result
 * must be used (written) before that. `pieces` let a caller change a piece of a printed text (the
 * τ² checkpoint puts `null` for the policy) without joining a new copy of it (~90 KB per τ²
 * simulation, made flat by the encoder); a piece must not end inside a surrogate pair. The reused
 * memory spares a fresh buffer of that size per line, whose external memory made the collector run
 * sooner.
 */
export function compactLineBytes(pieces: readonly string[], prefix: Uint8Array, suffix: Uint8Array): Buffer {
  const start = prefix.length;
  let bound = start + suffix.length;
  // UTF-8 takes at most three bytes per UTF-16 unit: a bound without reading the text.
  for (const piece of pieces) bound += 3 * piece.length;
  if (lineScratch.length < bound) lineScratch = Buffer.allocUnsafeSlow(Math.max(bound, 2 * lineScratch.length));
  const bytes = lineScratch;
  bytes.set(prefix, 0);
  let end = start;
  for (const piece of pieces) end += bytes.write(piece, end, "utf8");
  const text = bytes.subarray(0, end);
  let read = start;
  let written = start;
  for (;;) {
    const lineBreak = text.indexOf(0x0a, read);
    const stop = lineBreak < 0 ? end : lineBreak;
    if (written !== read) bytes.copyWithin(written, read, stop);
    written += stop - read;
    if (lineBreak < 0) break;
    read = lineBreak + 1;
    while (read < end && bytes[read] === 0x20) read++;
    if (written > start && bytes[written - 1] === 0x2c) bytes[written++] = 0x20;
  }
  bytes.set(suffix, written);
  return bytes.subarray(0, written + suffix.length);
}

/** Prints `value` once for the place it will take in an indented document (`indent`, `level`), and on one line when asked. */
export function printedJson(value: unknown, indent: number, level: number): PrintedJson {
  return new PrintedJson(value, indent, level, pyJsonDumpsIndented(value, indent, level));
}

/**
 * Python `json.dumps(value, indent=N)` (separators `","` / `": "`), used for τ-bench-shaped results
 * files so the original's tooling reads the same text. Accepts the value model and, for
 * convenience, plain JS objects/numbers from our own code (an integral JS number prints as an int).
 */
export function pyJsonDumpsIndented(value: unknown, indent: number | null = 2, level = 0): string {
  if (indent === null) return pyJsonDumpsLine(value);
  const printer = new MixedJsonPrinter(indent);
  printer.write(value, level);
  return printer.out;
}

/**
 * {@link pyJsonDumpsIndented}'s text as pieces to be written one after the other: each
 * {@link PrintedJson} placed as it is printed is a piece of its own (its text, not copied). A
 * results file of 1,000 τ² simulations is ~90 MB: written as one string it was copied once more
 * into one flat string and once into one buffer of that size at the end of the run.
 */
export function pyJsonDumpsIndentedPieces(value: unknown, indent: number, level = 0): string[] {
  const printer = new MixedJsonPrinter(indent, []);
  printer.write(value, level);
  return printer.finish();
}

/** Python `json.dumps(value)` (one line) for mixed values: the value model plus plain JS objects and numbers. */
export function pyJsonDumpsLine(value: unknown): string {
  const printer = new MixedJsonPrinter(null);
  printer.write(value, 0);
  return printer.out;
}

/**
 * The two mixed-value printers in one pass that appends to one string: results files are several
 * megabytes, and building them from joined arrays of temporaries was most of a run's writing time.
 * `indent` null prints one line with `", "` and `": "`; a number prints Python's indented layout.
 */
class MixedJsonPrinter {
  out = "";
  /** `,` plus the line break and indentation of each level (indented), or `", "` (one line). */
  private readonly separators: string[] = [];
  /** The line break and indentation of each level (indented), or "" (one line). */
  private readonly breaks: string[] = [];

  constructor(
    private readonly indent: number | null,
    /** Set: the text so far as pieces, each placed {@link PrintedJson} text one of them. */
    private readonly pieces?: string[],
  ) {}

  /** The pieces printed (the text so far last). */
  finish(): string[] {
    const pieces = this.pieces ?? [];
    if (this.out !== "" || pieces.length === 0) pieces.push(this.out);
    this.out = "";
    return pieces;
  }

  private lineBreak(level: number): string {
    let text = this.breaks[level];
    if (text === undefined) {
      text = this.indent === null ? "" : `\n${" ".repeat(this.indent * level)}`;
      this.breaks[level] = text;
      this.separators[level] = this.indent === null ? ", " : `,${text}`;
    }
    return text;
  }

  write(value: unknown, level: number): void {
    const scalar = mixedJsonScalar(value);
    if (scalar !== undefined) this.out += scalar;
    else if (value instanceof PrintedJson) this.printed(value, level);
    else if (Array.isArray(value)) this.array(value, level);
    else if (value instanceof Map) this.map(value as Map<string, unknown>, level);
    else this.object(value as Record<string, unknown>, level);
  }

  private printed(value: PrintedJson, level: number): void {
    if (this.indent === null) this.out += value.line;
    else if (this.indent !== value.indent || level !== value.level) this.write(value.value, level);
    else if (this.pieces === undefined) this.out += value.indented;
    else {
      if (this.out !== "") this.pieces.push(this.out);
      if (value.pieces === undefined) this.pieces.push(value.indented);
      else for (const piece of value.pieces) this.pieces.push(piece);
      this.out = "";
    }
  }

  private array(value: readonly unknown[], level: number): void {
    if (value.length === 0) {
      this.out += "[]";
      return;
    }
    const inner = this.lineBreak(level + 1);
    const separator = this.separators[level + 1];
    this.out += "[";
    this.out += inner;
    for (let index = 0; index < value.length; index++) {
      if (index > 0) this.out += separator;
      this.write(value[index], level + 1);
    }
    this.out += this.lineBreak(level);
    this.out += "]";
  }

  private map(value: Map<string, unknown>, level: number): void {
    if (value.size === 0) {
      this.out += "{}";
      return;
    }
    const inner = this.lineBreak(level + 1);
    const separator = this.separators[level + 1];
    this.out += "{";
    this.out += inner;
    let first = true;
    for (const [key, item] of value) {
      if (!first) this.out += separator;
      first = false;
      this.out += pyJsonString(key);
      this.out += ": ";
      this.write(item, level + 1);
    }
    this.out += this.lineBreak(level);
    this.out += "}";
  }

  /** A plain object: its own enumerable keys in order, those holding `undefined` left out. */
  private object(value: Record<string, unknown>, level: number): void {
    const inner = this.lineBreak(level + 1);
    const separator = this.separators[level + 1];
    let first = true;
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item === undefined) continue;
      this.out += first ? `{${inner}` : separator;
      first = false;
      this.out += pyJsonString(key);
      this.out += ": ";
      this.write(item, level + 1);
    }
    if (first) {
      this.out += "{}";
      return;
    }
    this.out += this.lineBreak(level);
    this.out += "}";
  }
}
