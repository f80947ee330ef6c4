/**
 * τ²'s run manifest (`src/core/run-manifest.ts`): what a results file says about the run that
 * wrote it, built once per run from its options, identity and parts, and kept in the file's
 * `taubridge` block (τ²'s `Results` object has no other place for it; the original ignores it).
 */
import { basename, join, resolve } from "node:path";
import type { RunManifest } from "../../core/run-manifest.ts";
import { cachedDerivation, derivedCacheKey, readDerived, writeDerived } from "../../data/derived-cache.ts";
import { fileSha256, isStoredTemplateHashes, pinnedDataCommit, type StoredTemplateHashes } from "../../data/pinned-files.ts";
import type { RunIdentity } from "../../run/run-identity.ts";
import { knownHashes, manifestEndpoint, manifestModel, sha256OfValue } from "../../run/run-manifest.ts";
import { toJs, type PyDict } from "../../value/index.ts";
import type { LoadedTau2Domain } from "./engine/domain.ts";
import { readTau2PromptTemplates, readTau2UserGuidelines, type Tau2PromptTemplates } from "./engine/extract/prompts.ts";
import { tau2SourceTree } from "./engine/extract/sources.ts";
import { readTau2JudgeTemplates, tau2JudgeTemplateFiles } from "./judge.ts";
import { tau2TaskHash } from "./leaderboard.ts";
import type { Tau2RunOptions } from "./run-options.ts";
import type { Tau2TaskSet } from "./task-sets.ts";
import { type Tau2Task, rawTau2Task } from "./tasks.ts";

/** A template group's hash, or nothing when its sources cannot be read (the run says so where it reads them). */
function hashed(name: string, read: () => unknown): Record<string, string> {
  try {
    return { [name]: sha256OfValue(read()) };
  } catch {
    return {};
  }
}

/**
 * SHA-256 of τ²'s prompt templates the run uses, by part: the agent's, the user simulator's (with its
 * guidelines), the orchestrator's first message, the judge's.
 *
 * Reading them parses several of τ²'s Python sources (a tenth of a second or more, on every run,
 * though an oracle run uses no prompt), so the hashes are kept in the derived cache with the SHA-256
 * of every file they were read from (a file that was missing counts as such): an entry is used only
 * while each of those files still has the bytes it had (see `isStoredTemplateHashes`).
 */
export function tau2PromptTemplateHashes(dataRoot: string, judged: boolean): Record<string, string> {
  const key = derivedCacheKey(resolve(dataRoot), judged ? "judged" : "not judged");
  return cachedDerivation(TAU2_TEMPLATE_HASHES_KIND, key, isStoredTemplateHashes, () => deriveTemplateHashes(dataRoot, judged)).hashes;
}

export const TAU2_TEMPLATE_HASHES_KIND = "tau2-template-hashes-v1";

/** The hashes read from τ²'s sources through a tree of their own, so the files they came from are known. */
function deriveTemplateHashes(dataRoot: string, judged: boolean): StoredTemplateHashes {
  const tree = tau2SourceTree(dataRoot);
  const extraFiles: string[] = [];
  let templates: Tau2PromptTemplates | undefined;
  const read = () => (templates ??= readTau2PromptTemplates(dataRoot, tree));
  const hashes = {
    ...hashed("agent.original", () => {
      const { userSystemPrompt: _prompt, userPersonaPlaceholder: _persona, userGuidelinesFile: _files, userStopTokens: _tokens, firstAgentMessage: _first, ...agent } = read();
      return agent;
    }),
    ...hashed("user.original", () => {
      const { userSystemPrompt, userPersonaPlaceholder, userStopTokens, userGuidelinesFile } = read();
      extraFiles.push(...[userGuidelinesFile.withTools, userGuidelinesFile.withoutTools].map((name) => join(dataRoot, "user_simulator", name)));
      const guidelines = [true, false].map((withTools) => readTau2UserGuidelines(dataRoot, read(), withTools));
      return { userSystemPrompt, userPersonaPlaceholder, userStopTokens, guidelines };
    }),
    ...hashed("orchestrator.firstAgentMessage", () => read().firstAgentMessage),
    ...(judged
      ? hashed("judge.nlAssertions", () => {
          extraFiles.push(...tau2JudgeTemplateFiles(dataRoot));
          return readTau2JudgeTemplates(dataRoot);
        })
      : {}),
  };
  const files = Object.fromEntries([...tree.readPaths(), ...extraFiles].map((path) => [path, fileSha256(path) ?? null]));
  return { files, hashes };
}

export const TAU2_TASK_HASHES_KIND = "tau2-task-hashes-v1";

/**
 * Each selected task's definition hash (`get_pydantic_hash`: SHA-256 of its sorted-keys dump), by
 * id. Printing and hashing every selected task was ~2% of a whole τ² oracle run, so the hashes of a
 * task file's tasks are kept in the derived cache under the file's SHA-256 (with the taubridge
 * version, as every derived entry), each run adding those it had to compute. A task folder (τ³)
 * has no one file to key by, and a selection that repeats an id cannot say which task an id's hash
 * is of: both are hashed on every run, as before.
 */
export function tau2TaskDefinitionHashes(taskSet: Tau2TaskSet): Record<string, string> {
  const hash = (task: Tau2Task) => tau2TaskHash(rawTau2Task(task) ?? new Map());
  const ids = taskSet.tasks.map((task) => task.id);
  if (taskSet.fileSha256 === undefined || new Set(ids).size !== ids.length) return Object.fromEntries(taskSet.tasks.map((task) => [task.id, hash(task)]));
  const key = derivedCacheKey(taskSet.fileSha256);
  const stored = readDerived(TAU2_TASK_HASHES_KIND, key);
  const known = new Map<string, string>(isTaskHashes(stored) ? Object.entries(stored) : []);
  let added = false;
  const hashes = taskSet.tasks.map((task): [string, string] => {
    let value = known.get(task.id);
    if (value === undefined) {
      value = hash(task);
      known.set(task.id, value);
      added = true;
    }
    return [task.id, value];
  });
  if (added) writeDerived(TAU2_TASK_HASHES_KIND, key, Object.fromEntries(known));
  return Object.fromEntries(hashes);
}

/** A stored entry: task id → SHA-256 hex. */
function isTaskHashes(value: unknown): value is Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((hash) => typeof hash === "string" && /^[0-9a-f]{64}$/.test(hash));
}

/** What a τ² run's manifest is made of. */
export interface Tau2ManifestParts {
  options: Tau2RunOptions;
  domain: LoadedTau2Domain;
  taskSet: Tau2TaskSet;
  identity: RunIdentity;
  /** The NL judge's model, when a selected task needs the judge. */
  judgeModel: string | null;
  /** The domain's data files (relative to its folder), as the identity hashed them. */
  dataFiles: readonly string[];
}

/**
 * The manifest of a τ² run: its options (secrets and paths left out; LLM arguments redacted as
 * the identity records them), the data's pinned commit when every file read is the pinned
 * export's, each task's definition hash as τ²'s leaderboard computes it (`get_pydantic_hash`).
 */
export function tau2Manifest(parts: Tau2ManifestParts): RunManifest {
  const { options, domain, taskSet, identity } = parts;
  const recordedOptions = identity.options;
  const agentOptions = (recordedOptions.agentOptions ?? {}) as Record<string, unknown>;
  const agentFiles = knownHashes({ module: identity.files.module, mapping: identity.files.mapping, workflowPath: identity.files.workflowPath });
  const recorded = domain.setup?.recorded;
  const retrievalModels = options.retrievalModels;
  return {
    manifestVersion: 1,
    taubridgeVersion: identity.taubridgeVersion,
    suite: "tau2",
    domain: options.domain,
    dataCommit: pinnedDataCommit("tau2-bench", options.dataDir, [...parts.dataFiles.map((name) => join(domain.directory, name)), ...taskSet.files]),
    taskSet: { name: options.taskSetName ?? basename(domain.directory), split: taskSet.splitApplied, sha256: identity.taskSet },
    taskDefinitions: tau2TaskDefinitionHashes(taskSet),
    dataSha256: identity.data,
    agent: manifestModel(options.agent, options.agentLlm, null, {
      llmArgs: recordedOptions.agentLlmArgs,
      endpoint: manifestEndpoint(options.agentBaseUrl),
      ...(Object.keys(agentOptions).length > 0 ? { options: agentOptions } : {}),
      ...(Object.keys(agentFiles).length > 0 ? { files: agentFiles } : {}),
    }),
    user: manifestModel(options.user, options.userLlm, null, { llmArgs: recordedOptions.userLlmArgs }),
    judge: parts.judgeModel ? manifestModel("nl_assertions", parts.judgeModel, null, {}) : null,
    promptTemplates: tau2PromptTemplateHashes(options.dataDir, parts.judgeModel !== null),
    retrieval:
      recorded && (recorded.retrievalConfig !== null || options.retrievalConfig !== undefined)
        ? {
            config: recorded.retrievalConfig ?? options.retrievalConfig ?? null,
            kwargs: recorded.retrievalConfigKwargs ? toJs(recorded.retrievalConfigKwargs as PyDict) : null,
            ...(retrievalModels?.embedder
              ? { embedder: { kind: retrievalModels.embedder.kind, model: retrievalModels.embedder.model, endpoint: manifestEndpoint(retrievalModels.embedder.baseUrl) } }
              : {}),
            ...(retrievalModels?.reranker ? { reranker: { model: retrievalModels.reranker.model, endpoint: manifestEndpoint(retrievalModels.reranker.baseUrl) } } : {}),
          }
        : null,
    seed: options.seed,
    numTrials: options.numTrials,
    settings: {
      maxSteps: options.maxSteps,
      maxErrors: options.maxErrors,
      timeout: options.timeout,
      enforceCommunicationProtocol: options.enforceCommunicationProtocol ?? false,
    },
  };
}
