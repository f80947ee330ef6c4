/**
 * A simulation's policy on the way from a worker to its coordinator (`--workers`, `--queue`): sent
 * by its digest, not its text, when it is the run's policy for the task.
 *
 * Why: a run's simulations hold one policy text (telecom's is ~24 KB of a ~36 KB simulation), and a
 * worker's reply carried it every time — printed, stringified into the reply, written to Redis
 * twice (the job's return value and its events stream entry), read and parsed by the coordinator:
 * about a fifth of a queue worker's CPU per model call (`npm run bench queue`). The coordinator
 * built the same run from the same data, so it has the text: the worker prints the simulation with
 * `"policy": null` and names the policy by the SHA-256 of its printed JSON; the coordinator puts its
 * own printed policy there after checking the digest, so the text is byte for byte what the worker
 * would have sent (a digest that differs means the two read different data: the run stops, as for a
 * task the coordinator does not have). A policy changed by the worker's redaction is sent whole.
 */
import { createHash } from "node:crypto";
import { ConfigError, DataError } from "../../errors/error-tree.ts";
import { pyJsonString } from "../../value/index.ts";

/** A printed policy: its JSON text as the results file holds it, and that text's SHA-256. */
interface PrintedPolicy {
  policy: string;
  json: string;
  digest: string;
}

/**
 * The printed form of the policy asked for last, per side: a run asks for the same text (often the
 * same string) for every simulation, so it is printed and hashed once.
 */
export class PolicyPrinter {
  private last: PrintedPolicy | undefined;

  printed(policy: string): PrintedPolicy {
    if (this.last?.policy !== policy) {
      const json = pyJsonString(policy);
      this.last = { policy, json, digest: createHash("sha256").update(json).digest("hex") };
    }
    return this.last;
  }
}

/** The policy field of a simulation printed with no policy text (level 2: its fields are indented by six spaces; no string holds a raw line break). */
const NULL_POLICY_FIELD = '\n      "policy": null';

/**
 * A worker's simulation text (printed with `"policy": null`) with the run's policy put back, after
 * checking it is the text the worker named by `digest`.
 */
export function withSharedPolicy(text: string, digest: string, policy: string, printer: PolicyPrinter, taskId: string): string {
  const printed = printer.printed(policy);
  if (printed.digest !== digest) {
    throw new ConfigError(`a worker's simulation of task "${taskId}" holds another policy than this run's: the coordinator and its workers read different data`);
  }
  const field = text.indexOf(NULL_POLICY_FIELD);
  if (field < 0) throw new DataError(`a worker's simulation of task "${taskId}" names a shared policy but has no "policy": null field`);
  const at = field + NULL_POLICY_FIELD.length - "null".length;
  return `${text.slice(0, at)}${printed.json}${text.slice(at + "null".length)}`;
}
