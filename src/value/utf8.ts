/**
 * Python's strict UTF-8 codec for file contents: `open(path).read()` (and so `json.load`) refuses
 * bytes that are not UTF-8, naming the offset, where `readFileSync(path, "utf8")` would silently
 * put U+FFFD in their place.
 */
import { DataError } from "../errors/error-tree.ts";
import { PyException } from "./errors.ts";

/** Strict UTF-8, the BOM kept in the text (as `readFileSync(path, "utf8")` keeps it; Python's `json.loads` refuses one). */
export const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Where a byte sequence stops being UTF-8, in the words of Python's codec error. */
interface Utf8Problem {
  offset: number;
  /** One past the last byte Python's error names (the lead byte and the valid continuation bytes after it). */
  end: number;
  byte: number;
  reason: "invalid start byte" | "invalid continuation byte" | "unexpected end of data";
}

/** The allowed range of the second byte, and the count of continuation bytes, after a lead byte (RFC 3629, table 3-7 of Unicode). */
function sequenceAfter(lead: number): { length: number; low: number; high: number } | undefined {
  if (lead >= 0xc2 && lead <= 0xdf) return { length: 1, low: 0x80, high: 0xbf };
  if (lead === 0xe0) return { length: 2, low: 0xa0, high: 0xbf };
  if (lead === 0xed) return { length: 2, low: 0x80, high: 0x9f };
  if (lead >= 0xe1 && lead <= 0xef) return { length: 2, low: 0x80, high: 0xbf };
  if (lead === 0xf0) return { length: 3, low: 0x90, high: 0xbf };
  if (lead >= 0xf1 && lead <= 0xf3) return { length: 3, low: 0x80, high: 0xbf };
  if (lead === 0xf4) return { length: 3, low: 0x80, high: 0x8f };
  return undefined;
}

/** The first place `bytes` is not UTF-8 (the offset of the sequence's first byte, as Python reports it), or undefined. */
function utf8Problem(bytes: Uint8Array): Utf8Problem | undefined {
  for (let index = 0; index < bytes.length; ) {
    const lead = bytes[index];
    if (lead < 0x80) {
      index++;
      continue;
    }
    const sequence = sequenceAfter(lead);
    if (!sequence) return { offset: index, end: index + 1, byte: lead, reason: "invalid start byte" };
    for (let step = 1; step <= sequence.length; step++) {
      if (index + step >= bytes.length) return { offset: index, end: index + step, byte: lead, reason: "unexpected end of data" };
      const byte = bytes[index + step];
      const [low, high] = step === 1 ? [sequence.low, sequence.high] : [0x80, 0xbf];
      if (byte < low || byte > high) return { offset: index, end: index + step, byte: lead, reason: "invalid continuation byte" };
    }
    index += sequence.length + 1;
  }
  return undefined;
}

/**
 * Decodes file bytes as Python's `open(path).read()` does under UTF-8: strictly. Invalid bytes are
 * a {@link DataError} naming the file and the byte offset (Python's `json.load` refuses such a
 * file), never U+FFFD replacement characters that would change task text or hashes silently.
 */
export function decodeUtf8(bytes: Uint8Array, fileName: string): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch (error) {
    const problem = utf8Problem(bytes);
    const where = problem ? `byte 0x${problem.byte.toString(16).padStart(2, "0")} at offset ${problem.offset}: ${problem.reason}` : String(error);
    throw new DataError(`${fileName}: not valid UTF-8 (${where})`, { cause: error });
  }
}

/**
 * Python `data.decode("utf-8")` (strict): the text, or the `UnicodeDecodeError` Python raises, with
 * its exact text (`'utf-8' codec can't decode byte 0xff in position 3: invalid start byte`, or
 * `bytes in position 3-4` when the invalid sequence began with valid bytes). Why: a subprocess's
 * output read in text mode (`subprocess.run(..., text=True)`) fails this way in the original, and
 * the error's text is what the agent then reads.
 */
export function pyDecodeUtf8(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch (error) {
    const problem = utf8Problem(bytes);
    if (!problem) throw error;
    const where = problem.end - problem.offset === 1 ? `byte 0x${problem.byte.toString(16).padStart(2, "0")} in position ${problem.offset}` : `bytes in position ${problem.offset}-${problem.end - 1}`;
    throw new PyException(`'utf-8' codec can't decode ${where}: ${problem.reason}`, "UnicodeDecodeError");
  }
}
