/**
 * The shared agent strategies that run on every suite: τ-bench's model strategies (tool-calling,
 * act, react, few-shot), the human agent and the function agent. The composition root registers
 * them into the registry it creates for a run or server.
 */
import type { AgentFactory, BuildContext } from "../core/strategies.ts";
import type { Registry } from "../core/registry.ts";
import { ConfigError } from "../errors/error-tree.ts";
import { ChatReActAgent } from "./chat-react-agent.ts";
import { FUNCTION_AGENT_ISOLATIONS, type FunctionAgentIsolation, loadFunctionAgent } from "./function-agent.ts";
import { checkAgentOptionKeys } from "./user-module.ts";
import { FewShotAgent, loadFewShotDisplays } from "./few-shot-agent.ts";
import { HumanAgent, type TerminalIO } from "./human-agent.ts";
import { agentTemplate } from "./prompts.ts";
import { ToolCallingAgent } from "./tool-calling-agent.ts";

/** A human-agent factory over the given terminal (default: the process's stdin/stdout); tests pass streams. */
export function humanAgentFactory(io?: TerminalIO): AgentFactory {
  return {
    description: "a person types the agent's replies and tool calls (/tool name {json}) in the terminal",
    requiresModel: false,
    create: () => new HumanAgent(io),
  };
}

/** `--agent-prompt-file` when given; else the suite's original prompt (τ-bench's, from its sources); else our wording. */
function chatReactTemplate(kind: "act" | "react", context: BuildContext): string {
  const { config, warn } = context;
  if (config.agentPromptFile) return agentTemplate(kind, config.agentPromptFile);
  const original = context.originalPrompts?.(warn);
  return original ? original.chatReact(kind === "react") : agentTemplate(kind, undefined);
}

const factories: Record<string, AgentFactory> = {
  "tool-calling": {
    description: "τ-bench's tool-calling agent: policy as system prompt, tools via the API, first tool call used (needs --model)",
    requiresModel: true,
    create: ({ config, domain, models }: BuildContext) => new ToolCallingAgent({ client: models.agent(), domain, template: agentTemplate("tool-calling", config.agentPromptFile) }),
  },
  act: {
    description: "τ-bench's act agent: tools described in the prompt, replies `Action: {json}` (needs --model)",
    requiresModel: true,
    create: (context: BuildContext) => new ChatReActAgent({ client: context.models.agent(), domain: context.domain, useReasoning: false, template: chatReactTemplate("act", context) }),
  },
  react: {
    description: "τ-bench's react agent: like act, with a `Thought:` line before each Action (needs --model)",
    requiresModel: true,
    create: (context: BuildContext) => new ChatReActAgent({ client: context.models.agent(), domain: context.domain, useReasoning: true, template: chatReactTemplate("react", context) }),
  },
  "few-shot": {
    description: "τ-bench's few-shot agent: tool-calling with 5 sampled example conversations (needs --model and --few-shot-displays-path)",
    requiresModel: true,
    // Its examples are τ-bench conversations, given by a τ-bench flag (--few-shot-displays-path).
    suites: ["tau-bench"],
    create: ({ config, domain, models }: BuildContext) => {
      const displays = loadFewShotDisplays(config.fewShotDisplaysPath);
      return new FewShotAgent({ client: models.agent(), domain, displays, seed: config.seed, template: agentTemplate("few-shot", config.agentPromptFile) });
    },
  },
  human: humanAgentFactory(),
  module: {
    description: "your own agent function: --agent-module ./my-agent.{ts,js} exporting respond({messages, tools, signal}) → {content} | {toolCalls}",
    requiresModel: false,
    create: ({ config }: BuildContext) => {
      checkAgentOptionKeys(config.agentOptions, ["module", "export", "isolation"], "module");
      const modulePath = config.agentOptions.module;
      if (typeof modulePath !== "string" || modulePath === "") throw new ConfigError("--agent-strategy module needs --agent-module <path to a module exporting respond()>");
      const exportName = config.agentOptions.export;
      const isolation = config.agentOptions.isolation ?? "worker";
      if (!FUNCTION_AGENT_ISOLATIONS.includes(isolation as FunctionAgentIsolation))
        throw new ConfigError(`--agent-isolation: must be one of ${FUNCTION_AGENT_ISOLATIONS.join(", ")}, got "${String(isolation)}"`);
      return loadFunctionAgent(modulePath, typeof exportName === "string" ? exportName : undefined, { isolation: isolation as FunctionAgentIsolation });
    },
  },
};

/** Registers the shared model strategies (tool-calling, act, react, few-shot), the human agent and the function agent (`module`). */
export function registerModelStrategies(agents: Registry<AgentFactory>): void {
  for (const [name, factory] of Object.entries(factories)) agents.register(name, factory);
}
