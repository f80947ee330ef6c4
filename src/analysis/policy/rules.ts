/**
 * Policy rule files: YAML or JSON, one per domain, validated with zod; an error names the file and
 * the rule (its id, else its position) and the field. See docs/analysis.md for the format.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError, fileErrorText } from "../../errors/error-tree.ts";

export const SEVERITIES = ["low", "medium", "high", "critical"] as const;
export type Severity = (typeof SEVERITIES)[number];

const severity = z.enum(SEVERITIES);
const base = { id: z.string().min(1), severity, description: z.string().optional() };

/** A condition over the trajectory's tool calls, checked without a model. */
const sequenceCondition = z.union([
  z.strictObject({ requireBefore: z.strictObject({ tool: z.string(), before: z.string() }) }),
  z.strictObject({ forbid: z.strictObject({ tool: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }) }),
  z.strictObject({ maxCalls: z.strictObject({ tool: z.string(), count: z.number().int().nonnegative() }) }),
  z.strictObject({ forbidAfter: z.strictObject({ tool: z.string(), after: z.string() }) }),
]);

export const policyRuleSchema = z.discriminatedUnion("type", [
  z.strictObject({
    ...base,
    type: z.literal("regex"),
    /** `agent_messages` (what the agent says) or `tool_arguments` (the JSON of each call's arguments). */
    target: z.enum(["agent_messages", "tool_arguments"]).default("agent_messages"),
    pattern: z.string(),
    flags: z
      .string()
      .regex(/^[imsu]*$/, "flags may be i, m, s, u")
      .default("i"),
    /** With `tool_arguments`: only these tools' calls. */
    tools: z.array(z.string()).optional(),
  }),
  z.strictObject({ ...base, type: z.literal("sequence"), condition: sequenceCondition }),
  z.strictObject({
    ...base,
    type: z.literal("semantic"),
    /** Agent messages that violate the rule; a message as close as `threshold` (cosine) to one of them is a hit. */
    examples: z.array(z.string().min(1)).min(1),
    threshold: z.number().gt(0).lte(1).default(0.85),
  }),
  z.strictObject({
    ...base,
    type: z.literal("llm"),
    /** A yes/no question asked of the judge about each agent message ("yes" is a violation). */
    question: z.string().min(1),
  }),
]);
export type PolicyRule = z.infer<typeof policyRuleSchema>;

/** What the built-in rules know about a domain's tools (a built-in profile, overridden by the file's). */
export const profileSchema = z.strictObject({
  writeTools: z.array(z.string()).optional(),
  authenticationTools: z.array(z.string()).optional(),
  /** Tools that need no authentication (generic ones: calculate, think, transfer). */
  freeTools: z.array(z.string()).optional(),
  transferTool: z.string().optional(),
  /** A regular expression the agent's message after a transfer must match (default: any text). */
  transferMessage: z.string().optional(),
  /** A regular expression an explicit confirmation in the previous user turn matches. */
  confirmationPattern: z.string().optional(),
  oneToolCallPerTurn: z.boolean().optional(),
  noTextWithToolCall: z.boolean().optional(),
});
export type PolicyProfile = z.infer<typeof profileSchema>;

export const BUILTIN_RULE_IDS = ["write-without-confirmation", "multiple-tool-calls", "text-and-tool-call", "act-before-authentication", "transfer-without-message"] as const;
export type BuiltinRuleId = (typeof BUILTIN_RULE_IDS)[number];

export const policyFileSchema = z.strictObject({
  version: z.literal(1).default(1),
  /** The domain(s) the rules apply to; none: every episode. */
  domain: z.union([z.string(), z.array(z.string())]).optional(),
  /** Built-in rules: `all` (default: those the domain's profile supports), `none`, or a list, with their severities. */
  builtins: z.union([z.enum(["all", "none"]), z.array(z.enum(BUILTIN_RULE_IDS))]).default("all"),
  builtinSeverity: z.record(z.enum(BUILTIN_RULE_IDS), severity).optional(),
  profile: profileSchema.optional(),
  rules: z.array(z.unknown()).default([]),
});

/** A policy loaded from its file. */
export interface Policy {
  file: string;
  /** SHA-256 of the rule file's text, when it was read from a file (what a results file records of it). */
  sha256?: string;
  domains: string[] | null;
  builtins: BuiltinRuleId[] | "all";
  builtinSeverity: Partial<Record<BuiltinRuleId, Severity>>;
  profile: PolicyProfile;
  rules: PolicyRule[];
}

function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue.path.map(String).join(".");
  return `${path ? `field ${path}: ` : ""}${issue.message}`;
}

/** Parses a policy document (already read); `file` names it in errors. */
export function parsePolicy(document: unknown, file: string): Policy {
  const parsed = policyFileSchema.safeParse(document ?? {});
  if (!parsed.success) throw new ConfigError(`${file}: ${issueText(parsed.error)}`);
  const rules: PolicyRule[] = [];
  const ids = new Set<string>();
  parsed.data.rules.forEach((raw, index) => {
    const label = raw && typeof raw === "object" && typeof (raw as { id?: unknown }).id === "string" ? `rule "${(raw as { id: string }).id}"` : `rules[${index}]`;
    const rule = policyRuleSchema.safeParse(raw);
    if (!rule.success) throw new ConfigError(`${file}: ${label}: ${issueText(rule.error)}`);
    if (ids.has(rule.data.id)) throw new ConfigError(`${file}: ${label}: the id is used by another rule`);
    if (rule.data.type === "regex") {
      try {
        new RegExp(rule.data.pattern, rule.data.flags);
      } catch (error) {
        throw new ConfigError(`${file}: ${label}: field pattern: ${(error as Error).message}`);
      }
    }
    ids.add(rule.data.id);
    rules.push(rule.data);
  });
  for (const key of ["transferMessage", "confirmationPattern"] as const) {
    const pattern = parsed.data.profile?.[key];
    if (pattern === undefined) continue;
    try {
      new RegExp(pattern, "i");
    } catch (error) {
      throw new ConfigError(`${file}: field profile.${key}: ${(error as Error).message}`);
    }
  }
  const domain = parsed.data.domain;
  return {
    file,
    domains: domain === undefined ? null : Array.isArray(domain) ? domain : [domain],
    builtins: parsed.data.builtins === "none" ? [] : parsed.data.builtins,
    builtinSeverity: parsed.data.builtinSeverity ?? {},
    profile: parsed.data.profile ?? {},
    rules,
  };
}

/** Reads a policy file: `.json` as JSON, anything else as YAML (which JSON also is). */
export function loadPolicyFile(path: string): Policy {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read policy file ${path}: ${fileErrorText(error)}`, { cause: error });
  }
  let document: unknown;
  try {
    document = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`${path}: not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${(error as Error).message.split("\n")[0]}`);
  }
  return { ...parsePolicy(document, path), sha256: createHash("sha256").update(text, "utf8").digest("hex") };
}
