/**
 * The server's agent card, correct for both protocol versions: A2A 1.0 clients (`A2A-Version: 1.0`)
 * get ProtoJSON (`AgentCard.toJSON`: `supportedInterfaces`, `httpAuthSecurityScheme`,
 * `securityRequirements`); everyone else gets the SDK's v0.3 rendering (`url`, `protocolVersion`,
 * `securitySchemes` of type http, `security`), which also lists the 1.0 interfaces. The SDK's own
 * v1.0 rendering serializes the in-memory card as it is (its security schemes come out in ts-proto's
 * `$case` form), so that path is ours. Served at `/.well-known/agent-card.json` and the 0.2 path
 * `/.well-known/agent.json`, with `ETag`, `Cache-Control` and `Vary: A2A-Version`.
 */
import { createHash } from "node:crypto";
import type { NextFunction, Request, Response, Router } from "express";
import express from "express";
import { AgentCard } from "@a2a-js/sdk";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import { agentCardHandler } from "@a2a-js/sdk/server/express";

/** The skills, with a JSON example each (A2A has no standard way to call a skill: these requests are routed by content). */
export const SKILLS = [
  {
    id: "run_evaluation",
    name: "Run an evaluation",
    description:
      "Evaluates the A2A agent at agent_url on τ-bench or τ²-bench tasks (a long-running task: a status update after each finished simulation, a heartbeat at least every 20 s, the result as an artifact). Also accepts the AgentBeats assessment request {participants: {agent}, config}.",
    tags: ["evaluation", "benchmark", "tau-bench", "tau2-bench"],
    examples: [
      JSON.stringify({ tool: "run_evaluation", arguments: { agent_url: "http://127.0.0.1:9019/", domain: "mock", num_tasks: 2, num_trials: 1 } }),
      JSON.stringify({ participants: { agent: "http://127.0.0.1:9019/" }, config: { domain: "airline", num_tasks: 5, user_llm: "openai/gpt-4.1" } }),
    ],
  },
  {
    id: "list_domains",
    name: "List the domains",
    description: "The suites and domains this server evaluates on.",
    tags: ["benchmark"],
    examples: [JSON.stringify({ tool: "list_domains", arguments: {} })],
  },
  {
    id: "get_evaluation_results",
    name: "Get an evaluation's results",
    description: "The results of one of your evaluations (its id is its A2A task id), finished or not, or the list of your evaluations ({list: true}).",
    tags: ["evaluation", "results"],
    examples: [JSON.stringify({ tool: "get_evaluation_results", arguments: { evaluation_id: "<task id>" } }), JSON.stringify({ tool: "get_evaluation_results", arguments: { list: true } })],
  },
] as const;

export interface CardOptions {
  /** The URL the card advertises (`--card-url`, AgentBeats' convention), default `http://<host>:<port>/`. */
  url: string;
  version: string;
  /** Tokens are required: the card declares the bearer scheme. */
  bearer: boolean;
}

/** The card as the SDK holds it (ts-proto), listing the JSON-RPC interface at 1.0 and at 0.3. */
export function buildCard(options: CardOptions): AgentCard {
  const card = AgentCard.fromJSON({
    name: "taubridge",
    description: "Evaluates A2A agents the way τ-bench and τ²-bench do: a simulated user, domain tools over an in-memory database, a scored end state. Deterministic routing, no LLM.",
    version: options.version,
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    defaultInputModes: ["application/json", "text/plain"],
    defaultOutputModes: ["application/json", "text/plain"],
    skills: SKILLS.map((skill) => ({
      ...skill,
      examples: [...skill.examples],
      tags: [...skill.tags],
      inputModes: ["application/json", "text/plain"],
      outputModes: ["application/json", "text/plain"],
    })),
    ...(options.bearer
      ? {
          securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: "a token of TAUBRIDGE_A2A_TOKEN" } } },
          securityRequirements: [{ schemes: { bearer: { list: [] } } }],
        }
      : {}),
  });
  card.supportedInterfaces = duplicateInterfacesForLegacy([{ url: options.url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }], ["JSONRPC"]);
  return card;
}

/** True when the request asks for A2A ≥ 1.0 (header or query parameter). */
function wantsV1(request: Request): boolean {
  const version = request.header("a2a-version") ?? (typeof request.query["A2A-Version"] === "string" ? request.query["A2A-Version"] : undefined);
  const major = Number((version ?? "0.3").split(".")[0]);
  return Number.isFinite(major) && major >= 1;
}

/** The card routes: ours for 1.0, the SDK's legacy rendering for 0.3 (both paths). */
export function cardRouter(card: AgentCard): Router {
  const router = express.Router();
  const v1Body = JSON.stringify(AgentCard.toJSON(card));
  const v1Etag = `W/"${createHash("sha256").update(v1Body).digest("hex").slice(0, 16)}"`;
  const legacy = agentCardHandler({ agentCardProvider: async () => card, legacyCompat: { enabled: true }, cache: { maxAge: 300 } });
  const serve = (request: Request, response: Response, next: NextFunction): void => {
    if (!wantsV1(request)) {
      // The SDK's router serves the v0.3 card at its root path.
      request.url = "/";
      legacy(request, response, next);
      return;
    }
    response.setHeader("ETag", v1Etag);
    response.setHeader("Cache-Control", "public, max-age=300");
    response.append("Vary", "A2A-Version");
    if (request.headers["if-none-match"] === v1Etag) {
      response.status(304).end();
      return;
    }
    response.type("application/json").send(v1Body);
  };
  router.get("/.well-known/agent-card.json", serve);
  router.get("/.well-known/agent.json", serve);
  return router;
}
