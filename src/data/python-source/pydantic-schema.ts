/**
 * pydantic v2's `model_json_schema()` (validation mode, default settings) computed from source:
 * field annotations and `Field(...)` arguments of a model written in Python, or of a model built
 * from a function signature (τ²'s tool `parameters`).
 *
 * Why: the parameter schemas τ² sends to the model are `create_model("parameters", ...)` schemas
 * of each tool's signature, with nested models of `data_model.py` in `$defs`. Reproducing them from
 * the source (not from a copy) keeps the original authors' descriptions out of the project while
 * the model still sees exactly what the original sends. Covered: `str`/`int`/`float`/`bool`/`Any`,
 * `list`/`List[...]`, `dict`/`Dict[...]`, `tuple[...]`, `set[...]`, `Literal[...]`, `Optional[...]`,
 * `Union[...]` and `A | B`, `Annotated[T, Field(...)]`, type aliases, str/int enums, nested and
 * inherited models, `model_config = ConfigDict(extra=...)`, `Field(default, description=...,
 * default_factory=..., title=...)`. Key order follows pydantic (keys sorted, except inside
 * `properties` and `default`). Anything else is a {@link PythonSourceError} naming file and line.
 */
import { PyFloat, type PyValue } from "../../value/index.ts";
import { cleandoc } from "./docstring.ts";
import { PythonSourceError, type PythonSourceTree, type ResolvedName } from "./modules.ts";
import { dottedName, type PyClassDef, type PyExpr, type PythonSourceFile } from "./syntax.ts";

/** A JSON value as the schema holds it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON schema object. */
export type JsonSchema = { [key: string]: JsonValue };

/** An expression together with the module its names resolve in. */
export interface ScopedExpr {
  expression: PyExpr;
  module: string;
}

/** One field of a model to build: annotation (absent = `Any`), default, description. */
export interface SchemaField {
  name: string;
  annotation?: ScopedExpr;
  /** Absent = required; `{factory: true}` = `default_factory` (not required, no default shown). */
  default?: { value: ScopedExpr } | { factory: true };
  description?: string;
}

/** What the generator knows about classes outside the source tree. */
export interface SchemaOptions {
  /**
   * Qualified names of model base classes that are not in the tree (`pydantic.BaseModel` is always
   * known), with their `extra` setting, e.g. a project's `BaseModelNoExtra` with `extra: "forbid"`.
   */
  externalModelBases?: Readonly<Record<string, { extra?: "forbid" | "allow" | "ignore" }>>;
}

const TYPING_MODULES = new Set(["typing", "typing_extensions"]);
const ENUM_BASES = new Set(["enum.Enum", "enum.IntEnum", "enum.StrEnum"]);

type TypeRef =
  | { kind: "builtin"; name: string }
  | { kind: "typing"; name: string }
  | { kind: "model"; module: string; file: PythonSourceFile; definition: PyClassDef }
  | { kind: "enum"; module: string; file: PythonSourceFile; definition: PyClassDef }
  | { kind: "alias"; value: ScopedExpr }
  | { kind: "external"; qualifiedName: string };

/** Builds pydantic JSON schemas from source, collecting nested models and enums into `$defs`. */
export class PydanticSchemaBuilder {
  private readonly definitions = new Map<string, JsonSchema>();
  private readonly building = new Set<string>();

  constructor(
    private readonly tree: PythonSourceTree,
    private readonly options: SchemaOptions = {},
  ) {}

  /**
   * `create_model(title, **fields).model_json_schema()`: properties in field order, `required`,
   * `title`, `type: object`, and `$defs` for every model or enum reached.
   */
  modelSchema(title: string, fields: readonly SchemaField[]): JsonSchema {
    this.definitions.clear();
    const schema = this.objectSchema(title, fields, undefined, undefined);
    if (this.definitions.size > 0) schema.$defs = Object.fromEntries(this.definitions);
    return sortSchema(schema) as JsonSchema;
  }

  /** The JSON schema of a model class defined in the tree (its own `model_json_schema()`). */
  classSchema(module: string, className: string): JsonSchema {
    const resolved = this.tree.resolve(module, className);
    if (resolved.kind !== "class") throw new PythonSourceError(`${this.tree.pathOf(module)}: '${className}' is not a class`);
    this.definitions.clear();
    const fields = this.modelFields(resolved.module, resolved.definition);
    const schema = this.objectSchema(resolved.definition.name, fields, resolved.definition.docstring, this.extraOf(resolved.module, resolved.definition));
    if (this.definitions.size > 0) schema.$defs = Object.fromEntries(this.definitions);
    return sortSchema(schema) as JsonSchema;
  }

  private objectSchema(title: string, fields: readonly SchemaField[], docstring: string | undefined, extra: string | undefined): JsonSchema {
    const properties: JsonSchema = {};
    const required: string[] = [];
    for (const field of fields) {
      properties[field.name] = this.fieldSchema(field);
      if (!field.default) required.push(field.name);
    }
    const schema: JsonSchema = { properties };
    if (required.length > 0) schema.required = required;
    schema.title = title;
    schema.type = "object";
    if (docstring) schema.description = cleandoc(docstring);
    if (extra === "forbid") schema.additionalProperties = false;
    else if (extra === "allow") schema.additionalProperties = true;
    return schema;
  }

  private fieldSchema(field: SchemaField): JsonSchema {
    const { schema, titled } = field.annotation ? this.fieldTypeSchema(field.annotation) : { schema: {}, titled: true };
    const result: JsonSchema = { ...schema };
    if (field.default && "value" in field.default) result.default = this.defaultValue(field.default.value);
    if (field.description !== undefined) result.description = field.description;
    if (titled) result.title = pythonTitle(field.name);
    return result;
  }

  /** A field's type schema, and whether pydantic gives the field a title (not for a bare or Optional model/enum reference). */
  private fieldTypeSchema(annotation: ScopedExpr): { schema: JsonSchema; titled: boolean } {
    const schema = this.typeSchema(annotation);
    const members = Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]) : [schema];
    const nonNull = members.filter((member) => !(member.type === "null" && Object.keys(member).length === 1));
    const isOptional = nonNull.length === 1 && members.length === 2;
    const inner = isOptional ? nonNull[0] : schema;
    const referenced = typeof inner.$ref === "string" && this.isNullableOf(annotation, isOptional);
    return { schema, titled: !referenced };
  }

  /** True for a plain reference, or `Optional[X]`/`X | None` of one (pydantic unwraps only nullable schemas). */
  private isNullableOf(annotation: ScopedExpr, isOptional: boolean): boolean {
    if (!isOptional) return true;
    const members = this.unionMembers(annotation);
    return members !== undefined && members.filter((member) => !this.isNone(member)).length === 1;
  }

  private typeSchema(scoped: ScopedExpr): JsonSchema {
    const { expression } = scoped;
    const unionMembers = this.unionMembers(scoped);
    if (unionMembers) return this.unionSchema(unionMembers);
    if (expression.kind === "constant" && expression.value === null) return { type: "null" };
    if (expression.kind === "subscript") return this.genericSchema(scoped);
    const reference = this.typeRef(scoped);
    switch (reference.kind) {
      case "builtin":
      case "typing":
        return this.bareSchema(reference.name, scoped);
      case "model":
        return this.modelReference(reference.module, reference.definition);
      case "enum":
        return this.enumReference(reference.module, reference.file, reference.definition);
      case "alias":
        return this.typeSchema(reference.value);
      default:
        return this.fail(scoped, `unsupported type '${reference.qualifiedName}'`);
    }
  }

  private bareSchema(name: string, scoped: ScopedExpr): JsonSchema {
    switch (name) {
      case "str":
        return { type: "string" };
      case "int":
        return { type: "integer" };
      case "float":
        return { type: "number" };
      case "bool":
        return { type: "boolean" };
      case "None":
        return { type: "null" };
      case "Any":
      case "object":
        return {};
      case "dict":
      case "Dict":
        return { additionalProperties: true, type: "object" };
      case "list":
      case "List":
        return { items: {}, type: "array" };
      case "set":
      case "Set":
        return { items: {}, type: "array", uniqueItems: true };
      case "tuple":
      case "Tuple":
        return { items: {}, type: "array" };
      default:
        return this.fail(scoped, `unsupported type '${name}'`);
    }
  }

  private genericSchema(scoped: ScopedExpr): JsonSchema {
    const expression = scoped.expression as Extract<PyExpr, { kind: "subscript" }>;
    const reference = this.typeRef({ expression: expression.object, module: scoped.module });
    const name = reference.kind === "builtin" || reference.kind === "typing" ? reference.name : "";
    const argumentsOf = expression.index.kind === "tuple" ? expression.index.items : [expression.index];
    const at = (index: number): ScopedExpr => ({ expression: argumentsOf[index], module: scoped.module });
    switch (name) {
      case "list":
      case "List":
      case "Sequence":
        return { items: this.typeSchema(at(0)), type: "array" };
      case "set":
      case "Set":
      case "frozenset":
        return { items: this.typeSchema(at(0)), type: "array", uniqueItems: true };
      case "tuple":
      case "Tuple": {
        if (argumentsOf.length === 2 && argumentsOf[1].kind === "ellipsis") return { items: this.typeSchema(at(0)), type: "array" };
        const items = argumentsOf.map((_argument, index) => this.typeSchema(at(index)));
        return { maxItems: items.length, minItems: items.length, prefixItems: items, type: "array" };
      }
      case "dict":
      case "Dict":
        return this.dictSchema(at(0), at(1));
      case "Literal":
        return this.literalSchema(argumentsOf.map((_argument, index) => at(index)));
      case "Annotated": {
        const inner = this.typeSchema(at(0));
        const info = this.fieldInfo(at(1));
        const result = { ...inner };
        if (info.description !== undefined) result.description = info.description;
        return result;
      }
      default:
        return this.fail(scoped, "unsupported generic type");
    }
  }

  private dictSchema(keys: ScopedExpr, values: ScopedExpr): JsonSchema {
    const keySchema = { ...this.typeSchema(keys) };
    const valueSchema = { ...this.typeSchema(values) };
    delete valueSchema.title;
    if (!("$ref" in keySchema)) delete keySchema.title;
    const schema: JsonSchema = { type: "object" };
    schema.additionalProperties = Object.keys(valueSchema).length > 0 ? valueSchema : true;
    if ((keySchema.type === "string" && Object.keys(keySchema).length > 1) || "$ref" in keySchema) {
      delete keySchema.type;
      schema.propertyNames = keySchema;
    }
    return schema;
  }

  private literalSchema(values: readonly ScopedExpr[]): JsonSchema {
    const expected = values.map((value) => this.defaultValue(value));
    const schema: JsonSchema = expected.length === 1 ? { const: expected[0] } : { enum: expected };
    const types = new Set(expected.map((value) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)));
    if (types.size === 1) {
      const only = [...types][0];
      const jsonType = { string: "string", boolean: "boolean", null: "null", array: "array" }[only as string];
      if (jsonType) schema.type = jsonType;
      else if (only === "number") schema.type = values.every((value) => this.isIntLiteral(value)) ? "integer" : "number";
    }
    return schema;
  }

  private isIntLiteral(scoped: ScopedExpr): boolean {
    const expression = scoped.expression.kind === "unary" ? scoped.expression.operand : scoped.expression;
    return expression.kind === "constant" && (typeof expression.value === "number" || typeof expression.value === "bigint");
  }

  /** The members of `Optional[X]`, `Union[...]` or `A | B` (flattened), or undefined for other types. */
  private unionMembers(scoped: ScopedExpr): ScopedExpr[] | undefined {
    const { expression, module } = scoped;
    if (expression.kind === "binary" && expression.operator === "|") {
      return [expression.left, expression.right].flatMap((member) => this.unionMembers({ expression: member, module }) ?? [{ expression: member, module }]);
    }
    if (expression.kind === "subscript") {
      const reference = this.typeRef({ expression: expression.object, module });
      if (reference.kind !== "typing" || (reference.name !== "Optional" && reference.name !== "Union")) return undefined;
      const argumentsOf = expression.index.kind === "tuple" ? expression.index.items : [expression.index];
      const members = argumentsOf.flatMap((member) => this.unionMembers({ expression: member, module }) ?? [{ expression: member, module }]);
      if (reference.name === "Optional") members.push({ expression: { kind: "constant", value: null, start: expression.start }, module });
      return members;
    }
    if (expression.kind === "name" || expression.kind === "attribute") {
      const reference = this.typeRef(scoped);
      if (reference.kind === "alias") return this.unionMembers(reference.value);
    }
    return undefined;
  }

  private isNone(scoped: ScopedExpr): boolean {
    return scoped.expression.kind === "constant" && scoped.expression.value === null;
  }

  private unionSchema(members: readonly ScopedExpr[]): JsonSchema {
    const nullable = members.some((member) => this.isNone(member));
    const choices = members.filter((member) => !this.isNone(member)).map((member) => this.typeSchema(member));
    let inner: JsonSchema;
    if (choices.length === 0) return { type: "null" };
    if (choices.length === 1) inner = choices[0];
    else inner = flattenedAnyOf(choices);
    return nullable ? flattenedAnyOf([inner, { type: "null" }]) : inner;
  }

  private typeRef(scoped: ScopedExpr): TypeRef {
    const dotted = dottedName(scoped.expression);
    if (dotted === undefined) return this.fail(scoped, "expected a type name");
    let resolved: ResolvedName;
    try {
      resolved = this.tree.resolveDotted(scoped.module, dotted);
    } catch (error) {
      if (!PythonSourceError.isInstance(error)) throw error;
      return this.fail(scoped, `cannot resolve the type '${dotted}'`);
    }
    switch (resolved.kind) {
      case "builtin":
        return resolved;
      case "external": {
        const split = resolved.qualifiedName.lastIndexOf(".");
        const owner = resolved.qualifiedName.slice(0, split);
        const name = resolved.qualifiedName.slice(split + 1);
        if (TYPING_MODULES.has(owner) || owner === "builtins") return { kind: "typing", name };
        if (owner === "collections.abc" && name === "Sequence") return { kind: "typing", name };
        return resolved;
      }
      case "value":
        return { kind: "alias", value: { expression: resolved.expression, module: resolved.module } };
      case "function":
        return this.fail(scoped, `'${dotted}' is a function, not a type`);
      case "class":
        return this.classKind(resolved.module, resolved.file, resolved.definition) === "enum"
          ? { kind: "enum", module: resolved.module, file: resolved.file, definition: resolved.definition }
          : { kind: "model", module: resolved.module, file: resolved.file, definition: resolved.definition };
    }
  }

  /** Whether a class is a pydantic model or an enum, by its bases. */
  private classKind(module: string, file: PythonSourceFile, definition: PyClassDef): "model" | "enum" {
    for (const base of definition.bases) {
      const dotted = dottedName(base);
      if (dotted === undefined) continue;
      const resolved = this.tree.resolveDotted(module, dotted);
      if (resolved.kind === "external") {
        if (ENUM_BASES.has(resolved.qualifiedName)) return "enum";
        if (resolved.qualifiedName === "pydantic.BaseModel" || this.options.externalModelBases?.[resolved.qualifiedName]) return "model";
      } else if (resolved.kind === "class") {
        return this.classKind(resolved.module, resolved.file, resolved.definition);
      }
    }
    return file.fail(definition.start, `class ${definition.name} is neither a pydantic model nor an enum the reader knows`);
  }

  private modelReference(module: string, definition: PyClassDef): JsonSchema {
    const name = definition.name;
    if (!this.definitions.has(name) && !this.building.has(name)) {
      this.building.add(name);
      try {
        const fields = this.modelFields(module, definition);
        this.definitions.set(name, this.objectSchema(name, fields, definition.docstring, this.extraOf(module, definition)));
      } finally {
        this.building.delete(name);
      }
    }
    return { $ref: `#/$defs/${name}` };
  }

  private enumReference(module: string, file: PythonSourceFile, definition: PyClassDef): JsonSchema {
    const name = definition.name;
    if (!this.definitions.has(name)) {
      const values = this.enumValues(module, file, definition);
      const schema: JsonSchema = {};
      if (definition.docstring) schema.description = cleandoc(definition.docstring);
      schema.enum = values;
      schema.title = name;
      if (values.every((value) => typeof value === "string")) schema.type = "string";
      else if (values.every((value) => typeof value === "number" && Number.isInteger(value))) schema.type = "integer";
      this.definitions.set(name, schema);
    }
    return { $ref: `#/$defs/${name}` };
  }

  private enumValues(module: string, file: PythonSourceFile, definition: PyClassDef): JsonValue[] {
    return definition.assignments
      .filter((assignment) => !assignment.name.startsWith("_") && assignment.value !== undefined)
      .map((assignment) => {
        const value = this.defaultValue({ expression: assignment.value!, module });
        if (value === undefined) file.fail(assignment.start, `enum member ${definition.name}.${assignment.name} is not a literal`);
        return value;
      });
  }

  /** The `extra` setting of a model: its own `model_config`, else its bases'. */
  private extraOf(module: string, definition: PyClassDef): string | undefined {
    const config = definition.assignments.find((assignment) => assignment.name === "model_config");
    if (config?.value?.kind === "call") {
      const extra = config.value.keywords.find((keyword) => keyword.name === "extra");
      if (extra?.value.kind === "constant" && typeof extra.value.value === "string") return extra.value.value;
    }
    for (const base of definition.bases) {
      const dotted = dottedName(base);
      if (dotted === undefined) continue;
      const resolved = this.tree.resolveDotted(module, dotted);
      if (resolved.kind === "external") {
        const known = this.options.externalModelBases?.[resolved.qualifiedName];
        if (known?.extra) return known.extra;
      } else if (resolved.kind === "class") {
        const inherited = this.extraOf(resolved.module, resolved.definition);
        if (inherited) return inherited;
      }
    }
    return undefined;
  }

  /** A model's fields: the bases' first (a redefinition keeps its base position), then its own annotated assignments. */
  modelFields(module: string, definition: PyClassDef): SchemaField[] {
    const fields = new Map<string, SchemaField>();
    for (const base of definition.bases) {
      const dotted = dottedName(base);
      if (dotted === undefined) continue;
      const resolved = this.tree.resolveDotted(module, dotted);
      if (resolved.kind === "class") for (const field of this.modelFields(resolved.module, resolved.definition)) fields.set(field.name, field);
    }
    for (const assignment of definition.assignments) {
      if (!assignment.annotation || assignment.name === "model_config" || assignment.name.startsWith("_")) continue;
      const annotation: ScopedExpr = { expression: assignment.annotation, module };
      if (this.isClassVar(annotation)) continue;
      fields.set(assignment.name, this.declaredField(assignment.name, annotation, assignment.value && { expression: assignment.value, module }));
    }
    return [...fields.values()];
  }

  private isClassVar(annotation: ScopedExpr): boolean {
    const target = annotation.expression.kind === "subscript" ? annotation.expression.object : annotation.expression;
    const reference = dottedName(target) === undefined ? undefined : this.typeRef({ expression: target, module: annotation.module });
    return reference?.kind === "typing" && reference.name === "ClassVar";
  }

  /** A field from `name: annotation [= value]`, merging `Annotated[T, Field(...)]` and `= Field(...)`. */
  private declaredField(name: string, annotation: ScopedExpr, value: ScopedExpr | undefined): SchemaField {
    let type = annotation;
    let description: string | undefined;
    let fieldDefault: SchemaField["default"];
    let required = true;
    const annotated = this.annotatedParts(annotation);
    if (annotated) {
      type = annotated.type;
      for (const metadata of annotated.metadata) {
        const info = this.fieldInfo(metadata);
        if (info.description !== undefined) description = info.description;
        if (info.default) {
          fieldDefault = info.default;
          required = false;
        }
      }
    }
    if (value) {
      const info = this.isFieldCall(value) ? this.fieldInfo(value) : { default: { value } as SchemaField["default"], description: undefined };
      if (info.description !== undefined) description = info.description;
      if (info.default) {
        fieldDefault = info.default;
        required = false;
      } else if (this.isFieldCall(value)) {
        required = true;
        fieldDefault = undefined;
      }
    }
    return { name, annotation: type, default: required ? undefined : fieldDefault, description };
  }

  private annotatedParts(annotation: ScopedExpr): { type: ScopedExpr; metadata: ScopedExpr[] } | undefined {
    const { expression, module } = annotation;
    if (expression.kind !== "subscript") return undefined;
    const reference = dottedName(expression.object) === undefined ? undefined : this.typeRef({ expression: expression.object, module });
    if (reference?.kind !== "typing" || reference.name !== "Annotated" || expression.index.kind !== "tuple") return undefined;
    const [type, ...metadata] = expression.index.items;
    return { type: { expression: type, module }, metadata: metadata.map((item) => ({ expression: item, module })) };
  }

  private isFieldCall(scoped: ScopedExpr): boolean {
    const { expression, module } = scoped;
    if (expression.kind !== "call") return false;
    const dotted = dottedName(expression.callee);
    if (dotted === undefined) return false;
    const resolved = this.tree.resolveDotted(module, dotted);
    return resolved.kind === "external" && resolved.qualifiedName === "pydantic.Field";
  }

  /** `Field(default, description=..., default_factory=..., title=...)`: default and description. */
  private fieldInfo(scoped: ScopedExpr): { default?: SchemaField["default"]; description?: string } {
    if (!this.isFieldCall(scoped)) return this.fail(scoped, "expected Field(...)");
    const call = scoped.expression as Extract<PyExpr, { kind: "call" }>;
    const at = (expression: PyExpr): ScopedExpr => ({ expression, module: scoped.module });
    let fieldDefault: SchemaField["default"];
    const setDefault = (expression: PyExpr): void => {
      fieldDefault = expression.kind === "ellipsis" ? undefined : { value: at(expression) };
    };
    if (call.positional.length > 1) this.fail(scoped, "Field() takes one positional argument");
    if (call.positional[0]) setDefault(call.positional[0]);
    let description: string | undefined;
    for (const keyword of call.keywords) {
      switch (keyword.name) {
        case "default":
          setDefault(keyword.value);
          break;
        case "default_factory":
          fieldDefault = { factory: true };
          break;
        case "description": {
          const value = this.defaultValue(at(keyword.value));
          if (typeof value !== "string") this.fail(at(keyword.value), "Field description must be a string literal");
          description = value;
          break;
        }
        case "validate_default":
        case "repr":
        case "exclude":
          break;
        default:
          this.fail(at(keyword.value), `Field argument '${keyword.name ?? "**"}' is not supported by the schema reader`);
      }
    }
    return { default: fieldDefault, description };
  }

  /** The JSON form of a default (or Literal member): literals, containers, enum members (their value). */
  defaultValue(scoped: ScopedExpr): JsonValue {
    const { expression, module } = scoped;
    switch (expression.kind) {
      case "constant":
        return jsonOf(expression.value, () => this.fail(scoped, "unsupported constant"));
      case "unary": {
        const operand = this.defaultValue({ expression: expression.operand, module });
        if (expression.operator === "-" && typeof operand === "number") return -operand;
        return this.fail(scoped, "unsupported default value");
      }
      case "list":
      case "tuple":
        return expression.items.map((item) => this.defaultValue({ expression: item, module }));
      case "dict": {
        const result: { [key: string]: JsonValue } = {};
        for (const entry of expression.entries) {
          const key = this.defaultValue({ expression: entry.key, module });
          if (typeof key !== "string") this.fail(scoped, "dict keys must be strings");
          result[key] = this.defaultValue({ expression: entry.value, module });
        }
        return result;
      }
      case "attribute": {
        const owner = dottedName(expression.object);
        const reference = owner === undefined ? undefined : this.typeRef({ expression: expression.object, module });
        if (reference?.kind === "enum") {
          const member = reference.definition.assignments.find((assignment) => assignment.name === expression.name);
          if (member?.value) return this.defaultValue({ expression: member.value, module: reference.module });
        }
        return this.fail(scoped, `unsupported value '${dottedName(expression) ?? "?"}'`);
      }
      default:
        return this.fail(scoped, "unsupported default value");
    }
  }

  private fail(scoped: ScopedExpr, reason: string): never {
    const file = this.tree.module(scoped.module);
    const { line, column } = file.source.position(scoped.expression.start);
    throw new PythonSourceError(`${file.file}:${line}:${column}: ${reason}`);
  }
}

function jsonOf(value: PyValue, fail: () => never): JsonValue {
  if (value === null || typeof value === "boolean" || typeof value === "string" || typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (value instanceof PyFloat) return value.value;
  return fail();
}

function flattenedAnyOf(schemas: readonly JsonSchema[]): JsonSchema {
  const members: JsonSchema[] = [];
  for (const schema of schemas) {
    const keys = Object.keys(schema);
    if (keys.length === 1 && keys[0] === "anyOf") members.push(...(schema.anyOf as JsonSchema[]));
    else members.push(schema);
  }
  const unique: JsonSchema[] = [];
  for (const member of members) if (!unique.some((seen) => JSON.stringify(seen) === JSON.stringify(member))) unique.push(member);
  return unique.length === 1 ? unique[0] : { anyOf: unique };
}

/** Python's `str.title()`: a cased letter after an uncased character is upper-cased, the others lower-cased. */
export function pythonTitleCase(text: string): string {
  let out = "";
  let previousCased = false;
  for (const char of text) {
    const cased = char.toLowerCase() !== char.toUpperCase();
    out += cased ? (previousCased ? char.toLowerCase() : char.toUpperCase()) : char;
    previousCased = cased;
  }
  return out;
}

/** pydantic's default field title: `name.title().replace("_", " ").strip()`. */
export function pythonTitle(name: string): string {
  return pythonTitleCase(name).replace(/_/g, " ").trim();
}

/** pydantic's key order: keys sorted recursively, except the keys directly inside `properties` and `default`. */
export function sortSchema(value: JsonValue, parentKey?: string): JsonValue {
  if (Array.isArray(value)) return value.map((item) => sortSchema(item, parentKey));
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  const ordered = parentKey === "properties" || parentKey === "default" ? keys : [...keys].sort();
  const result: { [key: string]: JsonValue } = {};
  for (const key of ordered) result[key] = sortSchema(value[key], key);
  return result;
}
