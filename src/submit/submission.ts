/**
 * `submission.json` in the original's schema (τ²: `scripts/leaderboard/submission.py`, `Submission`):
 * the same fields and nesting, unknown fields refused in nested models and ignored at the top (as
 * pydantic's `extra="forbid"` / `extra="ignore"`), percentages in [0, 100], banking_knowledge
 * results with a retrieval config, a release announcement only with a release date. Written as the
 * original writes it (`model_dump_json(indent=2, exclude_none=True)`: fields in declaration order,
 * absent values left out).
 */
import { z } from "zod";
import { pyJsonDumpsIndented, PyFloat } from "../value/index.ts";

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a date YYYY-MM-DD");
const optional = <T extends z.ZodType>(schema: T) => schema.nullish();
const percent = optional(z.number().gte(0).lte(100));

export const domainResultsSchema = z.strictObject({
  pass_1: percent,
  pass_2: percent,
  pass_3: percent,
  pass_4: percent,
  cost: optional(z.number().gte(0)),
  retrieval_config: optional(z.string()),
});

export const submissionSchema = z
  .object({
    model_name: z.string(),
    model_organization: z.string(),
    submitting_organization: z.string(),
    submission_date: date,
    submission_type: z.enum(["standard", "custom"]).default("standard"),
    modality: z.enum(["text", "voice"]).default("text"),
    contact_info: z.strictObject({ email: optional(z.string()), name: optional(z.string()), github: optional(z.string()) }),
    results: z
      .strictObject({ retail: optional(domainResultsSchema), airline: optional(domainResultsSchema), telecom: optional(domainResultsSchema), banking_knowledge: optional(domainResultsSchema) })
      .refine((results) => !results.banking_knowledge || typeof results.banking_knowledge.retrieval_config === "string", {
        message: "banking_knowledge results require retrieval_config (e.g. 'bm25', 'terminal', 'text-emb-3-large')",
        path: ["banking_knowledge", "retrieval_config"],
      }),
    is_new: z.boolean().default(false),
    trajectories_available: z.boolean().default(false),
    trajectory_files: optional(z.record(z.string(), z.string())),
    references: optional(z.array(z.strictObject({ title: z.string(), url: z.string(), type: optional(z.string()) }))),
    methodology: optional(
      z.strictObject({
        evaluation_date: optional(date),
        tau2_bench_version: optional(z.string()),
        user_simulator: optional(z.string()),
        notes: optional(z.string()),
        verification: optional(z.strictObject({ modified_prompts: optional(z.boolean()), omitted_questions: optional(z.boolean()), details: optional(z.string()) })),
      }),
    ),
    voice_config: optional(z.record(z.string(), z.unknown())),
    interaction_metrics: optional(z.record(z.string(), z.unknown())),
    model_release: optional(
      z
        .strictObject({ release_date: optional(date), announcement_url: optional(z.string()), announcement_title: optional(z.string()) })
        .refine((release) => !(release.announcement_url && !release.release_date), { message: "announcement_url is set but release_date is not" }),
    ),
    reasoning_effort: optional(z.string()),
  })
  .loose();
export type Submission = z.infer<typeof submissionSchema>;

/** The order `model_dump_json` writes each model's fields in. */
const ORDER: Record<string, readonly string[]> = {
  submission: [
    "model_name",
    "model_organization",
    "submitting_organization",
    "submission_date",
    "submission_type",
    "modality",
    "contact_info",
    "results",
    "is_new",
    "trajectories_available",
    "trajectory_files",
    "references",
    "methodology",
    "voice_config",
    "interaction_metrics",
    "model_release",
    "reasoning_effort",
  ],
  contact_info: ["email", "name", "github"],
  results: ["retail", "airline", "telecom", "banking_knowledge"],
  domain: ["pass_1", "pass_2", "pass_3", "pass_4", "cost", "retrieval_config"],
  reference: ["title", "url", "type"],
  methodology: ["evaluation_date", "tau2_bench_version", "user_simulator", "notes", "verification"],
  verification: ["modified_prompts", "omitted_questions", "details"],
  model_release: ["release_date", "announcement_url", "announcement_title"],
};

/** Fields in order, `null`/`undefined` left out; numbers of the float fields as Python floats. */
function ordered(value: Record<string, unknown> | null | undefined, order: readonly string[], nested: Record<string, (item: unknown) => unknown> = {}): Record<string, unknown> | undefined {
  if (!value) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of order) {
    const item = value[key];
    if (item === null || item === undefined) continue;
    out[key] = nested[key] ? nested[key](item) : item;
  }
  return out;
}

const float = (value: unknown) => (typeof value === "number" ? new PyFloat(value) : value);
const domain = (value: unknown) => ordered(value as Record<string, unknown>, ORDER.domain, { pass_1: float, pass_2: float, pass_3: float, pass_4: float, cost: float });

/** `submission.json`'s text (2-space indent, a final newline). */
export function submissionText(submission: Submission): string {
  const body = ordered(submission as Record<string, unknown>, ORDER.submission, {
    contact_info: (value) => ordered(value as Record<string, unknown>, ORDER.contact_info),
    results: (value) => ordered(value as Record<string, unknown>, ORDER.results, { retail: domain, airline: domain, telecom: domain, banking_knowledge: domain }),
    references: (value) => (value as Array<Record<string, unknown>>).map((reference) => ordered(reference, ORDER.reference)),
    methodology: (value) => ordered(value as Record<string, unknown>, ORDER.methodology, { verification: (item) => ordered(item as Record<string, unknown>, ORDER.verification) }),
    model_release: (value) => ordered(value as Record<string, unknown>, ORDER.model_release),
  });
  return `${pyJsonDumpsIndented(body, 2)}\n`;
}
