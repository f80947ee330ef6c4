"""Offline oracle run of the ORIGINAL τ-bench (v1) code, for taubridge's comparison benchmark.

Does in one process loop what `taubridge run --env <env> --agent-strategy oracle --user-strategy
scripted` does, with the original's own classes and in the order its `run.py` does it: per task,
`get_env(...)` (loads the data), `env.reset(task_index)` (loads it again), one `env.step` per
ground-truth action up to a terminate tool, then a `respond` with the task's outputs, which the
scripted user answers with `###STOP###`, so `env.step` itself runs `calculate_reward` (reload,
ground-truth replay, both hashes, outputs check). The scripted user (a `BaseUserSimulationEnv`
written here) says the instruction at reset and stops at the first reply, like taubridge's.

Environment:
  TAUBRIDGE_TAU_ORIGINAL       the original repository's checkout (put on sys.path)
  TAUBRIDGE_ORIGINAL_STANDINS  folder of import stand-ins (litellm), put on sys.path
Usage:
  python tau_oracle.py [--env retail] [--split test] [--save-to results.json] [--fixtures DIR]
Prints one JSON object on stdout: timings (seconds), per-task rewards and the fixture checks.
"""

import time

T_START = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

original = os.environ.get("TAUBRIDGE_TAU_ORIGINAL")
if not original:
    sys.exit("TAUBRIDGE_TAU_ORIGINAL is not set (the original tau-bench checkout)")
sys.path.insert(0, original)
sys.path.insert(1, os.environ.get("TAUBRIDGE_ORIGINAL_STANDINS") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "stand-ins"))

from tau_bench.envs import get_env  # noqa: E402
from tau_bench.envs.user import BaseUserSimulationEnv  # noqa: E402
from tau_bench.types import RESPOND_ACTION_NAME, Action, EnvRunResult  # noqa: E402

T_IMPORTED = time.perf_counter()

if "--check-imports" in sys.argv:  # the benchmark's probe: are the original and its dependencies importable?
    print(json.dumps({"ok": True, "python": sys.version.split()[0], "imports": T_IMPORTED - T_START}))
    sys.exit(0)


class ScriptedUser(BaseUserSimulationEnv):
    def reset(self, instruction=None):
        return instruction

    def step(self, content):
        return "###STOP###"

    def get_total_cost(self):
        return 0


def oracle_plan(task, terminate_tools):
    """The ground truth up to a terminate tool, then the closing words (as taubridge's oracle)."""
    queue = []
    for action in task.actions:
        if action.name == RESPOND_ACTION_NAME:
            continue
        if action.name in terminate_tools and task.outputs:
            break
        queue.append(action)
    closing = f"Here is what you asked for: {'; '.join(task.outputs)}" if task.outputs else "Your request has been handled. Is there anything else?"
    if not any(action.name in terminate_tools for action in queue):
        queue.append(Action(name=RESPOND_ACTION_NAME, kwargs={"content": closing}))
    return queue


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="retail")
    parser.add_argument("--split", default="test")
    parser.add_argument("--save-to", default=None)
    parser.add_argument("--fixtures", default=None, help="folder of gt_replay_<env>_<split>.json to check observations and hashes against (after the timed loop)")
    args = parser.parse_args()

    t_loop = time.perf_counter()
    cpu_loop = time.process_time()
    # run.py builds one env up front to count the tasks, then one per task.
    count = len(get_env(args.env, user_strategy="human", user_model="none", task_split=args.split, task_index=0).tasks)
    results = []
    trajectories = []
    for index in range(count):
        env = get_env(args.env, user_strategy="human", user_model="none", task_split=args.split, task_index=index)
        env.user = ScriptedUser()
        env.reset(task_index=index)
        steps = []
        response = None
        for action in oracle_plan(env.task, env.terminate_tools):
            response = env.step(action)
            steps.append({"name": action.name, "observation": response.observation})
            if response.done:
                break
        reward_info = response.info.reward_info if response is not None and response.done else None
        results.append(EnvRunResult(task_id=index, reward=response.reward if response is not None else 0.0, info=reward_info.model_dump() if reward_info else {}, traj=steps, trial=0))
        trajectories.append(steps)
    t_loop_end = time.perf_counter()
    cpu_loop_end = time.process_time()

    if args.save_to:
        with open(args.save_to, "w") as fp:
            json.dump([result.model_dump() for result in results], fp, indent=2)
    t_saved = time.perf_counter()

    report = {
        "env": args.env,
        "split": args.split,
        "tasks": count,
        "reward_sum": sum(result.reward for result in results),
        "rewards": {str(result.task_id): result.reward for result in results},
        "seconds": {
            "imports": T_IMPORTED - T_START,
            "loop": t_loop_end - t_loop,
            "save": t_saved - t_loop_end,
            "in_process_total": t_saved - T_START,
            # CPU seconds (user + system), less disturbed than wall clock when the machine is shared
            "loop_cpu": cpu_loop_end - cpu_loop,
            "process_cpu": _process_cpu(),
        },
    }
    if args.fixtures:
        report["fixture_check"] = check_fixtures(args.fixtures, args.env, args.split, results)
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


def check_fixtures(folder, env_name, split, results):
    """Observations of every replayed ground-truth step, and the reward's target hash, against the fixtures."""
    path = os.path.join(folder, f"gt_replay_{env_name}_{split}.json")
    if not os.path.exists(path):
        return {"skipped": f"{path} not found"}
    with open(path) as fp:
        fixture = {entry["task_index"]: entry for entry in json.load(fp)["tasks"]}
    compared = 0
    hashes = 0
    mismatches = []
    for result in results:
        expected = fixture.get(result.task_id)
        if expected is None:
            mismatches.append({"task": result.task_id, "problem": "not in fixtures"})
            continue
        tool_steps = [step for step in result.traj if step["name"] != RESPOND_ACTION_NAME]
        for got, want in zip(tool_steps, expected["steps"]):
            compared += 1
            if got["name"] != want["name"] or got["observation"] != want["observation"]:
                mismatches.append({"task": result.task_id, "action": want["name"], "problem": "observation differs"})
        gt_hash = result.info.get("info", {}).get("gt_data_hash")
        if gt_hash is not None:
            hashes += 1
            if gt_hash != expected["gt_data_hash"]:
                mismatches.append({"task": result.task_id, "problem": "gt_data_hash differs"})
    return {"observations_compared": compared, "gt_hashes_compared": hashes, "mismatches": mismatches}


def _process_cpu() -> float:
    """User + system CPU seconds of this process so far, interpreter start-up included."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
