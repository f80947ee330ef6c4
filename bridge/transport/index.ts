/**
 * The Node side of the Python bridge: spawn one child per episode, JSON-RPC 2.0 over its stdio (or
 * a dedicated fd), ready handshake, timeouts, and typed failures. The Python side is
 * `bridge/python/taubridge_bridge`.
 */
export { BRIDGE_PYTHON_DIRECTORY, PythonBridgeChild, type ChildExit, type ParentMethod, type PythonChildOptions } from "./python-child.ts";
export { PythonAgentError, PythonBridgeError, PythonBridgeSetupError } from "./errors.ts";
export {
  PROTOCOL_VERSION,
  RPC_ERROR,
  type BridgeReady,
  type SessionStartParams,
  type SessionStartResult,
  type ToolExecuteParams,
  type ToolExecuteResult,
  type UserTurnResult,
} from "./protocol.ts";
