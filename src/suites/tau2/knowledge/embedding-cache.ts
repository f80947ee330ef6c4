/**
 * The document embeddings of a knowledge base, kept on disk so a run embeds the ~700 documents once
 * per embedding space instead of once per episode (the original's `EmbeddingsCache`, which pickles
 * them under `data/.embeddings_cache/` of the working directory, keyed by md5s of the documents and
 * of the embedder's settings).
 *
 * **Key.** SHA-256 of the embedding space's identity — model, endpoint (a redacted URL: never a
 * key, never credentials) and number format — and of the documents: their ids in index order with
 * the SHA-256 of each content. Changing a document, the order, the model or the endpoint misses.
 *
 * **File.** `<directory>/<key>.embeddings`: one JSON header line (format, identity, counts, the
 * SHA-256 of the payload), then the vectors as little-endian float64 (exact for float32 and float64
 * answers). Written to a temporary name and renamed (a reader never sees half a file). A file that
 * is unreadable, truncated, of another identity or whose payload hash differs is never trusted: it
 * is reported through `warn` and the embeddings are computed again (and the file replaced).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { lazySchema } from "../../../data/lazy-zod.ts";

/** What identifies an embedding space; no secret may be in it (it is written into the file). */
export interface EmbeddingSpaceIdentity {
  readonly model: string;
  readonly endpoint: string;
  readonly encodingFormat: string;
}

/** A document as embedded: its id and the text sent (the content, as the original's `EmbeddingIndexer`). */
export interface EmbeddedDocument {
  readonly id: string;
  readonly text: string;
}

const FORMAT = "taubridge-document-embeddings";
const VERSION = 1;

const headerSchema = lazySchema((z) =>
  z.strictObject({
    format: z.literal(FORMAT),
    version: z.literal(VERSION),
    model: z.string(),
    endpoint: z.string(),
    encodingFormat: z.string(),
    documents: z.string(),
    count: z.number().int().positive(),
    dimensions: z.number().int().positive(),
    payloadSha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
);

function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The documents' part of the key: ids in order with each content's SHA-256. */
function documentsDigest(documents: readonly EmbeddedDocument[]): string {
  return sha256(JSON.stringify(documents.map(({ id, text }) => [id, sha256(text)])));
}

/** A directory of document-embedding files (created on first write). */
export class DocumentEmbeddingCache {
  /** `warn` receives one line per file that was ignored or could not be written (default: stderr). */
  constructor(
    readonly directory: string,
    private readonly warn: (message: string) => void = (message) => process.stderr.write(`[taubridge] warning: ${message}\n`),
  ) {}

  /** The file the embeddings of `documents` in `identity`'s space live in. */
  pathOf(identity: EmbeddingSpaceIdentity, documents: readonly EmbeddedDocument[]): string {
    const key = sha256(JSON.stringify({ version: VERSION, model: identity.model, endpoint: identity.endpoint, encodingFormat: identity.encodingFormat, documents: documentsDigest(documents) }));
    return join(this.directory, `${key}.embeddings`);
  }

  /** The cached vectors (one per document, in order), or undefined on a miss or an untrustworthy file. */
  read(identity: EmbeddingSpaceIdentity, documents: readonly EmbeddedDocument[]): Float64Array[] | undefined {
    const path = this.pathOf(identity, documents);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        this.warn(`cannot read the embedding cache file ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}); computing the embeddings again`);
      return undefined;
    }
    const problem = checkFile(bytes, identity, documents);
    if (typeof problem === "string") {
      this.warn(`ignoring the embedding cache file ${path}: ${problem}; computing the embeddings again`);
      return undefined;
    }
    return problem;
  }

  /** Stores the vectors atomically; a failure (full disk, read-only folder) is a warning, never an error. */
  write(identity: EmbeddingSpaceIdentity, documents: readonly EmbeddedDocument[], vectors: readonly ArrayLike<number>[]): void {
    const path = this.pathOf(identity, documents);
    const dimensions = vectors[0]?.length ?? 0;
    const payload = new Float64Array(vectors.length * dimensions);
    vectors.forEach((vector, row) => payload.set(Array.from(vector), row * dimensions));
    const payloadBytes = new Uint8Array(payload.buffer);
    const header = {
      format: FORMAT,
      version: VERSION,
      model: identity.model,
      endpoint: identity.endpoint,
      encodingFormat: identity.encodingFormat,
      documents: documentsDigest(documents),
      count: vectors.length,
      dimensions,
      payloadSha256: sha256(payloadBytes),
    };
    const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      mkdirSync(this.directory, { recursive: true });
      writeFileSync(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, "utf8"), payloadBytes]));
      renameSync(temporary, path);
    } catch (error) {
      rmSync(temporary, { force: true });
      this.warn(`cannot write the embedding cache file ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}); the embeddings are used without being cached`);
    }
  }
}

/** The vectors of a cache file, or what is wrong with it. Little-endian float64 is assumed (every platform Node runs on). */
function checkFile(bytes: Buffer, identity: EmbeddingSpaceIdentity, documents: readonly EmbeddedDocument[]): Float64Array[] | string {
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) return "no header line";
  let header: z.infer<ReturnType<typeof headerSchema>>;
  try {
    const parsed = headerSchema().safeParse(JSON.parse(bytes.subarray(0, newline).toString("utf8")));
    if (!parsed.success) return `not a document-embeddings header (${parsed.error.issues[0]?.message ?? "invalid"})`;
    header = parsed.data;
  } catch {
    return "the header is not JSON";
  }
  if (header.model !== identity.model || header.endpoint !== identity.endpoint || header.encodingFormat !== identity.encodingFormat) return "it belongs to another embedding model or endpoint";
  if (header.documents !== documentsDigest(documents) || header.count !== documents.length) return "it belongs to other documents";
  const payload = bytes.subarray(newline + 1);
  if (payload.byteLength !== header.count * header.dimensions * 8) return `truncated (${payload.byteLength} bytes of vectors, ${header.count * header.dimensions * 8} expected)`;
  if (sha256(payload) !== header.payloadSha256) return "the vectors do not match their checksum";
  const values = new Float64Array(payload.buffer.slice(payload.byteOffset, payload.byteOffset + payload.byteLength));
  return Array.from({ length: header.count }, (_, row) => values.subarray(row * header.dimensions, (row + 1) * header.dimensions));
}
