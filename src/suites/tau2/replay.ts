/**
 * `taubridge replay --suite tau2`: runs a recorded sequence of tool calls on a fresh τ² environment
 * (optionally from a task's initial state), one orchestrator hop per call, and reports each result
 * and the end state's hashes — the interface users (and the fixtures' checks) compare a sequence
 * with the reference by.
 */
import { DataError } from "../../errors/error-tree.ts";
import { parsePythonJsonText } from "../../data/data-files.ts";
import type { LoadedTau2Domain } from "./engine/domain.ts";
import type { Tau2DatabaseHash, Tau2ToolCall } from "./engine/environment.ts";
import { applyTaskInitialState, environmentHopAsync } from "./engine/task-state.ts";
import { lazySchema } from "../../data/lazy-zod.ts";
import { plainView } from "./tasks.ts";
import type { Tau2Task } from "./tasks.ts";
import type { PyDict } from "../../value/index.ts";

const callSchema = lazySchema((z) =>
  z.object({
    // `agent` is how `taubridge records` names the assistant's side.
    requestor: z.enum(["assistant", "agent", "user"]).transform((requestor) => (requestor === "agent" ? "assistant" : requestor)),
    name: z.string(),
    arguments: z.custom<PyDict>((value) => value instanceof Map, { message: "expected an object" }),
  }),
);

/**
 * Reads the actions file: a JSON array of `{requestor, name, arguments}`, numbers kept lossless
 * (`2.0` stays a float). A step as `taubridge records` prints it (`requestor: "agent"`, and fields
 * the replay does not read) is taken too.
 */
export function parseTau2ActionsFile(text: string, fileName: string): Tau2ToolCall[] {
  const parsed = parsePythonJsonText(text, fileName);
  if (!Array.isArray(parsed)) throw new DataError(`${fileName}: expected a JSON array of {"requestor", "name", "arguments"}`);
  return parsed.map((entry, index) => {
    const result = callSchema().safeParse(plainView(entry));
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new DataError(`${fileName}: action ${index}: field ${issue.path.join(".") || "(action)"}: ${issue.message}`);
    }
    return { id: `replay_${index}`, ...result.data };
  });
}

export interface Tau2ReplayResult {
  steps: Array<{ name: string; requestor: string; content: string; error: boolean }>;
  dbHash: Tau2DatabaseHash;
}

/**
 * Replays the calls; with a task, its initial state is applied first (what the orchestrator does
 * before the first turn). Asynchronous because some tools wait on something outside the process
 * (τ³ banking's `shell` in its sandbox, its model-backed searches); the environment is dropped at
 * the end (τ³'s sandbox directory removed).
 */
export async function replayTau2(domain: LoadedTau2Domain, calls: readonly Tau2ToolCall[], task?: Tau2Task): Promise<Tau2ReplayResult> {
  const environment = domain.createEnvironment({ task });
  try {
    if (task) applyTaskInitialState(environment, task);
    const steps: Tau2ReplayResult["steps"] = [];
    for (const call of calls) {
      const result = await environmentHopAsync(environment, call);
      steps.push({ name: call.name, requestor: call.requestor, content: result.content, error: result.error });
    }
    return { steps, dbHash: environment.hash() };
  } finally {
    await environment.dispose();
  }
}
