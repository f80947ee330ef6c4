/**
 * What two runs' manifests differ in besides the agent: the user simulator, the judge, the data,
 * the task set or definitions, the seed, the harness version, the settings. `compare` and `report`
 * print these so a difference in score is not taken for the agent's when something else moved.
 */
import type { RunManifest } from "../core/run-manifest.ts";

export interface ManifestDifference {
  field: string;
  baseline: string;
  candidate: string;
}

/** Dotted paths → JSON text of each leaf (objects flattened, arrays kept whole). */
function leaves(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) leaves(item, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  out.set(prefix, JSON.stringify(value ?? null));
}

/** Fields that describe the agent under test: a comparison of agents expects them to differ. */
const isAgentField = (field: string) => field.startsWith("agent.") || field.startsWith("promptTemplates.agent");

/**
 * The fields two manifests differ in, the agent's left out. Task definitions are summarised as one
 * line (how many of the shared tasks changed, how many are only in one run).
 */
export function manifestDifferences(baseline: RunManifest, candidate: RunManifest): ManifestDifference[] {
  const a = new Map<string, string>();
  const b = new Map<string, string>();
  leaves({ ...baseline, taskDefinitions: undefined, manifestVersion: undefined }, "", a);
  leaves({ ...candidate, taskDefinitions: undefined, manifestVersion: undefined }, "", b);
  const out: ManifestDifference[] = [];
  for (const field of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if (isAgentField(field) || field === "taskDefinitions" || field === "manifestVersion") continue;
    const left = a.get(field) ?? "(absent)";
    const right = b.get(field) ?? "(absent)";
    if (left !== right) out.push({ field, baseline: left, candidate: right });
  }
  const shared = Object.keys(baseline.taskDefinitions).filter((id) => Object.hasOwn(candidate.taskDefinitions, id));
  const changed = shared.filter((id) => baseline.taskDefinitions[id] !== candidate.taskDefinitions[id]);
  if (changed.length > 0)
    out.push({ field: "taskDefinitions", baseline: `${shared.length} shared task(s)`, candidate: `${changed.length} changed: ${changed.slice(0, 5).join(", ")}${changed.length > 5 ? ", …" : ""}` });
  return out;
}

/** A value as a difference line shows it: content hashes cut to 12 characters (the JSON keeps them whole). */
function shown(value: string): string {
  return value.replace(/\b([0-9a-f]{12})[0-9a-f]{52}\b/g, "$1…");
}

/** The differences as one line's text: `field (baseline → candidate); …`. */
export function differencesText(differences: readonly ManifestDifference[]): string {
  return differences.map((difference) => `${difference.field} (${shown(difference.baseline)} → ${shown(difference.candidate)})`).join("; ");
}
