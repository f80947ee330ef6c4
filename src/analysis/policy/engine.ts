/**
 * The policy engine: checks every trajectory (a canonical episode record) against a domain's rules
 * — the built-in deterministic ones, and a file's `regex`, `sequence`, `semantic` (embeddings) and
 * `llm` (judge) rules — and scores adherence. Each hit points at its message (`messageIndex` in the
 * record's `messages`) so a viewer can highlight it. Hits are reported, never folded into the reward.
 *
 * Adherence score (documented in docs/analysis.md): each counted hit costs its severity's weight
 * (low 1, medium 2, high 4, critical 8); an episode's score is max(0, 1 − cost/8), so one critical
 * hit (or two high ones) makes it 0 and an episode without counted hits scores 1; a run's score is
 * the mean over its episodes. `strictness` selects the severities counted: `low` counts only
 * critical hits, `medium` (default) high and critical, `high` every severity.
 */
import type { EpisodeRecord, RecordMessage, RecordStep } from "../../core/episode-record.ts";
import type { ChatModel } from "../../core/frameworks.ts";
import { BUILTIN_RULE_IDS, type BuiltinRuleId, type Policy, type PolicyProfile, type PolicyRule, type Severity } from "./rules.ts";

export const SEVERITY_WEIGHTS: Record<Severity, number> = { low: 1, medium: 2, high: 4, critical: 8 };
/** The cost at which an episode's adherence reaches 0. */
export const ADHERENCE_BUDGET = 8;
export type Strictness = "low" | "medium" | "high";
const COUNTED: Record<Strictness, ReadonlySet<Severity>> = {
  low: new Set(["critical"]),
  medium: new Set(["high", "critical"]),
  high: new Set(["low", "medium", "high", "critical"]),
};

/** One rule broken at one place of one episode. */
export interface PolicyHit {
  ruleId: string;
  type: "builtin" | PolicyRule["type"];
  severity: Severity;
  /** Index in the record's `messages` of the message that broke the rule (null when it cannot be placed). */
  messageIndex: number | null;
  /** Index in the record's `steps`, when a tool call broke it. */
  stepIndex: number | null;
  detail: string;
}

/** An episode's hits and score. */
export interface EpisodePolicy {
  suite: string;
  domain: string | null;
  taskId: string;
  trial: number;
  reward: number;
  hits: PolicyHit[];
  /** Adherence in [0, 1] under the strictness; null when the policy does not apply to the episode's domain. */
  adherence: number | null;
}

export interface PolicyReport {
  file: string;
  strictness: Strictness;
  episodes: EpisodePolicy[];
  /** Mean adherence over the episodes the policy applies to (null when none). */
  adherence: number | null;
  hitsByRule: Array<{ ruleId: string; severity: Severity; hits: number; episodes: number }>;
  /** Rules that were skipped, and why (no embeddings endpoint, no judge). */
  skipped: Array<{ ruleId: string; reason: string }>;
}

/** What the built-in rules know of the shipped domains (tool names only; τ-bench and τ² share airline and retail). */
export const BUILTIN_PROFILES: Record<string, PolicyProfile> = {
  airline: {
    writeTools: ["book_reservation", "cancel_reservation", "update_reservation_flights", "update_reservation_baggages", "update_reservation_passengers", "send_certificate"],
    authenticationTools: [],
    transferTool: "transfer_to_human_agents",
    oneToolCallPerTurn: true,
    noTextWithToolCall: true,
  },
  retail: {
    writeTools: [
      "cancel_pending_order",
      "exchange_delivered_order_items",
      "modify_pending_order_address",
      "modify_pending_order_items",
      "modify_pending_order_payment",
      "modify_user_address",
      "return_delivered_order_items",
    ],
    authenticationTools: ["find_user_id_by_email", "find_user_id_by_name_zip"],
    freeTools: ["calculate", "think", "transfer_to_human_agents", "list_all_product_types", "get_product_details", "get_item_details"],
    transferTool: "transfer_to_human_agents",
    oneToolCallPerTurn: true,
    noTextWithToolCall: true,
  },
  telecom: {
    writeTools: ["suspend_line", "resume_line", "send_payment_request", "enable_roaming", "disable_roaming", "refuel_data"],
    authenticationTools: ["get_customer_by_phone", "get_customer_by_id", "get_customer_by_name"],
    freeTools: ["transfer_to_human_agents"],
    transferTool: "transfer_to_human_agents",
    oneToolCallPerTurn: true,
    noTextWithToolCall: true,
  },
  mock: { writeTools: ["create_task", "update_task_status"], transferTool: "transfer_to_human_agents" },
};

/** Our default reading of an explicit confirmation in a user turn. */
export const DEFAULT_CONFIRMATION = "\\b(yes|yeah|yep|confirm(ed|s)?|proceed|go ahead|sure|correct|that'?s right|please do|do it|ok(ay)?|absolutely|agreed?)\\b";

const BUILTIN_SEVERITY: Record<BuiltinRuleId, Severity> = {
  "write-without-confirmation": "high",
  "multiple-tool-calls": "low",
  "text-and-tool-call": "low",
  "act-before-authentication": "critical",
  "transfer-without-message": "medium",
};

/**
 * What every deterministic rule reads of one record, computed once per record: each step's message
 * index (the n-th step of an id belongs to the n-th call of that id), the agent's steps in order,
 * and (on first use) each step's arguments as JSON text. Rules used to recompute these per rule.
 */
interface RecordView {
  messageOf: Array<number | null>;
  agentSteps: number[];
  argumentsText?: string[];
}

/** The record's view (see {@link RecordView}): one pass over its messages and one over its steps. */
function viewOf(record: EpisodeRecord): RecordView {
  // Message indexes of each call id, per requestor (ids are unique but τ-bench's readers pair reused ones in order).
  const agentCalls = new Map<string, number | number[]>();
  const userCalls = new Map<string, number | number[]>();
  const messages = record.messages;
  for (let index = 0; index < messages.length; index++) {
    const calls = messages[index].toolCalls;
    if (calls === undefined) continue;
    for (const call of calls) {
      if (!call.id) continue;
      const byId = call.requestor === "user" ? userCalls : agentCalls;
      const earlier = byId.get(call.id);
      if (earlier === undefined) byId.set(call.id, index);
      else if (typeof earlier === "number") byId.set(call.id, [earlier, index]);
      else earlier.push(index);
    }
  }
  const steps = record.steps;
  const messageOf: Array<number | null> = new Array(steps.length);
  const agentSteps: number[] = [];
  for (let index = 0; index < steps.length; index++) {
    const step = steps[index];
    if (step.requestor === "agent") agentSteps.push(index);
    messageOf[index] = null;
    if (step.toolCallId === null) continue;
    const byId = step.requestor === "user" ? userCalls : agentCalls;
    const found = byId.get(step.toolCallId);
    if (typeof found === "number") {
      messageOf[index] = found;
      byId.delete(step.toolCallId);
    } else if (found !== undefined && found.length > 0) messageOf[index] = found.shift() as number;
  }
  return { messageOf, agentSteps };
}

/** Each step's arguments as JSON text (what `tool_arguments` regex rules read), made once per record. */
function argumentsText(record: EpisodeRecord, view: RecordView): string[] {
  view.argumentsText ??= record.steps.map((step) => JSON.stringify(step.arguments) ?? "");
  return view.argumentsText;
}

const isError = (step: RecordStep) => (step.error !== null ? step.error : typeof step.result === "string" && /^\s*error\b/i.test(step.result));
const NOT_BLANK = /\S/;
const hasText = (message: RecordMessage) => typeof message.content === "string" && NOT_BLANK.test(message.content);

/** The built-in rules that apply under a profile (each needs something the profile says). */
function applicableBuiltins(profile: PolicyProfile, chosen: BuiltinRuleId[] | "all"): BuiltinRuleId[] {
  const supported: Record<BuiltinRuleId, boolean> = {
    "write-without-confirmation": (profile.writeTools ?? []).length > 0,
    "multiple-tool-calls": profile.oneToolCallPerTurn === true,
    "text-and-tool-call": profile.noTextWithToolCall === true,
    "act-before-authentication": (profile.authenticationTools ?? []).length > 0,
    "transfer-without-message": profile.transferTool !== undefined,
  };
  return chosen === "all" ? BUILTIN_RULE_IDS.filter((id) => supported[id]) : chosen;
}

/** A profile's tool sets and patterns, made once per profile rather than per record. */
interface CompiledProfile {
  writes: ReadonlySet<string>;
  authentication: ReadonlySet<string>;
  free: ReadonlySet<string>;
  confirmation: RegExp;
  transferMessage: RegExp | null;
}

const compiledProfiles = new WeakMap<PolicyProfile, CompiledProfile>();

function compiledProfile(profile: PolicyProfile): CompiledProfile {
  let compiled = compiledProfiles.get(profile);
  if (compiled === undefined) {
    compiled = {
      writes: new Set(profile.writeTools ?? []),
      authentication: new Set(profile.authenticationTools ?? []),
      free: new Set([...(profile.freeTools ?? []), ...(profile.transferTool ? [profile.transferTool] : []), "think", "calculate"]),
      confirmation: new RegExp(profile.confirmationPattern ?? DEFAULT_CONFIRMATION, "i"),
      transferMessage: profile.transferMessage ? new RegExp(profile.transferMessage, "i") : null,
    };
    compiledProfiles.set(profile, compiled);
  }
  return compiled;
}

/** The last user message with text before each message index (−1: none), for the confirmation rule. */
function previousUserTurns(messages: readonly RecordMessage[]): Int32Array {
  const previous = new Int32Array(messages.length + 1);
  let last = -1;
  for (let index = 0; index <= messages.length; index++) {
    previous[index] = last;
    if (index < messages.length && messages[index].role === "user" && hasText(messages[index])) last = index;
  }
  return previous;
}

/** The built-in deterministic rules over one record. */
export function builtinHits(record: EpisodeRecord, profile: PolicyProfile, rules: readonly BuiltinRuleId[], severities: Partial<Record<BuiltinRuleId, Severity>> = {}): PolicyHit[] {
  return builtinHitsIn(record, viewOf(record), profile, rules, severities);
}

function builtinHitsIn(record: EpisodeRecord, view: RecordView, profile: PolicyProfile, rules: readonly BuiltinRuleId[], severities: Partial<Record<BuiltinRuleId, Severity>>): PolicyHit[] {
  const hits: PolicyHit[] = [];
  const { messageOf } = view;
  const hit = (ruleId: BuiltinRuleId, messageIndex: number | null, stepIndex: number | null, detail: string) =>
    hits.push({ ruleId, type: "builtin", severity: severities[ruleId] ?? BUILTIN_SEVERITY[ruleId], messageIndex, stepIndex, detail });
  const multipleCalls = rules.includes("multiple-tool-calls");
  const textAndCall = rules.includes("text-and-tool-call");
  const confirmationRule = rules.includes("write-without-confirmation");
  const authenticationRule = rules.includes("act-before-authentication");
  const transferRule = rules.includes("transfer-without-message");
  const { writes, authentication, free, confirmation, transferMessage } = compiledProfile(profile);
  const messages = record.messages;
  if (multipleCalls || textAndCall) {
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index];
      if (message.role !== "assistant" || message.toolCalls === undefined) continue;
      const calls = message.toolCalls;
      if (multipleCalls && calls.length > 1) hit("multiple-tool-calls", index, null, `${calls.length} tool calls in one turn: ${calls.map((call) => call.name).join(", ")}`);
      if (textAndCall && calls.length > 0 && hasText(message)) hit("text-and-tool-call", index, null, `text and a call of ${calls[0].name} in one turn`);
    }
  }
  let authenticated = false;
  let reportedAuthentication = false;
  let previousUser: Int32Array | undefined;
  for (const stepIndex of view.agentSteps) {
    const step = record.steps[stepIndex];
    const messageIndex = messageOf[stepIndex];
    if (confirmationRule && writes.has(step.name)) {
      previousUser ??= previousUserTurns(messages);
      const userTurn = previousUser[messageIndex ?? messages.length];
      if (userTurn < 0 || !confirmation.test(messages[userTurn].content as string))
        hit("write-without-confirmation", messageIndex, stepIndex, `${step.name} without an explicit confirmation in the previous user turn`);
    }
    if (authenticationRule) {
      if (authentication.has(step.name)) {
        if (!isError(step)) authenticated = true;
      } else if (!authenticated && !free.has(step.name) && !reportedAuthentication) {
        reportedAuthentication = true;
        hit("act-before-authentication", messageIndex, stepIndex, `${step.name} before the user was authenticated (${[...authentication].join(" or ")})`);
      }
    }
    if (transferRule && step.name === profile.transferTool) {
      let followed = false;
      let next: RecordMessage | undefined;
      for (let index = (messageIndex ?? -1) + 1; index < messages.length && next === undefined; index++) {
        if (messages[index].role === "tool") continue;
        followed = true;
        if (messages[index].role === "assistant" && hasText(messages[index])) next = messages[index];
      }
      // τ-bench ends the episode at the transfer itself: nothing follows it, so there is nothing to check.
      if (followed && (!next || (transferMessage && !transferMessage.test(next.content as string))))
        hit("transfer-without-message", messageIndex, stepIndex, transferMessage ? "the transfer is not followed by the required message" : "the transfer is not followed by a message to the user");
    }
  }
  return hits;
}

/** Each regex rule's compiled pattern, made once per rule (not per record). */
const compiledPatterns = new WeakMap<PolicyRule, RegExp>();

function patternOf(rule: Extract<PolicyRule, { type: "regex" }>): RegExp {
  let pattern = compiledPatterns.get(rule);
  if (pattern === undefined) {
    pattern = new RegExp(rule.pattern, rule.flags);
    compiledPatterns.set(rule, pattern);
  }
  return pattern;
}

/** A regex or sequence rule over one record. */
export function deterministicHits(record: EpisodeRecord, rule: PolicyRule): PolicyHit[] {
  return deterministicHitsIn(record, viewOf(record), rule);
}

function deterministicHitsIn(record: EpisodeRecord, view: RecordView, rule: PolicyRule): PolicyHit[] {
  const hits: PolicyHit[] = [];
  const { messageOf, agentSteps } = view;
  const steps = record.steps;
  const hit = (messageIndex: number | null, stepIndex: number | null, detail: string) => hits.push({ ruleId: rule.id, type: rule.type, severity: rule.severity, messageIndex, stepIndex, detail });
  if (rule.type === "regex") {
    const pattern = patternOf(rule);
    if (rule.target === "agent_messages") {
      record.messages.forEach((message, index) => {
        if (message.role !== "assistant" || !hasText(message)) return;
        const match = pattern.exec(message.content as string);
        if (match) hit(index, null, `says "${match[0]}"`);
      });
    } else {
      const texts = argumentsText(record, view);
      for (const index of agentSteps) {
        const step = steps[index];
        if (rule.tools && !rule.tools.includes(step.name)) continue;
        const match = pattern.exec(texts[index]);
        if (match) hit(messageOf[index], index, `${step.name} arguments match "${match[0]}"`);
      }
    }
    return hits;
  }
  if (rule.type !== "sequence") return hits;
  const condition = rule.condition;
  if ("requireBefore" in condition) {
    const { tool, before } = condition.requireBefore;
    let seen = false;
    for (const index of agentSteps) {
      if (steps[index].name === tool) seen = true;
      else if (steps[index].name === before && !seen) hit(messageOf[index], index, `${before} without ${tool} before it`);
    }
  } else if ("forbid" in condition) {
    const { tool, arguments: args } = condition.forbid;
    for (const index of agentSteps) {
      const step = steps[index];
      if (step.name !== tool) continue;
      const actual = (step.arguments ?? {}) as Record<string, unknown>;
      if (!args || Object.entries(args).every(([key, value]) => JSON.stringify(actual[key]) === JSON.stringify(value))) hit(messageOf[index], index, `${tool} is forbidden`);
    }
  } else if ("maxCalls" in condition) {
    const { tool, count } = condition.maxCalls;
    let calls = 0;
    for (const index of agentSteps) if (steps[index].name === tool && ++calls === count + 1) hit(messageOf[index], index, `${tool} called more than ${count} time(s)`);
  } else if ("forbidAfter" in condition) {
    const { tool, after } = condition.forbidAfter;
    let seen = false;
    for (const index of agentSteps) {
      if (steps[index].name === after) seen = true;
      else if (steps[index].name === tool && seen) hit(messageOf[index], index, `${tool} after ${after}`);
    }
  }
  return hits;
}

/** Cosine similarity. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let index = 0; index < a.length; index++) {
    dot += a[index] * b[index];
    na += a[index] * a[index];
    nb += b[index] * b[index];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** What the model-backed rules use: an embeddings endpoint (`semantic`) and a judge (`llm`). */
export interface PolicyModels {
  embed?(texts: readonly string[]): Promise<number[][]>;
  judge?: ChatModel;
}

/** The agent's messages with text, by index. */
const agentMessages = (record: EpisodeRecord) => record.messages.flatMap((message, index) => (message.role === "assistant" && hasText(message) ? [{ index, text: message.content as string }] : []));

/** `semantic` rules: one embeddings pass over every distinct agent message and every example. */
async function semanticHits(
  records: readonly EpisodeRecord[],
  rules: ReadonlyArray<Extract<PolicyRule, { type: "semantic" }>>,
  embed: NonNullable<PolicyModels["embed"]>,
): Promise<Map<EpisodeRecord, PolicyHit[]>> {
  const out = new Map<EpisodeRecord, PolicyHit[]>();
  if (rules.length === 0) return out;
  const texts = [...new Set([...rules.flatMap((rule) => rule.examples), ...records.flatMap((record) => agentMessages(record).map((message) => message.text))])];
  const vectors = new Map<string, number[]>();
  const embedded = texts.length > 0 ? await embed(texts) : [];
  texts.forEach((text, index) => vectors.set(text, embedded[index]));
  for (const record of records) {
    const hits: PolicyHit[] = [];
    for (const message of agentMessages(record)) {
      const vector = vectors.get(message.text) as number[];
      for (const rule of rules) {
        let best = 0;
        let closest = "";
        for (const example of rule.examples) {
          const similarity = cosine(vector, vectors.get(example) as number[]);
          if (similarity > best) {
            best = similarity;
            closest = example;
          }
        }
        if (best >= rule.threshold)
          hits.push({ ruleId: rule.id, type: "semantic", severity: rule.severity, messageIndex: message.index, stepIndex: null, detail: `similarity ${best.toFixed(3)} to "${closest}"` });
      }
    }
    out.set(record, hits);
  }
  return out;
}

/** `llm` rules: the judge answers the rule's yes/no question about each agent message. */
async function llmHits(record: EpisodeRecord, rule: Extract<PolicyRule, { type: "llm" }>, judge: ChatModel): Promise<PolicyHit[]> {
  const hits: PolicyHit[] = [];
  for (const message of agentMessages(record)) {
    const result = await judge.complete({
      messages: [
        { role: "system", content: 'You check one message of a customer-service agent against a rule. Answer with one word: "yes" when the answer to the question is yes, else "no".' },
        { role: "user", content: `Question: ${rule.question}\n\nThe agent's message:\n${message.text}` },
      ],
      temperature: 0,
      cacheNamespace: `policy:${rule.id}`,
    });
    if (/^\W*yes\b/i.test(result.message.content ?? ""))
      hits.push({ ruleId: rule.id, type: "llm", severity: rule.severity, messageIndex: message.index, stepIndex: null, detail: `the judge answered yes to "${rule.question}"` });
  }
  return hits;
}

/** An episode's adherence under a strictness (see the module comment). */
export function adherenceScore(hits: readonly PolicyHit[], strictness: Strictness = "medium"): number {
  const cost = hits.filter((hit) => COUNTED[strictness].has(hit.severity)).reduce((sum, hit) => sum + SEVERITY_WEIGHTS[hit.severity], 0);
  return Math.max(0, 1 - cost / ADHERENCE_BUDGET);
}

/** Whether the policy applies to an episode of this domain. */
const appliesTo = (policy: Policy, record: EpisodeRecord) => policy.domains === null || (record.domain !== null && policy.domains.includes(record.domain));

/**
 * Checks records against a policy. Deterministic rules always run; `semantic` rules need
 * `models.embed`, `llm` rules `models.judge`: without them they are skipped and listed in `skipped`.
 */
export async function checkPolicy(records: readonly EpisodeRecord[], policy: Policy, options: { strictness?: Strictness; models?: PolicyModels } = {}): Promise<PolicyReport> {
  const strictness = options.strictness ?? "medium";
  const models = options.models ?? {};
  const applicable = records.filter((record) => appliesTo(policy, record));
  const semanticRules = policy.rules.filter((rule): rule is Extract<PolicyRule, { type: "semantic" }> => rule.type === "semantic");
  const llmRules = policy.rules.filter((rule): rule is Extract<PolicyRule, { type: "llm" }> => rule.type === "llm");
  const skipped: PolicyReport["skipped"] = [
    ...(models.embed ? [] : semanticRules.map((rule) => ({ ruleId: rule.id, reason: "semantic rules need an embeddings endpoint (--embedder-model, --embedder-base-url)" }))),
    ...(models.judge ? [] : llmRules.map((rule) => ({ ruleId: rule.id, reason: "llm rules need a judge model (--judge-model)" }))),
  ];
  const semantic = models.embed ? await semanticHits(applicable, semanticRules, models.embed) : new Map<EpisodeRecord, PolicyHit[]>();
  const episodes: EpisodePolicy[] = [];
  // A domain's profile and built-ins, made once per domain (their tool sets and patterns are compiled once per profile).
  const profiles = new Map<string, { profile: PolicyProfile; builtins: BuiltinRuleId[] }>();
  const profileOf = (domain: string | null) => {
    let entry = profiles.get(domain ?? "");
    if (entry === undefined) {
      const profile = { ...(BUILTIN_PROFILES[domain ?? ""] ?? {}), ...policy.profile };
      entry = { profile, builtins: applicableBuiltins(profile, policy.builtins) };
      profiles.set(domain ?? "", entry);
    }
    return entry;
  };
  for (const record of records) {
    const base = { suite: record.suite, domain: record.domain, taskId: record.taskId, trial: record.trial, reward: record.reward };
    if (!appliesTo(policy, record)) {
      episodes.push({ ...base, hits: [], adherence: null });
      continue;
    }
    const { profile, builtins } = profileOf(record.domain);
    const view = viewOf(record);
    const hits = builtinHitsIn(record, view, profile, builtins, policy.builtinSeverity);
    for (const rule of policy.rules) if (rule.type === "regex" || rule.type === "sequence") hits.push(...deterministicHitsIn(record, view, rule));
    hits.push(...(semantic.get(record) ?? []));
    if (models.judge) for (const rule of llmRules) hits.push(...(await llmHits(record, rule, models.judge)));
    hits.sort((a, b) => (a.messageIndex ?? Number.MAX_SAFE_INTEGER) - (b.messageIndex ?? Number.MAX_SAFE_INTEGER));
    episodes.push({ ...base, hits, adherence: adherenceScore(hits, strictness) });
  }
  const scored = episodes.filter((episode) => episode.adherence !== null);
  const byRule = new Map<string, { ruleId: string; severity: Severity; hits: number; episodes: number }>();
  for (const episode of episodes) {
    const seen = new Set<string>();
    for (const hit of episode.hits) {
      const row = byRule.get(hit.ruleId) ?? { ruleId: hit.ruleId, severity: hit.severity, hits: 0, episodes: 0 };
      row.hits++;
      if (!seen.has(hit.ruleId)) row.episodes++;
      seen.add(hit.ruleId);
      byRule.set(hit.ruleId, row);
    }
  }
  return {
    file: policy.file,
    strictness,
    episodes,
    adherence: scored.length === 0 ? null : scored.reduce((sum, episode) => sum + (episode.adherence as number), 0) / scored.length,
    hitsByRule: [...byRule.values()].sort((a, b) => b.hits - a.hits || (a.ruleId < b.ruleId ? -1 : 1)),
    skipped,
  };
}
