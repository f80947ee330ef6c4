/**
 * Our own τ² runs of the four leaderboard domains (airline, retail, telecom, banking_knowledge) for
 * the submission tests: the offline oracle with the scripted user, 4 trials of the base split, with
 * seeded failures and varied costs (`--agent-llm-args failure_rate, cost_per_turn`), and a scripted
 * NL-assertion judge on the scripted model server that finds each assertion met.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PyDict, PyValue } from "../../src/value/index.ts";
import { parsePythonJson } from "../../src/value/index.ts";
import { startScriptedModelServer, type ScriptedRequest } from "../../src/testing/index.ts";
import { runTau2 } from "./cli.ts";
import { readdirSync } from "node:fs";

export const LEADERBOARD_DOMAINS = ["airline", "retail", "telecom", "banking_knowledge"] as const;

/** Every task's NL assertions in a domain's task file or folder. */
function assertionsOf(data: string, domain: string): string[][] {
  const folder = join(data, domain);
  const tasks: PyDict[] = existsSync(join(folder, "tasks.json"))
    ? (parsePythonJson(readFileSync(join(folder, "tasks.json"), "utf8")) as PyDict[])
    : readdirSync(join(folder, "tasks"))
        .filter((name) => name.endsWith(".json"))
        .map((name) => parsePythonJson(readFileSync(join(folder, "tasks", name), "utf8")) as PyDict);
  return tasks.map((task) => {
    const criteria = task.get("evaluation_criteria") as PyDict | null;
    return ((criteria?.get("nl_assertions") as PyValue[] | null) ?? []).map(String);
  });
}

const textOf = (message: ScriptedRequest["messages"][number]) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? ""));

/** Runs the four domains into `<root>/<domain>/results.json`; returns their paths. */
export async function leaderboardRuns(data: string, root: string, options: { failureRate?: number; costPerTurn?: number; trials?: number } = {}): Promise<Record<string, string>> {
  const assertions = LEADERBOARD_DOMAINS.flatMap((domain) => assertionsOf(data, domain)).filter((list) => list.length > 0);
  const server = await startScriptedModelServer({
    responder: (request) => {
      const text = request.messages.map(textOf).join("\n");
      const found = assertions.find((list) => list.every((assertion) => text.includes(assertion))) ?? [];
      return { content: JSON.stringify({ results: found.map((assertion) => ({ expectedOutcome: assertion, reasoning: "scripted judge", metExpectation: true })) }) };
    },
  });
  const paths: Record<string, string> = {};
  try {
    for (const domain of LEADERBOARD_DOMAINS) {
      const path = join(root, domain, "results.json");
      const args = [
        "--domain",
        domain,
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "--num-trials",
        String(options.trials ?? 4),
        "--max-concurrency",
        "4",
        "--agent-llm-args",
        JSON.stringify({ failure_rate: options.failureRate ?? 0.2, cost_per_turn: options.costPerTurn ?? 0.001 }),
        "--judge-model",
        "judge-model",
        "--judge-provider",
        "openai-compatible",
        "--judge-base-url",
        server.baseURL,
        ...(domain === "banking_knowledge" ? ["--retrieval-config", "bm25"] : []),
      ];
      const result = await runTau2(args, { data, saveTo: path });
      if (result.exitCode !== 0) throw new Error(`the ${domain} run failed (${result.exitCode}): ${result.stderr}`);
      paths[domain] = path;
    }
  } finally {
    await server.close();
  }
  return paths;
}
