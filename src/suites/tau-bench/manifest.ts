/**
 * τ-bench's run manifest (`src/core/run-manifest.ts`): what a results file says about the run that
 * wrote it, built once per run from its configuration and identity. Each entry of τ-bench's results
 * list carries it in its `taubridge` block (the original's list has no other place), with the
 * definition hash of that entry's task only; {@link manifestOfEntries} merges them back.
 */
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { RunManifest } from "../../core/run-manifest.ts";
import { cachedDerivation, derivedCacheKey } from "../../data/derived-cache.ts";
import { fileSha256, isStoredTemplateHashes, pinnedDataCommit, type StoredTemplateHashes } from "../../data/pinned-files.ts";
import type { RunIdentity } from "../../run/run-identity.ts";
import { isManifest, knownHashes, manifestEndpoint, manifestModel, sha256OfText, sha256OfValue } from "../../run/run-manifest.ts";
import { pyJsonDumps } from "../../value/index.ts";
import type { BuiltRun } from "./build.ts";
import { taskDump } from "./codec.ts";
import { readTauBenchPrompts, tauBenchSourceTree, type TauBenchPromptTemplates } from "./engine/original-prompts.ts";
import { domainDataFiles } from "./run-identity.ts";

/** SHA-256 of the original's prompt templates a τ-bench run can use, by part (empty when the sources are absent). */
function originalTemplateHashes(built: BuiltRun): Record<string, string> {
  const { domain } = built;
  if (domain.definition.suite !== "tau-bench") return {};
  const root = dirname(domain.dataDirectory);
  if (!existsSync(join(root, "upstream-src", "tau_bench"))) return {};
  return tauBenchPromptTemplateHashes(root);
}

/**
 * The template hashes of a τ-bench data root. Reading them parses three of τ-bench's Python sources
 * (~5% of a τ-bench oracle run's CPU, though an oracle sends no prompt), so, as τ²'s
 * (`tau2PromptTemplateHashes`), they are kept in the derived cache with the SHA-256 of every file
 * they were read from, and an entry is used only while each of those files has the bytes it had.
 */
export function tauBenchPromptTemplateHashes(dataRoot: string): Record<string, string> {
  const root = resolve(dataRoot);
  return cachedDerivation(TAU_BENCH_TEMPLATE_HASHES_KIND, derivedCacheKey(root), isStoredTemplateHashes, () => deriveTemplateHashes(root)).hashes;
}

export const TAU_BENCH_TEMPLATE_HASHES_KIND = "tau-bench-template-hashes-v1";

function deriveTemplateHashes(root: string): StoredTemplateHashes {
  const tree = tauBenchSourceTree(root);
  let hashes: Record<string, string> = {};
  try {
    hashes = templateHashes(readTauBenchPrompts(root, tree));
  } catch {
    // the build already said what is wrong with the sources
  }
  const files = Object.fromEntries(tree.readPaths().map((path) => [path, fileSha256(path) ?? null]));
  return { files, hashes };
}

function templateHashes(templates: TauBenchPromptTemplates): Record<string, string> {
  const { reactInstruction, actInstruction, chatReactPrompt, fewShotExample, fewShotSeparator, fewShotSystem, userPrompt, userFirstMessage } = templates;
  const { verifyPrompt, reflectPrompt, transcriptLine, transcriptSeparator, roleLabels } = templates;
  return {
    "agent.original": sha256OfValue({ reactInstruction, actInstruction, chatReactPrompt, fewShotExample, fewShotSeparator, fewShotSystem }),
    "user.original": sha256OfValue({ userPrompt, userFirstMessage }),
    "user.supervisor": sha256OfValue({ verifyPrompt, reflectPrompt, transcriptLine, transcriptSeparator, roleLabels }),
  };
}

/**
 * The manifest of a τ-bench run: its configuration (secrets and paths left out: files are named by
 * their content hash), the data's pinned commit when every data file is the pinned export's, and
 * the definition hash of every selected task.
 */
export function tauBenchManifest(built: BuiltRun, identity: RunIdentity): RunManifest {
  const { config, domain, tasks, taskIndices } = built;
  const files = identity.files;
  const agentOptions = (identity.options.agentOptions ?? {}) as Record<string, unknown>;
  const agentFiles = knownHashes({ module: files.module, mapping: files.mapping, workflowPath: files.workflowPath });
  const dataFiles = [...domainDataFiles(domain).map((name) => join(domain.dataDirectory, name)), built.taskFilePath];
  return {
    manifestVersion: 1,
    taubridgeVersion: identity.taubridgeVersion,
    suite: "tau-bench",
    domain: config.env,
    dataCommit: pinnedDataCommit("tau-bench", dirname(domain.dataDirectory), dataFiles),
    taskSet: { name: config.taskFile ? basename(config.taskFile) : config.env, split: built.split, sha256: identity.taskSet },
    taskDefinitions: Object.fromEntries(taskIndices.map((index) => [String(index), sha256OfText(pyJsonDumps(taskDump(tasks[index])))])),
    dataSha256: identity.data,
    agent: manifestModel(config.agentStrategy, config.model, config.modelProvider, {
      temperature: config.temperature,
      endpoint: manifestEndpoint(config.baseUrl),
      ...(Object.keys(agentOptions).length > 0 ? { options: agentOptions } : {}),
      ...(Object.keys(agentFiles).length > 0 ? { files: agentFiles } : {}),
    }),
    user: manifestModel(config.userStrategy, config.userModel, config.userModelProvider, { endpoint: manifestEndpoint(config.userBaseUrl) }),
    judge: null,
    promptTemplates: {
      ...originalTemplateHashes(built),
      ...knownHashes({ agentPromptFile: files.agentPromptFile, agentFewShotDisplays: files.fewShotDisplaysPath, userPromptFile: files.userPromptFile }),
    },
    retrieval: null,
    seed: config.seed,
    numTrials: config.numTrials,
    settings: {
      maxSteps: config.maxSteps,
      episodeTimeoutMs: config.episodeTimeoutMs,
      episodeRetries: config.episodeRetries,
      modelTimeoutMs: config.modelTimeoutMs,
      modelMaxAttempts: config.modelMaxAttempts,
      shuffle: config.shuffle,
      priceFile: files.priceFile ?? null,
    },
  };
}

/** The manifest as one entry records it: the definition hash of the entry's task only. */
export function entryManifest(manifest: RunManifest, taskId: string): RunManifest {
  const hash = manifest.taskDefinitions[taskId];
  return { ...manifest, taskDefinitions: hash === undefined ? {} : { [taskId]: hash } };
}

/**
 * The run manifest of a results file's entries: the first entry's, with every entry's task
 * definition hashes merged; null when no entry records one (the original's files, taubridge's
 * before results schema 2). Entries of one file always share the rest (the run stamps them all).
 */
export function manifestOfEntries(manifests: ReadonlyArray<unknown>): RunManifest | null {
  const recorded = manifests.filter((manifest): manifest is RunManifest => isManifest(manifest));
  if (recorded.length === 0) return null;
  const taskDefinitions: Record<string, string> = {};
  for (const manifest of recorded) Object.assign(taskDefinitions, manifest.taskDefinitions);
  return { ...recorded[0], taskDefinitions };
}
