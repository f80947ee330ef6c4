/**
 * τ-bench (v1)'s original prompts extracted from `upstream-src/` (no prompt fixtures exist for τ¹):
 * each builder's output is compared with an expectation reconstructed independently at test time
 * from the same source file (a plain regex slice of the string literal, braces and fields replaced
 * by hand), and with the structure the project's own prompts already reproduce (few-shot example
 * blocks, the supervisor transcript). No upstream prose is written in this file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatFewShotExamples } from "../src/participants/prompts.ts";
import { RESPOND_ACTION_FIELD_NAME, RESPOND_ACTION_NAME } from "../src/core/types.ts";
import { PythonSourceError } from "../src/data/python-source/modules.ts";
import {
  extractTauBenchPrompts,
  readTauBenchPrompts,
  tauChatReactSystemPrompt,
  tauFewShotSystemPrompt,
  tauSupervisorPrompt,
  tauSupervisorTranscript,
  tauUserSystemPrompt,
} from "../src/suites/tau-bench/engine/original-prompts.ts";
import { transcriptOf } from "../src/suites/tau-bench/participants/user-prompts.ts";
import { parsePythonJson, pyJsonDumps } from "../src/value/index.ts";
import { missingSharedReason, tauBenchDirectory } from "./support/shared-data.ts";

const data = tauBenchDirectory;
if (!data) console.warn(missingSharedReason);

function source(relative: string): string {
  return readFileSync(join(data as string, "upstream-src", "tau_bench", relative), "utf8");
}

/** The bodies of every `<prefix>"""..."""` literal in a file, in order. */
function tripleQuoted(text: string, prefix: string): string[] {
  return [...text.matchAll(new RegExp(`${prefix}"""([\\s\\S]*?)"""`, "gm"))].map((match) => match[1]);
}

/** An f-string body filled by hand: `{{`/`}}` are braces, `{name}` takes `values[name]`. */
function fillByHand(body: string, values: Record<string, string>): string {
  return body.replace(/\{\{|\}\}|\{(\w+)\}/g, (whole, name?: string) => (whole === "{{" ? "{" : whole === "}}" ? "}" : values[name as string]));
}

describe.skipIf(!data)("τ-bench original prompts extracted from upstream-src", () => {
  it("act and react: policy, tools heading, Python json.dumps of the tools, and the instruction block with the respond action filled in", () => {
    const templates = extractTauBenchPrompts(data as string);
    const agentSource = source("agents/chat_react_agent.py");
    const names = { RESPOND_ACTION_NAME, RESPOND_ACTION_FIELD_NAME };
    const [react] = tripleQuoted(agentSource, "^REACT_INSTRUCTION = f");
    const [act] = tripleQuoted(agentSource, "^ACT_INSTRUCTION = f");
    expect(templates.reactInstruction).toBe(fillByHand(react, names));
    expect(templates.actInstruction).toBe(fillByHand(act, names));
    const wiki = readFileSync(join(data as string, "retail", "wiki.md"), "utf8");
    const tools = parsePythonJson(readFileSync(join(data as string, "retail", "tools_info.json"), "utf8"));
    const heading = /wiki \+ "([^"]*)" \+ json\.dumps\(tools_info\) \+ instruction/.exec(agentSource)?.[1] as string;
    const headingText = JSON.parse(`"${heading}"`) as string;
    expect(tauChatReactSystemPrompt(templates, wiki, tools, true)).toBe(wiki + headingText + pyJsonDumps(tools) + fillByHand(react, names));
    expect(tauChatReactSystemPrompt(templates, wiki, tools, false)).toBe(wiki + headingText + pyJsonDumps(tools) + fillByHand(act, names));
  });

  it("few-shot: the policy, a blank line, and the sampled examples as the project already formats them", () => {
    const templates = extractTauBenchPrompts(data as string);
    const displays = ["first display", "second\ndisplay"];
    expect(tauFewShotSystemPrompt(templates, "POLICY", displays)).toBe(`POLICY\n\n${formatFewShotExamples(displays)}`);
  });

  it("user simulators: llm and react system prompts with and without an instruction; verify/reflection use llm's; the first agent line", () => {
    const templates = extractTauBenchPrompts(data as string);
    const userSource = source("envs/user.py");
    const returned = tripleQuoted(userSource, "return f");
    const display = /\(\s*\("([^"]*)" \+ instruction \+ "([^"]*)"\)/.exec(userSource) as RegExpExecArray;
    const [prefix, suffix] = [JSON.parse(`"${display[1]}"`) as string, JSON.parse(`"${display[2]}"`) as string];
    const instruction = "You are Jane. You want to return an item.";
    expect(tauUserSystemPrompt(templates, "llm", instruction)).toBe(fillByHand(returned[0], { instruction_display: prefix + instruction + suffix }));
    expect(tauUserSystemPrompt(templates, "llm", null)).toBe(fillByHand(returned[0], { instruction_display: "" }));
    expect(tauUserSystemPrompt(templates, "react", instruction)).toBe(fillByHand(returned[1], { instruction_display: prefix + instruction + suffix }));
    expect(tauUserSystemPrompt(templates, "verify", instruction)).toBe(tauUserSystemPrompt(templates, "llm", instruction));
    expect(tauUserSystemPrompt(templates, "reflection", null)).toBe(tauUserSystemPrompt(templates, "llm", null));
    expect(templates.userFirstMessage).toBe(/"role": "user", "content": "([^"]*)"/.exec(userSource)?.[1]);
  });

  it("verify and reflect: the supervisor prompts and their transcript (labels as map_role_label gives them)", () => {
    const templates = extractTauBenchPrompts(data as string);
    const [verifyBody, reflectBody] = tripleQuoted(source("envs/user.py"), "prompt = f");
    const messages = [
      { role: "user", content: "Hi" },
      { role: "assistant", content: null },
      { role: "system", content: "s" },
    ];
    const transcript = tauSupervisorTranscript(templates, messages);
    expect(transcript).toBe(transcriptOf(messages));
    expect(tauSupervisorPrompt(templates, "verify", transcript, "R")).toBe(fillByHand(verifyBody, { transcript, response: "R" }));
    expect(tauSupervisorPrompt(templates, "reflect", transcript, "R")).toBe(fillByHand(reflectBody, { transcript, response: "R" }));
  });

  it("is cached per data root; a missing source names the file and suggests the data pull", () => {
    expect(extractTauBenchPrompts(data as string)).toBe(extractTauBenchPrompts(data as string));
    const started = performance.now();
    readTauBenchPrompts(data as string);
    console.log(`τ-bench prompt extraction: ${(performance.now() - started).toFixed(1)} ms uncached`);
    const missing = join(data as string, "no-such-dir");
    expect(() => readTauBenchPrompts(missing)).toThrow(/chat_react_agent\.py is missing.*taubridge data pull tau-bench/);
    try {
      readTauBenchPrompts(missing);
    } catch (error) {
      expect(PythonSourceError.isInstance(error)).toBe(true);
    }
  });
});
