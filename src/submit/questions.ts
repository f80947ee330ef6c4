/**
 * The metadata `submit prepare` asks for: the original's 17 questions, in its order, with its
 * defaults and its follow-ups (a description when prompts were modified or tasks omitted; each
 * reference's title, URL and type; the announcement of a release date; banking_knowledge's
 * retrieval config when the results do not name it). Each can also come as a flag; answers not
 * given by a flag are read one a line from the answer source (the terminal, or stdin when piped).
 */
import { ConfigError } from "../errors/error-tree.ts";

/** Where answers come from: `ask(question, default)` returns the typed line ("" for Enter), or null when input ended. */
export interface AnswerSource {
  ask(question: string, fallback: string | null): Promise<string | null>;
}

/** Answers given up front (flags): a question with a preset answer is not asked. */
export interface PresetAnswers {
  modelName?: string;
  userSimulator?: string;
  modelOrganization?: string;
  submittingOrganization?: string;
  email?: string;
  contactName?: string;
  github?: string;
  isNew?: boolean;
  submissionType?: string;
  reasoningEffort?: string;
  evaluationDate?: string;
  benchmarkVersion?: string;
  notes?: string;
  modifiedPrompts?: boolean;
  omittedQuestions?: boolean;
  verificationDetails?: string;
  /** `title|url|type` each (type optional). */
  references?: string[];
  releaseDate?: string;
  announcementUrl?: string;
  announcementTitle?: string;
  retrievalConfig?: string;
}

export interface SubmissionAnswers {
  modelName: string;
  userSimulator: string;
  modelOrganization: string;
  submittingOrganization: string;
  email: string;
  contactName: string | null;
  github: string | null;
  isNew: boolean;
  submissionType: "standard" | "custom";
  reasoningEffort: string | null;
  evaluationDate: string | null;
  benchmarkVersion: string | null;
  notes: string | null;
  modifiedPrompts: boolean;
  omittedQuestions: boolean;
  verificationDetails: string | null;
  references: Array<{ title: string; url: string; type: string }>;
  releaseDate: string | null;
  announcementUrl: string | null;
  announcementTitle: string | null;
  retrievalConfig: string | null;
}

const REFERENCE_TYPES = ["paper", "blog_post", "documentation", "model_card", "github", "huggingface", "other"];
const isDate = (text: string) => /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`));

/** The 17 questions (and the follow-ups), in the original's order. */
export async function askSubmissionQuestions(
  source: AnswerSource,
  preset: PresetAnswers,
  defaults: { modelName: string; userSimulator: string; today: string; benchmarkVersion: string; needsRetrievalConfig: boolean },
): Promise<SubmissionAnswers> {
  const text = async (question: string, fallback: string | null, given?: string): Promise<string> => {
    if (given !== undefined) return given;
    const answer = await source.ask(question, fallback);
    return answer === null || answer === "" ? (fallback ?? "") : answer;
  };
  const choice = async (question: string, choices: readonly string[], fallback: string, given?: string): Promise<string> => {
    const answer = await text(`${question} [${choices.join("/")}]`, fallback, given);
    if (!choices.includes(answer)) throw new ConfigError(`${question}: "${answer}" is not one of ${choices.join(", ")}`);
    return answer;
  };
  const confirm = async (question: string, fallback: boolean, given?: boolean): Promise<boolean> => {
    if (given !== undefined) return given;
    const answer = (await text(`${question} [y/n]`, fallback ? "y" : "n")).trim().toLowerCase();
    if (["y", "yes", "true"].includes(answer)) return true;
    if (["n", "no", "false"].includes(answer)) return false;
    throw new ConfigError(`${question}: answer y or n (got "${answer}")`);
  };
  const orNull = (value: string) => (value === "" ? null : value);
  // 1–5
  const modelName = await text("Model name", defaults.modelName, preset.modelName);
  const userSimulator = await text("User simulator model", defaults.userSimulator, preset.userSimulator);
  const modelOrganization = await text("Model organization (who developed the model)", "My-Organization", preset.modelOrganization);
  const submittingOrganization = await text("Submitting organization (who ran the evaluation)", modelOrganization, preset.submittingOrganization);
  const email = await text("Contact email", null, preset.email);
  // 6–10 (optional)
  const contactName = orNull(await text("Contact name (optional)", "", preset.contactName));
  const github = orNull(await text("GitHub username (optional)", "", preset.github));
  const isNew = await confirm("Highlight this model as new on the leaderboard?", true, preset.isNew);
  const submissionType = (await choice("Submission type", ["standard", "custom"], "standard", preset.submissionType)) as "standard" | "custom";
  const reasoningEffort = orNull(await text("Reasoning effort (e.g. high, medium, low, none, enabled; optional)", "", preset.reasoningEffort));
  // 11–13: methodology
  const evaluationDateText = await text("Evaluation date (YYYY-MM-DD)", defaults.today, preset.evaluationDate);
  if (evaluationDateText !== "" && !isDate(evaluationDateText)) throw new ConfigError(`evaluation date "${evaluationDateText}": expected YYYY-MM-DD`);
  const benchmarkVersion = orNull(await text("τ²-bench version", defaults.benchmarkVersion, preset.benchmarkVersion));
  const notes = orNull(await text("Additional notes (optional)", "", preset.notes));
  // 14–15: verification
  const modifiedPrompts = await confirm("Were any prompts (agent or user simulator) modified?", false, preset.modifiedPrompts);
  const omittedQuestions = await confirm("Were any tasks omitted from the evaluation?", false, preset.omittedQuestions);
  const verificationDetails = modifiedPrompts || omittedQuestions ? orNull(await text("Describe the modifications or omissions", "", preset.verificationDetails)) : null;
  // 16: references
  const references: SubmissionAnswers["references"] = [];
  if (preset.references !== undefined) {
    for (const entry of preset.references) {
      const [title, url, type = "other"] = entry.split("|");
      if (!title || !url || !REFERENCE_TYPES.includes(type)) throw new ConfigError(`--reference ${entry}: expected "title|url|type" with type one of ${REFERENCE_TYPES.join(", ")}`);
      references.push({ title, url, type });
    }
  } else {
    let more = await confirm("Add a reference link (paper, GitHub, …)?", false);
    while (more) {
      const title = await text("Reference title", null);
      const url = await text("Reference URL", null);
      const type = await choice("Reference type", REFERENCE_TYPES, "other");
      references.push({ title, url, type });
      more = await confirm("Add another reference?", false);
    }
  }
  // 17: model release
  const releaseText = await text("Model public release date (YYYY-MM-DD, not the evaluation date; optional)", "", preset.releaseDate);
  const releaseDate = releaseText !== "" && isDate(releaseText) ? releaseText : null;
  let announcementUrl: string | null = null;
  let announcementTitle: string | null = null;
  if (releaseDate) {
    announcementUrl = orNull(await text("Announcement URL (blog post, paper, model card, …; optional)", "", preset.announcementUrl));
    if (announcementUrl) announcementTitle = orNull(await text("Announcement title (link text; optional)", "", preset.announcementTitle));
  }
  const retrievalConfig = defaults.needsRetrievalConfig
    ? orNull(await text("Retrieval config used for banking_knowledge (e.g. bm25, terminal, text-emb-3-large, qwen3-emb)", null, preset.retrievalConfig))
    : null;
  return {
    modelName,
    userSimulator,
    modelOrganization,
    submittingOrganization,
    email,
    contactName,
    github,
    isNew,
    submissionType,
    reasoningEffort,
    evaluationDate: evaluationDateText === "" ? null : evaluationDateText,
    benchmarkVersion,
    notes,
    modifiedPrompts,
    omittedQuestions,
    verificationDetails,
    references,
    releaseDate,
    announcementUrl,
    announcementTitle,
    retrievalConfig,
  };
}

/** Answers read one a line from a list (stdin piped); questions after the last line take their defaults. */
export function lineAnswers(lines: readonly string[], echo?: (line: string) => void): AnswerSource {
  let next = 0;
  return {
    async ask(question, fallback) {
      const answer = next < lines.length ? lines[next++] : null;
      echo?.(`${question}${fallback ? ` (${fallback})` : ""}: ${answer ?? "(no more input: default)"}`);
      return answer;
    },
  };
}
