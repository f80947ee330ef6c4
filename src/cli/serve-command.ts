/**
 * `taubridge serve --a2a`: taubridge's evaluations as an A2A agent (`src/a2a/server`), until SIGINT
 * or SIGTERM. Stopping leaves running evaluations unfinished in the store (their finished
 * simulations kept); the next start on the same store resumes them (or, `--no-resume`, marks them
 * failed). The server's registries are created once, for this server.
 */
import { InvalidArgumentError, type Command } from "commander";
import { ConfigError } from "../errors/error-tree.ts";
import type { LoadRegistries } from "./registry-needs.ts";

function integer(minimum: number, maximum = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < minimum || parsed > maximum) throw new InvalidArgumentError(`expected an integer between ${minimum} and ${maximum}`);
    return parsed;
  };
}

function seconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || parsed > 20) throw new InvalidArgumentError("expected seconds, more than 0 and at most 20");
  return parsed;
}

interface ServeFlags {
  a2a?: boolean;
  host: string;
  port: number;
  cardUrl?: string;
  dataDir?: string;
  tauBenchDataDir?: string;
  store: string;
  allowAgentHost?: string[];
  maxEvaluations: number;
  maxQueued: number;
  maxSimulations: number;
  maxConcurrency: number;
  maxRequestBytes: number;
  heartbeat: number;
  resume: boolean;
  insecureNoAuth?: boolean;
}

/** Adds `serve`. */
export function registerServeCommand(program: Command, loadRegistries: LoadRegistries): void {
  program
    .command("serve")
    .description('Serve taubridge\'s evaluations as an A2A agent (a "green" agent for AgentBeats): run_evaluation, list_domains, get_evaluation_results')
    .option("--a2a", "serve over the Agent2Agent protocol (JSON-RPC, A2A 1.0 and 0.3); the only protocol, required")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <n>", "port (0 = any free port)", integer(0, 65_535), 9009)
    .option("--card-url <url>", "the URL the agent card advertises (behind a proxy or gateway)", undefined)
    .option("--data-dir <dir>", "τ²-bench data root (default: where `taubridge data pull tau2-bench` puts it)")
    .option("--tau-bench-data-dir <dir>", "τ-bench data (default: where `taubridge data pull` puts it)")
    .option("--store <dir>", "where tasks, requests and results are kept (survives restarts)", "a2a-store")
    .option("--allow-agent-host <hosts...>", "hosts the server may call (agents, user-LLM endpoints): names, *.domain, addresses, CIDRs, loopback, * (default: loopback)")
    .option("--max-evaluations <n>", "evaluations running at once", integer(1), 4)
    .option("--max-queued <n>", "evaluations waiting for a slot before new ones are refused", integer(0), 16)
    .option("--max-simulations <n>", "tasks × trials of one evaluation, at most", integer(1), 2000)
    .option("--max-concurrency <n>", "simulations running at once in one evaluation, at most", integer(1), 4)
    .option("--max-request-bytes <n>", "largest request body accepted", integer(1024), 256 * 1024)
    .option("--heartbeat <seconds>", "longest silence on a running evaluation before a heartbeat status update (≤ 20)", seconds, 15)
    .option("--no-resume", "mark the evaluations a previous run left unfinished as failed (their finished simulations kept) instead of resuming them")
    .option("--insecure-no-auth", "listen beyond loopback without TAUBRIDGE_A2A_TOKEN (anyone who reaches the port can run evaluations)")
    .addHelpText(
      "after",
      "\nAuthentication: TAUBRIDGE_A2A_TOKEN=<token>[,<token>…] (one caller per token; each sees only its own tasks).\nAgent credentials: TAUBRIDGE_A2A_CREDENTIAL_<NAME>, named by a request's agent_credential.\nSee docs/a2a.md.",
    )
    .action(async (flags: ServeFlags) => {
      if (!flags.a2a) throw new ConfigError("serve needs --a2a (taubridge serves its evaluations over the Agent2Agent protocol)");
      const [{ startA2AServer }, { tokensFrom }] = await Promise.all([import("../a2a/server/serve.ts"), import("../a2a/server/auth.ts")]);
      const registries = await loadRegistries();
      const tokens = tokensFrom(process.env);
      const server = await startA2AServer(
        {
          host: flags.host,
          port: flags.port,
          ...(flags.cardUrl ? { cardUrl: flags.cardUrl } : {}),
          ...(flags.dataDir ? { tau2DataDir: flags.dataDir } : {}),
          ...(flags.tauBenchDataDir ? { tauBenchDataDir: flags.tauBenchDataDir } : {}),
          store: flags.store,
          ...(flags.allowAgentHost ? { allowAgentHosts: flags.allowAgentHost } : {}),
          tokens,
          insecureNoAuth: flags.insecureNoAuth === true,
          maxEvaluations: flags.maxEvaluations,
          maxQueued: flags.maxQueued,
          maxSimulations: flags.maxSimulations,
          maxConcurrency: flags.maxConcurrency,
          maxRequestBytes: flags.maxRequestBytes,
          heartbeatSeconds: flags.heartbeat,
          resume: flags.resume,
        },
        registries,
      );
      process.stdout.write(
        `taubridge A2A server listening on ${server.url} (card: ${server.cardUrl}.well-known/agent-card.json; ${tokens.length > 0 ? `${tokens.length} caller token(s)` : "no authentication"}; store: ${flags.store})\n`,
      );
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      process.stderr.write("taubridge: stopping; running evaluations resume when the server starts again on the same store\n");
      await server.close();
    });
}
