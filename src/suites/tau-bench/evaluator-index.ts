/**
 * Evaluators per suite (see README.md in this folder). `evaluate` scores a finished episode with
 * the evaluator of its domain's suite.
 */
import type { Evaluation, FinishedEpisode } from "../../core/contracts.ts";
import type { LoadedDomain } from "./engine/domain.ts";
import { evaluatorFor } from "./evaluator.ts";

export { evaluatorFor, groundTruthHashFor, TauBenchEvaluator } from "./evaluator.ts";

/** Scores a finished episode of `domain` with its suite's evaluator: reward, breakdown by component, reward info. */
export function evaluate(domain: LoadedDomain, episode: FinishedEpisode): Evaluation {
  return evaluatorFor(domain).evaluate(episode);
}
