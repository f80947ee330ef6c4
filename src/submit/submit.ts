/**
 * `taubridge tau2 submit prepare|validate`: the original's leaderboard submission
 * (`prepare_submission.py`) over a suite's {@link LeaderboardSupport}.
 *
 * prepare: results files (or directories of them) → verification (each file holds the base split's
 * current tasks, `num_trials` simulations each; skipped with `verify: false`) → the set's checks (no
 * domain twice, the same agent and user everywhere) → the numbers of each domain → the 17 questions
 * → `<output>/<model>_<org>_<date>/` with `submission.json` and `trajectories/`, the results files
 * copied byte for byte (`results.json` renamed `<domain>_results.json`, as the original does).
 *
 * validate: the same checks on a submission directory, then every submitted number against the
 * recomputed one. Every defect is returned (the CLI exits 2 naming each); the original prints
 * warnings and exits 0.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { LeaderboardResultsFile, LeaderboardSupport } from "../core/leaderboard.ts";
import { ConfigError, DataError, errorMarker } from "../errors/error-tree.ts";
import { writeFileAtomic } from "../run/atomic-file.ts";
import { checkNumTrials, checkTasks, checkTrajectorySet, type Defect } from "./checks.ts";
import { domainNumbers, type DomainNumbers } from "./metrics.ts";
import { askSubmissionQuestions, type AnswerSource, type PresetAnswers } from "./questions.ts";
import { type Submission, submissionSchema, submissionText } from "./submission.ts";

export const SUBMISSION_FILE_NAME = "submission.json";
export const TRAJECTORY_FILES_DIR_NAME = "trajectories";

/** Results files under the given paths: files as given, directories searched for `*.json` (status sidecars left out), sorted. */
export function expandResultsPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (directory: string) => {
    for (const name of readdirSync(directory).sort()) {
      const full = join(directory, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".json") && !name.endsWith(".meta.json")) out.push(full);
    }
  };
  for (const path of paths) {
    if (!existsSync(path)) throw new ConfigError(`${path}: no such file or directory`);
    if (statSync(path).isDirectory()) walk(path);
    else out.push(path);
  }
  return out;
}

/** Verification of each file: tasks of the base split with current definitions, num_trials simulations each. */
export function verifyFiles(files: readonly LeaderboardResultsFile[], support: LeaderboardSupport, dataDir?: string): Defect[] {
  const defects: Defect[] = [];
  for (const file of files) {
    if (!support.domains.includes(file.domain)) {
      defects.push({ domain: file.domain, file: file.path, defect: `not a leaderboard domain (${support.domains.join(", ")})` });
      continue;
    }
    defects.push(...checkTasks(file, support.baseTasks(file.domain, dataDir), support.sameDefinition?.bind(support)), ...checkNumTrials(file));
  }
  return defects;
}

/** `_slugify` of the original: lower case, spaces, slashes and dots to hyphens. */
export function slugify(text: string): string {
  return text.toLowerCase().replaceAll(" ", "-").replaceAll("/", "-").replaceAll(".", "-");
}

export interface PrepareOptions {
  paths: readonly string[];
  output: string;
  verify: boolean;
  dataDir?: string;
  answers: AnswerSource;
  preset: PresetAnswers;
  /** Today's date (YYYY-MM-DD; the submission date and the folder's). */
  today: string;
  log?(line: string): void;
}

export interface PrepareOutcome {
  directory: string;
  submission: Submission;
  numbers: Record<string, DomainNumbers>;
}

/** Prepares a submission; a defect throws a one-line error naming the domain (nothing is written). */
export async function prepareSubmission(support: LeaderboardSupport, options: PrepareOptions): Promise<PrepareOutcome> {
  const log = options.log ?? (() => undefined);
  const paths = expandResultsPaths(options.paths);
  if (paths.length === 0) throw new ConfigError(`no results file under ${options.paths.join(", ")}`);
  const files = paths.map((path) => support.readResults(path));
  if (files.some((file) => file.voice)) throw new ConfigError("voice (audio-native) submissions are not supported: taubridge runs τ² in half-duplex text mode");
  const defects = [...(options.verify ? verifyFiles(files, support, options.dataDir) : []), ...checkTrajectorySet(files)];
  if (defects.length > 0) throw new SubmissionDefectsError(defects);
  const numbers: Record<string, DomainNumbers & { retrieval_config?: string }> = {};
  for (const file of files) {
    numbers[file.domain] = { ...domainNumbers(file), ...(file.domain === "banking_knowledge" && file.retrievalConfig ? { retrieval_config: file.retrievalConfig } : {}) };
    log(`${file.domain}: ${basename(file.path)}: ${[1, 2, 3, 4].map((k) => `pass^${k} ${numbers[file.domain][`pass_${k}` as "pass_1"]?.toFixed(1) ?? "n/a"}%`).join(" | ")}`);
  }
  const answers = await askSubmissionQuestions(options.answers, options.preset, {
    modelName: files[0].agentLlm ?? "",
    userSimulator: files[0].userLlm ?? "",
    today: options.today,
    benchmarkVersion: support.benchmarkVersion,
    needsRetrievalConfig: numbers.banking_knowledge !== undefined && numbers.banking_knowledge.retrieval_config === undefined,
  });
  if (numbers.banking_knowledge && numbers.banking_knowledge.retrieval_config === undefined) {
    if (!answers.retrievalConfig) throw new ConfigError("banking_knowledge results need a retrieval config (--retrieval-config)");
    numbers.banking_knowledge.retrieval_config = answers.retrievalConfig;
  }
  const directory = join(options.output, `${slugify(answers.modelName)}_${slugify(answers.modelOrganization)}_${options.today}`);
  const trajectories = join(directory, TRAJECTORY_FILES_DIR_NAME);
  mkdirSync(trajectories, { recursive: true });
  const trajectoryFiles: Record<string, string> = {};
  for (const file of files) {
    const name = basename(file.path) !== "results.json" ? basename(file.path) : `${file.domain}_results.json`;
    copyFileSync(file.path, join(trajectories, name));
    trajectoryFiles[file.domain] = name;
  }
  const submission: Submission = {
    model_name: answers.modelName,
    model_organization: answers.modelOrganization,
    submitting_organization: answers.submittingOrganization,
    submission_date: options.today,
    submission_type: answers.submissionType,
    modality: "text",
    contact_info: { email: answers.email, name: answers.contactName, github: answers.github },
    results: Object.fromEntries(support.domains.filter((domain) => numbers[domain]).map((domain) => [domain, numbers[domain]])),
    is_new: answers.isNew,
    trajectories_available: true,
    trajectory_files: trajectoryFiles,
    references: answers.references.length > 0 ? answers.references : null,
    methodology: {
      evaluation_date: answers.evaluationDate,
      tau2_bench_version: answers.benchmarkVersion,
      user_simulator: answers.userSimulator,
      notes: answers.notes,
      verification: { modified_prompts: answers.modifiedPrompts, omitted_questions: answers.omittedQuestions, details: answers.verificationDetails },
    },
    model_release: answers.releaseDate ? { release_date: answers.releaseDate, announcement_url: answers.announcementUrl, announcement_title: answers.announcementTitle } : null,
    reasoning_effort: answers.reasoningEffort,
  };
  const checked = submissionSchema.safeParse(submission);
  if (!checked.success) throw new ConfigError(`the submission does not fit the leaderboard's schema: ${checked.error.issues[0].path.join(".")}: ${checked.error.issues[0].message}`);
  writeFileAtomic(join(directory, SUBMISSION_FILE_NAME), submissionText(submission));
  return { directory, submission, numbers };
}

/** Several defects in one error (exit 2); its message lists each on its own line. */
export class SubmissionDefectsError extends DataError {
  static readonly marker: symbol = errorMarker("SubmissionDefectsError");

  constructor(readonly defects: readonly Defect[]) {
    super(defects.map((defect) => `${defect.domain ?? "submission"}: ${defect.defect}${defect.file ? ` (${defect.file})` : ""}`).join("\n"));
  }
}

export interface ValidationOutcome {
  defects: Defect[];
  /** What the original also only warns about: the model and user-simulator names. */
  warnings: string[];
  /** Submitted numbers equal to the recomputed ones except in the last bits (see `checkNumbers`). */
  notes: string[];
  domains: string[];
}

/** Two numbers that differ only in the last bits of a float (the order of a pairwise sum). */
const lastBits = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * The submitted numbers against the recomputed ones, compared exactly as the original does (`!=`).
 * The original sums each pass^k column in `sort_values("num_actions")` order, whose tie order is
 * numpy's and CPU-dependent (numpy 2's AVX2/AVX-512 sort kernels order equal keys differently from
 * its portable quicksort, which this port reproduces): unless `exact`, a value that differs only in
 * the last bits of the float is accepted with a note, never a changed reward, simulation or task.
 */
function checkNumbers(domain: string, submitted: Record<string, unknown>, file: LeaderboardResultsFile, exact: boolean, notes: string[]): Defect[] {
  const computed = domainNumbers(file);
  const defects: Defect[] = [];
  for (const key of ["pass_1", "pass_2", "pass_3", "pass_4", "cost"] as const) {
    const given = (submitted[key] ?? null) as number | null;
    const ours = computed[key];
    if (given === ours) continue;
    if (!exact && given !== null && ours !== null && lastBits(given, ours)) {
      notes.push(`${domain}: ${key} ${given} equals the recomputed ${ours} up to the summation order of the original's platform`);
      continue;
    }
    defects.push({ domain, file: file.path, defect: `${key === "cost" ? "cost" : `pass^${key.slice(5)}`} is ${given ?? "absent"} but the trajectories give ${ours ?? "none"}` });
  }
  return defects;
}

/** Validates a submission directory (as `tau2 submit validate`), returning every defect. */
export function validateSubmission(support: LeaderboardSupport, directory: string, options: { dataDir?: string; exact?: boolean } = {}): ValidationOutcome {
  const at = (defect: string): Defect => ({ domain: null, file: null, defect });
  if (!existsSync(directory)) return { defects: [at(`submission directory ${directory} not found`)], warnings: [], notes: [], domains: [] };
  const submissionFile = join(directory, SUBMISSION_FILE_NAME);
  if (!existsSync(submissionFile)) return { defects: [at(`submission file ${submissionFile} not found`)], warnings: [], notes: [], domains: [] };
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(submissionFile, "utf8"));
  } catch (error) {
    return { defects: [at(`${submissionFile} is not valid JSON: ${(error as Error).message}`)], warnings: [], notes: [], domains: [] };
  }
  const parsed = submissionSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { defects: [at(`${submissionFile}: field ${issue.path.join(".")}: ${issue.message}`)], warnings: [], notes: [], domains: [] };
  }
  const submission = parsed.data;
  if (submission.modality === "voice") return { defects: [at("voice submissions are not supported (taubridge runs τ² in half-duplex text mode)")], warnings: [], notes: [], domains: [] };
  const trajectories = join(directory, TRAJECTORY_FILES_DIR_NAME);
  if (!existsSync(trajectories)) return { defects: [at(`trajectory files directory ${trajectories} not found`)], warnings: [], notes: [], domains: [] };
  const paths = expandResultsPaths([trajectories]);
  const files: LeaderboardResultsFile[] = [];
  const defects: Defect[] = [];
  for (const path of paths) {
    try {
      files.push(support.readResults(path));
    } catch (error) {
      defects.push({ domain: null, file: path, defect: `the results file does not load: ${(error as Error).message}` });
    }
  }
  if (defects.length > 0) return { defects, warnings: [], notes: [], domains: [] };
  if (files.length === 0) return { defects: [at(`no results file in ${trajectories}`)], warnings: [], notes: [], domains: [] };
  defects.push(...checkTrajectorySet(files), ...verifyFiles(files, support, options.dataDir));
  const warnings: string[] = [];
  const notes: string[] = [];
  if (submission.model_name !== files[0].agentLlm) warnings.push(`model name ${submission.model_name} is not the model of the trajectories (${files[0].agentLlm})`);
  if (submission.methodology?.user_simulator && submission.methodology.user_simulator !== files[0].userLlm)
    warnings.push(`user simulator ${submission.methodology.user_simulator} is not the one of the trajectories (${files[0].userLlm})`);
  const results = submission.results as Record<string, Record<string, unknown> | null | undefined>;
  for (const file of files) {
    const submitted = results[file.domain];
    if (!submitted) {
      defects.push({ domain: file.domain, file: file.path, defect: "the trajectories hold this domain but submission.json has no results for it" });
      continue;
    }
    defects.push(...checkNumbers(file.domain, submitted, file, options.exact === true, notes));
  }
  for (const domain of support.domains) {
    if (results[domain] && !files.some((file) => file.domain === domain)) defects.push({ domain, file: null, defect: "submission.json has results for this domain but no trajectory file holds it" });
  }
  return { defects, warnings, notes, domains: files.map((file) => file.domain) };
}
