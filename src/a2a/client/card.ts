/**
 * Discovery: the agent card, read in any of its shapes (0.2, 0.3, the SDK's 0.3/1.0 hybrid, 1.0),
 * and the JSON-RPC interface to call. The card is fetched from `<endpoint>/.well-known/agent-card.json`,
 * then `<endpoint>/.well-known/agent.json` (the 0.2 path some agents still serve), or from the
 * endpoint itself when it names a `.json` file. Version: 1.0 when the card lists a JSON-RPC interface
 * at 1.x (or `--agent-option version=1.0`), else 0.3. A card that advertises a host nobody can call
 * (`0.0.0.0`, `::`) gets the endpoint's host instead.
 */
import { isObject, type Plain, type PlainObject, stringField } from "./json.ts";
import type { A2AVersion } from "./wire.ts";

/** What the run needs from a card. */
export interface AgentCardInfo {
  /** The URL the card came from. */
  cardUrl: string;
  name: string | null;
  version: string | null;
  /** The JSON-RPC URL to call and the version to speak there. */
  rpcUrl: string;
  protocolVersion: A2AVersion;
  /** The card says the agent streams (`capabilities.streaming`). */
  streaming: boolean;
  /** The card declares a security scheme (a credential is then expected). */
  declaresSecurity: boolean;
  /** What discovery changed or assumed, for the run's warnings. */
  notes: string[];
}

/** The card URLs to try for an endpoint, in order. */
export function cardCandidates(endpoint: string): string[] {
  const url = new URL(endpoint);
  if (url.pathname.endsWith(".json")) return [url.toString()];
  const base = url.toString().replace(/\/+$/, "");
  return [`${base}/.well-known/agent-card.json`, `${base}/.well-known/agent.json`];
}

function transportName(value: string | undefined): string {
  return (value ?? "JSONRPC").toUpperCase().replace(/[^A-Z+]/g, "");
}

/** `0.3.0` → 0.3, `1.0` / `1` / `1.0.1` → 1.0; anything else undefined. */
export function versionOf(value: string | undefined): A2AVersion | undefined {
  if (value === undefined || value === "") return undefined;
  const [major, minor] = value.split(".");
  if (major === "1") return "1.0";
  if (major === "0" && (minor === "3" || minor === "2")) return "0.3";
  return undefined;
}

interface Interface {
  url: string;
  version: A2AVersion | undefined;
}

/** The JSON-RPC interfaces a card lists, in its order of preference. */
function jsonRpcInterfaces(card: PlainObject): Interface[] {
  const found: Interface[] = [];
  for (const item of Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []) {
    if (!isObject(item) || typeof item.url !== "string") continue;
    if (transportName(stringField(item, "protocolBinding") ?? stringField(item, "transport")) !== "JSONRPC") continue;
    found.push({ url: item.url, version: versionOf(stringField(item, "protocolVersion")) ?? "1.0" });
  }
  if (typeof card.url === "string" && transportName(stringField(card, "preferredTransport")) === "JSONRPC") {
    found.push({ url: card.url, version: versionOf(stringField(card, "protocolVersion")) ?? "0.3" });
  }
  for (const item of Array.isArray(card.additionalInterfaces) ? card.additionalInterfaces : []) {
    if (isObject(item) && typeof item.url === "string" && transportName(stringField(item, "transport")) === "JSONRPC") found.push({ url: item.url, version: "0.3" });
  }
  return found;
}

/** The URL to call: relative URLs resolved against the card's, an unroutable host replaced by the endpoint's. */
function callableUrl(url: string, cardUrl: string, endpoint: string, notes: string[]): string {
  const resolved = new URL(url, cardUrl);
  if (resolved.hostname === "0.0.0.0" || resolved.hostname === "[::]" || resolved.hostname === "::") {
    const given = new URL(endpoint);
    notes.push(`the card advertises ${resolved.host}, which nobody can call; using ${given.host} instead`);
    resolved.hostname = given.hostname;
    resolved.port = given.port;
  }
  return resolved.toString();
}

export interface CardChoice {
  /** `auto` (default): 1.0 when the card offers it, else 0.3. */
  version: "auto" | A2AVersion;
  /** Call this URL instead of the card's (a development agent's card often names the wrong one). */
  rpcUrl?: string;
}

/** Reads a card (any version) and picks the interface to call. Throws a plain Error naming what is missing. */
export function readCard(card: Plain, cardUrl: string, endpoint: string, choice: CardChoice): AgentCardInfo {
  if (!isObject(card)) throw new Error("the card is not a JSON object");
  const notes: string[] = [];
  const interfaces = jsonRpcInterfaces(card);
  const wanted = choice.version;
  let picked: Interface | undefined;
  if (wanted === "auto") picked = interfaces.find((item) => item.version === "1.0") ?? interfaces.find((item) => item.version === "0.3");
  else picked = interfaces.find((item) => item.version === wanted) ?? interfaces[0];
  if (!picked && !choice.rpcUrl) {
    if (typeof card.url !== "string" && interfaces.length === 0 && (Array.isArray(card.supportedInterfaces) || Array.isArray(card.additionalInterfaces)))
      throw new Error("the card lists no JSON-RPC interface (taubridge speaks A2A over JSON-RPC)");
    notes.push("the card names no JSON-RPC URL; calling the endpoint itself");
  }
  const protocolVersion: A2AVersion = wanted === "auto" ? (picked?.version ?? versionOf(stringField(card, "protocolVersion")) ?? "0.3") : wanted;
  const rpcUrl = choice.rpcUrl ?? callableUrl(picked?.url ?? endpoint, cardUrl, endpoint, notes);
  const capabilities = isObject(card.capabilities) ? card.capabilities : {};
  const schemes = card.securitySchemes;
  return {
    cardUrl,
    name: stringField(card, "name") ?? null,
    version: stringField(card, "version") ?? null,
    rpcUrl,
    protocolVersion,
    streaming: capabilities.streaming === true,
    declaresSecurity: isObject(schemes) && Object.keys(schemes).length > 0,
    notes,
  };
}
