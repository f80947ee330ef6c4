import { spawnSync } from "node:child_process";

let answer: boolean | undefined;

/**
 * Whether a local `python3` is CPython 3.11, which the cross-checks against Python's own `str`,
 * `math` and `re` need; when it is not, says why once (the tests then skip).
 */
export function python311(): boolean {
  if (answer !== undefined) return answer;
  const probe = spawnSync("python3", ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" });
  answer = probe.status === 0 && probe.stdout.trim() === "3.11";
  if (!answer) console.log(`python cross-check skipped: no python3 3.11 on PATH (${probe.error?.message ?? probe.stdout.trim()})`);
  return answer;
}
