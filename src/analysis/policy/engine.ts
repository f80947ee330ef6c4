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

/** Each step's message index (the n-th step of an id belongs to the n-th call of that id). */
function stepMessageIndexes(record: EpisodeRecord): Array<number | null> {
  const byId = new Map<string, number[]>();
  record.messages.forEach((message, index) => {
    for (const call of message.toolCalls ?? []) {
      if (!call.id) continue;
      const key = `${call.requestor}\0${call.id}`;
      const list = byId.get(key);
      if (list) list.push(index);
      else byId.set(key, [index]);
    }
  });
  return record.steps.map((step) => (step.toolCallId !== null ? (byId.get(`${step.requestor}\0${step.toolCallId}`)?.shift() ?? null) : null));
}

const isError = (step: RecordStep) => (step.error !== null ? step.error : typeof step.result === "string" && /^error\b/i.test(step.result.trim()));
const hasText = (message: RecordMessage) => typeof message.content === "string" && message.content.trim() !== "";

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

/** The built-in deterministic rules over one record. */
export function builtinHits(record: EpisodeRecord, profile: PolicyProfile, rules: readonly BuiltinRuleId[], severities: Partial<Record<BuiltinRuleId, Severity>> = {}): PolicyHit[] {
  const hits: PolicyHit[] = [];
  const messageOf = stepMessageIndexes(record);
  const hit = (ruleId: BuiltinRuleId, messageIndex: number | null, stepIndex: number | null, detail: string) =>
    hits.push({ ruleId, type: "builtin", severity: severities[ruleId] ?? BUILTIN_SEVERITY[ruleId], messageIndex, stepIndex, detail });
  const enabled = new Set(rules);
  const writes = new Set(profile.writeTools ?? []);
  const confirmation = new RegExp(profile.confirmationPattern ?? DEFAULT_CONFIRMATION, "i");
  if (enabled.has("multiple-tool-calls") || enabled.has("text-and-tool-call")) {
    record.messages.forEach((message, index) => {
      if (message.role !== "assistant") return;
      const calls = message.toolCalls ?? [];
      if (enabled.has("multiple-tool-calls") && calls.length > 1) hit("multiple-tool-calls", index, null, `${calls.length} tool calls in one turn: ${calls.map((call) => call.name).join(", ")}`);
      if (enabled.has("text-and-tool-call") && calls.length > 0 && hasText(message)) hit("text-and-tool-call", index, null, `text and a call of ${calls[0].name} in one turn`);
    });
  }
  let authenticated = false;
  const authentication = new Set(profile.authenticationTools ?? []);
  const free = new Set([...(profile.freeTools ?? []), ...(profile.transferTool ? [profile.transferTool] : []), "think", "calculate"]);
  let reportedAuthentication = false;
  record.steps.forEach((step, stepIndex) => {
    if (step.requestor !== "agent") return;
    const messageIndex = messageOf[stepIndex];
    if (enabled.has("write-without-confirmation") && writes.has(step.name)) {
      const before = messageIndex ?? record.messages.length;
      let userTurn: RecordMessage | undefined;
      for (let index = before - 1; index >= 0; index--) {
        if (record.messages[index].role === "user" && hasText(record.messages[index])) {
          userTurn = record.messages[index];
          break;
        }
      }
      if (!userTurn || !confirmation.test(userTurn.content as string))
        hit("write-without-confirmation", messageIndex, stepIndex, `${step.name} without an explicit confirmation in the previous user turn`);
    }
    if (enabled.has("act-before-authentication")) {
      if (authentication.has(step.name)) {
        if (!isError(step)) authenticated = true;
      } else if (!authenticated && !free.has(step.name) && !reportedAuthentication) {
        reportedAuthentication = true;
        hit("act-before-authentication", messageIndex, stepIndex, `${step.name} before the user was authenticated (${[...authentication].join(" or ")})`);
      }
    }
    if (enabled.has("transfer-without-message") && step.name === profile.transferTool) {
      const from = (messageIndex ?? -1) + 1;
      const after = record.messages.slice(from).filter((message) => message.role !== "tool");
      const next = after.find((message) => message.role === "assistant" && hasText(message));
      const wanted = profile.transferMessage ? new RegExp(profile.transferMessage, "i") : null;
      // τ-bench ends the episode at the transfer itself: nothing follows it, so there is nothing to check.
      if (after.length > 0 && (!next || (wanted && !wanted.test(next.content as string))))
        hit("transfer-without-message", messageIndex, stepIndex, wanted ? "the transfer is not followed by the required message" : "the transfer is not followed by a message to the user");
    }
  });
  return hits;
}

/** A regex or sequence rule over one record. */
export function deterministicHits(record: EpisodeRecord, rule: PolicyRule): PolicyHit[] {
  const hits: PolicyHit[] = [];
  const messageOf = stepMessageIndexes(record);
  const hit = (messageIndex: number | null, stepIndex: number | null, detail: string) => hits.push({ ruleId: rule.id, type: rule.type, severity: rule.severity, messageIndex, stepIndex, detail });
  if (rule.type === "regex") {
    const pattern = new RegExp(rule.pattern, rule.flags);
    if (rule.target === "agent_messages") {
      record.messages.forEach((message, index) => {
        if (message.role !== "assistant" || !hasText(message)) return;
        const match = pattern.exec(message.content as string);
        if (match) hit(index, null, `says "${match[0]}"`);
      });
    } else {
      record.steps.forEach((step, index) => {
        if (step.requestor !== "agent" || (rule.tools && !rule.tools.includes(step.name))) return;
        const match = pattern.exec(JSON.stringify(step.arguments));
        if (match) hit(messageOf[index], index, `${step.name} arguments match "${match[0]}"`);
      });
    }
    return hits;
  }
  if (rule.type !== "sequence") return hits;
  const condition = rule.condition;
  const agentSteps = record.steps.map((step, index) => ({ step, index })).filter(({ step }) => step.requestor === "agent");
  if ("requireBefore" in condition) {
    const { tool, before } = condition.requireBefore;
    let seen = false;
    for (const { step, index } of agentSteps) {
      if (step.name === tool) seen = true;
      else if (step.name === before && !seen) hit(messageOf[index], index, `${before} without ${tool} before it`);
    }
  } else if ("forbid" in condition) {
    const { tool, arguments: args } = condition.forbid;
    for (const { step, index } of agentSteps) {
      if (step.name !== tool) continue;
      const actual = (step.arguments ?? {}) as Record<string, unknown>;
      if (!args || Object.entries(args).every(([key, value]) => JSON.stringify(actual[key]) === JSON.stringify(value))) hit(messageOf[index], index, `${tool} is forbidden`);
    }
  } else if ("maxCalls" in condition) {
    const { tool, count } = condition.maxCalls;
    let calls = 0;
    for (const { step, index } of agentSteps) if (step.name === tool && ++calls === count + 1) hit(messageOf[index], index, `${tool} called more than ${count} time(s)`);
  } else if ("forbidAfter" in condition) {
    const { tool, after } = condition.forbidAfter;
    let seen = false;
    for (const { step, index } of agentSteps) {
      if (step.name === after) seen = true;
      else if (step.name === tool && seen) hit(messageOf[index], index, `${tool} after ${after}`);
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
  for (const record of records) {
    const base = { suite: record.suite, domain: record.domain, taskId: record.taskId, trial: record.trial, reward: record.reward };
    if (!appliesTo(policy, record)) {
      episodes.push({ ...base, hits: [], adherence: null });
      continue;
    }
    const profile = { ...(BUILTIN_PROFILES[record.domain ?? ""] ?? {}), ...policy.profile };
    const hits = [
      ...builtinHits(record, profile, applicableBuiltins(profile, policy.builtins), policy.builtinSeverity),
      ...policy.rules.flatMap((rule) => deterministicHits(record, rule)),
      ...(semantic.get(record) ?? []),
    ];
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
