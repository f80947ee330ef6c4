import { InfraError, ToolCrashError } from "../../../errors/error-tree.ts";
import { environmentMessages, toolkitMessages } from "./engine-messages.ts";
import { PyException, type PyDict, type PyModel, type PyValue, parsePythonJson, pyAttributeError, pyEquals, pyRepr, pyTypeName, pyValueError } from "../../../value/index.ts";
import { type Tau2RandomSource, createSeededRandom } from "./random.ts";
import { type Tau2EnvironmentContext, type Tau2Method, type Tau2ToolkitDefinition, type Tau2ToolkitInstance, callMethod, callMethodAsync, methodOf, toolsOf } from "./toolkit.ts";
import { databaseHash, updateSharedDatabase } from "./shared-records.ts";
import { tau2ToolResultText } from "./tool-result.ts";

/** Who makes a tool call: the agent (`assistant`) or the user simulator (`user`). */
export type Tau2Requestor = "assistant" | "user";

/** τ²'s `ToolCall`. `arguments` keep Python's int/float distinction. */
export interface Tau2ToolCall {
  id: string;
  name: string;
  arguments: PyDict;
  requestor: Tau2Requestor;
}

/** τ²'s `ToolMessage` (the result of one tool call). */
export interface Tau2ToolResult {
  id: string;
  content: string;
  requestor: Tau2Requestor;
  error: boolean;
}

/** τ²'s `EnvFunctionCall`: any public toolkit method, by side (initialization actions, assertions). */
export interface Tau2FunctionCall {
  env_type: Tau2Requestor;
  func_name: string;
  arguments: PyDict;
}

/** τ²'s `EnvAssertion`. */
export interface Tau2Assertion extends Tau2FunctionCall {
  assert_value: boolean;
  message?: string | null;
}

/** `initialization_data`: deep-merge patches for the agent and user databases. */
export interface Tau2InitializationData {
  agent_data?: PyDict | null;
  user_data?: PyDict | null;
}

/** The part of a τ² message `set_state` replays: text or tool calls, or a tool result. */
export type Tau2ReplayMessage = { role: "assistant" | "user" | "system"; tool_calls?: readonly Tau2ToolCall[] | null } | ({ role: "tool" } & Tau2ToolResult);

/** The databases of one environment. */
export interface Tau2Databases {
  agent: PyModel;
  user: PyModel | null;
}

/** `{agent, user}` SHA-256 hashes of the databases (`user` null without a user toolkit). */
export interface Tau2DatabaseHash {
  agent: string;
  user: string | null;
}

/** What a domain contributes to an environment. */
export interface Tau2EnvironmentSpec {
  agentToolkit: Tau2ToolkitDefinition;
  userToolkit?: Tau2ToolkitDefinition;
  /** τ²'s `sync_tools` override (telecom); default no-op. */
  sync?(environment: Tau2Environment): void;
  /**
   * Releases what an environment holds outside this process's memory when it is dropped (τ³
   * banking's sandbox directory and the commands still running in it); default nothing.
   */
  dispose?(environment: Tau2Environment): Promise<void>;
}

/** τ²'s `get_dict_hash(db.model_dump())`: SHA-256 of `json.dumps(..., sort_keys=True, default=str)`. */
export function tau2DatabaseHash(db: PyModel): string {
  return databaseHash(db);
}

export class Tau2Environment {
  readonly agent: Tau2ToolkitInstance;
  readonly user: Tau2ToolkitInstance | null;
  private disposal: Promise<void> | undefined;

  constructor(
    readonly spec: Tau2EnvironmentSpec,
    databases: Tau2Databases,
    readonly solo = false,
    random: Tau2RandomSource = createSeededRandom(),
    readonly context: Tau2EnvironmentContext = {},
  ) {
    this.agent = { definition: spec.agentToolkit, db: databases.agent, random, context, memory: new Map() };
    this.user = spec.userToolkit && databases.user ? { definition: spec.userToolkit, db: databases.user, random, context, memory: new Map() } : null;
    if (solo) this.checkSoloMode();
    this.sync();
  }

  private checkSoloMode(): void {
    if (this.user === null) return;
    const userNames = new Set(toolsOf(this.user.definition).map((tool) => tool.name));
    const overlap = toolsOf(this.agent.definition).filter((tool) => userNames.has(tool.name));
    if (overlap.length > 0) throw new Error(environmentMessages.format("toolNamesOverlap", { overlap: overlap.map((tool) => tool.name).join(", ") }));
  }

  /**
   * Drops the environment: what it holds outside memory is released (τ³ banking removes its
   * sandbox directory). Every path that creates an environment calls it when done with it; the
   * databases stay readable (hashes), tools that need what was released fail. Idempotent.
   */
  dispose(): Promise<void> {
    this.disposal ??= this.spec.dispose?.(this) ?? Promise.resolve();
    return this.disposal;
  }

  /** `sync_tools()`: lets a dual-control domain carry state between the two databases. */
  sync(): void {
    this.spec.sync?.(this);
  }

  /** Whether either toolkit has a tool of this name. */
  hasTool(name: string): boolean {
    return [this.agent, this.user].some((kit) => kit !== null && isTool(kit, name));
  }

  /** Whether the tool mutates state (unknown names count as mutating, as in τ²). */
  mutatesState(name: string): boolean {
    for (const kit of [this.agent, this.user]) {
      const method = kit && isTool(kit, name) ? methodOf(kit.definition, name) : undefined;
      if (method?.tool) return method.tool.mutatesState;
    }
    return true;
  }

  /**
   * `make_tool_call`: routes by requestor (the user's tools for `user`; in solo mode a user tool
   * name from the agent goes to the user's toolkit) and runs the tool. Raises what the tool raises;
   * does not sync.
   */
  makeToolCall(name: string, requestor: Tau2Requestor, kwargs: PyDict): PyValue {
    const { kit, method } = this.route(name, requestor);
    return callMethod(kit, method, kwargs);
  }

  /** {@link makeToolCall} awaiting a tool whose body is asynchronous (a model-backed search). */
  async makeToolCallAsync(name: string, requestor: Tau2Requestor, kwargs: PyDict): Promise<PyValue> {
    const { kit, method } = this.route(name, requestor);
    return callMethodAsync(kit, method, kwargs);
  }

  /** The toolkit and tool a call goes to (raises τ²'s ValueErrors for a call that cannot be routed). */
  private route(name: string, requestor: Tau2Requestor): { kit: Tau2ToolkitInstance; method: Tau2Method } {
    if (requestor === "user") {
      if (this.solo) throw pyValueError(environmentMessages.text("userCallsInSolo"));
      if (this.user === null) throw pyValueError(environmentMessages.text("userToolsUnavailable"));
      return toolOf(this.user, name);
    }
    if (this.solo && this.user !== null && isTool(this.user, name)) return toolOf(this.user, name);
    return toolOf(this.agent, name);
  }

  /**
   * `get_response`: one tool call as the agent or user sees it. A Python-level exception becomes
   * `Error: <message>` with the error flag; any other exception is a bug in our port and throws a
   * {@link ToolCrashError} naming the tool (the episode ends as an infra error).
   */
  getResponse(call: Tau2ToolCall): Tau2ToolResult {
    try {
      const value = this.makeToolCall(call.name, call.requestor, call.arguments);
      this.sync();
      return { id: call.id, content: tau2ToolResultText(value), requestor: call.requestor, error: false };
    } catch (error) {
      return this.failedResponse(call, error);
    }
  }

  /** {@link getResponse} on the orchestrator's path, where a tool may wait on a model endpoint. */
  async getResponseAsync(call: Tau2ToolCall): Promise<Tau2ToolResult> {
    try {
      const value = await this.makeToolCallAsync(call.name, call.requestor, call.arguments);
      this.sync();
      return { id: call.id, content: tau2ToolResultText(value), requestor: call.requestor, error: false };
    } catch (error) {
      return this.failedResponse(call, error);
    }
  }

  /**
   * A Python-level exception as the tool's `Error: …` result; an infrastructure failure the tool
   * reports (τ³'s sandbox runtime missing its tools) as it is; anything else is a crash of the port.
   */
  private failedResponse(call: Tau2ToolCall, error: unknown): Tau2ToolResult {
    if (PyException.isInstance(error)) return { id: call.id, content: `Error: ${error.message}`, requestor: call.requestor, error: true };
    if (InfraError.isInstance(error)) throw error;
    throw new ToolCrashError(call.name, error);
  }

  /** `run_env_function_call`: `getattr(toolkit, func_name)(**arguments)`, then sync. */
  runFunctionCall(call: Tau2FunctionCall): PyValue {
    const kit = call.env_type === "user" ? this.user : this.agent;
    if (kit === null) throw pyAttributeError(null, call.func_name);
    const method = methodOf(kit.definition, call.func_name);
    if (method === undefined) throw new PyException(`'${kit.definition.className}' object has no attribute '${call.func_name}'`, "AttributeError");
    const result = callMethod(kit, method, call.arguments);
    this.sync();
    return result;
  }

  /** `run_env_assertion` without raising on failure: whether the function's bool equals `assert_value`. */
  runAssertion(assertion: Tau2Assertion): boolean {
    const result = this.runFunctionCall(assertion);
    if (typeof result !== "boolean") throw pyValueError(environmentMessages.format("assertionNotBool", { "assertion.func_name": assertion.func_name, "type(res)": `<class '${pyTypeName(result)}'>` }));
    return result === assertion.assert_value;
  }

  /**
   * `set_state`: apply the initialization data (note τ²'s aliasing: afterwards both toolkits share
   * the patched database), run the initialization actions, replay the mutating tool calls of the
   * message history (checking each result against the recorded one when `strict`), then sync.
   */
  setState(data: Tau2InitializationData | null | undefined, actions: readonly Tau2FunctionCall[] | null | undefined, messages: readonly Tau2ReplayMessage[], strict = true): void {
    if (data?.agent_data) {
      this.agent.db = updateSharedDatabase(this.agent.db, data.agent_data);
      if (this.user !== null) this.user.db = this.agent.db;
    }
    if (data?.user_data) {
      if (this.user === null) throw pyAttributeError(null, "update_db");
      this.user.db = updateSharedDatabase(this.user.db, data.user_data);
      this.agent.db = this.user.db;
    }
    for (const action of actions ?? []) this.runFunctionCall(action);
    for (const [call, recorded] of pairToolCalls(messages)) {
      if (!this.hasTool(call.name) || !this.mutatesState(call.name)) continue;
      const response = this.getResponse(call);
      if (strict && !pyEquals(parseContent(response.content), parseContent(recorded.content))) {
        throw pyValueError(
          environmentMessages.format("replayedResultDiffers", { tool_call: `${call.name}(${pyRepr(call.arguments)})`, response: response.content, expected_response: recorded.content }),
        );
      }
    }
    this.sync();
  }

  /** The databases' hashes (`get_db_hash`, `get_user_db_hash`). */
  hash(): Tau2DatabaseHash {
    const agent = tau2DatabaseHash(this.agent.db);
    // τ³ banking's toolkits (and any environment after `update_db`) hold one database object: hashed once.
    return { agent, user: this.user === null ? null : this.user.db === this.agent.db ? agent : tau2DatabaseHash(this.user.db) };
  }
}

function isTool(kit: Tau2ToolkitInstance, name: string): boolean {
  return methodOf(kit.definition, name)?.tool !== undefined;
}

function toolOf(kit: Tau2ToolkitInstance, name: string): { kit: Tau2ToolkitInstance; method: Tau2Method } {
  const method = methodOf(kit.definition, name);
  if (method?.tool === undefined) throw pyValueError(toolkitMessages.format("toolNotFound", { tool_name: name }));
  return { kit, method };
}

/** What a tool message's text starts with when `json.loads` can read it (after JSON whitespace). */
const JSON_START = /^[ \t\n\r]*[[{"\-0-9tfnNI]/;

/** `json.loads(content)`, or the text itself when it is not JSON (most tool results are sentences: no parse is tried). */
function parseContent(content: string): PyValue {
  if (!JSON_START.test(content)) return content;
  try {
    return parsePythonJson(content);
  } catch {
    return content;
  }
}

/** Pairs every tool call in the history with the tool message that answers it, as τ² requires. */
function pairToolCalls(messages: readonly Tau2ReplayMessage[]): Array<[Tau2ToolCall, Tau2ToolResult]> {
  const pairs: Array<[Tau2ToolCall, Tau2ToolResult]> = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (message.role === "tool") throw pyValueError(environmentMessages.text("toolMessageUnexpected"));
    for (const call of message.tool_calls ?? []) {
      const answer = messages[++index];
      if (answer === undefined) throw pyValueError(environmentMessages.text("toolMessageAbsent"));
      if (answer.role !== "tool") throw pyValueError(environmentMessages.format("toolMessageOfOtherKind", { "type(tm)": `${answer.role} message` }));
      if (answer.id !== call.id) throw pyValueError(environmentMessages.format("toolCallIdMismatch", { "tc.id": call.id, "tm.id": answer.id }));
      pairs.push([call, answer]);
    }
  }
  return pairs;
}
