/**
 * The fields every OpenAI-compatible client config shares (chat models and embeddings): which
 * model at which endpoint, the NAME of the key's variable, and the per-call timeout and attempts.
 * One definition, so both clients validate (and default) them alike.
 */
import { z } from "zod";
import { DEFAULT_MODEL_MAX_ATTEMPTS, DEFAULT_MODEL_TIMEOUT_SECONDS } from "./defaults.ts";

export const endpointConfigFields = {
  model: z.string().min(1),
  provider: z.string().min(1).default("openai"),
  baseURL: z.url().optional(),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the NAME of an environment variable (never the key itself)")
    .optional(),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .default(DEFAULT_MODEL_TIMEOUT_SECONDS * 1000),
  maxAttempts: z.number().int().min(1).max(20).default(DEFAULT_MODEL_MAX_ATTEMPTS),
  /** Azure OpenAI's `api-version` (default: `AZURE_API_VERSION`, `OPENAI_API_VERSION`, then litellm's default). */
  apiVersion: z.string().min(1).optional(),
};
