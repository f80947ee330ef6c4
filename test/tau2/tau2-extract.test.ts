/**
 * The τ² extraction layer: tool schemas and prompt templates read from the τ² sources in the data
 * directory (`upstream-src/`), compared with what the original code produced (`tools_<domain>.json`
 * and `prompts_<domain>.json`), as JSON text with key order, and as exact strings. The fixtures are
 * read at run time; nothing of the upstream prose is in this file.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PythonSourceError } from "../../src/data/python-source/modules.ts";
import {
  clearTau2ExtractionCache,
  extractTau2Prompts,
  extractTau2Tools,
  readTau2UserGuidelines,
  renderTau2UserScenario,
  tau2ActionFuncFormat,
  tau2AgentSystemPrompt,
  tau2GtSystemPrompt,
  tau2SoloSystemPrompt,
  tau2UserSystemPrompt,
} from "../../src/suites/tau2/engine/extract/index.ts";
import { readTau2Tasks, type Tau2Task } from "../../src/suites/tau2/tasks.ts";
import { missingTau2Reason, tau2BenchDirectory } from "../support/shared-data.ts";

const data = tau2BenchDirectory;
if (!data) console.warn(missingTau2Reason);
const DOMAINS = ["mock", "airline", "retail", "telecom"] as const;

/** Fixture JSON, read as the original wrote it. */
type Json = any;
function fixture(name: string): Json {
  return JSON.parse(readFileSync(join(data as string, "fixtures", name), "utf8"));
}

const taskCache = new Map<string, Map<string, Tau2Task>>();
function tasksOf(domain: string): Map<string, Tau2Task> {
  let tasks = taskCache.get(domain);
  if (!tasks) {
    tasks = new Map(readTau2Tasks(join(data as string, domain, "tasks.json")).map((task) => [task.id, task]));
    taskCache.set(domain, tasks);
  }
  return tasks;
}

describe.skipIf(!data)("τ² tool schemas extracted from upstream-src", () => {
  for (const domain of DOMAINS) {
    it(`${domain}: agent and user tools equal tools_${domain}.json (schemas with key order, tool info, tools description)`, () => {
      const expected = fixture(`tools_${domain}.json`);
      const extracted = extractTau2Tools(data as string, domain);
      expect(JSON.stringify(extracted.agent.schemas)).toBe(JSON.stringify(expected.agent));
      expect(extracted.agent.info).toEqual(expected.agent_tool_info);
      expect(extracted.agent.toolsDescription).toBe(expected.tools_description.assistant);
      if (expected.user === null) {
        expect(extracted.user).toBeNull();
      } else {
        expect(JSON.stringify(extracted.user?.schemas)).toBe(JSON.stringify(expected.user));
        expect(extracted.user?.info).toEqual(expected.user_tool_info);
        expect(extracted.user?.toolsDescription).toBe(expected.tools_description.user);
      }
    });
  }

  it("telecom-workflow has telecom's tools; the extraction is cached per data root and domain", () => {
    const workflow = extractTau2Tools(data as string, "telecom-workflow");
    expect(JSON.stringify(workflow.agent.schemas)).toBe(JSON.stringify(extractTau2Tools(data as string, "telecom").agent.schemas));
    expect(extractTau2Tools(data as string, "telecom-workflow")).toBe(workflow);
  });

  it("first agent message and the prompts' request tools agree with the fixtures", () => {
    const templates = extractTau2Prompts(data as string);
    for (const domain of DOMAINS) {
      const prompts = fixture(`prompts_${domain}.json`);
      expect(templates.firstAgentMessage).toBe(prompts.orchestrator_first_agent_message.content);
      expect(templates.agentInstruction).toBe(prompts.agent_instruction);
      const agentNames = extractTau2Tools(data as string, domain).agent.schemas.map((schema) => schema.function.name);
      for (const entry of Object.values<Json>(prompts.llm_agent)) expect(entry.first_request.tools).toEqual(agentNames);
    }
  });
});

describe.skipIf(!data)("τ² prompts built from the extracted templates", () => {
  it("every system prompt of prompts_<domain>.json (llm_agent, llm_agent_gt, llm_agent_solo, user simulator with and without tools)", () => {
    const templates = extractTau2Prompts(data as string);
    const counts = { llm_agent: 0, llm_agent_gt: 0, llm_agent_solo: 0, user_simulator: 0, scenario: 0 };
    for (const domain of DOMAINS) {
      const prompts = fixture(`prompts_${domain}.json`);
      const tasks = tasksOf(domain);
      const agentEntries = Object.values<Json>(prompts.llm_agent);
      for (const entry of agentEntries) {
        expect(tau2AgentSystemPrompt(templates, entry.policy)).toBe(entry.system_prompt);
        expect(entry.first_request.messages[0].content).toBe(entry.system_prompt);
        counts.llm_agent++;
      }
      for (const entry of prompts.llm_agent_gt.tasks) {
        const task = tasks.get(entry.task_id) as Tau2Task;
        expect(tau2GtSystemPrompt(templates, agentEntries[0].policy, task.evaluation_criteria?.actions ?? [])).toBe(entry.system_prompt);
        counts.llm_agent_gt++;
      }
      for (const entry of prompts.llm_agent_solo.tasks ?? []) {
        const task = tasks.get(entry.task_id) as Tau2Task;
        expect(tau2SoloSystemPrompt(templates, prompts.llm_agent_solo.solo_policy, task.ticket as string)).toBe(entry.system_prompt);
        expect(JSON.stringify(templates.soloDoneTool)).toBe(JSON.stringify(entry.done_tool_schema));
        expect(entry.tool_names.at(-1)).toBe(templates.soloStopFunctionName);
        counts.llm_agent_solo++;
      }
      for (const entry of prompts.user_simulator.tasks) {
        const task = tasks.get(entry.task_id) as Tau2Task;
        const scenario = renderTau2UserScenario(task.user_scenario);
        expect(scenario).toBe(entry.instructions);
        counts.scenario++;
        const guidelines = readTau2UserGuidelines(data as string, templates, entry.has_tools);
        expect(tau2UserSystemPrompt(templates, guidelines, scenario)).toBe(entry.system_prompt);
        expect(entry.first_request.messages[1].content).toBe(templates.firstAgentMessage);
        counts.user_simulator++;
      }
      expect(prompts.stop_tokens).toEqual({
        user_stop: templates.userStopTokens.stop,
        user_transfer: templates.userStopTokens.transfer,
        user_out_of_scope: templates.userStopTokens.outOfScope,
        solo_agent_stop_token: templates.soloStopToken,
        solo_agent_stop_function: templates.soloStopFunctionName,
        solo_transfer_tool: templates.soloTransferToolName,
      });
    }
    expect(counts).toEqual({ llm_agent: 5, llm_agent_gt: 8, llm_agent_solo: 4, user_simulator: 12, scenario: 12 });
  });

  it("resolution steps render each gold action as name(k=v) with Python str() values", () => {
    expect(tau2ActionFuncFormat({ name: "f", arguments: new Map<string, never>() })).toBe("f()");
    expect(tau2ActionFuncFormat({ name: "f", arguments: { ids: ["1", "2"], n: 3, flag: true, none: null } })).toBe("f(ids=['1', '2'], n=3, flag=True, none=None)");
  });
});

describe.skipIf(!data)("τ² extraction errors", () => {
  const scratch = mkdtempSync(join(tmpdir(), "tau2-extract-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("a missing source file names the file and suggests the data pull", () => {
    clearTau2ExtractionCache();
    expect(() => extractTau2Tools(scratch, "mock")).toThrow(/tools\.py is missing.*taubridge data pull tau2-bench/);
    expect(() => extractTau2Prompts(scratch)).toThrow(/llm_agent\.py is missing.*taubridge data pull tau2-bench/);
    try {
      extractTau2Tools(scratch, "mock");
    } catch (error) {
      expect(PythonSourceError.isInstance(error)).toBe(true);
    }
  });

  it("an unknown domain lists the domains that have sources", () => {
    expect(() => extractTau2Tools(data as string, "banking")).toThrow(/domain 'banking'.*airline, banking_knowledge, mock, retail, telecom/);
  });

  it("an unexpected construct names the file, line and the symbol", () => {
    const copy = join(scratch, "copy");
    cpSync(join(data as string, "upstream-src"), join(copy, "upstream-src"), { recursive: true });
    const toolsFile = join(copy, "upstream-src", "src", "tau2", "domains", "mock", "tools.py");
    writeFileSync(toolsFile, readFileSync(toolsFile, "utf8").replace("title: str,", "title: frozenset[str] | Callable,"));
    expect(() => extractTau2Tools(copy, "mock")).toThrow(/mock\/tools\.py:\d+:\d+: cannot resolve the type 'Callable' \(in the signature of tool 'create_task'\).*taubridge data pull tau2-bench/);
    const agentFile = join(copy, "upstream-src", "src", "tau2", "agent", "llm_agent.py");
    writeFileSync(agentFile, readFileSync(agentFile, "utf8").replace(/^AGENT_GT_INSTRUCTION = /m, "AGENT_GT_INSTRUCTIONS = "));
    expect(() => extractTau2Prompts(copy)).toThrow(/llm_agent\.py: AGENT_GT_INSTRUCTION: no module-level assignment.*taubridge data pull tau2-bench/);
  });

  it("a cold extraction of all four domains and the prompts is fast (printed)", () => {
    clearTau2ExtractionCache();
    const started = performance.now();
    for (const domain of DOMAINS) extractTau2Tools(data as string, domain);
    extractTau2Prompts(data as string);
    const cold = performance.now() - started;
    const again = performance.now();
    for (const domain of DOMAINS) extractTau2Tools(data as string, domain);
    extractTau2Prompts(data as string);
    const cached = performance.now() - again;
    console.log(`τ² extraction: cold ${cold.toFixed(1)} ms (4 domains + prompts), cached ${cached.toFixed(3)} ms`);
    expect(cold).toBeLessThan(5000);
  });
});
