/**
 * Pieces both suites build their run manifest (`src/core/run-manifest.ts`) from: a stable content
 * hash of a value (prompt templates, task definitions), an endpoint as a manifest records it (no
 * credentials), and the model roles' shape. The manifest itself is each suite's: it knows what its
 * run is made of.
 */
import { createHash } from "node:crypto";
import type { ManifestModel, RunManifest } from "../core/run-manifest.ts";
import { redactUrl } from "../secrets/redact.ts";

/** JSON text with object keys sorted at every level, so equal values hash alike whatever their key order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value instanceof Map) return stableJson(Object.fromEntries(value));
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 (hex) of a text. */
export function sha256OfText(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** SHA-256 (hex) of a value's stable JSON text (keys sorted): what a manifest records of a template or settings group. */
export function sha256OfValue(value: unknown): string {
  return sha256OfText(stableJson(value));
}

/** A model endpoint as a manifest records it: without credentials (user info, secret query values); null when none was given. */
export function manifestEndpoint(url: string | undefined | null): string | null {
  return url ? redactUrl(url) : null;
}

/** One model role of a manifest, with the parameters that are set (undefined ones left out). */
export function manifestModel(strategy: string, model: string | null | undefined, provider: string | null | undefined, parameters: Record<string, unknown>): ManifestModel {
  return { strategy, model: model ?? null, provider: provider ?? null, parameters: Object.fromEntries(Object.entries(parameters).filter(([, value]) => value !== undefined)) };
}

/** Each entry of `hashes` whose value is known (a file the run named and found), by name. */
export function knownHashes(hashes: Record<string, string | null | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(hashes).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** A manifest this taubridge reads back (version 1, with the fields a comparison reads); anything else is treated as none. */
export function isManifest(value: unknown): value is RunManifest {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const manifest = value as Partial<RunManifest>;
  return manifest.manifestVersion === 1 && typeof manifest.suite === "string" && typeof manifest.taskDefinitions === "object" && manifest.taskDefinitions !== null;
}
