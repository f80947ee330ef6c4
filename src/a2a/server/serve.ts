/**
 * `taubridge serve --a2a`: taubridge's evaluations as an A2A ("green") agent, on `@a2a-js/sdk`
 * (its request handler, both protocol versions, SSE, polling, cancel, resubscribe, `ListTasks`),
 * with what a server exposed to other people needs in front of it:
 *
 *   GET  /healthz                        public: status, version, evaluations running and queued
 *   GET  /.well-known/agent-card.json    public: the card (A2A 1.0 or 0.3 by `A2A-Version`), also at agent.json
 *   POST /                               JSON-RPC (1.0 and 0.3): size limit, then bearer token, then the SDK
 *
 * Registries (suites, strategies) are created per server by the caller (the composition root).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type NextFunction, type Request, type Response } from "express";
import { DefaultExecutionEventBusManager, DefaultRequestHandler } from "@a2a-js/sdk/server";
import { jsonRpcHandler } from "@a2a-js/sdk/server/express";
import { ConfigError } from "../../errors/error-tree.ts";
import type { Registries } from "../../run/registries.ts";
import { taubridgeVersion } from "../../run/run-identity.ts";
import { hostPolicy, LOOPBACK_ONLY } from "../client/host-policy.ts";
import { requireCaller, TokenBook, userOf } from "./auth.ts";
import { buildCard, cardRouter } from "./card.ts";
import { EvaluationExecutor } from "./executor.ts";
import { FileTaskStore } from "./store.ts";

export interface A2AServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The URL the card advertises (AgentBeats' `--card-url`); default `http://<host>:<port>/`. */
  cardUrl?: string;
  /** τ²'s data root, and τ-bench's (default: where `taubridge data pull` puts each). */
  tau2DataDir?: string;
  tauBenchDataDir?: string;
  /** The store folder (tasks and evaluations; survives restarts). */
  store: string;
  /** Hosts outbound calls may reach: the agents, and caller-given user-LLM endpoints. Default: loopback only. */
  allowAgentHosts?: readonly string[];
  /** Accepted bearer tokens (one caller each); empty: no authentication. */
  tokens: readonly string[];
  /** Listen beyond loopback without tokens (refused otherwise). */
  insecureNoAuth?: boolean;
  maxEvaluations?: number;
  maxQueued?: number;
  maxSimulations?: number;
  /** Simulations running at once within one evaluation. */
  maxConcurrency?: number;
  maxRequestBytes?: number;
  /** Seconds between heartbeats at most (AgentBeats: ≤ 20). */
  heartbeatSeconds?: number;
  /** Resume the evaluations a previous run of the server left unfinished (default), or mark them failed. */
  resume?: boolean;
  log?: (line: string) => void;
}

export const SERVER_DEFAULTS = {
  host: "127.0.0.1",
  port: 9009,
  maxEvaluations: 4,
  maxQueued: 16,
  maxSimulations: 2000,
  maxConcurrency: 4,
  maxRequestBytes: 256 * 1024,
  heartbeatSeconds: 15,
} as const;

export interface RunningA2AServer {
  url: string;
  cardUrl: string;
  /** Stops accepting requests, stops running evaluations where they are (left unfinished in the store, resumed by the next start) and closes. */
  close(): Promise<void>;
}

const isLoopback = (host: string) => host === "localhost" || host === "::1" || host.startsWith("127.");

/** A JSON-RPC error body for errors raised before the SDK sees the request. */
function rpcError(response: Response, status: number, code: number, message: string): void {
  response.status(status).json({ jsonrpc: "2.0", id: null, error: { code, message } });
}

/** Starts the server; resolves once it listens (and has resumed or marked what a previous run left unfinished). */
export async function startA2AServer(options: A2AServerOptions, registries: Registries): Promise<RunningA2AServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const book = new TokenBook(options.tokens);
  if (!book.required && !isLoopback(options.host) && !options.insecureNoAuth)
    throw new ConfigError(`serve --a2a on ${options.host} (beyond loopback) needs tokens in TAUBRIDGE_A2A_TOKEN, or --insecure-no-auth to serve anyone who can reach it`);
  const heartbeatSeconds = options.heartbeatSeconds ?? SERVER_DEFAULTS.heartbeatSeconds;
  if (!(heartbeatSeconds > 0 && heartbeatSeconds <= 20)) throw new ConfigError(`--heartbeat: must be between 0 and 20 seconds (AgentBeats' proxies drop quieter streams), got ${heartbeatSeconds}`);
  const allowAgentHosts = options.allowAgentHosts && options.allowAgentHosts.length > 0 ? options.allowAgentHosts : LOOPBACK_ONLY;
  try {
    hostPolicy(allowAgentHosts);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const store = new FileTaskStore(options.store);
  const executor = new EvaluationExecutor({
    store,
    registries,
    limits: {
      ...(options.tau2DataDir ? { tau2DataDir: options.tau2DataDir } : {}),
      ...(options.tauBenchDataDir ? { tauBenchDataDir: options.tauBenchDataDir } : {}),
      allowAgentHosts,
      maxConcurrency: options.maxConcurrency ?? SERVER_DEFAULTS.maxConcurrency,
      maxSimulations: options.maxSimulations ?? SERVER_DEFAULTS.maxSimulations,
      heartbeatSeconds,
    },
    maxEvaluations: options.maxEvaluations ?? SERVER_DEFAULTS.maxEvaluations,
    maxQueued: options.maxQueued ?? SERVER_DEFAULTS.maxQueued,
    log,
  });

  const app = express();
  app.disable("x-powered-by");
  app.get("/healthz", (_request, response) => {
    response.json({ status: "ok", version: taubridgeVersion(), evaluations: executor.load() });
  });
  // The card's URL is known once the port is; the router is mounted now and filled in then.
  let cards: express.Router | undefined;
  app.use((request, response, next) => (cards ? cards(request, response, next) : next()));
  const maxRequestBytes = options.maxRequestBytes ?? SERVER_DEFAULTS.maxRequestBytes;
  app.post(
    "/",
    (request: Request, response: Response, next: NextFunction) => {
      const length = Number(request.headers["content-length"] ?? 0);
      if (length > maxRequestBytes) return rpcError(response, 413, -32600, `request too large: ${length} bytes (this server takes at most ${maxRequestBytes}, --max-request-bytes)`);
      next();
    },
    requireCaller(book),
    express.json({ limit: maxRequestBytes, type: () => true }),
  );
  let handler: DefaultRequestHandler | undefined;
  app.use("/", (request, response, next) => (handler ? rpc(request, response, next) : rpcError(response, 503, -32603, "starting")));
  let rpc: express.RequestHandler = (_request, _response, next) => next();
  app.use((error: unknown, _request: Request, response: Response, next: NextFunction) => {
    const type = (error as { type?: string }).type;
    if (type === "entity.too.large") return rpcError(response, 413, -32600, `request too large (this server takes at most ${maxRequestBytes} bytes, --max-request-bytes)`);
    if (type === "entity.parse.failed") return rpcError(response, 400, -32700, "the request is not JSON");
    next(error);
  });

  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(options.port, options.host, () => resolve(listening));
    listening.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new ConfigError(`--port ${options.port}: the port is in use on ${options.host}`)
          : error.code === "EACCES"
            ? new ConfigError(`--port ${options.port}: not allowed to listen there`)
            : error,
      ),
    );
  });
  // Long evaluations on blocking sends keep a request open: no server-side request timeout.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  const port = (server.address() as AddressInfo).port;
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;
  const url = `http://${shownHost}:${port}/`;
  const cardUrl = options.cardUrl ?? url;
  const card = buildCard({ url: cardUrl, version: taubridgeVersion(), bearer: book.required });
  cards = cardRouter(card);
  const busManager = new DefaultExecutionEventBusManager();
  handler = new DefaultRequestHandler(card, store, executor, busManager);
  executor.busManager = busManager;
  rpc = jsonRpcHandler({ requestHandler: handler, userBuilder: userOf, legacyCompat: { enabled: true } });
  await executor.recover(options.resume ?? true);

  return {
    url,
    cardUrl,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Running evaluations stop where they are and stay unfinished in the store: the next start resumes them.
      await executor.drain();
      await store.settled();
      server.closeAllConnections();
      await closed;
    },
  };
}
