/**
 * What a job carries: the configuration's id (the configuration itself is in the run's record,
 * once, rather than in each of thousands of jobs) and the one attempt of one unit to run. Its
 * return value is the worker's one reply (`src/worker/protocol.ts`).
 */
import { z } from "zod";
import type { WorkUnit } from "../core/run.ts";
import { workUnitSchema } from "../worker/protocol.ts";

export const jobDataSchema = z.object({ configurationId: z.string().min(1), unit: workUnitSchema });
export interface JobData {
  configurationId: string;
  unit: WorkUnit;
}

/** A job's name, for BullMQ's tools and `queue status`: the task and trial it runs. */
export function jobNameOf(unit: Pick<WorkUnit, "taskId" | "trial">): string {
  return `${unit.taskId}#${unit.trial}`;
}
