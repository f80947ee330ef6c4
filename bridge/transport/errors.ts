import { InfraError, TaubridgeError, errorMarker } from "../../src/errors/error-tree.ts";

/**
 * The Python channel failed: the child could not start, died, wrote something that is not the
 * protocol, or did not answer in time. An {@link InfraError}, so the episode ends as `infra_error`
 * (never as a zero-score agent failure) and the run goes on. Carries the child's last stderr lines,
 * which is where Python puts its traceback.
 */
export class PythonBridgeError extends InfraError {
  static readonly marker: symbol = errorMarker("PythonBridgeError");
  readonly stderrTail: readonly string[];

  constructor(message: string, options: { stderrTail?: readonly string[]; cause?: unknown } = {}) {
    const tail = options.stderrTail ?? [];
    super(tail.length > 0 ? `${message}\n--- last stderr lines of the python child ---\n${tail.join("\n")}` : message, { cause: options.cause });
    this.stderrTail = tail;
  }
}

/**
 * The session could not be set up inside the child (framework not importable, workflow missing,
 * patch target not installed in this framework version). Infrastructure, not the agent's fault:
 * every episode would fail the same way, and scoring them 0 would hide it.
 */
export class PythonBridgeSetupError extends PythonBridgeError {
  static readonly marker: symbol = errorMarker("PythonBridgeSetupError");
}

/**
 * The agent's own Python code raised during a turn (a bug in the workflow, an exception from the
 * framework). Not infrastructure by itself: the agent under test failed, as a τ-bench task errors
 * when the agent raises. Carries the Python traceback; when the child found a failed model call in
 * the exception's chain, `cause` holds it (`{name, status | code, message}`), which the agent
 * classifies as the endpoint's failure (`bridge/endpoint-failure.ts`).
 */
export class PythonAgentError extends TaubridgeError {
  static readonly marker: symbol = errorMarker("PythonAgentError");

  constructor(
    message: string,
    readonly pythonTraceback: string | undefined,
    options: { cause?: unknown } = {},
  ) {
    super(pythonTraceback ? `${message}\n${pythonTraceback}` : message, options);
  }
}
