"""FastWorkflow STAND-IN for taubridge's contract tests (see ../README.md). Not FastWorkflow."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from enum import Enum
from typing import Any, Optional

from ._standin import Model

__version__ = "2.24.1+taubridge-standin"

# Library code that prints on import: the bridge must keep this off its protocol stream.
print(f"fastworkflow stand-in: imported (pid {os.getpid()})")


class NLUPipelineStage(Enum):
    INTENT_DETECTION = 0
    INTENT_AMBIGUITY_CLARIFICATION = 1
    INTENT_MISUNDERSTANDING_CLARIFICATION = 2
    PARAMETER_EXTRACTION = 3


class Action(Model):
    command_name: str
    command: str = ""
    parameters: dict = {}
    workflow_id: Optional[int] = None


class CommandResponse(Model):
    response: str
    success: bool = True
    artifacts: dict = {}
    next_actions: list = []
    recommendations: list = []


class CommandOutput(Model):
    command_responses: list
    workflow_name: str = ""
    context: str = ""
    command_name: str = ""
    command_parameters: str = ""
    started_at: Optional[Any] = None
    duration_ms: Optional[int] = None

    def __init__(self, **data: Any) -> None:
        # The real class is a pydantic model declaring ``command_parameters: str``: constructing it
        # with an input object fails validation, so FastWorkflow assigns the object afterwards.
        if "command_parameters" in data and not isinstance(data["command_parameters"], str):
            raise TypeError("CommandOutput.command_parameters: Input should be a valid string")
        super().__init__(**data)

    @property
    def success(self) -> bool:
        return all(response.success for response in self.command_responses)

    @property
    def command_handled(self) -> bool:
        return any(response.artifacts.get("command_handled", False) is True for response in self.command_responses)

    @property
    def command_aborted(self) -> bool:
        return any(response.artifacts.get("command_name") == "abort" for response in self.command_responses)


class CommandTraceEventDirection(str, Enum):
    AGENT_TO_WORKFLOW = "agent_to_workflow"
    WORKFLOW_TO_AGENT = "workflow_to_agent"


@dataclass
class CommandTraceEvent:
    direction: CommandTraceEventDirection
    raw_command: Optional[str]
    command_name: Optional[str]
    parameters: Any
    response_text: Optional[str]
    success: Optional[bool]
    timestamp_ms: int


class ModuleType(Enum):
    INPUT_FOR_PARAM_EXTRACTION_CLASS = 0
    COMMAND_PARAMETERS_CLASS = 1
    RESPONSE_GENERATION_INFERENCE = 2
    CONTEXT_CLASS = 3


_env_vars: dict = {}
RoutingRegistry = None


def init(env_vars: dict) -> None:
    global _env_vars, RoutingRegistry
    _env_vars = dict(env_vars)
    from .command_routing import RoutingRegistry as registry

    RoutingRegistry = registry


def get_env_var(var_name: str, var_type: type = str, default: Any = None) -> Any:
    value = _env_vars.get(var_name)
    if value is None:
        if default is not None:
            return default
        value = os.getenv(var_name)
    return None if value is None else var_type(value)


def get_fastworkflow_package_path() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def get_internal_workflow_path(workflow_name: str) -> str:
    return os.path.join(get_fastworkflow_package_path(), "_workflows", workflow_name)


from .workflow import Workflow as Workflow  # noqa: E402
from .workflow_execution_context import WorkflowExecutionContext as WorkflowExecutionContext  # noqa: E402
from .turn import TurnOutput as TurnOutput, TurnStatus as TurnStatus  # noqa: E402
