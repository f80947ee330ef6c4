/**
 * What a τ² run is made of before it is built: `tau2 run`'s options and their defaults, the model
 * clients per role, and the participant factories and registries its names resolve in. Participants
 * and the build step both read these (a module of its own, so neither imports the other).
 */
import type { ChatModel, Participant } from "../../core/contracts.ts";
import type { DeferredRegistry, Registry } from "../../core/registry.ts";
import type { AgentFactory } from "../../core/strategies.ts";
import type { EmbeddingModel } from "../../core/model-types.ts";
import type { RoleUsage } from "../../core/types.ts";
import type { PyDict } from "../../value/index.ts";
import type { LoadedTau2Domain, Tau2DomainDefinition } from "./engine/domain.ts";
import { TAU2_BENCH_RULES } from "./rules.ts";
import type { Tau2Task } from "./tasks.ts";
import type { RetrievalBackends } from "./knowledge/variants.ts";

/** What a participant factory gets: τ²'s `--agent-llm`/`--agent-llm-args` (or the user's), the run's model clients, the domain and data root. */
export interface Tau2FactoryOptions {
  llm: string;
  llmArgs: Record<string, unknown>;
  models?: Tau2RunModels;
  domain?: LoadedTau2Domain;
  dataRoot?: string;
  /** For taubridge's own agent strategies (framework adapters, `module`): `--agent-option`s and the endpoint. */
  agentOptions?: Record<string, string>;
  baseUrl?: string;
}

/**
 * What builds a τ² participant. `solo` marks τ²'s solo agents (the run then uses the solo policy,
 * a solo environment and `dummy_user`); `taskFilter` is τ²'s per-agent task filter (e.g.
 * `llm_agent_gt` only runs tasks with gold actions).
 */
export interface Tau2ParticipantFactory {
  (options: Tau2FactoryOptions): Participant<Tau2Task> | Promise<Participant<Tau2Task>>;
  solo?: boolean;
  taskFilter?: (task: Tau2Task) => boolean;
  /** The participant calls a model: the run creates its model client (and loads the model SDK) up front. */
  requiresModel?: boolean;
  /** One line for `taubridge strategies`: whose participant it is and what it does. */
  description?: string;
}

/** The τ² names a run resolves. */
export interface Tau2Registries {
  domains: DeferredRegistry<Tau2DomainDefinition>;
  agents: Registry<Tau2ParticipantFactory>;
  users: Registry<Tau2ParticipantFactory>;
  /** taubridge's own agent strategies (adapters, `module`, the τ-bench model strategies), for `--agent` names τ² does not define. */
  strategies?: Registry<AgentFactory>;
}

/** Model clients of a τ² run, per role, made on first use (the judge's only when a selected task's basis needs it). */
export interface Tau2RunModels {
  agent?: () => ChatModel;
  user?: () => ChatModel;
  judge?: () => ChatModel | Promise<ChatModel>;
  /** τ³ retrieval's reranker and embedder as the run layer makes them (cache, prices, queue, usage, logs), when the variant needs them. */
  reranker?: () => ChatModel;
  embedder?: () => EmbeddingModel;
  /** Usage of the reranker and the embedder, by role, for the results file and the report. */
  roleUsage?(): Record<string, RoleUsage>;
  /** Probes the retrieval roles' endpoints before the first episode (see the run layer's RunModels). */
  preflight?(): Promise<void>;
  /** Set once a model endpoint refused the run's first call: the batch stops with it (see the run layer's RunModels). */
  unreachable?(): Error | undefined;
}

/** `tau2 run`'s options, with its defaults (τ²: src/tau2/cli.py, add_run_args). */
export interface Tau2RunOptions {
  domain: string;
  agent: string;
  user: string;
  agentLlm: string;
  userLlm: string;
  agentLlmArgs: Record<string, unknown>;
  userLlmArgs: Record<string, unknown>;
  /** The LLM arguments as given on the command line, read like Python's `json.loads` (what the results file records). */
  agentLlmArgsPython?: PyDict;
  userLlmArgsPython?: PyDict;
  numTrials: number;
  numTasks?: number;
  taskIds?: string[];
  taskSetName?: string;
  taskSplitName: string;
  /** τ³ banking_knowledge: `--retrieval-config` (τ²'s `RunConfig.retrieval_config`; the domain's default when absent). */
  retrievalConfig?: string;
  /** `--retrieval-config-kwargs`, as given (recorded as is). */
  retrievalConfigKwargs?: PyDict;
  /**
   * Online retrieval backends for the variants that need them (embedders, the reranker); the
   * domain refuses those variants without them. Filled by whoever provides the backends.
   */
  retrievalBackends?: RetrievalBackends;
  /** The embedder and reranker models and endpoints behind `retrievalBackends` (part of the run's identity; never keys). */
  retrievalModels?: { embedder?: { kind: string; model: string; baseUrl?: string }; reranker?: { model: string; baseUrl?: string } };
  maxSteps: number;
  maxErrors: number;
  maxConcurrency: number;
  seed: number;
  saveTo?: string;
  timeout: number | null;
  maxRetries: number;
  retryDelay: number;
  dataDir: string;
  /** τ²'s `--enforce-communication-protocol` (default off). */
  enforceCommunicationProtocol?: boolean;
  /** `--agent-option key=value` for taubridge's own agent strategies on τ² (framework adapters, `module`). */
  agentOptions?: Record<string, string>;
  /** The agent's endpoint for strategies that take one (`--agent-base-url`). */
  agentBaseUrl?: string;
  /** Resume an existing results file of the same run (default true; τ² always resumes). */
  resume?: boolean;
  /** Resume even though what decides outcomes changed since the stored run (its finished simulations are kept). */
  acceptChanges?: boolean;
}

export const TAU2_RUN_DEFAULTS = {
  agent: "llm_agent",
  user: "user_simulator",
  agentLlm: "gpt-4.1-2025-04-14",
  userLlm: "gpt-4.1-2025-04-14",
  llmArgs: { temperature: 0.0 },
  numTrials: 1,
  taskSplitName: "base",
  maxSteps: TAU2_BENCH_RULES.defaultMaxSteps,
  maxErrors: TAU2_BENCH_RULES.defaultMaxErrors as number,
  maxConcurrency: 3,
  seed: 300,
  maxRetries: 3,
  retryDelay: 1.0,
} as const;
