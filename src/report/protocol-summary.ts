/**
 * The protocol summary of a run whose agent was remote (A2A): how many HTTP exchanges, their
 * latency (p50, p95, max), errors by JSON-RPC code or HTTP status or kind, retries, and the tokens
 * the agent reported (or the payload estimates, labelled as such). Read from the canonical episode
 * records' protocol logs, so it works the same for both suites and any results file that kept them.
 */
import type { EpisodeRecord, ProtocolExchange } from "../core/episode-record.ts";

export interface ProtocolSummary {
  protocol: string;
  /** Protocol versions spoken (a run may have fallen back from 1.0 to 0.3). */
  versions: string[];
  endpoints: string[];
  /** Episodes with a protocol log. */
  episodes: number;
  requests: number;
  /** Exchanges that were second or later attempts of the same request. */
  retries: number;
  latencyMs: { p50: number; p95: number; max: number } | null;
  /** Failed exchanges by JSON-RPC code (`-32601`), HTTP status (`HTTP 503`) or kind (`A2ATimeoutError`, `empty_response`). */
  errors: Record<string, number>;
  tokens: { input: number; output: number; reportedExchanges: number; estimatedExchanges: number };
  bytes: { sent: number; received: number };
}

/** The value at quantile `q` of sorted numbers (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index];
}

function errorKey(exchange: ProtocolExchange): string | null {
  if (exchange.error === null) return null;
  if (exchange.rpcErrorCode !== null) return String(exchange.rpcErrorCode);
  if (exchange.httpStatus !== null && (exchange.httpStatus < 200 || exchange.httpStatus >= 300)) return `HTTP ${exchange.httpStatus}`;
  return exchange.error.type;
}

/** The summary of the records' protocol logs; null when no episode had one. */
export function protocolSummary(records: Iterable<EpisodeRecord>): ProtocolSummary | null {
  const versions = new Set<string>();
  const endpoints = new Set<string>();
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const tokens = { input: 0, output: 0, reportedExchanges: 0, estimatedExchanges: 0 };
  const bytes = { sent: 0, received: 0 };
  let episodes = 0;
  let retries = 0;
  let protocol = "";
  for (const record of records) {
    const log = record.protocol;
    if (!log) continue;
    episodes++;
    protocol = log.protocol;
    versions.add(log.version);
    endpoints.add(log.endpoint);
    for (const exchange of log.exchanges) {
      latencies.push(exchange.latencyMs);
      if (exchange.attempt > 1) retries++;
      const key = errorKey(exchange);
      if (key !== null) errors[key] = (errors[key] ?? 0) + 1;
      bytes.sent += exchange.requestBytes;
      bytes.received += exchange.responseBytes;
      if (exchange.tokens) {
        tokens.input += exchange.tokens.input;
        tokens.output += exchange.tokens.output;
        if (exchange.tokens.source === "reported") tokens.reportedExchanges++;
        else tokens.estimatedExchanges++;
      }
    }
  }
  if (episodes === 0) return null;
  const sorted = latencies.sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    protocol,
    versions: [...versions].sort(),
    endpoints: [...endpoints].sort(),
    episodes,
    requests: latencies.length,
    retries,
    latencyMs: sorted.length > 0 ? { p50: round(quantile(sorted, 0.5)), p95: round(quantile(sorted, 0.95)), max: round(sorted[sorted.length - 1]) } : null,
    errors,
    tokens,
    bytes,
  };
}

/** The summary as report lines (under the leaderboard's details). */
export function protocolSummaryText(summary: ProtocolSummary): string {
  const name = summary.protocol.toUpperCase();
  const lines = [`${name} ${summary.versions.join(", ")} at ${summary.endpoints.join(", ")}: ${summary.requests} requests over ${summary.episodes} episode(s), ${summary.retries} retries`];
  if (summary.latencyMs) lines.push(`  latency: p50 ${summary.latencyMs.p50} ms, p95 ${summary.latencyMs.p95} ms, max ${summary.latencyMs.max} ms`);
  const errors = Object.entries(summary.errors).sort(([a], [b]) => a.localeCompare(b));
  lines.push(`  errors: ${errors.length > 0 ? errors.map(([key, count]) => `${key} ×${count}`).join(", ") : "none"}`);
  const { tokens } = summary;
  const source =
    tokens.estimatedExchanges === 0 ? "reported by the agent" : tokens.reportedExchanges === 0 ? "estimated from the message text, not the agent's model usage" : "partly reported, partly estimated";
  lines.push(`  tokens: ${tokens.input} in / ${tokens.output} out (${source}); ${summary.bytes.sent} bytes sent, ${summary.bytes.received} received`);
  return lines.join("\n");
}
