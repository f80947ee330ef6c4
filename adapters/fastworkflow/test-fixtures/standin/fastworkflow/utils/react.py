"""Stand-in of ``fastworkflow.utils.react``: ``AskUserSuspend`` and a scripted "ReAct" agent.

The real ``fastWorkflowReAct`` is a DSPy ReAct loop driven by an LLM. This one follows a JSON script
(``FASTWORKFLOW_STANDIN_SCRIPT``), one entry per agent turn, and calls the same tool closures the
real agent gets, so everything below the agent (tool closure → ``_execute_workflow_query`` →
``CommandExecutor.invoke_command`` → wildcard) runs the real control flow.
"""

from __future__ import annotations

import json
import os
import sys
import time
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Optional


class AskUserSuspend(BaseException):
    """Raised by ``ask_user`` when no user-message queue exists (Topology B): the turn suspends."""

    def __init__(self, clarification: str) -> None:
        super().__init__(clarification)
        self.clarification = clarification


def _load_script() -> Dict[str, Any]:
    path = os.environ.get("FASTWORKFLOW_STANDIN_SCRIPT")
    if not path:
        return {"turns": []}
    with open(path, "r", encoding="utf-8") as handle:
        return json.load(handle)


class fastWorkflowReAct:  # noqa: N801 - the real class name
    def __init__(self, signature, tools: List[Callable], max_iters: int = 25, on_step_complete=None) -> None:
        self.signature = signature
        self.tools = {tool.__name__: tool for tool in tools}
        self.max_iters = max_iters
        self.iteration_counter = 0
        self.inputs: Dict[str, Any] = {}
        self.current_trajectory: Dict[str, Any] = {}
        self._script = _load_script()
        self._turn = 0
        self._pending: Optional[Dict[str, Any]] = None

    def clear_suspension(self) -> None:
        self._pending = None

    def __call__(self, user_query: str, available_commands: str = "") -> SimpleNamespace:
        self.inputs = {"user_query": user_query}
        self.iteration_counter = 0
        turns = self._script.get("turns", [])
        entry = turns[self._turn] if self._turn < len(turns) else {"reply": self._script.get("default_reply", "How else can I help?")}
        self._turn += 1
        expected = entry.get("expect")
        if expected and expected not in user_query:
            return SimpleNamespace(final_answer=f"(script expected {expected!r})", suspended=False)
        return self._run(entry, [])

    def resume(self, observation: str) -> SimpleNamespace:
        entry, outputs = self._pending or ({}, [])
        self._pending = None
        after = entry.get("after_answer", {})
        return self._run(after, outputs + [observation])

    def _run(self, entry: Dict[str, Any], outputs: List[str]) -> SimpleNamespace:
        if entry.get("print"):
            print(entry["print"])  # library chatter on stdout
            os.write(1, (entry["print"] + "\n").encode())
        for command in entry.get("commands", []):
            outputs.append(self.tools["execute_workflow_query"](command=command))
            self.iteration_counter += 1
            self.current_trajectory[f"observation_{len(outputs) - 1}"] = outputs[-1]
        if entry.get("sleep"):
            time.sleep(float(entry["sleep"]))
        if entry.get("crash"):
            sys.stderr.write("fastworkflow stand-in: crashing on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        if entry.get("raise"):
            raise RuntimeError(entry["raise"])
        if entry.get("ask_user"):
            try:
                self.tools["ask_user"](clarification_request=entry["ask_user"])
            except AskUserSuspend as suspend:
                self._pending = (entry, outputs)
                return SimpleNamespace(suspended=True, clarification=suspend.clarification, final_answer="")
        reply = str(entry.get("reply", "Done."))
        if outputs:
            reply = reply.replace("{last}", str(outputs[-1]))
        for index, output in enumerate(outputs):
            reply = reply.replace("{" + str(index) + "}", str(output))
        return SimpleNamespace(final_answer=reply, suspended=False, exhausted=False)
