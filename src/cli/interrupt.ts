import { EXIT_CODES } from "./exit-codes.ts";

/**
 * Ctrl-C (or SIGTERM) during a run: the first one stops starting new episodes and lets the run
 * write what it has (rerunning the same command resumes); a second one quits at once. Both the
 * τ-bench and the τ² `run` use it.
 */
export async function withInterrupts<T>(run: (signal: AbortSignal) => Promise<T>): Promise<{ value: T; interrupted: boolean }> {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(EXIT_CODES.interrupted);
    process.stderr.write("\n[taubridge] interrupted: finishing nothing new; rerun the same command to resume (Ctrl-C again to quit now)\n");
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    return { value: await run(controller.signal), interrupted: controller.signal.aborted };
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
