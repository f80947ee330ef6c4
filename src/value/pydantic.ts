/**
 * pydantic v2 models over the value model, as far as τ²-bench's domains observe them.
 *
 * τ² keeps its databases in pydantic models. Three things about that are visible to an agent and to
 * the reference hashes, so they are reproduced here: validation coerces laxly (`100.0` into an `int`
 * field becomes `100`, `"100"` into a `float` field becomes `100.0`) and fails with pydantic's
 * multi-line error text; a model instance dumps in field order with every field present; and
 * assignment to a field is not validated (`task.status = "done"` stores `"done"`). A model instance
 * is a {@link PyModel}: a `Map` (so every dict operation works on it, as `model_dump()` would give)
 * that remembers its schema, which `to_json_str` needs (numbers inside models stay numbers) and
 * error texts need (`'MockDB' object has no attribute …`).
 *
 * Dates and datetimes are held as the text `str()` gives them (`2025-01-01`, `2025-01-01 12:00:00`):
 * that is exactly what `json.dumps(default=str)` writes for them in hashes and tool results, and ISO
 * text compares in date order.
 */
import { PyException } from "./errors.ts";
import { pyFloatRepr } from "./float-repr.ts";
import { pyJsonDumps, pyRepr, pyStrRepr } from "./printing.ts";
import { PyFloat, isPyInt, pyDeepCopy, pyTypeName, type PyDict, type PyValue } from "./values.ts";

/** A field type, as the model's annotation declares it. */
export type PyFieldType =
  | { kind: "str" | "int" | "float" | "bool" | "any" | "date" | "datetime" | "dict-any" }
  | { kind: "literal"; values: readonly (string | number | boolean)[] }
  | { kind: "enum"; name: string; values: readonly string[] }
  | { kind: "optional"; inner: PyFieldType }
  | { kind: "list"; item: PyFieldType }
  | { kind: "dict"; value: PyFieldType }
  | { kind: "union"; options: readonly PyFieldType[] }
  | { kind: "model"; schema: () => PyModelSchema };

/** One field of a model. `defaultValue` makes it optional (a function so mutable defaults are fresh). */
export interface PyModelField {
  name: string;
  type: PyFieldType;
  defaultValue?: () => PyValue;
}

/** A pydantic model class: its name, its fields in declaration order, and whether extra keys are rejected. */
export interface PyModelSchema {
  name: string;
  fields: readonly PyModelField[];
  /** `forbid` (τ²'s `BaseModelNoExtra` and `DB`) or `ignore` (pydantic's default). */
  extra: "forbid" | "ignore";
}

/** An instance of a pydantic model: its fields, in declaration order, as a dict. */
export class PyModel extends Map<string, PyValue> {
  constructor(readonly schema: PyModelSchema) {
    super();
  }
  /** Used by `pyDeepCopy`, so a copied instance stays an instance of its model. */
  emptyClone(): PyModel {
    return new PyModel(this.schema);
  }
}

export function isPyModel(value: unknown): value is PyModel {
  return value instanceof PyModel;
}

/** Builds a model schema; fields given as `[name, type]` or `[name, type, default]`. */
export function pyModelSchema(
  name: string,
  fields: ReadonlyArray<readonly [string, PyFieldType] | readonly [string, PyFieldType, () => PyValue]>,
  extra: "forbid" | "ignore" = "ignore",
): PyModelSchema {
  return { name, extra, fields: fields.map(([fieldName, type, defaultValue]) => ({ name: fieldName, type, defaultValue })) };
}

/**
 * A text naming everything a model schema decides about validated values: every model it reaches
 * (names, `extra`, fields in order, field types, defaults as JSON). Two schemas with the same
 * fingerprint validate any input to the same values, so what is derived from validated data can be
 * keyed by it (the derived cache).
 */
export function pyModelSchemaFingerprint(schema: PyModelSchema): string {
  const models = new Map<PyModelSchema, number>();
  const parts: string[] = [];
  const typeText = (type: PyFieldType): string => {
    switch (type.kind) {
      case "literal":
        return `literal(${JSON.stringify(type.values)})`;
      case "enum":
        return `enum(${JSON.stringify([type.name, type.values])})`;
      case "optional":
        return `optional(${typeText(type.inner)})`;
      case "list":
        return `list(${typeText(type.item)})`;
      case "dict":
        return `dict(${typeText(type.value)})`;
      case "union":
        return `union(${type.options.map(typeText).join(",")})`;
      case "model":
        return `model#${visit(type.schema())}`;
      default:
        return type.kind;
    }
  };
  const visit = (model: PyModelSchema): number => {
    const known = models.get(model);
    if (known !== undefined) return known;
    const id = models.size;
    models.set(model, id);
    const fields = model.fields.map((field) => `${JSON.stringify(field.name)}:${typeText(field.type)}${field.defaultValue ? `=${pyJsonDumps(field.defaultValue())}` : ""}`);
    parts[id] = `#${id} ${JSON.stringify(model.name)} ${model.extra} {${fields.join(";")}}`;
    return id;
  };
  visit(schema);
  return parts.join("\n");
}

/** Shorthands for field types, so a domain's data model reads like its Python annotations. */
export const pyT = {
  str: { kind: "str" } as PyFieldType,
  int: { kind: "int" } as PyFieldType,
  float: { kind: "float" } as PyFieldType,
  bool: { kind: "bool" } as PyFieldType,
  any: { kind: "any" } as PyFieldType,
  date: { kind: "date" } as PyFieldType,
  datetime: { kind: "datetime" } as PyFieldType,
  /** `dict` / `dict[str, Any]`: any dict, kept as given. */
  dictAny: { kind: "dict-any" } as PyFieldType,
  literal: (...values: (string | number | boolean)[]): PyFieldType => ({ kind: "literal", values }),
  enumOf: (name: string, values: readonly string[]): PyFieldType => ({ kind: "enum", name, values }),
  optional: (inner: PyFieldType): PyFieldType => ({ kind: "optional", inner }),
  list: (item: PyFieldType): PyFieldType => ({ kind: "list", item }),
  dict: (value: PyFieldType): PyFieldType => ({ kind: "dict", value }),
  union: (...options: PyFieldType[]): PyFieldType => ({ kind: "union", options }),
  model: (schema: () => PyModelSchema): PyFieldType => ({ kind: "model", schema }),
};

interface LineError {
  loc: (string | number)[];
  type: string;
  message: string;
  input: PyValue | undefined;
}

class Invalid {
  constructor(readonly errors: LineError[]) {}
}

/** pydantic-core's `input_value` text: the repr, shortened in the middle beyond 50 characters. */
function inputRepr(value: PyValue | undefined): string {
  const text = pyRepr(value);
  return text.length > 50 ? `${text.slice(0, 25)}...${text.slice(-24)}` : text;
}

/** The text of a pydantic `ValidationError` (what `str(error)` prints). */
function validationErrorText(title: string, errors: LineError[]): string {
  const head = `${errors.length} validation error${errors.length === 1 ? "" : "s"} for ${title}`;
  const lines = errors.map((error) => {
    const loc = error.loc.length > 0 ? `${error.loc.join(".")}\n` : "";
    return `${loc}  ${error.message} [type=${error.type}, input_value=${inputRepr(error.input)}, input_type=${pyTypeName(error.input)}]\n    For further information visit https://errors.pydantic.dev/2.12/v/${error.type}`;
  });
  return [head, ...lines].join("\n");
}

function fail(type: string, message: string, input: PyValue | undefined): Invalid {
  return new Invalid([{ loc: [], type, message, input }]);
}

function choices(values: readonly (string | number | boolean)[]): string {
  const texts = values.map((value) => (typeof value === "string" ? pyStrRepr(value) : pyRepr(value)));
  return texts.length === 1 ? texts[0] : `${texts.slice(0, -1).join(", ")} or ${texts[texts.length - 1]}`;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(?:Z)?$/;

function validateScalar(kind: string, value: PyValue | undefined): PyValue | Invalid {
  switch (kind) {
    case "str":
      return typeof value === "string" ? value : fail("string_type", "Input should be a valid string", value);
    case "int":
      if (typeof value === "boolean") return value ? 1 : 0;
      if (isPyInt(value)) return value;
      if (value instanceof PyFloat) {
        return Number.isInteger(value.value) ? value.value : fail("int_from_float", "Input should be a valid integer, got a number with a fractional part", value);
      }
      if (typeof value === "string") {
        const trimmed = value.trim();
        return /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : fail("int_parsing", "Input should be a valid integer, unable to parse string as an integer", value);
      }
      return fail("int_type", "Input should be a valid integer", value);
    case "float":
      if (value instanceof PyFloat) return value;
      if (typeof value === "boolean") return new PyFloat(value ? 1 : 0);
      if (isPyInt(value)) return new PyFloat(Number(value));
      if (typeof value === "string") {
        const parsed = Number(value.trim());
        return value.trim() !== "" && !Number.isNaN(parsed) ? new PyFloat(parsed) : fail("float_parsing", "Input should be a valid number, unable to parse string as a number", value);
      }
      return fail("float_type", "Input should be a valid number", value);
    case "bool":
      if (typeof value === "boolean") return value;
      if (value === 0 || value === 1) return value === 1;
      if (typeof value === "string") {
        const lowered = value.toLowerCase();
        if (["1", "on", "t", "true", "y", "yes"].includes(lowered)) return true;
        if (["0", "off", "f", "false", "n", "no"].includes(lowered)) return false;
        return fail("bool_parsing", "Input should be a valid boolean, unable to interpret input", value);
      }
      return fail("bool_type", "Input should be a valid boolean", value);
    case "date":
      if (typeof value === "string" && DATE.test(value)) return value;
      return fail("date_from_datetime_parsing", "Input should be a valid date", value);
    case "datetime": {
      const match = typeof value === "string" ? DATETIME.exec(value) : null;
      if (match === null) return fail("datetime_from_date_parsing", "Input should be a valid datetime", value);
      const [clock, fraction = ""] = match[2].split(".");
      const seconds = clock.length === 5 ? `${clock}:00` : clock;
      const micros = /^0*$/.test(fraction) ? "" : `.${fraction.padEnd(6, "0")}`;
      return `${match[1]} ${seconds}${micros}`;
    }
    case "dict-any":
      return value instanceof Map ? value : fail("dict_type", "Input should be a valid dictionary", value);
    default:
      return value === undefined ? null : value;
  }
}

function prefix(invalid: Invalid, key: string | number): Invalid {
  return new Invalid(invalid.errors.map((error) => ({ ...error, loc: [key, ...error.loc] })));
}

function validateType(type: PyFieldType, value: PyValue | undefined): PyValue | Invalid {
  switch (type.kind) {
    case "literal":
      return type.values.some((allowed) => allowed === value) ? (value as PyValue) : fail("literal_error", `Input should be ${choices(type.values)}`, value);
    case "enum":
      return typeof value === "string" && type.values.includes(value) ? value : fail("enum", `Input should be ${choices(type.values)}`, value);
    case "optional":
      return value === null ? null : validateType(type.inner, value);
    case "list":
      return validateList(type.item, value);
    case "dict":
      return validateDict(type.value, value);
    case "union":
      return validateUnion(type.options, value);
    case "model":
      return validateModelValue(type.schema(), value);
    default:
      return validateScalar(type.kind, value);
  }
}

// The validators below allocate an error list only once something fails: a database of thousands
// of records is validated at every start, and nearly all of it is valid.

function validateList(item: PyFieldType, value: PyValue | undefined): PyValue | Invalid {
  if (!Array.isArray(value)) return fail("list_type", "Input should be a valid list", value);
  const out: PyValue[] = [];
  let errors: LineError[] | undefined;
  for (let index = 0; index < value.length; index++) {
    const result = validateType(item, value[index]);
    if (result instanceof Invalid) (errors ??= []).push(...prefix(result, index).errors);
    else out.push(result);
  }
  return errors !== undefined ? new Invalid(errors) : out;
}

function validateDict(valueType: PyFieldType, value: PyValue | undefined): PyValue | Invalid {
  if (!(value instanceof Map)) return fail("dict_type", "Input should be a valid dictionary", value);
  const out: PyDict = new Map();
  let errors: LineError[] | undefined;
  for (const [key, element] of value) {
    const result = validateType(valueType, element);
    if (result instanceof Invalid) (errors ??= []).push(...prefix(result, key).errors);
    else out.set(key, result);
  }
  return errors !== undefined ? new Invalid(errors) : out;
}

/** Smart-mode unions as the τ² data uses them: an instance of a member model is kept; else the first member that validates. */
function validateUnion(options: readonly PyFieldType[], value: PyValue | undefined): PyValue | Invalid {
  if (value instanceof PyModel) {
    for (const option of options) if (option.kind === "model" && option.schema() === value.schema) return value;
  }
  const errors: LineError[] = [];
  for (const option of options) {
    const result = validateType(option, value);
    if (!(result instanceof Invalid)) return result;
    const label = option.kind === "model" ? option.schema().name : option.kind;
    errors.push(...prefix(result, label).errors);
  }
  return new Invalid(errors);
}

function validateModelValue(schema: PyModelSchema, value: PyValue | undefined): PyValue | Invalid {
  if (value instanceof PyModel && value.schema === schema) return value; // revalidate_instances='never'
  if (!(value instanceof Map)) return fail("model_type", `Input should be a valid dictionary or instance of ${schema.name}`, value);
  const model = new PyModel(schema);
  let errors: LineError[] | undefined;
  let present = 0;
  for (const field of schema.fields) {
    const item = value.get(field.name);
    if (item === undefined && !value.has(field.name)) {
      if (field.defaultValue) model.set(field.name, field.defaultValue());
      else (errors ??= []).push({ loc: [field.name], type: "missing", message: "Field required", input: value });
      continue;
    }
    present++;
    const result = validateType(field.type, item);
    if (result instanceof Invalid) (errors ??= []).push(...prefix(result, field.name).errors);
    else model.set(field.name, result);
  }
  // Extra keys: only when the input has more keys than the fields it matched.
  if (schema.extra === "forbid" && value.size > present) {
    const known = fieldNames(schema);
    for (const [key, element] of value) {
      if (!known.has(key)) (errors ??= []).push({ loc: [key], type: "extra_forbidden", message: "Extra inputs are not permitted", input: element });
    }
  }
  return errors !== undefined ? new Invalid(errors) : model;
}

const fieldNameSets = new WeakMap<PyModelSchema, ReadonlySet<string>>();

/** A schema's field names (made once per schema). */
function fieldNames(schema: PyModelSchema): ReadonlySet<string> {
  let names = fieldNameSets.get(schema);
  if (names === undefined) {
    names = new Set(schema.fields.map((field) => field.name));
    fieldNameSets.set(schema, names);
  }
  return names;
}

/**
 * `Model(**data)` / `Model.model_validate(data)`: a new instance, coerced as pydantic's lax mode
 * does, or a `ValidationError` (a {@link PyException} with pydantic's text) naming every failing field.
 */
export function pyModelValidate(schema: PyModelSchema, data: PyValue | undefined): PyModel {
  const result = validateModelValue(schema, data);
  if (result instanceof Invalid) throw new PyException(validationErrorText(schema.name, result.errors), "ValidationError");
  return result as PyModel;
}

/** Validates one value against a field type (a `TypeAdapter`), raising pydantic's error titled `title`. */
export function pyValidateValue(type: PyFieldType, value: PyValue | undefined, title: string): PyValue {
  const result = validateType(type, value);
  if (result instanceof Invalid) throw new PyException(validationErrorText(title, result.errors), "ValidationError");
  return result;
}

/**
 * `getattr(value, name)` for a field: the model's field value, or Python's AttributeError naming the
 * type (a field may hold a non-model, since assignments are not validated: `'str' object has no
 * attribute 'apn_name'`).
 */
export function pyGetAttr(value: PyValue | undefined, name: PyValue | undefined): PyValue {
  const attribute = attributeName(name);
  if (value instanceof PyModel) {
    // One lookup when the field holds a value; `has` decides only for an undefined answer.
    const item = value.get(attribute);
    if (item !== undefined || value.has(attribute)) return item as PyValue;
  }
  throw new PyException(`'${pyTypeName(value)}' object has no attribute '${attribute}'`, "AttributeError");
}

/**
 * `hasattr(object, name)` over the object's attributes by name (a model's fields, or a class's
 * members such as a toolkit's methods). Like `getattr`, it first requires a str name: a model that
 * sends a list, a number or null as a tool name meets CPython's TypeError, not a "not found".
 */
export function pyHasAttr(attributes: ReadonlyMap<string, unknown>, name: PyValue | undefined): boolean {
  return attributes.has(attributeName(name));
}

/** The name `getattr`/`hasattr`/`setattr` take: a str, or `attribute name must be string, not '<type>'`. */
function attributeName(name: PyValue | undefined): string {
  if (typeof name !== "string") throw new PyException(`attribute name must be string, not '${pyTypeName(name)}'`, "TypeError");
  return name;
}

/**
 * `value.name = item` on a model: stored without validation (pydantic's default); a name that is not
 * a field raises pydantic's `ValueError`; a non-model raises Python's AttributeError.
 */
export function pySetAttr(value: PyValue | undefined, name: string, item: PyValue): void {
  if (!(value instanceof PyModel)) throw new PyException(`'${pyTypeName(value)}' object has no attribute '${name}'`, "AttributeError");
  if (!value.schema.fields.some((field) => field.name === name)) throw new PyException(`"${value.schema.name}" object has no field "${name}"`, "ValueError");
  value.set(name, item);
}

/**
 * τ²'s `update_pydantic_model_with_dict`: deep-merge a patch into the dumped model (dicts merge
 * key by key, anything else replaces), then validate the result as a new instance.
 */
export function pyModelUpdate(model: PyModel, patch: PyDict): PyModel {
  return pyModelValidate(model.schema, deepMerge(model, patch) as PyDict);
}

/**
 * One field of {@link pyModelUpdate}'s merge, before validation: the field's dumped value with the
 * patch's value for it deep-merged in. Validating it as the field's type gives what
 * `pyModelUpdate` stores in that field (a caller that knows the other fields are unchanged can
 * validate only the patched ones).
 */
export function pyMergedFieldValue(current: PyValue, patch: PyValue): PyValue {
  return deepMerge(current instanceof Map ? plainCopy(current) : pyDeepCopy(current), patch);
}

/**
 * Whether validating the dump of a value this type validated gives the same value again (pydantic's
 * round trip `validate(dump(x)) == x`): true for every type but smart-mode unions, where the dumped
 * dict (defaults filled in) may match an earlier member than the one first chosen.
 */
export function pyRevalidationKeeps(type: PyFieldType, seen: Set<PyModelSchema> = new Set()): boolean {
  switch (type.kind) {
    case "union":
      return false;
    case "optional":
      return pyRevalidationKeeps(type.inner, seen);
    case "list":
      return pyRevalidationKeeps(type.item, seen);
    case "dict":
      return pyRevalidationKeeps(type.value, seen);
    case "model": {
      const schema = type.schema();
      if (seen.has(schema)) return true;
      seen.add(schema);
      return schema.fields.every((field) => pyRevalidationKeeps(field.type, seen));
    }
    default:
      return true;
  }
}

function deepMerge(base: PyValue, patch: PyValue): PyValue {
  if (!(base instanceof Map) || !(patch instanceof Map)) return pyDeepCopy(patch);
  const merged: PyDict = new Map();
  for (const [key, value] of base) merged.set(key, value instanceof Map ? plainCopy(value) : pyDeepCopy(value));
  for (const [key, value] of patch) merged.set(key, merged.has(key) ? deepMerge(merged.get(key) as PyValue, value) : pyDeepCopy(value));
  return merged;
}

/** A dumped copy: models become plain dicts (what `model_dump()` returns). */
function plainCopy(value: PyValue): PyValue {
  if (Array.isArray(value)) return value.map(plainCopy);
  if (value instanceof Map) {
    const copy: PyDict = new Map();
    for (const [key, item] of value) copy.set(key, plainCopy(item));
    return copy;
  }
  return value;
}

/** `str(x)` of a number as τ²'s `to_json_str` applies it to numbers outside models (`8.7`, `4.0`, `True`). */
export function pyScalarStr(value: PyValue): string {
  if (typeof value === "boolean") return value ? "True" : "False";
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  return String(value);
}
