"""Stand-in of ``fastworkflow.command_executor`` with the real control flow of ``invoke_command``:
plan with the CME ``wildcard`` action; return handled and failed plans as they are; otherwise run
the app command's ``ResponseGenerator`` with the validated parameters.
"""

from __future__ import annotations

import fastworkflow
from fastworkflow import Action, CommandOutput, ModuleType


class CommandExecutor:
    @classmethod
    def invoke_command(cls, chat_session: "fastworkflow.WorkflowExecutionContext", command: str) -> CommandOutput:
        if not command:
            return CommandOutput(
                command_responses=[fastworkflow.CommandResponse(response="You just hit the <Enter> key. How about a command?")]
            )

        command_output = cls.perform_action(chat_session.cme_workflow, Action(command_name="wildcard", command=command))

        if command_output.command_handled:
            if "is_assistant_mode_command" in chat_session.cme_workflow._context:
                del chat_session.cme_workflow._context["is_assistant_mode_command"]
            return command_output
        elif not command_output.success:
            return command_output

        command_name = command_output.command_responses[0].artifacts["command_name"]
        input_obj = command_output.command_responses[0].artifacts["cmd_parameters"]

        workflow = chat_session.get_active_workflow()
        workflow_name = workflow.folderpath.split("/")[-1]
        context = workflow.current_command_context_displayname
        routing = fastworkflow.RoutingRegistry.get_definition(workflow.folderpath)
        response_generation_class = routing.get_command_class(command_name, ModuleType.RESPONSE_GENERATION_INFERENCE)
        if not response_generation_class:
            raise ValueError(f"Response generation class not found for command name '{command_name}' ")
        response_generation_object = response_generation_class()
        raw_user_message = workflow.context.get("raw_user_message", command)
        if routing.get_command_class(command_name, ModuleType.COMMAND_PARAMETERS_CLASS):
            command_output = response_generation_object(workflow, raw_user_message, input_obj)
        else:
            command_output = response_generation_object(workflow, raw_user_message)

        command_output.workflow_name = workflow_name
        command_output.context = context
        command_output.command_name = command_name
        command_output.command_parameters = input_obj or None

        if "is_assistant_mode_command" in chat_session.cme_workflow._context:
            del chat_session.cme_workflow._context["is_assistant_mode_command"]
        return command_output

    @classmethod
    def perform_action(cls, workflow: "fastworkflow.Workflow", action: Action) -> CommandOutput:
        workflow_name = workflow.folderpath.split("/")[-1]
        context = workflow.current_command_context_displayname
        routing = fastworkflow.RoutingRegistry.get_definition(workflow.folderpath)
        response_generation_class = routing.get_command_class(action.command_name, ModuleType.RESPONSE_GENERATION_INFERENCE)
        if not response_generation_class:
            raise ValueError(f"Response generation class not found for command name '{action.command_name}'")
        response_generation_object = response_generation_class()
        parameters_class = routing.get_command_class(action.command_name, ModuleType.COMMAND_PARAMETERS_CLASS)
        if not parameters_class:
            command_output = response_generation_object(workflow, action.command)
        else:
            input_obj = parameters_class(**action.parameters) if action.parameters else parameters_class()
            command_output = response_generation_object(workflow, action.command, input_obj)
        command_output.workflow_name = workflow_name
        command_output.context = context
        return command_output
