/**
 * What the benchmarks' model answers (`latency-server.ts`, `light-model-server.ts`): an agent model
 * (`bench-agent`) that always answers, and a user model that stops after `turns` agent messages.
 * One rule for both servers, so `--light-model` runs the same conversations as the scripted server.
 */
export interface BenchAnswer {
  content: string;
  usage: { prompt_tokens: number; completion_tokens: number };
}

export function benchAnswer(body: { model?: unknown; messages?: Array<{ role?: unknown }> }, turns: number): BenchAnswer {
  if (body.model === "bench-agent") return { content: "Thanks, I am looking into it.", usage: { prompt_tokens: 100, completion_tokens: 10 } };
  // The user simulator sees the agent's words as `user` messages (roles flipped), after the fixed opener.
  const seen = (body.messages ?? []).filter((message) => message.role === "user").length;
  return { content: seen > turns ? "###STOP###" : `Please continue (${seen}).`, usage: { prompt_tokens: 50, completion_tokens: 5 } };
}
