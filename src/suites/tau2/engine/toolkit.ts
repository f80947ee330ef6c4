/**
 * τ²-bench toolkits: a class of methods over one database, some of them tools.
 *
 * In τ² a toolkit is a Python class; its `@is_tool` methods are what the agent (or the user
 * simulator) may call, each with a conceptual type and a `mutates_state` flag (only mutating tools
 * are re-executed when the evaluator replays a trajectory); its other public methods (setters used
 * by `initialization_actions`, `assert_*` functions of `env_assertions`) are reachable only through
 * an environment function call. A domain writes its toolkit as a {@link Tau2ToolkitDefinition}: the
 * class name (it appears in Python's error texts) and the methods in definition order.
 */
import { type PyDict, type PyModel, type PyParameter, type PyValue, pyBindArguments, pyContains } from "../../../value/index.ts";
import type { Tau2RandomSource } from "./random.ts";
import type { Tau2Task } from "../tasks.ts";

/** τ²'s `ToolType`: what a tool does, for metrics and READ/WRITE action statistics. */
export type Tau2ToolType = "read" | "write" | "think" | "generic";

/**
 * The toolkit instance a method runs on: `self`, whose `db` the environment may replace (`update_db`),
 * and the environment's seeded random source (for the few ids the original draws at random).
 */
export interface Tau2ToolkitInstance {
  readonly definition: Tau2ToolkitDefinition;
  db: PyModel;
  readonly random: Tau2RandomSource;
  /** What the runner passed the environment beyond the data (τ²'s env kwargs); empty for most domains. */
  readonly context: Tau2EnvironmentContext;
  /**
   * State the toolkit object keeps in its own attributes rather than in its database (τ³ banking's
   * unlocked tools): lives as long as the environment, never hashed. Keys belong to the domain.
   */
  readonly memory: Map<string, unknown>;
}

/**
 * τ²'s environment kwargs beyond the data (`runner/build.py::_build_env_kwargs`): the task the
 * environment serves and the read-only tools whose calls a τ³ banking environment logs.
 */
export interface Tau2EnvironmentContext {
  task?: Tau2Task;
  /** `read_log_allowlist`: discoverable read tools whose calls are logged (derived from the task's gold actions). */
  readLogAllowlist?: ReadonlySet<string>;
}

/** One method of a toolkit class. */
export interface Tau2Method {
  name: string;
  parameters: readonly PyParameter[];
  /** The class that defines the method when it is not the toolkit's own (a mixin, a base class): Python's `__qualname__` in TypeError texts. */
  owner?: string;
  /** Present for `@is_tool` and `@is_discoverable_tool` methods. */
  tool?: { type: Tau2ToolType; mutatesState: boolean; discoverable?: boolean };
  /** The method body: returns the Python return value (a str, a model, a dict, a list, a bool, None). */
  run(self: Tau2ToolkitInstance, args: Record<string, PyValue>): PyValue;
  /**
   * The body of a tool that waits on something outside the process (τ³ banking's model-backed
   * KB_search embeds the query over HTTP). The orchestrator's tool path uses it when present; the
   * synchronous paths (the evaluator's replay of mutating calls, `replay`) keep `run`, which such a
   * read-only tool makes raise.
   */
  runAsync?(self: Tau2ToolkitInstance, args: Record<string, PyValue>): Promise<PyValue>;
}

/** A toolkit class: its name (`MockTools`) and its methods, tools in the order τ² lists them. */
export interface Tau2ToolkitDefinition {
  className: string;
  methods: readonly Tau2Method[];
}

type ParameterSpec = string | readonly [string, PyValue];

function parameters(specs: readonly ParameterSpec[]): PyParameter[] {
  return specs.map((spec) => (typeof spec === "string" ? { name: spec } : { name: spec[0], defaultValue: () => spec[1] }));
}

/**
 * An `@is_tool(type)` method. Parameters are names, or `[name, default]` for optional ones;
 * `mutatesState` defaults to `type === "write"` as in τ².
 */
export function tau2Tool(name: string, type: Tau2ToolType, parameterSpecs: readonly ParameterSpec[], run: Tau2Method["run"], options: { mutatesState?: boolean } = {}): Tau2Method {
  return { name, parameters: parameters(parameterSpecs), tool: { type, mutatesState: options.mutatesState ?? type === "write" }, run };
}

/**
 * An `@is_discoverable_tool(type)` method (τ³): callable by name like any tool (the original's
 * `toolkit.tools` holds it), but not in the tool list a model sees (`get_tools` leaves it out).
 */
export function tau2DiscoverableTool(name: string, type: Tau2ToolType, parameterSpecs: readonly ParameterSpec[], run: Tau2Method["run"]): Tau2Method {
  return { name, parameters: parameters(parameterSpecs), tool: { type, mutatesState: type === "write", discoverable: true }, run };
}

/** A public method that is not a tool (a setter or an assertion function). */
export function tau2Function(name: string, parameterSpecs: readonly ParameterSpec[], run: Tau2Method["run"]): Tau2Method {
  return { name, parameters: parameters(parameterSpecs), run };
}

/** The tools of a toolkit a model sees (`get_tools`: discoverable tools left out), in order. */
export function toolsOf(definition: Tau2ToolkitDefinition): Tau2Method[] {
  return definition.methods.filter((method) => method.tool !== undefined && !method.tool.discoverable);
}

/** The discoverable tools of a toolkit (`get_discoverable_tools`), in order. */
export function discoverableToolsOf(definition: Tau2ToolkitDefinition): Tau2Method[] {
  return definition.methods.filter((method) => method.tool?.discoverable === true);
}

/** What is derived from one method list, made again when the list's length changes: its methods by name (the first method of a name, as a lookup in list order finds it), and its tools' types. */
interface MethodTable {
  length: number;
  byName: Map<string, Tau2Method>;
  toolTypes?: ReadonlyMap<string, string>;
}

const methodTables = new WeakMap<readonly Tau2Method[], MethodTable>();

function methodTable(definition: Tau2ToolkitDefinition): MethodTable {
  const methods = definition.methods;
  let table = methodTables.get(methods);
  if (table === undefined || table.length !== methods.length) {
    const byName = new Map<string, Tau2Method>();
    for (const method of methods) if (!byName.has(method.name)) byName.set(method.name, method);
    table = { length: methods.length, byName };
    methodTables.set(methods, table);
  }
  return table;
}

/**
 * A toolkit class's methods by name: the attributes `getattr`/`hasattr` find on the class (with
 * `pyHasAttr`, a non-str name raises as in Python). Tools and other public methods alike.
 */
export function toolkitAttributes(definition: Tau2ToolkitDefinition): ReadonlyMap<string, Tau2Method> {
  return methodTable(definition).byName;
}

/**
 * The type of each tool a model sees (`read` when it declares none), by name (the last tool of a
 * name, as a dict built in list order keeps it). Made once per method list: the evaluator's action
 * check asks for it on every simulation.
 */
export function toolTypesOf(definition: Tau2ToolkitDefinition): ReadonlyMap<string, string> {
  const table = methodTable(definition);
  if (table.toolTypes === undefined) {
    const types = new Map<string, string>();
    for (const tool of toolsOf(definition)) types.set(tool.name, tool.tool?.type ?? "read");
    table.toolTypes = types;
  }
  return table.toolTypes;
}

/** Looks a method up by name (tools and other public methods alike, as `getattr` does). */
export function methodOf(definition: Tau2ToolkitDefinition, name: string): Tau2Method | undefined {
  return toolkitAttributes(definition).get(name);
}

/** `get_discoverable_tools()`: the discoverable methods as the original's dict, by name in definition order. */
export function discoverableToolsByName(definition: Tau2ToolkitDefinition): ReadonlyMap<string, Tau2Method> {
  return new Map(discoverableToolsOf(definition).map((method) => [method.name, method]));
}

/**
 * `has_discoverable_tool(name)`: `name in get_discoverable_tools()`, a dict membership test, so a
 * list or dict name raises `unhashable type` and any other non-str is simply not found.
 */
export function hasDiscoverableTool(definition: Tau2ToolkitDefinition, name: PyValue): boolean {
  return pyContains(discoverableToolsByName(definition), name);
}

/**
 * `inspect.signature(method).parameters` as names: a bound method's (`self.tools[name]`) without
 * `self`, a function's looked up on the class (`getattr(Class, name)`) with it.
 */
export function signatureParameters(method: Tau2Method, options: { unbound?: boolean } = {}): ReadonlyMap<string, PyParameter> {
  const entries: Array<[string, PyParameter]> = method.parameters.map((parameter) => [parameter.name, parameter]);
  return new Map(options.unbound ? [["self", { name: "self" }], ...entries] : entries);
}

/**
 * An `@is_tool(type)` method whose body is asynchronous (see {@link Tau2Method.runAsync}): its
 * synchronous `run` throws, so a caller that cannot wait fails loudly instead of recording a
 * promise as the tool's result.
 */
export function tau2AsyncTool(name: string, type: Tau2ToolType, parameterSpecs: readonly ParameterSpec[], runAsync: NonNullable<Tau2Method["runAsync"]>): Tau2Method {
  return {
    ...tau2Tool(name, type, parameterSpecs, () => {
      throw new Error(`${name} waits on a model endpoint and runs only on the orchestrator's tool path`);
    }),
    runAsync,
  };
}

/** {@link callMethod} for the orchestrator's tool path: awaits a method's `runAsync` when it has one. */
export async function callMethodAsync(self: Tau2ToolkitInstance, method: Tau2Method, kwargs: PyDict): Promise<PyValue> {
  const args = pyBindArguments(`${method.owner ?? self.definition.className}.${method.name}`, method.parameters, kwargs);
  return method.runAsync ? method.runAsync(self, args) : method.run(self, args);
}

/** Calls a method with keyword arguments, binding them as CPython does (its TypeError texts included). */
export function callMethod(self: Tau2ToolkitInstance, method: Tau2Method, kwargs: PyDict): PyValue {
  const args = pyBindArguments(`${method.owner ?? self.definition.className}.${method.name}`, method.parameters, kwargs);
  return method.run(self, args);
}
