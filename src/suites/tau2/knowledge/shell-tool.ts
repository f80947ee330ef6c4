/**
 * The `shell` tool's answer (`ShellMixin.shell` of `retrieval_mixins.py`) over a sandbox's
 * `run_command`: stdout on success (`(no output)` when empty); on failure `No matches found.` for a
 * grep that matched nothing (exit 1, nothing on stderr), `Error (exit code N): <stderr>`, or
 * `Command failed with exit code N`. The sentences are read from the pinned source.
 */
import type { PyValue } from "../../../value/index.ts";
import { retrievalMessages } from "./messages.ts";
import type { SandboxManager } from "./sandbox.ts";

/** `ShellMixin.shell(command)` (the sandbox's exceptions propagate, as in the original). */
export async function shellToolText(sandbox: SandboxManager | undefined, command: PyValue | undefined): Promise<string> {
  if (sandbox === undefined) return retrievalMessages.text("shellNoSandbox");
  const [returnCode, stdout, stderr] = await sandbox.runCommand(command);
  if (returnCode !== 0) {
    if (returnCode === 1 && (command as string).includes(retrievalMessages.text("shellGrepWord")) && stderr === "") return retrievalMessages.text("shellNoMatches");
    if (stderr !== "") return retrievalMessages.format("shellErrorWithStderr", { ret_code: String(returnCode), stderr });
    return retrievalMessages.format("shellFailedWithCode", { ret_code: String(returnCode) });
  }
  return stdout !== "" ? stdout : retrievalMessages.text("shellNoOutput");
}
