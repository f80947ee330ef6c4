import { createRequire } from "node:module";
import type cliProgressModule from "cli-progress";

// cli-progress (CommonJS) draws the bar on a terminal only: loaded then, not at every start-up.
const require = createRequire(import.meta.url);
const loadCliProgress = (): typeof cliProgressModule => require("cli-progress") as typeof cliProgressModule;
import type { SuiteProgress } from "../core/suite.ts";
import { redactText } from "../secrets/redact.ts";

function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

function formatCost(cost: number | null): string {
  return cost === null ? "unknown" : `$${cost.toFixed(4)}`;
}

/**
 * Progress for long runs, on stderr so stdout stays the report: a bar on a terminal, and a status
 * line every `intervalMs` otherwise (CI logs), both with done/total, pass rate, cost so far and ETA.
 * A warning is printed without secrets (`secrets`: what the run knows to be secret; `src/secrets`).
 */
export function createProgressObserver(options: { stream?: NodeJS.WriteStream; intervalMs?: number; quiet?: boolean; secrets?: readonly string[] } = {}): Required<SuiteProgress> & { stop(): void } {
  const stream = options.stream ?? process.stderr;
  const interval = options.intervalMs ?? 10_000;
  let startedAt = 0;
  let baseline = 0;
  let state = { done: 0, total: 0, successes: 0, cost: null as number | null };
  // Episodes of this process that ended in an infrastructure error: not scored, so not in the pass rate (as in the report).
  let infraErrors = 0;
  let bar: cliProgressModule.SingleBar | undefined;
  let timer: NodeJS.Timeout | undefined;

  const eta = () => {
    const ran = state.done - baseline;
    if (ran <= 0) return "?";
    const perEpisode = (Date.now() - startedAt) / ran;
    return formatDuration(perEpisode * (state.total - state.done));
  };
  const passRate = () => {
    const scored = state.done - infraErrors;
    return scored > 0 ? `${((100 * state.successes) / scored).toFixed(1)}%` : "n/a";
  };
  const statusLine = () => `[taubridge] ${state.done}/${state.total} episodes, pass rate ${passRate()}, cost ${formatCost(state.cost)}, ETA ${eta()}`;

  return {
    start({ total, alreadyDone, checkpointPath, rerunInfraErrors = 0, resumed = false, successes = 0, cost = null }) {
      startedAt = Date.now();
      baseline = alreadyDone;
      // The resumed episodes' successes and cost count from the start: the pass rate is the run's, not this process's.
      state = { done: alreadyDone, total, successes, cost };
      infraErrors = 0;
      // Said even with --quiet: a resumed run's results include episodes this process did not run.
      if (resumed) stream.write(`[taubridge] resumed ${alreadyDone} finished episodes, running ${total - alreadyDone} (checkpoint ${checkpointPath})\n`);
      if (options.quiet) return;
      if (rerunInfraErrors > 0) stream.write(`[taubridge] re-running ${rerunInfraErrors} episode(s) that ended in infrastructure errors\n`);
      if (stream.isTTY) {
        const cliProgress = loadCliProgress();
        bar = new cliProgress.SingleBar(
          { format: "{bar} {value}/{total} | pass {passRate} | cost {cost} | ETA {etaText}", hideCursor: true, stream, clearOnComplete: false },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, alreadyDone, { passRate: passRate(), cost: formatCost(state.cost), etaText: "?" });
      } else {
        stream.write(`${statusLine()}\n`);
        timer = setInterval(() => stream.write(`${statusLine()}\n`), interval);
        timer.unref();
      }
    },
    episodeDone({ result, done, total, successes, cost }) {
      state = { done, total, successes, cost };
      if (result.termination === "infra_error") infraErrors++;
      bar?.update(done, { passRate: passRate(), cost: formatCost(cost), etaText: eta() });
    },
    warn(message) {
      if (bar) bar.stop();
      stream.write(`[taubridge] warning: ${redactText(message, options.secrets)}\n`);
    },
    stop() {
      if (timer) clearInterval(timer);
      if (bar) bar.stop();
      else if (!options.quiet && state.total > 0) stream.write(`${statusLine()}\n`);
    },
  };
}
