"""Stand-in of ``fastworkflow.workflow_agent`` (>= 2.14): the agent's tool closures and
``_execute_workflow_query``, resolved through this module's globals at call time.
"""

from __future__ import annotations

import json
import time

import fastworkflow
from fastworkflow.utils.react import AskUserSuspend, fastWorkflowReAct


class WorkflowAgentSignature:
    """Carefully review the user request, then execute the next steps using available tools."""


def _append_action_record(chat_session_obj, record: dict) -> None:
    if hasattr(chat_session_obj, "append_action_log"):
        chat_session_obj.append_action_log(record)


def _append_turn_output(chat_session_obj, command_output) -> None:
    if hasattr(chat_session_obj, "append_turn_output"):
        chat_session_obj.append_turn_output(command_output)


def _what_can_i_do(chat_session_obj) -> str:
    workflow = chat_session_obj.get_active_workflow()
    names = fastworkflow.RoutingRegistry.get_definition(workflow.folderpath).command_names()
    return "Commands: " + ", ".join(names)


def build_query_with_next_steps(user_query: str, chat_session_obj, with_agent_inputs_and_trajectory: bool = False, **_kwargs) -> str:
    """The real one asks the planner LLM for a todo list; the stand-in returns the query."""
    return user_query


def _execute_workflow_query(command: str, chat_session_obj) -> str:
    """Executes the command and returns either a response, or a clarification request."""
    if chat_session_obj.command_trace_queue is not None:
        chat_session_obj.command_trace_queue.put(
            fastworkflow.CommandTraceEvent(
                fastworkflow.CommandTraceEventDirection.AGENT_TO_WORKFLOW, command, None, None, None, None, int(time.time() * 1000)
            )
        )
    from fastworkflow.command_executor import CommandExecutor

    command_output = CommandExecutor.invoke_command(chat_session_obj, command)
    _append_turn_output(chat_session_obj, command_output)

    name = command_output.command_name
    params = command_output.command_parameters
    params_dict = params.model_dump() if params else None
    response_parts = [response.response for response in command_output.command_responses if response.response]
    response_text = "\n".join(response_parts) if response_parts else "Command executed successfully but produced no output."

    _append_action_record(chat_session_obj, {"command": command, "command_name": name, "parameters": params_dict, "response": response_text})

    nlu_stage = chat_session_obj.cme_workflow.context.get("NLU_Pipeline_Stage")
    if nlu_stage == fastworkflow.NLUPipelineStage.PARAMETER_EXTRACTION:
        abort_confirmation = _execute_workflow_query("abort", chat_session_obj=chat_session_obj)
        return build_query_with_next_steps(f"{response_text}\n{abort_confirmation}", chat_session_obj, with_agent_inputs_and_trajectory=True)

    workflow = chat_session_obj.get_active_workflow()
    if "is_user_command" in workflow.context:
        del workflow.context["is_user_command"]
    return response_text


def _post_ask_user_response(question: str, answer: str, chat_session_obj) -> str:
    return f"User answered '{answer}' to '{question}'"


def initialize_workflow_tool_agent(chat_session, max_iters: int = 25, execution_insights=None, on_step_complete=None):
    chat_session_obj = chat_session

    def what_can_i_do() -> str:
        """Returns a list of available commands."""
        return _what_can_i_do(chat_session_obj=chat_session_obj)

    def execute_workflow_query(command: str) -> str:
        """Executes the command and returns either a response, or a clarification request."""
        is_user_command = chat_session_obj.workflow_tool_agent.iteration_counter <= 0
        workflow = chat_session_obj.get_active_workflow()
        if workflow:
            workflow.context["is_user_command"] = is_user_command
        max_retries = 2
        for attempt in range(max_retries):
            try:
                return _execute_workflow_query(command, chat_session_obj=chat_session_obj)
            except Exception as error:
                if attempt == max_retries - 1:
                    return f"Terminate immediately! Exception processing {command}: {error}"

    def ask_user(clarification_request: str) -> str:
        """Request clarification from the human user."""
        chat_session_obj.workflow_tool_agent.iteration_counter = -1
        raise AskUserSuspend(clarification_request)

    return fastWorkflowReAct(WorkflowAgentSignature, tools=[what_can_i_do, execute_workflow_query, ask_user], max_iters=max_iters)


__all__ = ["_execute_workflow_query", "initialize_workflow_tool_agent", "build_query_with_next_steps", "json"]
