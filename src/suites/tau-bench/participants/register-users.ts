/**
 * Registers the user simulators of τ-bench's `--user-strategy` (llm, react, verify, reflection,
 * human) in the τ-bench suite's user registry. Called by `createTauBench()` (app/suites.ts).
 */
import type { Registry } from "../../../core/registry.ts";
import type { BuildContext, StrategySettings, UserFactory } from "../../../core/strategies.ts";
import type { TerminalIO } from "../../../participants/human-agent.ts";
import { HumanUser } from "./human-user.ts";
import { LlmUser, type LlmUserOptions } from "./llm-user.ts";
import { userTemplate, type UserPromptKind } from "./user-prompts.ts";
import type { SupervisorPrompts } from "./llm-user.ts";
import { ReactUser } from "./react-user.ts";
import { ReflectionUser } from "./reflection-user.ts";
import { VerifyUser } from "./verify-user.ts";
import { simulatedUser } from "./simulated-user.ts";

// One validated template per run configuration (the file is read once, not per episode).
const templates = new WeakMap<StrategySettings, Map<UserPromptKind, string | undefined>>();

/** `--user-prompt-file` when given; else τ-bench's original prompt from its sources; else the strategy's own wording (undefined). */
function templateFor(context: BuildContext, kind: UserPromptKind): string | undefined {
  const { config } = context;
  let perRun = templates.get(config);
  if (!perRun) {
    perRun = new Map();
    templates.set(config, perRun);
  }
  if (!perRun.has(kind)) {
    if (config.userPromptFile) perRun.set(kind, userTemplate(kind, config.userPromptFile));
    else {
      const original = context.originalPrompts?.(context.warn);
      perRun.set(kind, original ? original.user(kind) : undefined);
    }
  }
  return perRun.get(kind);
}

/** τ-bench's own verify / reflect prompts, when its sources are in the data directory. */
function originalSupervisor(context: BuildContext): SupervisorPrompts | undefined {
  return context.originalPrompts?.()?.supervisor;
}

function llmFactory(description: string, kind: UserPromptKind, make: (options: LlmUserOptions) => LlmUser): UserFactory {
  return {
    description,
    requiresModel: true,
    create: (context: BuildContext) => {
      const template = templateFor(context, kind);
      const supervisor = context.config.userPromptFile ? undefined : originalSupervisor(context);
      const client = context.models.user();
      return simulatedUser(kind, (episode) => make({ client, episode: episode.episode, usage: episode.usage, ...(template !== undefined ? { template } : {}), ...(supervisor ? { supervisor } : {}) }));
    },
  };
}

/** A human-user factory over the given terminal (default: the process's stdin/stdout); tests pass streams. */
export function humanUserFactory(io?: TerminalIO): UserFactory {
  return {
    description: "a person types the user's replies in the terminal (readline; use --max-concurrency 1)",
    requiresModel: false,
    create: () => simulatedUser("human", () => new HumanUser(io)),
  };
}

/** Registers τ-bench's model-driven user simulators (llm, react, verify, reflection) and the human user. */
export function registerUserStrategies(users: Registry<UserFactory>): void {
  const entries: [string, UserFactory][] = [
    ["llm", llmFactory("τ-bench's LLM user simulator: one completion per turn (needs --user-model)", "llm", (options) => new LlmUser(options))],
    ["react", llmFactory("τ-bench's react user: Thought + User Response, parsed (needs --user-model)", "react", (options) => new ReactUser(options))],
    ["verify", llmFactory("τ-bench's verify user: each reply checked by a supervisor call, 3 attempts (needs --user-model)", "llm", (options) => new VerifyUser(options))],
    ["reflection", llmFactory("τ-bench's reflection user: a rejected reply is reflected on and retried once (needs --user-model)", "llm", (options) => new ReflectionUser(options))],
    ["human", humanUserFactory()],
  ];
  for (const [name, factory] of entries) users.register(name, factory);
}
