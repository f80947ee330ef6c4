/**
 * A τ² JSON database whose records are validated when first used, once the same file has been
 * validated whole under the same model.
 *
 * Every run validates the database (retail's 2.8 MB `db.json`: 1,000 orders, 500 users, 50
 * products) the way τ²'s `DB.load` does, and parsing and validating all of it at start-up was
 * ~15% of a retail oracle run, while a run looks at a few hundred of its records. After a run has
 * validated a file whole, where each field and each record of its record dicts (`dict[str, Model]`
 * fields) is in the text is kept in the derived cache under the file's SHA-256 and the model's
 * fingerprint (`pyModelSchemaFingerprint`): the two decide every validated value, so the entry
 * only says where the pieces of a text already shown valid are. A later run with the same bytes
 * and model validates the other fields at once and each record when it is first looked up
 * (sealed as `prepareShared` seals a loaded record), as the τ-bench record files are built
 * (`data/json-record-file.ts`). An entry that does not fit the text is not used: the file is then
 * validated whole, as without a cache.
 */
import { cachedDerivation, derivedCacheDir, derivedCacheKey, readDerived } from "../../../data/derived-cache.ts";
import { LazyRecordDict } from "../../../data/json-record-file.ts";
import { DataError } from "../../../errors/error-tree.ts";
import { PyException, PyModel, type PyFieldType, type PyModelSchema, type PyValue, parsePythonJson, pyModelSchemaFingerprint, pyValidateValue, scanPythonJsonObject } from "../../../value/index.ts";
import { sealShared } from "./shared-records.ts";

const LAYOUT_KIND = "tau2-database-layout-v1";

type Span = [key: string, start: number, end: number];

/** Where a validated database's pieces are in its text (UTF-16 offsets). */
interface DatabaseLayout {
  length: number;
  /** The top-level object's members. */
  fields: Span[];
  /** For each record-dict field: its records. */
  records: Record<string, Span[]>;
}

/** A `dict[str, Model]` field: the records a database holds by id. */
function recordType(type: PyFieldType): PyFieldType | undefined {
  return type.kind === "dict" && type.value.kind === "model" ? type.value : undefined;
}

function layoutKey(sha256: string, schema: PyModelSchema): string {
  return derivedCacheKey(sha256, pyModelSchemaFingerprint(schema));
}

/**
 * Keeps the layout of a database file that has just been validated whole (`text` is its decoded
 * content): later runs over the same bytes and model then validate its records on first use.
 */
export function rememberDatabaseLayout(text: string, schema: PyModelSchema, sha256: string): void {
  // With the cache turned off there is nowhere to keep it: no scan.
  if (derivedCacheDir() === null) return;
  cachedDerivation(
    LAYOUT_KIND,
    layoutKey(sha256, schema),
    (value): value is DatabaseLayout => fitsLayout(value, text.length),
    () => layoutOf(text, schema),
  );
}

function layoutOf(text: string, schema: PyModelSchema): DatabaseLayout {
  const fields = (scanPythonJsonObject(text) ?? []).map(({ key, start, end }): Span => [key, start, end]);
  const records: Record<string, Span[]> = {};
  for (const field of schema.fields) {
    const span = fields.find(([name]) => name === field.name);
    if (span === undefined || recordType(field.type) === undefined) continue;
    const [, start, end] = span;
    const members = scanPythonJsonObject(text.slice(start, end));
    if (members !== null) records[field.name] = members.map((member): Span => [member.key, start + member.start, start + member.end]);
  }
  return { length: text.length, fields, records };
}

function isSpans(value: unknown, from: number, to: number): value is Span[] {
  if (!Array.isArray(value)) return false;
  let previous = from;
  for (const span of value) {
    if (!Array.isArray(span) || span.length !== 3 || typeof span[0] !== "string") return false;
    const [, start, end] = span as unknown[];
    if (!Number.isInteger(start) || !Number.isInteger(end) || (start as number) < previous || (start as number) >= (end as number) || (end as number) > to) return false;
    previous = end as number;
  }
  return true;
}

function fitsLayout(value: unknown, length: number): value is DatabaseLayout {
  const layout = value as DatabaseLayout;
  if (layout?.length !== length || !isSpans(layout.fields, 0, length) || typeof layout.records !== "object" || layout.records === null) return false;
  return Object.entries(layout.records).every(([name, spans]) => {
    const field = layout.fields.find(([fieldName]) => fieldName === name);
    return field !== undefined && isSpans(spans, field[1], field[2]);
  });
}

/**
 * The validated database of `text` with its record dicts' records validated on first use, when the
 * derived cache holds the layout of this very file under this model (else undefined: validate it
 * whole). The model's fields are in the model's order, a missing one its default, as
 * `pyModelValidate` gives them.
 */
export function lazyValidatedDatabase(text: string, path: string, schema: PyModelSchema, sha256: string): PyModel | undefined {
  const layout = readDerived(LAYOUT_KIND, layoutKey(sha256, schema));
  if (!fitsLayout(layout, text.length)) return undefined;
  const spans = new Map(layout.fields.map(([name, start, end]) => [name, [start, end] as const]));
  const model = new PyModel(schema);
  try {
    for (const field of schema.fields) {
      const span = spans.get(field.name);
      if (span === undefined) {
        if (!field.defaultValue) return undefined;
        model.set(field.name, field.defaultValue());
        continue;
      }
      const itemType = recordType(field.type);
      const records = layout.records[field.name];
      if (itemType !== undefined && records !== undefined) {
        model.set(field.name, new LazyRecordDict(text, records, (slice) => validatedRecord(itemType, slice, path, schema), true));
        continue;
      }
      model.set(field.name, pyValidateValue(field.type, parsePythonJson(text.slice(span[0], span[1])), schema.name));
    }
  } catch {
    // The entry does not describe this text after all: validate it whole.
    return undefined;
  }
  return model;
}

/** One record, validated as its dict field validates it and sealed as a loaded record is. */
function validatedRecord(type: PyFieldType, slice: string, path: string, schema: PyModelSchema): PyValue {
  let record: PyValue;
  try {
    record = pyValidateValue(type, parsePythonJson(slice), schema.name);
  } catch (error) {
    if (PyException.isInstance(error)) throw new DataError(`${path}: ${error.message}`, { cause: error });
    throw error;
  }
  sealShared(record);
  return record;
}
