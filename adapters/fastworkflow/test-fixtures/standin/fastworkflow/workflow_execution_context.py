"""Stand-in of ``fastworkflow.workflow_execution_context.WorkflowExecutionContext`` (Topology B:
synchronous, no queues): ``process_turn`` runs the agent (or, for ``/`` messages and
``run_as_agent=False``, ``CommandExecutor.invoke_command`` directly).
"""

from __future__ import annotations

import uuid
from typing import Any, List, Optional

import fastworkflow
from fastworkflow import active_workflow


class CommandCancelledError(BaseException):
    pass


class WorkflowExecutionContext:
    def __init__(self, run_as_agent: bool = False, session_key: Optional[str] = None, mirror_action_log_to_file: bool = False, generate_insights: bool = False) -> None:
        self._session_key = session_key
        self._run_as_agent = run_as_agent
        self._app_workflow = None
        self._action_log: List[dict] = []
        self._turn_outputs: List[Any] = []
        self._workflow_tool_agent = None
        self._awaiting_user = False
        self._pending_clarification_request: Optional[str] = None
        self._turn_agent_result: Any = None

        from fastworkflow.command_executor import CommandExecutor

        self._CommandExecutor = CommandExecutor
        self._cme_workflow = fastworkflow.Workflow.create(
            fastworkflow.get_internal_workflow_path("command_metadata_extraction"),
            workflow_id_str=f"cme_{session_key or uuid.uuid4().hex}",
            workflow_context={"NLU_Pipeline_Stage": fastworkflow.NLUPipelineStage.INTENT_DETECTION},
        )

    # state -------------------------------------------------------------------------------
    @property
    def cme_workflow(self):
        return self._cme_workflow

    @property
    def command_trace_queue(self):
        return None

    @property
    def user_message_queue(self):
        return None

    @property
    def workflow_tool_agent(self):
        return self._workflow_tool_agent

    @property
    def action_log(self) -> List[dict]:
        return list(self._action_log)

    def append_action_log(self, record: dict) -> None:
        self._action_log.append(record)

    def append_turn_output(self, command_output) -> None:
        self._turn_outputs.append(command_output)

    def bind_app_workflow(self, workflow) -> None:
        self._app_workflow = workflow
        self._cme_workflow.context["app_workflow"] = workflow

    def close(self) -> bool:
        return self._cme_workflow.close()

    def get_active_workflow(self):
        return active_workflow.get_active_workflow()

    # public API --------------------------------------------------------------------------
    def process_message(self, message: str):
        return self._execute_message(message)

    def process_turn(self, message: str) -> "fastworkflow.TurnOutput":
        command_output = self._execute_message(message)
        answer = command_output.command_responses[0].response if command_output.command_responses else ""
        if self._awaiting_user:
            status = fastworkflow.TurnStatus.AWAITING_USER
        else:
            status = fastworkflow.TurnStatus.COMPLETED
            if self._turn_agent_result is None and self._turn_outputs:
                answer = self._turn_outputs[-1].command_responses[0].response
        return fastworkflow.TurnOutput(turn_key=uuid.uuid4().hex[:12], status=status, answer=answer, command_outputs=list(self._turn_outputs))

    # dispatch ----------------------------------------------------------------------------
    def _execute_message(self, message: str):
        if self._app_workflow is None:
            raise RuntimeError("No app workflow bound; call bind_app_workflow() before process_message()")
        if not self._awaiting_user:
            self._turn_outputs = []
            self._turn_agent_result = None
        active_workflow.push_active_workflow(self._app_workflow)
        try:
            stage = self._cme_workflow.context.get("NLU_Pipeline_Stage")
            if stage == fastworkflow.NLUPipelineStage.INTENT_DETECTION and message.startswith("/"):
                self._cme_workflow.context["is_assistant_mode_command"] = True
            if self._run_as_agent and "is_assistant_mode_command" not in self._cme_workflow.context:
                return self._resume_agent_message(message) if self._awaiting_user else self._process_agent_message(message)
            return self._process_message(message)
        finally:
            active_workflow.pop_active_workflow()
            self._app_workflow.flush()

    def _ensure_agent_initialized(self) -> None:
        if self._workflow_tool_agent is None:
            from fastworkflow.workflow_agent import initialize_workflow_tool_agent

            self._workflow_tool_agent = initialize_workflow_tool_agent(self)

    def _finish(self, result):
        self._turn_agent_result = result
        if getattr(result, "suspended", False):
            self._awaiting_user = True
            self._pending_clarification_request = result.clarification
            response = fastworkflow.CommandResponse(response=result.clarification, artifacts={"awaiting_user": True})
            return fastworkflow.CommandOutput(command_responses=[response])
        self._awaiting_user = False
        self._pending_clarification_request = None
        return fastworkflow.CommandOutput(command_responses=[fastworkflow.CommandResponse(response=result.final_answer)])

    def _process_agent_message(self, message: str):
        self._ensure_agent_initialized()
        self._app_workflow.context["raw_user_message"] = message
        from fastworkflow.workflow_agent import _what_can_i_do

        return self._finish(self._workflow_tool_agent(user_query=message, available_commands=_what_can_i_do(self)))

    def _resume_agent_message(self, user_answer: str):
        self._ensure_agent_initialized()
        from fastworkflow.workflow_agent import _post_ask_user_response

        self._workflow_tool_agent.iteration_counter = -1
        observation = _post_ask_user_response(self._pending_clarification_request, user_answer, self)
        return self._finish(self._workflow_tool_agent.resume(observation))

    def _process_message(self, message: str):
        command_output = self._CommandExecutor.invoke_command(self, message)
        self.append_turn_output(command_output)
        return command_output
