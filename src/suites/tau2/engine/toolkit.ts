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
import { type PyDict, type PyModel, type PyParameter, type PyValue, pyBindArguments } from "../../../value/index.ts";
import type { Tau2RandomSource } from "./random.ts";

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
}

/** One method of a toolkit class. */
export interface Tau2Method {
  name: string;
  parameters: readonly PyParameter[];
  /** Present for `@is_tool` methods. */
  tool?: { type: Tau2ToolType; mutatesState: boolean };
  /** The method body: returns the Python return value (a str, a model, a dict, a list, a bool, None). */
  run(self: Tau2ToolkitInstance, args: Record<string, PyValue>): PyValue;
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

/** A public method that is not a tool (a setter or an assertion function). */
export function tau2Function(name: string, parameterSpecs: readonly ParameterSpec[], run: Tau2Method["run"]): Tau2Method {
  return { name, parameters: parameters(parameterSpecs), run };
}

/** The tools of a toolkit, in order. */
export function toolsOf(definition: Tau2ToolkitDefinition): Tau2Method[] {
  return definition.methods.filter((method) => method.tool !== undefined);
}

/** Each method list by name (the first method of a name, as a lookup in list order finds it). */
const methodTables = new WeakMap<readonly Tau2Method[], { length: number; byName: Map<string, Tau2Method> }>();

/** Looks a method up by name (tools and other public methods alike, as `getattr` does). */
export function methodOf(definition: Tau2ToolkitDefinition, name: string): Tau2Method | undefined {
  const methods = definition.methods;
  let table = methodTables.get(methods);
  if (table === undefined || table.length !== methods.length) {
    const byName = new Map<string, Tau2Method>();
    for (const method of methods) if (!byName.has(method.name)) byName.set(method.name, method);
    table = { length: methods.length, byName };
    methodTables.set(methods, table);
  }
  return table.byName.get(name);
}

/** Calls a method with keyword arguments, binding them as CPython does (its TypeError texts included). */
export function callMethod(self: Tau2ToolkitInstance, method: Tau2Method, kwargs: PyDict): PyValue {
  const args = pyBindArguments(`${self.definition.className}.${method.name}`, method.parameters, kwargs);
  return method.run(self, args);
}
