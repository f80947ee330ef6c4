/**
 * τ²'s NL-assertion judge (τ²: src/tau2/evaluator/evaluator_nl_assertions.py,
 * NLAssertionsEvaluator): one LLM call that grades every natural-language assertion of a task
 * against the whole conversation.
 *
 * The judge's prompts, default model and arguments are the original authors' text, so they are not
 * in this project: they are read at run time from the τ² sources in the data directory
 * (`upstream-src/src/tau2/evaluator/evaluator_nl_assertions.py` and `upstream-src/src/tau2/config.py`,
 * fetched at the pinned commit by `taubridge data pull tau2-bench`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatModel } from "../../core/contracts.ts";
import { DataError, InfraError, errorMarker } from "../../errors/error-tree.ts";
import { decodeUtf8 } from "../../data/data-files.ts";
import type { Tau2SimulationMessage } from "./simulation.ts";
import { pyRepr } from "../../value/index.ts";

/** The judge's prompt templates and defaults as the τ² sources define them. */
export interface Tau2JudgeTemplates {
  system: string;
  /** The user prompt with `{trajectory_str}` and `{nl_assertions}` placeholders (f-string syntax). */
  user: string;
  defaultModel: string;
  defaultTemperature: number;
}

/** One graded assertion as τ² records it. */
export interface Tau2NlCheck {
  nl_assertion: string;
  met: boolean;
  justification: string;
}

/** Grades NL assertions; the evaluator calls it only when the reward basis needs it. */
export interface Tau2NlJudge {
  judge(messages: readonly Tau2SimulationMessage[], assertions: readonly string[], signal?: AbortSignal): Promise<Tau2NlCheck[]>;
  /** The judge's model usage so far (a report line of its own); absent for judges that call no model. */
  usage?(): Tau2JudgeUsage;
}

/** Calls, tokens and cost of the judge role; `cost` is null when any call's price is unknown. */
export interface Tau2JudgeUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cost: number | null;
}

/** The judge answered something that is not the JSON its prompt asks for. */
export class JudgeResponseError extends InfraError {
  static readonly marker: symbol = errorMarker("JudgeResponseError");
}

const PYTHON_ESCAPES: Record<string, string> = { n: "\n", t: "\t", "\\": "\\", '"': '"', "'": "'", "\n": "" };

/** The body of a Python triple-quoted string literal, escapes applied. */
function pythonStringBody(body: string): string {
  return body.replace(/\\(.)/gs, (whole, char: string) => PYTHON_ESCAPES[char] ?? whole);
}

function assignedTripleQuoted(source: string, name: string, file: string): string {
  const match = new RegExp(`\\b${name} = f?"""([\\s\\S]*?)"""`).exec(source);
  if (!match) throw new DataError(`${file}: cannot find the string constant ${name} (is this τ²-bench at the pinned commit?)`);
  return pythonStringBody(match[1]);
}

function assignedValue(source: string, name: string, file: string): string {
  const match = new RegExp(`^${name}\\s*=\\s*(.+)$`, "m").exec(source);
  if (!match) throw new DataError(`${file}: cannot find ${name}`);
  return match[1].trim();
}

/** The files {@link readTau2JudgeTemplates} reads: τ²'s NL-assertion evaluator and its config. */
export function tau2JudgeTemplateFiles(dataRoot: string): [evaluator: string, config: string] {
  const sources = join(dataRoot, "upstream-src", "src", "tau2");
  return [join(sources, "evaluator", "evaluator_nl_assertions.py"), join(sources, "config.py")];
}

/** Reads the judge's templates from the τ² sources under `<dataRoot>/upstream-src`. */
export function readTau2JudgeTemplates(dataRoot: string): Tau2JudgeTemplates {
  const [evaluatorFile, configFile] = tau2JudgeTemplateFiles(dataRoot);
  let evaluatorBytes: Buffer;
  let configBytes: Buffer;
  try {
    evaluatorBytes = readFileSync(evaluatorFile);
    configBytes = readFileSync(configFile);
  } catch (error) {
    throw new DataError(`the NL-assertion judge needs τ²'s sources in the data directory (${(error as NodeJS.ErrnoException).path ?? evaluatorFile}); run \`taubridge data pull tau2-bench\``, {
      cause: error,
    });
  }
  const evaluatorSource = decodeUtf8(evaluatorBytes, evaluatorFile);
  const configSource = decodeUtf8(configBytes, configFile);
  const halfDuplex = evaluatorSource.split(/^class FullDuplex/m)[0];
  const model = /^"([^"]+)"$/.exec(assignedValue(configSource, "DEFAULT_LLM_NL_ASSERTIONS", configFile));
  const temperature = Number(assignedValue(configSource, "DEFAULT_LLM_NL_ASSERTIONS_TEMPERATURE", configFile));
  if (!model || Number.isNaN(temperature)) throw new DataError(`${configFile}: unexpected form of the NL-assertion judge defaults`);
  return {
    system: assignedTripleQuoted(halfDuplex, "system_prompt", evaluatorFile),
    user: assignedTripleQuoted(halfDuplex, "user_prompt", evaluatorFile),
    defaultModel: model[1],
    defaultTemperature: temperature,
  };
}

/** The conversation as the judge sees it: `role: content` lines, a tool-call message's content printing as `None`. */
export function judgeTranscript(messages: readonly Tau2SimulationMessage[]): string {
  return messages.map((message) => `${message.role}: ${message.content ?? "None"}`).join("\n");
}

/** The judge's request messages, exactly as τ² builds them. */
export function judgeRequestMessages(templates: Tau2JudgeTemplates, messages: readonly Tau2SimulationMessage[], assertions: readonly string[]): Array<{ role: "system" | "user"; content: string }> {
  const values: Record<string, string> = { trajectory_str: judgeTranscript(messages), nl_assertions: pyRepr([...assertions]) };
  const user = templates.user.replace(/\{\{|\}\}|\{(\w+)\}/g, (whole, name?: string) => (whole === "{{" ? "{" : whole === "}}" ? "}" : (values[name as string] ?? whole)));
  return [
    { role: "system", content: templates.system },
    { role: "user", content: user },
  ];
}

/** A judge on a chat model (the `judge` role: `--judge-model`, `--judge-base-url`, `--judge-provider`). */
export function createTau2NlJudge(model: ChatModel, templates: Tau2JudgeTemplates): Tau2NlJudge {
  const totals: Tau2JudgeUsage = { calls: 0, promptTokens: 0, completionTokens: 0, cost: 0 };
  return {
    usage: () => ({ ...totals }),
    async judge(messages, assertions, signal) {
      const result = await model.complete({ messages: judgeRequestMessages(templates, messages, assertions), temperature: templates.defaultTemperature, signal });
      totals.calls++;
      totals.promptTokens += result.usage.promptTokens;
      totals.completionTokens += result.usage.completionTokens;
      totals.cost = totals.cost === null || result.cost === null ? null : totals.cost + result.cost;
      let parsed: unknown;
      try {
        parsed = JSON.parse(result.message.content ?? "");
      } catch (error) {
        throw new JudgeResponseError(`the NL-assertion judge did not answer JSON: ${String(result.message.content).slice(0, 200)}`, { cause: error });
      }
      const results = (parsed as { results?: unknown }).results ?? [];
      if (!Array.isArray(results)) throw new JudgeResponseError("the NL-assertion judge's `results` is not a list");
      return results.map((entry: { expectedOutcome?: unknown; metExpectation?: unknown; reasoning?: unknown }) => ({
        nl_assertion: String(entry.expectedOutcome),
        met: entry.metExpectation === true,
        justification: String(entry.reasoning),
      }));
    },
  };
}
