import { TaubridgeError, errorMarker } from "../errors/error-tree.ts";
import { PyFloat, type PyDict, type PyValue } from "./values.ts";

/**
 * The float objects `json.loads` returns for `NaN`, `Infinity` and `-Infinity`: Python's decoder
 * returns one module-level object per literal, so every NaN it reads is the *same* object, which
 * `[x] == [y]` and `x in [y]` can observe (see `comparison.ts`). Sharing one {@link PyFloat} per
 * literal reproduces that; floats are immutable, so sharing is otherwise invisible.
 */
const NAN = new PyFloat(NaN);
const INFINITY = new PyFloat(Infinity);
const NEGATIVE_INFINITY = new PyFloat(-Infinity);

/**
 * Raised for malformed JSON text. Carries the 1-based line and column so that a caller can say
 * where in which file the problem is.
 */
export class JsonSyntaxError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("JsonSyntaxError");

  constructor(
    /** The decoder's own message (`Expecting value`), as `json.JSONDecodeError.msg`. */
    readonly reason: string,
    readonly line: number,
    readonly column: number,
    /** The character offset (`JSONDecodeError.pos`). */
    readonly offset = 0,
  ) {
    super(`${reason} at line ${line} column ${column}`);
  }
}

const NUMBER_CHAR = new Uint8Array(128);
for (const char of "0123456789+-.eE") NUMBER_CHAR[char.charCodeAt(0)] = 1;

/**
 * Parses JSON text the way Python's `json.loads` does, into the {@link PyValue} model:
 * a number with `.`, `e` or `E` is a float, any other number an int (exact, bigint beyond 2^53);
 * objects become insertion-ordered `Map`s (a repeated key keeps the last value in the first
 * position); `NaN`, `Infinity` and `-Infinity` are accepted, as Python accepts them.
 *
 * Why not `JSON.parse`: it turns `247.0` into `247` and reorders integer-like keys, and both
 * change τ-bench's hashes and tool outputs. Why not `lossless-json`: it builds plain objects,
 * which reorder integer-like keys the same way.
 */
export function parsePythonJson(text: string, options: { parseIntAsFloat?: boolean } = {}): PyValue {
  const parser = new Parser(text, options.parseIntAsFloat ?? false);
  parser.skipWhitespace();
  const value = parser.parseValue();
  parser.skipWhitespace();
  if (parser.position < text.length) parser.fail("Extra data");
  return value;
}

/** A top-level array element: where its text is, and for an object its top-level `"id"` when that is a string. */
export interface JsonArrayElement {
  start: number;
  end: number;
  id: string | undefined;
}

/**
 * Reads a JSON array's elements without building them: their spans in `text` and each object's
 * `"id"`, so a caller can build only the elements it needs (`parsePythonJson(text.slice(start,
 * end))`). The whole text is still checked: it throws exactly the {@link JsonSyntaxError}
 * {@link parsePythonJson} throws for it. Returns null when the top level is not an array.
 *
 * Why: τ²'s telecom task file holds 2,285 tasks (14 MB) and a run of its base split uses 114;
 * building every task's maps and floats was most of a run's start-up and garbage.
 */
export function scanPythonJsonArray(text: string): JsonArrayElement[] | null {
  const scanner = new Scanner(text);
  scanner.skipWhitespace();
  if (text.charCodeAt(scanner.position) !== 91) {
    parsePythonJson(text); // the same error, or a value that is not an array
    return null;
  }
  const elements = scanner.elements();
  scanner.skipWhitespace();
  if (scanner.position < text.length) scanner.fail("Extra data");
  return elements;
}

/** A top-level object member: its key and where its value's text is (a repeated key: its first place, its last value, as a dict keeps). */
export interface JsonObjectMember {
  key: string;
  start: number;
  end: number;
}

/**
 * Reads a JSON object's members without building their values, like {@link scanPythonJsonArray}
 * for arrays: the same checks and errors as {@link parsePythonJson}; null when the top level is not
 * an object. Why: τ-bench's orders file (1,000 records, 1.8 MB) is read by every run, and a run
 * looks at a few hundred of them.
 */
export function scanPythonJsonObject(text: string): JsonObjectMember[] | null {
  const scanner = new Scanner(text);
  scanner.skipWhitespace();
  if (text.charCodeAt(scanner.position) !== 123) {
    parsePythonJson(text); // the same error, or a value that is not an object
    return null;
  }
  const members = scanner.members();
  scanner.skipWhitespace();
  if (scanner.position < text.length) scanner.fail("Extra data");
  return members;
}

class Parser {
  position = 0;
  constructor(
    readonly text: string,
    /** `json.loads(…, parse_int=float)`: integer literals become floats. */
    readonly intsAsFloats = false,
  ) {}

  fail(message: string, at = this.position): never {
    let line = 1;
    let lineStart = 0;
    for (let index = 0; index < at && index < this.text.length; index++) {
      if (this.text.charCodeAt(index) === 10) {
        line++;
        lineStart = index + 1;
      }
    }
    throw new JsonSyntaxError(message, line, at - lineStart + 1, at);
  }

  skipWhitespace(): void {
    const text = this.text;
    let position = this.position;
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code === 32 || code === 10 || code === 13 || code === 9) position++;
      else break;
    }
    this.position = position;
  }

  parseValue(): PyValue {
    const code = this.text.charCodeAt(this.position);
    switch (code) {
      case 123: // {
        return this.parseObject();
      case 91: // [
        return this.parseArray();
      case 34: // "
        return this.parseString();
      case 116: // t
        return this.literal("true", true);
      case 102: // f
        return this.literal("false", false);
      case 110: // n
        return this.literal("null", null);
      case 78: // N
        return this.literal("NaN", NAN);
      case 73: // I
        return this.literal("Infinity", INFINITY);
      default:
        if (code === 45 && this.text.startsWith("-Infinity", this.position)) {
          this.position += 9;
          return NEGATIVE_INFINITY;
        }
        if (code === 45 || (code >= 48 && code <= 57)) return this.parseNumber();
        if (Number.isNaN(code)) this.fail("Expecting value");
        return this.fail("Expecting value");
    }
  }

  literal<T extends PyValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.position)) this.fail("Expecting value");
    this.position += word.length;
    return value;
  }

  parseNumber(): PyValue {
    const text = this.text;
    const start = this.position;
    let position = start;
    let isFloat = false;
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code >= 128 || NUMBER_CHAR[code] === 0) break;
      if (code === 46 || code === 101 || code === 69) isFloat = true;
      position++;
    }
    const literal = text.slice(start, position);
    // JSON grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(literal)) this.fail("Invalid number", start);
    this.position = position;
    if (isFloat || this.intsAsFloats) return new PyFloat(Number(literal));
    const asNumber = Number(literal);
    if (Number.isSafeInteger(asNumber)) return asNumber === 0 ? 0 : asNumber;
    return BigInt(literal);
  }

  /**
   * A string with escapes, decoded in one piece by the native decoder: its closing quote is found
   * (a backslash escapes the next character) and the literal handed to `JSON.parse`, whose escapes
   * are `json.loads`'s. Why: built a character at a time (below), a long string with escapes is a
   * rope of thousands of pieces that every later comparison or hash of it has to flatten (τ³'s
   * task documents made `submit validate` spend most of its time there). Undefined when the literal
   * is malformed (a control character, a bad escape, no closing quote): the checked path then
   * reports it where the decoder would.
   */
  private escapedString(quote: number, from: number): string | undefined {
    const text = this.text;
    let end = from;
    while (end < text.length) {
      const code = text.charCodeAt(end);
      if (code === 34) break;
      if (code < 32) return undefined;
      end += code === 92 ? 2 : 1;
    }
    if (end >= text.length) return undefined;
    let decoded: unknown;
    try {
      decoded = JSON.parse(text.slice(quote, end + 1));
    } catch {
      return undefined;
    }
    this.position = end + 1;
    return decoded as string;
  }

  parseString(): string {
    const text = this.text;
    let position = this.position + 1;
    const start = position;
    // Fast path: no escapes.
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code === 34) {
        this.position = position + 1;
        return text.slice(start, position);
      }
      if (code === 92 || code < 32) break;
      position++;
    }
    if (text.charCodeAt(position) === 92) {
      const decoded = this.escapedString(start - 1, position);
      if (decoded !== undefined) return decoded;
    }
    // Checked path (a malformed literal): runs between escapes are sliced whole and joined once —
    // a string built a character at a time is a rope of one node per character until flattened.
    const out: string[] = [];
    let run = start;
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code === 34) {
        this.position = position + 1;
        out.push(text.slice(run, position));
        return out.join("");
      }
      if (code < 32) this.fail("Invalid control character", position);
      if (code !== 92) {
        position++;
        continue;
      }
      out.push(text.slice(run, position));
      const escape = text[position + 1];
      position += 2;
      switch (escape) {
        case '"':
          out.push('"');
          break;
        case "\\":
          out.push("\\");
          break;
        case "/":
          out.push("/");
          break;
        case "b":
          out.push("\b");
          break;
        case "f":
          out.push("\f");
          break;
        case "n":
          out.push("\n");
          break;
        case "r":
          out.push("\r");
          break;
        case "t":
          out.push("\t");
          break;
        case "u": {
          const digits = text.slice(position, position + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(digits)) this.fail("Invalid \\uXXXX escape", position - 1); // Python names the "u"
          out.push(String.fromCharCode(parseInt(digits, 16)));
          position += 4;
          break;
        }
        default:
          this.fail("Invalid \\escape", position - 2);
      }
      run = position;
    }
    return this.fail("Unterminated string starting", start - 1);
  }

  parseArray(): PyValue[] {
    this.position++;
    const items: PyValue[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.position) === 93) {
      this.position++;
      return items;
    }
    for (;;) {
      this.skipWhitespace();
      items.push(this.parseValue());
      this.skipWhitespace();
      const code = this.text.charCodeAt(this.position);
      if (code === 44) {
        this.position++;
        continue;
      }
      if (code === 93) {
        this.position++;
        return items;
      }
      this.fail("Expecting ',' delimiter");
    }
  }

  parseObject(): PyDict {
    this.position++;
    const map: PyDict = new Map();
    this.skipWhitespace();
    if (this.text.charCodeAt(this.position) === 125) {
      this.position++;
      return map;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text.charCodeAt(this.position) !== 34) this.fail("Expecting property name enclosed in double quotes");
      const key = this.parseString();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.position) !== 58) this.fail("Expecting ':' delimiter");
      this.position++;
      this.skipWhitespace();
      map.set(key, this.parseValue());
      this.skipWhitespace();
      const code = this.text.charCodeAt(this.position);
      if (code === 44) {
        this.position++;
        continue;
      }
      if (code === 125) {
        this.position++;
        return map;
      }
      this.fail("Expecting ',' delimiter");
    }
  }
}

/**
 * {@link Parser}'s checks without its values: each `skip…` method accepts and rejects exactly what
 * the matching `parse…` method does, at the same positions with the same messages.
 */
class Scanner extends Parser {
  /** The top-level array's elements (the position is at its `[`). */
  elements(): JsonArrayElement[] {
    this.position++;
    const elements: JsonArrayElement[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.position) === 93) {
      this.position++;
      return elements;
    }
    for (;;) {
      this.skipWhitespace();
      const start = this.position;
      const id = this.text.charCodeAt(start) === 123 ? this.skipObject(true) : (this.skipValue(), undefined);
      elements.push({ start, end: this.position, id });
      this.skipWhitespace();
      const code = this.text.charCodeAt(this.position);
      if (code === 44) {
        this.position++;
        continue;
      }
      if (code === 93) {
        this.position++;
        return elements;
      }
      this.fail("Expecting ',' delimiter");
    }
  }

  /** The top-level object's members (the position is at its `{`). */
  members(): JsonObjectMember[] {
    this.position++;
    const members: JsonObjectMember[] = [];
    const at = new Map<string, number>();
    this.skipWhitespace();
    if (this.text.charCodeAt(this.position) === 125) {
      this.position++;
      return members;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text.charCodeAt(this.position) !== 34) this.fail("Expecting property name enclosed in double quotes");
      const key = this.parseString();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.position) !== 58) this.fail("Expecting ':' delimiter");
      this.position++;
      this.skipWhitespace();
      const start = this.position;
      this.skipValue();
      const earlier = at.get(key);
      if (earlier === undefined) {
        at.set(key, members.length);
        members.push({ key, start, end: this.position });
      } else members[earlier] = { key, start, end: this.position };
      this.skipWhitespace();
      const code = this.text.charCodeAt(this.position);
      if (code === 44) {
        this.position++;
        continue;
      }
      if (code === 125) {
        this.position++;
        return members;
      }
      this.fail("Expecting ',' delimiter");
    }
  }

  skipValue(): void {
    const code = this.text.charCodeAt(this.position);
    if (code === 123) this.skipObject(false);
    else if (code === 91) this.skipArray();
    else if (code === 34) this.skipString();
    else if (code === 45 || (code >= 48 && code <= 57)) {
      if (code === 45 && this.text.startsWith("-Infinity", this.position)) this.position += 9;
      else this.parseNumber();
    } else this.parseValue(); // literals and errors: nothing to build
  }

  skipString(): void {
    const text = this.text;
    let position = this.position + 1;
    const start = position;
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code === 34) {
        this.position = position + 1;
        return;
      }
      if (code === 92 || code < 32) break;
      position++;
    }
    this.position = start - 1;
    this.parseString(); // an escape or a control character: the parser's own checks
  }

  skipArray(): void {
    this.position++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.position) === 93) {
      this.position++;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      this.skipValue();
      this.skipWhitespace();
      const code = this.text.charCodeAt(this.position);
      if (code === 44) {
        this.position++;
        continue;
      }
      if (code === 93) {
        this.position++;
        return;
      }
      this.fail("Expecting ',' delimiter");
    }
  }

  /** Skips an object; with `withId`, returns its `"id"` when that is a string (the last one, as a dict keeps). */
  skipObject(withId: boolean): string | undefined {
    this.position++;
    let id: string | undefined;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.position) === 125) {
      this.position++;
      return id;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text.charCodeAt(this.position) !== 34) this.fail("Expecting property name enclosed in double quotes");
      let isId = false;
      if (withId) isId = this.parseString() === "id";
      else this.skipString();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.position) !== 58) this.fail("Expecting ':' delimiter");
      this.position++;
      this.skipWhitespace();
      if (isId) {
        const value = this.parseValue();
        id = typeof value === "string" ? value : undefined;
      } else this.skipValue();
      this.skipWhitespace();
      const code = this.text.charCodeAt(this.position);
      if (code === 44) {
        this.position++;
        continue;
      }
      if (code === 125) {
        this.position++;
        return id;
      }
      this.fail("Expecting ',' delimiter");
    }
  }
}
