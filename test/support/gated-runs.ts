/**
 * Runs of the golden scenarios held at a scripted model server's gate, for the tests that stop,
 * kill or cancel a run while episodes are in flight (`--workers`, `--queue`): the scenario by name
 * or with extra flags, a gated responder, the scenario's run on a gated server, the rendered
 * output's parts, and waiting for a condition (never for a time).
 */
import { type Responder, type ScriptedRequest, startScriptedModelServer } from "../../src/testing/index.ts";
import { SCENARIOS, scenarioContext, type Scenario, type ScenarioContext } from "../golden/scenarios.ts";
import { sharedDirectory } from "./shared-data.ts";

/** A golden scenario by name. */
export function scenarioNamed(name: string): Scenario {
  const scenario = SCENARIOS.find((candidate) => candidate.name === name);
  if (!scenario) throw new Error(`no golden scenario ${name}`);
  return scenario;
}

/** The same scenario with flags (and environment, when given) added to every invocation. */
export function withArgs(scenario: Scenario, extra: readonly string[], env?: Record<string, string>): Scenario {
  return {
    ...scenario,
    invocations: (context) => scenario.invocations(context).map((invocation) => ({ ...invocation, args: [...invocation.args, ...extra], ...(env ? { env: { ...invocation.env, ...env } } : {}) })),
  };
}

/** A rendered run without its invocation headings (the flags differ by design). */
export function withoutHeadings(rendered: string): string {
  return rendered.replace(/^## \d+: taubridge .*\n/gm, "");
}

/** What a run wrote (masked), from a rendered scenario. */
export function filesOf(rendered: string): string {
  return rendered.slice(rendered.indexOf("## files\n") + "## files\n".length);
}

/** Waits until `condition` holds (checked every `everyMs`); gives up, naming `what`, only after ten minutes. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, everyMs = 50): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A responder whose requests wait at a gate while `closed(request)` says so, until `open()` (`close()` shuts it again). */
export function gated(responder: Responder, closed: (request: ScriptedRequest) => boolean) {
  let open!: () => void;
  let opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let isOpen = false;
  const held: ScriptedRequest[] = [];
  return {
    held,
    open: () => {
      isOpen = true;
      open();
    },
    close: () => {
      isOpen = false;
      opened = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    responder: (async (request) => {
      if (!isOpen && closed(request)) {
        held.push(request);
        await opened;
      }
      return responder(request);
    }) satisfies Responder,
  };
}

/** A scenario's first invocation on a scripted model server behind a gate: its context and flags, the gate, and the server to close. */
export async function gatedScenario(scenario: Scenario, closed: (request: ScriptedRequest) => boolean) {
  const answer: { responder: Responder } = { responder: () => undefined };
  const gate = gated((request) => answer.responder(request), closed);
  const server = await startScriptedModelServer({ responder: gate.responder });
  const context: ScenarioContext = scenarioContext(sharedDirectory, server.baseURL);
  answer.responder = (scenario.responder as (context: ScenarioContext) => Responder)(context);
  const args = scenario.invocations(context)[0].args;
  return { scenario, context, gate, server, args };
}

/** The scenario run's gate opened and its server closed, whatever the test did (its `finally`). */
export async function releaseGatedRun(run: { gate: { open(): void }; server: { close(): Promise<void> } }): Promise<void> {
  run.gate.open();
  await run.server.close();
}
