/**
 * τ-bench's few-shot tool-calling agent (τ-bench: tau_bench/agents/few_shot_agent.py,
 * FewShotToolCallingAgent): the tool-calling agent whose system prompt also shows five example
 * conversations sampled from a JSONL file of `{"messages_display": str}`.
 */
import { readUtf8File } from "../data/data-files.ts";
import { ConfigError } from "../errors/error-tree.ts";
import type { ParticipantContext } from "../core/contracts.ts";
import { FEW_SHOT_TEMPLATE, formatFewShotExamples, renderTemplate } from "./prompts.ts";
import { domainPromptValues, ToolCallingAgent, type SystemPrompt, type ToolCallingAgentOptions } from "./tool-calling-agent.ts";

/** How many examples each episode shows (τ-bench's `num_few_shots`). */
export const NUM_FEW_SHOTS = 5;

/**
 * Reads a few-shot displays file. Errors are ConfigErrors that name the file (and line), with the
 * original's wording for the two count checks. Blank lines are skipped.
 */
export function loadFewShotDisplays(path: string | undefined, count = NUM_FEW_SHOTS): string[] {
  if (!path) throw new ConfigError('--agent-strategy few-shot needs --few-shot-displays-path (a JSONL file of {"messages_display": ...} lines)');
  let text: string;
  try {
    text = readUtf8File(path, "few-shot displays");
  } catch (error) {
    throw new ConfigError((error as Error).message, { cause: error });
  }
  const displays: string[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ConfigError(`${path}:${index + 1}: not valid JSON: ${(error as Error).message}`);
    }
    const display = (value as { messages_display?: unknown } | null)?.messages_display;
    if (typeof display !== "string") throw new ConfigError(`${path}:${index + 1}: expected an object with a string "messages_display"`);
    displays.push(display);
  });
  if (displays.length === 0) throw new ConfigError(`${path}: Few shot displays are empty`);
  if (displays.length < count) throw new ConfigError(`${path}: Few shot displays are less than num_few_shots requested: ${displays.length} < ${count}`);
  return displays;
}

/** FNV-1a over a string: turns `(seed, task, trial)` into a 32-bit RNG seed. */
function hashSeed(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** mulberry32: small and deterministic. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Which displays an episode shows: `count` distinct indices in sample order, a pure function of
 * `(seed, taskIndex, trial)`. Deliberate difference: the original draws from Python's global
 * `random` shared by all threads, so its choice depends on scheduling; ours is reproducible under
 * any concurrency and on resume (the Python sequence itself cannot be reproduced anyway).
 */
export function sampleFewShotIndices(total: number, count: number, seed: number, taskIndex: number, trial: number): number[] {
  const random = mulberry32(hashSeed(`few-shot:${seed}:${taskIndex}:${trial}`));
  const pool = Array.from({ length: total }, (_, index) => index);
  const chosen: number[] = [];
  for (let position = 0; position < count && position < total; position++) {
    const pick = position + Math.floor(random() * (total - position));
    [pool[position], pool[pick]] = [pool[pick], pool[position]];
    chosen.push(pool[position]);
  }
  return chosen;
}

/** Options of {@link FewShotAgent}. */
export interface FewShotAgentOptions extends ToolCallingAgentOptions {
  displays: readonly string[];
  /** `config.seed`. */
  seed: number;
  count?: number;
}

/**
 * The few-shot agent: identical to tool-calling except for the per-episode system prompt. The
 * chosen example indices go to the results file (`taubridge.extra.fewShotExamples`) so a run can
 * be audited. A missing `response_cost` does not crash it (fixed: the original's
 * `FewShotToolCallingAgent.solve` adds it unguarded).
 */
export class FewShotAgent extends ToolCallingAgent {
  override readonly name: string = "few-shot";

  constructor(private readonly fewShot: FewShotAgentOptions) {
    super(fewShot);
  }

  protected override systemPrompt(episode: ParticipantContext["episode"]): SystemPrompt {
    const { displays, seed } = this.fewShot;
    const indices = sampleFewShotIndices(displays.length, this.fewShot.count ?? NUM_FEW_SHOTS, seed, episode.taskIndex, episode.trial);
    const examples = formatFewShotExamples(indices.map((index) => displays[index]));
    const content = renderTemplate(this.options.template ?? FEW_SHOT_TEMPLATE, { ...domainPromptValues(this.options.domain), few_shot_examples: examples }, "agent prompt");
    return { content, extra: { fewShotExamples: indices } };
  }
}
