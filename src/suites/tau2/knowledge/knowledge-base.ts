/**
 * τ³ banking_knowledge's knowledge base: one `{id, title, content}` document per `documents/*.json`
 * file, as `KnowledgeBase.load` reads them (`data_model.py`): every name ending in `.json` (hidden
 * files too, as `Path.glob` finds them), each validated as a `Document`, kept by id (a repeated id
 * keeps its first place and takes the last document).
 *
 * **Order.** The original iterates `Path.glob`, i.e. directory order, which depends on the file
 * system; the order decides BM25 and grep ties (and which ten documents an unknown word returns),
 * and the float sum behind BM25's `average_idf`. The reference fixtures were made with the file
 * names sorted (the names are the ids), so this loads them sorted by code point: the results then
 * equal the original on any machine that lists names sorted.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { lazySchema } from "../../../data/lazy-zod.ts";
import { DataError } from "../../../errors/error-tree.ts";
import { decodeUtf8, pyCompareStrings } from "../../../value/index.ts";

/** One document (`Document`: three required str fields; other keys are ignored). */
export interface KnowledgeDocument {
  readonly id: string;
  readonly title: string;
  readonly content: string;
}

const DocumentSchema = lazySchema((z) => z.object({ id: z.string(), title: z.string(), content: z.string() }));

/** The documents of a knowledge base in index order. */
export class KnowledgeBase {
  private readonly byId: ReadonlyMap<string, KnowledgeDocument>;

  constructor(documents: Iterable<KnowledgeDocument>) {
    const byId = new Map<string, KnowledgeDocument>();
    for (const document of documents) byId.set(document.id, document);
    this.byId = byId;
  }

  /**
   * Reads `<directory>/*.json` in sorted name order. A missing directory, an unreadable file, bad
   * JSON or a document without a str `id`, `title` or `content` is a one-line {@link DataError}
   * naming the file (and the field).
   */
  static load(directory: string): KnowledgeBase {
    let names: string[];
    try {
      names = readdirSync(directory).filter((name) => name.endsWith(".json"));
    } catch (error) {
      throw new DataError(`knowledge base folder not readable: ${directory} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { cause: error });
    }
    names.sort(pyCompareStrings);
    return new KnowledgeBase(names.map((name) => readDocument(join(directory, name))));
  }

  /** The documents in index order (the order BM25 indexes them and grep scans them). */
  get documents(): KnowledgeDocument[] {
    return [...this.byId.values()];
  }

  get size(): number {
    return this.byId.size;
  }

  /** `get_document(doc_id)`. */
  get(id: string): KnowledgeDocument | undefined {
    return this.byId.get(id);
  }
}

/** One document file, validated; every failure names the file. */
function readDocument(path: string): KnowledgeDocument {
  let bytes: Buffer;
  try {
    if (statSync(path).isDirectory()) throw new DataError(`${path}: is a directory, not a document file`);
    bytes = readFileSync(path);
  } catch (error) {
    if (DataError.isInstance(error)) throw error;
    throw new DataError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  const text = decodeUtf8(bytes, path);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new DataError(`${path}: not JSON (${(error as Error).message})`, { cause: error });
  }
  // The common case without zod (what its object schema returns: the three fields, nothing else); zod words the error.
  if (typeof data === "object" && data !== null && !Array.isArray(data)) {
    const { id, title, content } = data as Record<string, unknown>;
    if (typeof id === "string" && typeof title === "string" && typeof content === "string") return { id, title, content };
  }
  const parsed = DocumentSchema().safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length > 0 ? `field "${issue.path.join(".")}"` : "the document";
    throw new DataError(`${path}: ${field}: ${issue.message} (a document is {"id", "title", "content"}, all strings)`);
  }
  return parsed.data;
}
