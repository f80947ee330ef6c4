/**
 * The messages between the harness (Node) and the Python bridge (`bridge/python/taubridge_bridge`).
 * JSON-RPC 2.0, one JSON object per line in each direction. Kept in one place so both sides can be
 * read against each other; `PROTOCOL_VERSION` must equal `taubridge_bridge.PROTOCOL_VERSION`.
 */

export const PROTOCOL_VERSION = 1;

/** Standard and server-range error codes used by the Python side (`taubridge_bridge/rpc.py`). */
export const RPC_ERROR = {
  /** The bridge itself failed inside the child (e.g. it lost the channel mid-call). */
  bridge: -32000,
  /** The agent's code raised during a turn. */
  agent: -32001,
  /** The session could not be set up (framework missing, bad workflow path, patch not installed). */
  setup: -32002,
} as const;

/** `bridge.ready` (child → parent notification, once, before anything else). */
export interface BridgeReady {
  protocol: number;
  bridgeVersion: string;
  pythonVersion: string;
  implementation: string;
  executable: string;
  pid: number;
  /** `module` (`python -m taubridge_bridge`), `run`, or `sitecustomize`. */
  launch: string;
  channel: string;
  /** Modules the post-import hook is waiting for. */
  watched: string[];
  /** Targets already patched (more arrive as `bridge.patched` notifications). */
  patched: string[];
  patchTarget: string;
}

/** `tool.execute` (child → parent request): one planned tool call, parameters as Python's `json.dumps`. */
export interface ToolExecuteParams {
  toolName: string;
  rawArguments: string;
  toolCallId: string;
}

/** The answer to `tool.execute`: the tool result, or "run the framework's own code". */
export type ToolExecuteResult = { output: string } | { passthrough: true };

/** `session.start` (parent → child). */
export interface SessionStartParams {
  /** `fastworkflow` (default) or `entry` (any Python agent through a callable). */
  driver?: "fastworkflow" | "entry";
  workflowPath?: string;
  /** FastWorkflow interception point: `invoke_command` (default) or `execute_workflow_query`. */
  patchTarget?: "invoke_command" | "execute_workflow_query";
  runAsAgent?: boolean;
  /** Dotenv files merged (in order) into the dict passed to `fastworkflow.init`. */
  envFiles?: string[];
  /** Extra `fastworkflow.init` variables (win over the files). */
  fwEnv?: Record<string, string>;
  sessionKey?: string;
  /** `module:callable` for the entry driver. */
  entry?: string;
  /** Generic patch targets `module:qualname[=tool_name]`. */
  patchTargets?: string[];
}

export interface SessionStartResult {
  driver: string;
  patched: string[];
  info: Record<string, unknown>;
}

/**
 * What the child found in the exception chain of an agent error (`error.data.endpoint`,
 * `taubridge_bridge/endpoint.py`): the HTTP status a model endpoint answered, or how the connection
 * failed. The harness classifies it (`bridge/endpoint-failure.ts`).
 */
export interface EndpointEvidenceData {
  status?: number;
  /** `ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, `ETIMEDOUT`, `EPIPE`, or `connection`. */
  code?: string;
  /** The Python exception's type, e.g. `urllib.error.HTTPError`. */
  type: string;
  message: string;
}

/** `session.user_turn` (parent → child): the user's message in, the agent's reply out. */
export interface UserTurnResult {
  reply: string;
  /** FastWorkflow's turn status: `completed`, `awaiting_user` (the reply is a question), `failed`. */
  status: string;
  failureReason: string | null;
  /** Tool calls the bridge sent during the turn. */
  toolCalls: number;
}
