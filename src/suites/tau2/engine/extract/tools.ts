/**
 * τ²'s tool schemas, extracted from the toolkit sources in the data directory exactly as τ² builds
 * them (`Tool.openai_schema`: name, description from the docstring, `parameters` =
 * `create_model("parameters", ...)` of the signature → pydantic JSON schema), with each tool's
 * type and `mutates_state` from its `@is_tool(...)` decorator and the text of
 * `Environment.get_tools_description()`.
 *
 * Why extracted: the descriptions are the original authors' text, which this project never
 * contains; the model must still see exactly what the original sends (tests compare with the
 * `tools_<domain>.json` fixtures).
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseDocstring } from "../../../../data/python-source/docstring.ts";
import { describeFailure, PythonSourceError, type PythonSourceTree } from "../../../../data/python-source/modules.ts";
import { type JsonSchema, PydanticSchemaBuilder, type SchemaField } from "../../../../data/python-source/pydantic-schema.ts";
import { dottedName, type PyClassDef, type PyFunctionDef, type PythonSourceFile } from "../../../../data/python-source/syntax.ts";
import { TAU2_SCHEMA_OPTIONS, TAU2_SOURCE_HINT, tau2SourceRoot, tau2SourceTree, unexpectedSource } from "./sources.ts";

/** One OpenAI function schema, as τ² sends it in `tools`. */
export interface Tau2FunctionSchema {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

/** A tool's conceptual type and whether replays re-run it. */
export interface Tau2ToolInfo {
  name: string;
  tool_type: string;
  mutates_state: boolean;
}

/** One toolkit (agent or user side) as the model sees it. */
export interface Tau2ToolkitExtraction {
  /** The toolkit class (`MockTools`). */
  className: string;
  /** The `tools` array, in τ²'s order (class definition order, own tools before inherited ones). */
  schemas: Tau2FunctionSchema[];
  info: Tau2ToolInfo[];
  /** `Environment.get_tools_description(...)`: tools by name, `<i>. <name>\n<short description>`, blank-line separated. */
  toolsDescription: string;
}

/** Both toolkits of a domain. */
export interface Tau2ToolsExtraction {
  domain: string;
  agent: Tau2ToolkitExtraction;
  /** Null for domains without user tools (airline, retail). */
  user: Tau2ToolkitExtraction | null;
}

const TOOLKIT_MODULE = "tau2.environment.toolkit";
const TOOLKIT_BASE = "ToolKitBase";
/** Domains whose tools are another domain's (a policy variant). */
const DOMAIN_ALIASES: Readonly<Record<string, string>> = { "telecom-workflow": "telecom" };

/** The domain folders present under `upstream-src/src/tau2/domains`. */
export function tau2SourceDomains(dataRoot: string): string[] {
  const directory = join(tau2SourceRoot(dataRoot), "tau2", "domains");
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(directory, entry.name, "tools.py")))
    .map((entry) => entry.name)
    .sort();
}

/**
 * The tools of a τ² domain (`mock`, `airline`, `retail`, `telecom`, `telecom-workflow`) read from
 * `<dataRoot>/upstream-src/src/tau2/domains/<domain>/{tools,user_tools}.py`. Uncached; see
 * `extractTau2Tools` in `index.ts` for the cached entry point.
 */
export function readTau2Tools(dataRoot: string, domain: string, tree: PythonSourceTree = tau2SourceTree(dataRoot)): Tau2ToolsExtraction {
  const sourceDomain = DOMAIN_ALIASES[domain] ?? domain;
  if (!/^[a-z0-9_]+$/.test(sourceDomain) || !tree.tryModule(`tau2.domains.${sourceDomain}.tools`)) {
    const known = tau2SourceDomains(dataRoot);
    throw new PythonSourceError(
      `${tree.pathOf(`tau2.domains.${sourceDomain}.tools`)} is missing: no τ² tool sources for domain '${domain}' (domains with sources: ${known.join(", ") || "none"}); ${TAU2_SOURCE_HINT}`,
    );
  }
  const toolkits = new ToolkitReader(tree);
  const agent = toolkits.read(`tau2.domains.${sourceDomain}.tools`);
  const userModule = `tau2.domains.${sourceDomain}.user_tools`;
  const user = tree.tryModule(userModule) ? toolkits.read(userModule) : null;
  return { domain, agent, user };
}

/**
 * The tools of named toolkit classes (τ³ banking: the variant's composed class in
 * `retrieval_toolkits.py`, whose mixin tools come first, and `KnowledgeUserTools` of `tools.py`).
 * Uncached; see `extractTau2ToolkitClasses` in `index.ts`.
 */
export function readTau2ToolkitClasses(tree: PythonSourceTree, domain: string, agent: { module: string; className: string }, user?: { module: string; className: string }): Tau2ToolsExtraction {
  const toolkits = new ToolkitReader(tree);
  return { domain, agent: toolkits.read(agent.module, agent.className), user: user ? toolkits.read(user.module, user.className) : null };
}

/** The decorator arguments of one tool. */
interface ToolDecoration {
  method: PyFunctionDef;
  module: string;
  toolType: string;
  mutatesState: boolean;
}

class ToolkitReader {
  private readonly schemas: PydanticSchemaBuilder;

  constructor(private readonly tree: PythonSourceTree) {
    this.schemas = new PydanticSchemaBuilder(tree, TAU2_SCHEMA_OPTIONS);
  }

  /** The one toolkit class of a module (a class deriving from `ToolKitBase`), or the named class (τ³'s composed toolkits). */
  read(module: string, className?: string): Tau2ToolkitExtraction {
    const file = this.tree.module(module, "the tool schemas");
    return describeFailure(file.file, TAU2_SOURCE_HINT, () => {
      const toolkits = file.classes().filter((definition) => (className === undefined ? this.isToolkit(module, definition) : definition.name === className));
      if (toolkits.length !== 1)
        unexpectedSource(file.file, className ?? "toolkit class", `expected one class ${className ? "of that name" : `deriving from ${TOOLKIT_BASE}`}, found ${toolkits.length}`);
      const definition = toolkits[0];
      const tools = this.tools(module, definition);
      const built = tools.map((tool) => this.schema(tool));
      const sorted = [...built].sort((left, right) => (left.schema.function.name < right.schema.function.name ? -1 : left.schema.function.name > right.schema.function.name ? 1 : 0));
      return {
        className: definition.name,
        schemas: built.map((tool) => tool.schema),
        info: tools.map((tool) => ({ name: tool.method.name, tool_type: tool.toolType, mutates_state: tool.mutatesState })),
        toolsDescription: sorted.map((tool, index) => `${index + 1}. ${tool.schema.function.name}\n${tool.shortDescription}`).join("\n\n"),
      };
    });
  }

  private isToolkit(module: string, definition: PyClassDef): boolean {
    if (module === TOOLKIT_MODULE && definition.name === TOOLKIT_BASE) return true;
    return definition.bases.some((base) => {
      const dotted = dottedName(base);
      if (dotted === undefined) return false;
      const resolved = this.tree.resolveDotted(module, dotted);
      return resolved.kind === "class" && this.isToolkit(resolved.module, resolved.definition);
    });
  }

  /** `ToolKitType`'s `_func_tools`: the class's own decorated methods in order, then inherited ones not redefined. */
  private tools(module: string, definition: PyClassDef): ToolDecoration[] {
    const own = definition.methods.flatMap((method) => this.decoration(module, method) ?? []);
    const names = new Set(own.map((tool) => tool.method.name));
    const inherited: ToolDecoration[] = [];
    for (const base of definition.bases) {
      const dotted = dottedName(base);
      if (dotted === undefined) continue;
      const resolved = this.tree.resolveDotted(module, dotted);
      if (resolved.kind !== "class") continue;
      for (const tool of this.tools(resolved.module, resolved.definition)) {
        if (!names.has(tool.method.name)) {
          names.add(tool.method.name);
          inherited.push(tool);
        }
      }
    }
    return [...own, ...inherited];
  }

  /** A method's `@is_tool(tool_type, mutates_state)` (defaults as `is_tool` declares them), or undefined for non-tools and discoverable tools. */
  private decoration(module: string, method: PyFunctionDef): ToolDecoration | undefined {
    const decorator = method.decorators.find((candidate) => {
      const resolved = this.tree.resolveDotted(module, candidate.name);
      return resolved.kind === "function" && resolved.module === TOOLKIT_MODULE && (resolved.definition.name === "is_tool" || resolved.definition.name === "is_discoverable_tool");
    });
    if (!decorator) return undefined;
    const resolved = this.tree.resolveDotted(module, decorator.name);
    if (resolved.kind !== "function" || resolved.definition.name !== "is_tool") return undefined; // discoverable tools are not listed
    const declared = resolved.definition.parameters;
    const argumentFor = (index: number, name: string) => decorator.call?.keywords.find((keyword) => keyword.name === name)?.value ?? decorator.call?.positional[index];
    const valueOf = (index: number, name: string): unknown => {
      const given = argumentFor(index, name);
      if (given) return this.schemas.defaultValue({ expression: given, module });
      const parameter = declared.find((candidate) => candidate.name === name);
      if (!parameter?.default) unexpectedSource(resolved.file.file, "is_tool", `no default for '${name}'`);
      return this.schemas.defaultValue({ expression: parameter.default, module: resolved.module });
    };
    const toolType = valueOf(0, "tool_type");
    if (typeof toolType !== "string") unexpectedSource(resolved.file.file, `${method.name}'s @is_tool`, "the tool type is not a ToolType member");
    const mutates = valueOf(1, "mutates_state");
    return { method, module, toolType, mutatesState: mutates === null ? toolType === "write" : mutates === true };
  }

  /** `Tool(func).openai_schema` for a bound method. */
  private schema(tool: ToolDecoration): { schema: Tau2FunctionSchema; shortDescription: string } {
    return toolSchema(this.schemas, tool.method, tool.module, { dropFirst: true });
  }
}

/**
 * `as_tool(func).openai_schema`: the description is the docstring's short description (or short
 * + blank line + long description; the name when there is none); the parameters are the
 * signature's model with the docstring's argument descriptions.
 */
export function toolSchema(schemas: PydanticSchemaBuilder, method: PyFunctionDef, module: string, options: { dropFirst: boolean }): { schema: Tau2FunctionSchema; shortDescription: string } {
  const doc = parseDocstring(method.docstring);
  const descriptions = new Map(doc.params.map((param) => [param.name, param.description]));
  const parameters = options.dropFirst ? method.parameters.slice(1) : method.parameters;
  const fields: SchemaField[] = parameters.map((parameter) => {
    if (parameter.kind === "var-positional" || parameter.kind === "var-keyword") {
      throw new PythonSourceError(`${method.name}: *args/**kwargs in a tool signature are not supported; ${TAU2_SOURCE_HINT}`);
    }
    return {
      name: parameter.name,
      annotation: parameter.annotation && { expression: parameter.annotation, module },
      default: parameter.default && parameter.default.kind !== "ellipsis" ? { value: { expression: parameter.default, module } } : undefined,
      description: descriptions.get(parameter.name),
    };
  });
  const short = doc.shortDescription ?? "";
  const description = !short ? method.name : doc.longDescription ? `${short}\n\n${doc.longDescription}` : short;
  let parametersSchema: JsonSchema;
  try {
    parametersSchema = schemas.modelSchema("parameters", fields);
  } catch (error) {
    if (!PythonSourceError.isInstance(error)) throw error;
    throw new PythonSourceError(`${error.message} (in the signature of tool '${method.name}'); ${TAU2_SOURCE_HINT}`, { cause: error });
  }
  return { schema: { type: "function", function: { name: method.name, description, parameters: parametersSchema } }, shortDescription: short };
}

/** Re-exported for the prompt extraction (the solo agent's `done` tool is built the same way). */
export type { PythonSourceFile };
