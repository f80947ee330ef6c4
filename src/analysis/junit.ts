/**
 * CI reporting: JUnit XML (one test case per task, which every CI system renders) and the
 * `--min-pass k=value` threshold gate of `report` and `compare`.
 */
import { ConfigError } from "../errors/error-tree.ts";
import type { PairedComparison, RunStatistics } from "./statistics.ts";

/** XML text with `& < > " '` escaped and characters XML 1.0 forbids dropped. */
export function xmlEscape(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 forbids are control characters
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "").replace(/[&<>"']/g, (character) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[character]};`);
}

/** One suite of test cases: a run, or a comparison. */
export interface JUnitSuite {
  name: string;
  cases: Array<{ name: string; className: string; failure: string | null; properties?: Record<string, string | number> }>;
}

/** A JUnit XML document (`<testsuites>` with one `<testsuite>` per suite). */
export function junitXml(suites: readonly JUnitSuite[]): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const total = suites.reduce((sum, suite) => sum + suite.cases.length, 0);
  const failures = suites.reduce((sum, suite) => sum + suite.cases.filter((test) => test.failure !== null).length, 0);
  lines.push(`<testsuites name="taubridge" tests="${total}" failures="${failures}">`);
  for (const suite of suites) {
    const failed = suite.cases.filter((test) => test.failure !== null).length;
    lines.push(`  <testsuite name="${xmlEscape(suite.name)}" tests="${suite.cases.length}" failures="${failed}" errors="0" skipped="0">`);
    for (const test of suite.cases) {
      const open = `    <testcase name="${xmlEscape(test.name)}" classname="${xmlEscape(test.className)}"`;
      const properties = Object.entries(test.properties ?? {});
      if (test.failure === null && properties.length === 0) {
        lines.push(`${open}/>`);
        continue;
      }
      lines.push(`${open}>`);
      if (properties.length > 0) {
        lines.push("      <properties>");
        for (const [name, value] of properties) lines.push(`        <property name="${xmlEscape(name)}" value="${xmlEscape(String(value))}"/>`);
        lines.push("      </properties>");
      }
      if (test.failure !== null) lines.push(`      <failure message="${xmlEscape(test.failure)}" type="task"/>`);
      lines.push("    </testcase>");
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}

/** A run's tasks as test cases: a task fails when any of its trials failed. */
export function runJUnitSuite(name: string, statistics: RunStatistics): JUnitSuite {
  return {
    name,
    cases: statistics.perTask.map((task) => ({
      name: `task ${task.taskId}`,
      className: task.domain ? `${name}.${task.domain}` : name,
      failure: task.successes === task.trials ? null : `${task.successes} of ${task.trials} trial(s) passed`,
      properties: { trials: task.trials, successes: task.successes },
    })),
  };
}

/** A comparison's tasks as test cases: a task fails when the candidate passes it less often than the baseline. */
export function compareJUnitSuite(name: string, comparison: PairedComparison): JUnitSuite {
  return {
    name,
    cases: comparison.perTask.map((task) => ({
      name: `task ${task.taskId}`,
      className: task.domain ? `${name}.${task.domain}` : name,
      failure: task.difference < 0 ? `pass rate ${task.baseline.toFixed(3)} → ${task.candidate.toFixed(3)}` : null,
      properties: { baseline: task.baseline, candidate: task.candidate },
    })),
  };
}

/** `--min-pass 1=0.8 2=0.6`: k → least pass^k. */
export function parseMinPass(values: readonly string[] | undefined): Map<number, number> {
  const thresholds = new Map<number, number>();
  for (const value of values ?? []) {
    const match = /^\s*(\d+)\s*=\s*([0-9]*\.?[0-9]+)\s*$/.exec(value);
    if (!match || Number(match[1]) < 1 || Number(match[2]) > 1) throw new ConfigError(`--min-pass ${value}: expected k=value with k ≥ 1 and a value in [0, 1] (e.g. --min-pass 1=0.8)`);
    thresholds.set(Number(match[1]), Number(match[2]));
  }
  return thresholds;
}

/** The thresholds a run's pass^k misses, as lines (none: the gate passes). A pass^k the run cannot compute (too few trials) misses. */
export function minPassFailures(label: string, passK: Record<number, number | null>, thresholds: ReadonlyMap<number, number>): string[] {
  const failures: string[] = [];
  for (const [k, least] of thresholds) {
    const value = passK[k] ?? null;
    if (value === null) failures.push(`${label}: pass^${k} is not available (too few trials) but --min-pass asks for ${least}`);
    else if (value < least) failures.push(`${label}: pass^${k} ${value.toFixed(4)} is below --min-pass ${k}=${least}`);
  }
  return failures;
}
