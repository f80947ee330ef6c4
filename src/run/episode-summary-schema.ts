/**
 * An episode's summary (`EpisodeSummary`, `src/core/run.ts`) as zod reads it where it crosses a
 * process boundary: a worker sends each result's summary beside the result's wire form, so the
 * coordinator reports progress, cost and metrics without reading the whole episode back.
 */
import type { z } from "zod";
import { lazySchema } from "../data/lazy-zod.ts";
import type { EpisodeSummary } from "../core/run.ts";
import { TERMINATION_REASONS } from "../core/types.ts";

/** The schema, built on first use (`lazy-zod.ts`: a run in one process never loads zod for it). */
export const episodeSummarySchema: () => z.ZodType<EpisodeSummary> = lazySchema((z) => {
  const roleUsage = z.object({ calls: z.number(), promptTokens: z.number(), completionTokens: z.number(), cost: z.number().nullable() }).nullable();
  return z.object({
    taskId: z.union([z.number(), z.string()]),
    trial: z.number().int().nonnegative(),
    reward: z.number().min(0).max(1),
    termination: z.enum(TERMINATION_REASONS).nullable(),
    usage: z.object({ agent: roleUsage, user: roleUsage }).nullable(),
    error: z.string().nullable().optional(),
    unmappedTools: z.array(z.string()).optional(),
  });
});
