/**
 * Fault assignment with a judge model, after the structure of τ-bench's auto error identification
 * (`auto_error_identification.py`): for each failed episode, first *who* is at fault (the user, the
 * agent, the environment) as a lettered classification answered in JSON, then a short description
 * of why; for agent faults, *what kind* of fault (wrong tool, wrong argument, partial completion,
 * policy violation, other), again a classification and a description. Optionally τ²'s conversation
 * review (`review_llm_judge.py`'s output shape: summary, errors with source, severity and tags).
 *
 * The prompts are ours (the original's wording is not copied); the context given to the judge is
 * the original's (the task's instruction, the ground truth, the trajectory as `Role: content`
 * lines) plus the deterministic facts, which the original did not have. The judge is a model role
 * (`judge`) of the run layer's model clients: response cache, prices, the per-endpoint queue and
 * usage come with it.
 */
import type { EpisodeRecord } from "../core/episode-record.ts";
import type { CompletionResult } from "../core/model-types.ts";
import type { ChatModel } from "../core/frameworks.ts";
import type { EpisodeFacts } from "./facts.ts";

export const FAULT_AUTHORS = ["user", "agent", "environment"] as const;
export type FaultAuthor = (typeof FAULT_AUTHORS)[number];
export const FAULT_TYPES = ["wrong_tool", "wrong_argument", "partial_completion", "policy_violation", "other"] as const;
export type FaultType = (typeof FAULT_TYPES)[number];

const AUTHOR_CHOICES: ReadonlyArray<readonly [FaultAuthor, string]> = [
  ["user", "The simulated user (it misled the agent, deviated from its instruction, or ended the conversation too early)"],
  ["agent", "The agent under test"],
  ["environment", "The environment: neither the user nor the agent (a tool, the data, or the task's ground truth)"],
];

const TYPE_CHOICES: ReadonlyArray<readonly [FaultType, string]> = [
  ["wrong_tool", "The agent called a wrong tool, or did not call a tool it needed"],
  ["wrong_argument", "The agent called the right tool with a wrong argument"],
  ["partial_completion", "The agent completed only part of what the user asked for"],
  ["policy_violation", "The agent broke the domain's policy (acted without confirmation, helped with something it must refuse, …)"],
  ["other", "Something else"],
];

/** The judge's verdict on one episode. */
export interface JudgeVerdict {
  fault: FaultAuthor;
  faultDescription: string;
  faultType: FaultType | null;
  faultTypeDescription: string | null;
  review: ConversationReview | null;
}

/** τ²'s conversation review, in its shape (`Review`: summary, errors with source, severity, tags, turn). */
export interface ConversationReview {
  summary: string;
  errors: Array<{ source: string; severity: string | null; tags: string[]; turnIndex: number | null; reasoning: string }>;
}

/** What the judge's calls cost, for the output's usage line. */
export interface JudgeUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cost: number | null;
}

/** The transcript as the original gives it to the judge: non-system messages as `Role: content` (tool calls spelled out). */
export function judgeTranscript(record: EpisodeRecord): string {
  return record.messages
    .filter((message) => message.role !== "system")
    .map((message, index) => {
      const role = message.role.charAt(0).toUpperCase() + message.role.slice(1);
      const calls = (message.toolCalls ?? []).map((call) => ` [calls ${call.name}(${JSON.stringify(call.arguments)})]`).join("");
      return `[${index}] ${role}: ${message.content ?? "None"}${calls}`;
    })
    .join("\n");
}

/** The context block: grading, instruction, ground truth, the deterministic facts, the transcript. */
export function judgeContext(record: EpisodeRecord, facts: EpisodeFacts): string {
  const expected = record.expected;
  const blocks: string[] = [];
  const block = (name: string, body: string) => blocks.push(`----- start ${name} -----\n${body}\n----- end ${name} -----`);
  const grading = expected?.outputs.length
    ? "The episode is graded on the final database state reached by the expected actions, and on the agent saying each required output."
    : "The episode is graded on the final database state: the agent must perform the expected actions (the same writes with the same arguments).";
  blocks.push(`${grading} The episode failed (reward ${record.reward}, ended by ${record.termination ?? "an unrecorded reason"}).`);
  if (expected?.instruction) block("user instruction", expected.instruction);
  if (expected)
    block(
      "expected actions",
      JSON.stringify(
        expected.actions.map(({ name, arguments: args, requestor }) => ({ name, arguments: args, requestor })),
        null,
        4,
      ),
    );
  if (expected?.outputs.length) block("required outputs", expected.outputs.map((output) => output.text).join("\n"));
  block(
    "facts found by comparison",
    JSON.stringify(
      {
        missingActions: facts.missingActions.map(({ name, arguments: args }) => ({ name, arguments: args })),
        argumentDiffs: facts.argumentDiffs.map(({ name, fields }) => ({ name, fields })),
        missingOutputs: facts.missingOutputs,
        unmetAssertions: facts.unmetAssertions.map(({ kind, text }) => ({ kind, text })),
        toolErrors: facts.toolErrors.map(({ name, result }) => ({ name, result })),
      },
      null,
      2,
    ),
  );
  block("trajectory", judgeTranscript(record));
  return blocks.join("\n\n");
}

/** Reads the first JSON object in a model's answer (raw, or inside a fenced block). */
export function parseJudgeJson(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  const candidates = [text, ...[...text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)].map((match) => match[1])];
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1));
  for (const candidate of candidates) {
    try {
      const value = JSON.parse(candidate.trim()) as unknown;
      if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // try the next reading
    }
  }
  return null;
}

/** The judge: one model, its usage summed over every call. */
export class FailureJudge {
  readonly usage: JudgeUsage = { calls: 0, promptTokens: 0, completionTokens: 0, cost: 0 };

  constructor(
    private readonly model: ChatModel,
    private readonly options: { review?: boolean } = {},
  ) {}

  private async ask(system: string, user: string, namespace: string): Promise<string | null> {
    const result: CompletionResult = await this.model.complete({
      messages: [
        { role: "system", content: system },
        { role: "user", content: user },
      ],
      temperature: 0,
      cacheNamespace: namespace,
    });
    this.usage.calls++;
    this.usage.promptTokens += result.usage.promptTokens;
    this.usage.completionTokens += result.usage.completionTokens;
    this.usage.cost = result.cost === null || this.usage.cost === null ? null : this.usage.cost + result.cost;
    return result.message.content;
  }

  /** A lettered choice answered as `{"classification": "<letter>"}`; an answer naming no valid letter is the last choice. */
  private async classify<T extends string>(question: string, context: string, choices: ReadonlyArray<readonly [T, string]>, namespace: string): Promise<T> {
    const letters = choices.map((_, index) => String.fromCharCode(65 + index));
    const system =
      'You classify a text. Read the instruction, the text and the lettered choices, then answer with JSON only: {"classification": "<letter>"}, the letter of the one choice that fits best.';
    const user = `Instruction:\n${question}\n\nText:\n${context}\n\nChoices:\n${choices.map(([, label], index) => `${letters[index]}. ${label}`).join("\n")}\n\nValid JSON:`;
    const answer = parseJudgeJson(await this.ask(system, user, namespace));
    const letter = typeof answer?.classification === "string" ? answer.classification.trim().toUpperCase().charAt(0) : "";
    const index = letters.indexOf(letter);
    return choices[index >= 0 ? index : choices.length - 1][0];
  }

  private async describe(instruction: string, context: string, namespace: string): Promise<string> {
    return ((await this.ask(instruction, context, namespace)) ?? "").trim();
  }

  /** Fault, fault type (agent faults only), and the review when asked, for one failed episode. */
  async judge(record: EpisodeRecord, facts: EpisodeFacts): Promise<JudgeVerdict> {
    const context = judgeContext(record, facts);
    const namespace = `analyze:${record.suite}:${record.domain ?? ""}:${record.taskId}:${record.trial}`;
    const fault = await this.classify("Who is responsible for the failure of this customer-service episode?", context, AUTHOR_CHOICES, `${namespace}:fault`);
    const faultDescription = await this.describe(
      `In two or three sentences, explain why ${fault === "environment" ? "the environment" : `the ${fault}`} is responsible for the failure of the episode below. Name the message where it went wrong.`,
      context,
      `${namespace}:fault-description`,
    );
    let faultType: FaultType | null = null;
    let faultTypeDescription: string | null = null;
    if (fault === "agent") {
      faultType = await this.classify("What kind of mistake made the agent fail this episode?", context, TYPE_CHOICES, `${namespace}:type`);
      faultTypeDescription = await this.describe(
        `In two or three sentences, explain the agent's mistake (${faultType.replaceAll("_", " ")}) in the episode below.`,
        context,
        `${namespace}:type-description`,
      );
    }
    const review = this.options.review ? await this.review(context, namespace) : null;
    return { fault, faultDescription, faultType, faultTypeDescription, review };
  }

  /** τ²'s conversation review: every error of the agent and of the user, with severity and tags. */
  private async review(context: string, namespace: string): Promise<ConversationReview> {
    const system =
      "You review a customer-service conversation between a simulated user and an agent for errors made by either side. " +
      'Answer with JSON only: {"summary": "<one paragraph>", "errors": [{"source": "agent" | "user", "severity": "critical" | "minor" (agent) or "critical_helped" | "critical_hindered" | "minor" (user), "error_tags": ["<short tag>", …], "turn_idx": <message index in brackets>, "reasoning": "<why>"}]}. ' +
      "An agent error is critical when it caused the failure or broke the policy; a user error is critical_helped when the user helped the agent beyond its instruction, critical_hindered when it made the task harder or impossible.";
    const answer = parseJudgeJson(await this.ask(system, context, `${namespace}:review`));
    const errors = Array.isArray(answer?.errors) ? (answer.errors as Array<Record<string, unknown>>) : [];
    return {
      summary: typeof answer?.summary === "string" ? answer.summary : "",
      errors: errors
        .filter((error) => error && typeof error === "object")
        .map((error) => ({
          source: error.source === "agent" || error.source === "user" ? error.source : "unknown",
          severity: typeof error.severity === "string" ? error.severity : null,
          tags: Array.isArray(error.error_tags) ? error.error_tags.map(String) : [],
          turnIndex: typeof error.turn_idx === "number" ? error.turn_idx : null,
          reasoning: typeof error.reasoning === "string" ? error.reasoning : "",
        })),
    };
  }
}
