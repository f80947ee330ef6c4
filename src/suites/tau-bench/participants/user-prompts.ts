/**
 * Prompt templates of the LLM user simulators (τ-bench: tau_bench/envs/user.py, the simulators'
 * `build_system_prompt` and the `verify` / `reflect` functions), in taubridge's own wording with
 * the original's structure: a one-line role statement, the instruction block, a `Rules:` list (react
 * adds a `Format:` section), and the supervisor prompts of verify / reflection with their
 * `# Transcript:` / `# Response:` sections and the parsed `Classification:` / `Response:` answers.
 *
 * The template language is the one of `src/participants/prompts.ts` (`{{name}}` placeholders).
 */
import { STOP_TOKEN } from "../../../core/types.ts";
import { loadTemplateFile, renderTemplate } from "../../../participants/prompts.ts";

/**
 * The agent's fixed opening line that seeds every simulated conversation (τ-bench:
 * tau_bench/envs/user.py, LLMUserSimulationEnv.reset).
 */
export const USER_SEED_MESSAGE = "Hi! How can I help you today?";

/** Which simulator a system prompt is for. verify and reflection use the llm prompt. */
export type UserPromptKind = "llm" | "react";

/**
 * User template placeholders:
 * - `{{instruction}}`: the task instruction, as is;
 * - `{{instruction_block}}`: a blank line, `Instruction: ` + the instruction, and a newline (the
 *   original's layout; empty when there is no instruction);
 * - `{{stop_token}}`: `###STOP###`.
 */
export const USER_PLACEHOLDERS: readonly string[] = ["instruction", "instruction_block", "stop_token"];

/** The llm / verify / reflection system prompt: role line, instruction block, 6 rules. */
export const LLM_USER_TEMPLATE = `You are a customer chatting with a support agent.{{instruction_block}}
Rules:
- Write only one line at a time: the customer's next message.
- Do not hand over everything in the instruction at once; give only what the current step needs.
- Never make up information the instruction does not give you. If the agent asks for something you were not given (an order number, say), answer that you do not remember it or do not have it.
- As soon as the goal in the instruction has been reached, reply with '{{stop_token}}' on its own, with nothing else, to end the conversation.
- Do not copy the instruction word for word; say the same things in your own words.
- Sound natural, and stay in the persona the instruction describes.`;

/** The react user's system prompt: 7 rules (thought first, then a one-line User Response) and a Format section. */
export const REACT_USER_TEMPLATE = `You are a customer chatting with a support agent.{{instruction_block}}
Rules:
- First write a Thought about what to do next (the agent will not see it).
- Then write a one-line User Response: the customer's next message (the agent will see it).
- Do not hand over everything in the instruction at once; give only what the current step needs.
- Never make up information the instruction does not give you. If the agent asks for something you were not given (an order number, say), answer that you do not remember it or do not have it.
- As soon as the goal in the instruction has been reached, make the User Response '{{stop_token}}' on its own, with nothing else, to end the conversation.
- Do not copy the instruction word for word; say the same things in your own words.
- Sound natural, and stay in the persona the instruction describes.

Format:

Thought:
<your thought>

User Response:
<the customer's message (this part is parsed and sent to the agent)>`;

const DEFAULT_USER_TEMPLATES: Readonly<Record<UserPromptKind, string>> = { llm: LLM_USER_TEMPLATE, react: REACT_USER_TEMPLATE };

/** The user's template: `--user-prompt-file` when given (validated), else the default of its kind. */
export function userTemplate(kind: UserPromptKind, promptFile: string | undefined): string {
  if (!promptFile) return DEFAULT_USER_TEMPLATES[kind];
  return loadTemplateFile(promptFile, USER_PLACEHOLDERS, "user prompt file");
}

/** Fills a user template for an instruction (the original passes None only at construction time, which we skip). */
export function renderUserPrompt(template: string, instruction: string | null): string {
  return renderTemplate(
    template,
    {
      instruction: instruction ?? "",
      instruction_block: instruction === null ? "" : `\n\nInstruction: ${instruction}\n`,
      stop_token: STOP_TOKEN,
    },
    "user prompt",
  );
}

/**
 * Transcript labels of the supervisor prompts: `user` → `Customer`, `assistant` → `Agent`, others
 * capitalised, as τ-bench's `map_role_label` (tau_bench/envs/user.py). Reproduced on purpose: in
 * the simulator's flipped history the real agent is `user`, so the agent is labelled "Customer" and
 * the simulated customer "Agent".
 */
export function transcriptLabel(role: string): string {
  if (role === "user") return "Customer";
  if (role === "assistant") return "Agent";
  return role.charAt(0).toUpperCase() + role.slice(1).toLowerCase();
}

/** `Label: content` lines (Python prints a None content as `None`). */
export function transcriptOf(messages: readonly { role: string; content: string | null }[]): string {
  return messages.map((message) => `${transcriptLabel(message.role)}: ${message.content ?? "None"}`).join("\n");
}

/** The verify supervisor prompt: classify the Response as satisfactory (true) or not (false). */
export function verifyPrompt(transcript: string, response: string): string {
  return `You supervise the Agent in a conversation. Below is the Transcript of a conversation between a Customer and an Agent, and a Response the Customer has produced. Decide whether that Response is satisfactory (true) or not (false).
Your answer is parsed automatically: reply with the classification only (true or false), and nothing else.

# Transcript:
${transcript}

# Response:
${response}

-----

Classification:`;
}

/** The reflection supervisor prompt: reflect on the rejected Response and propose a new one. */
export function reflectPrompt(transcript: string, response: string): string {
  return `You supervise the Agent in a conversation. Below is the Transcript of a conversation between a (simulated) Customer and an Agent. The Customer produced a Response that you judged unsatisfactory.
Write a Reflection on what went wrong, then propose a new Response that fixes it.
Your answer is parsed automatically, so follow the format below exactly and add nothing else.

# Transcript:
${transcript}

# Response:
${response}

# Format:

Reflection:
<your reflection>

Response:
<the new response (this part is parsed and sent to the agent)>`;
}
