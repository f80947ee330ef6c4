"""Stand-in of ``fastworkflow.active_workflow``: the active-workflow stack (a contextvar)."""

from __future__ import annotations

import contextvars
from typing import Optional

_stack: contextvars.ContextVar = contextvars.ContextVar("fastworkflow_active_workflows", default=())


def get_active_workflow() -> Optional[object]:
    stack = _stack.get()
    return stack[-1] if stack else None


def push_active_workflow(workflow) -> None:
    _stack.set(_stack.get() + (workflow,))


def pop_active_workflow():
    stack = _stack.get()
    if not stack:
        return None
    _stack.set(stack[:-1])
    return stack[-1]


def clear_workflow_stack() -> None:
    _stack.set(())
