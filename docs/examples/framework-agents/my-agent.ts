// my-agent.ts
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ToolLoopAgent, stepCountIs, tool } from "ai";
import { z } from "zod";

const backend = (path: string, body: unknown) => fetch(`https://library.example.com/api/${path}`, { method: "POST", body: JSON.stringify(body) }).then((response) => response.text());

const tools = {
  lookup_patron: tool({
    description: "Find a patron's account id by the e-mail on their card.",
    inputSchema: z.object({ email_address: z.string() }),
    execute: (input) => backend("patrons/lookup", input),
  }),
  get_member_details: tool({
    description: "A patron's account: loans, holds, fines.",
    inputSchema: z.object({ member_id: z.string() }),
    execute: (input) => backend("patrons/get", input),
  }),
  renew: tool({
    description: "Renew a loan by two weeks.",
    inputSchema: z.object({ loan: z.string() }),
    execute: (input) => backend("loans/renew", input),
  }),
  current_time: tool({
    description: "The current date and time.",
    inputSchema: z.object({}),
    execute: async () => new Date().toISOString(),
  }),
};

/** Called once per episode; the harness passes the model endpoint (--base-url, --model). */
export function createAgent({ baseURL, model, apiKey }: { baseURL: string; model: string; apiKey: string }) {
  const provider = createOpenAICompatible({ name: "my-llm", baseURL, apiKey });
  return new ToolLoopAgent({ model: provider.chatModel(model), instructions: "You help library patrons with their loans.", tools, stopWhen: stepCountIs(20) });
}
