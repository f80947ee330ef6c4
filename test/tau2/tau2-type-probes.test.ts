/**
 * Wrong-typed tool arguments in every τ² domain (`type_probes_<domain>.json`, made by running the
 * original code): every tool of the tasks' golden actions with one argument replaced by a value of
 * another JSON type (also inside the discoverable tools' JSON `arguments`), replayed from its task's
 * state after the golden actions before it. τ² validates no argument, so Python's own behaviour
 * decides the observation and the database: each call's content, error flag and both hashes must
 * be the original's (KB_search timings masked, as in the banking tool probes).
 */
import { expect, it } from "vitest";
import { loadTau2Domain } from "../../src/suites/tau2/engine/domain.ts";
import type { PyDict, PyValue } from "../../src/value/index.ts";
import { describeWithTau2Data } from "../support/shared-data.ts";
import { FIXTURE_DOMAINS, fixtureTasks } from "./domains.ts";
import { checkToolProbes, expectNoProblems, readFixture } from "./fixture-checks.ts";

/** How many probes each file holds (888 in all): a shorter file must not pass quietly. */
const PROBE_COUNTS: Record<string, number> = { mock: 36, telecom: 104, airline: 214, retail: 294, banking_knowledge: 240 };

const maskTiming = (content: string): string => content.replace(/\[Timing: [^\]]*\]/g, "[Timing]");

describeWithTau2Data("τ² type probes: wrong-typed arguments as the original answers them", (data) => {
  for (const [name, definition, tasksFile, config] of FIXTURE_DOMAINS) {
    it(`${name}: every probe's content, error flag and hashes`, () => {
      const fixture = readFixture(data, `type_probes_${name}.json`);
      const probes = fixture.get("probes") as PyDict[];
      expect(probes).toHaveLength(PROBE_COUNTS[name]);
      for (const probe of probes) {
        // The variant the fixture was made with is the one FIXTURE_DOMAINS loads.
        const variant = probe.get("retrieval_variant") as PyValue | undefined;
        if (variant !== undefined) expect(variant).toBe(config?.retrievalConfig);
      }
      const domain = loadTau2Domain(definition, data, config);
      const problems = checkToolProbes(domain, fixtureTasks(data, definition, tasksFile), fixture, maskTiming);
      const failing = new Set(problems.map((problem) => problem.split(/ call \d|: /)[0]));
      if (failing.size > 0) problems.unshift(`${failing.size}/${probes.length} probes differ`);
      expectNoProblems(problems);
    });
  }
});
