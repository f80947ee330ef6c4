"""Stand-in of the CME ``wildcard`` command: plans only, never runs an app command.

Understands FastWorkflow's agent command format ``command_name <param>value</param> ...`` (a
leading ``/`` marks an assistant-mode message). Outcomes, as in the real responder:
- success: one response with artifacts ``command``, ``command_name``, ``cmd_parameters``;
- handled: ``abort`` / ``what_can_i_do`` ran, ``artifacts["command_handled"] = True``;
- failure: unknown command, or ``PARAMETER EXTRACTION ERROR FOR COMMAND ...`` (``success=False``),
  which leaves the CME in ``PARAMETER_EXTRACTION``: the next message is read as missing values.
"""

from __future__ import annotations

import json
import re
import typing
from typing import Any, Dict, Tuple

import fastworkflow
from fastworkflow import Action, CommandOutput, CommandResponse, ModuleType, NLUPipelineStage
from fastworkflow._standin import NOT_FOUND, fields

CME_COMMANDS = {"abort": "ErrorCorrection/abort", "what_can_i_do": "IntentDetection/what_can_i_do"}
_TAG = re.compile(r"<(\w+)>(.*?)</\1>", re.DOTALL)


def parse(text: str) -> Tuple[str, Dict[str, str]]:
    text = text.strip()
    if text.startswith("/"):
        text = text[1:].strip()
    name = re.split(r"[\s<]", text, maxsplit=1)[0] if text else ""
    return name, {key: value.strip() for key, value in _TAG.findall(text)}


def coerce(value: str, annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if annotation is float:
        return float(value)
    if annotation is int:
        return int(value)
    if annotation is bool:
        return value.lower() in ("true", "1", "yes")
    if origin in (list, typing.List):
        if value.startswith("["):
            return [str(item) for item in json.loads(value)]
        return [item.strip().strip("'\"") for item in value.split(",") if item.strip()]
    return value


def _handled(workflow, cme_name: str, command: str) -> CommandOutput:
    import fastworkflow.command_executor as executor

    output = executor.CommandExecutor.perform_action(workflow, Action(command_name=cme_name, command=command))
    output.command_responses[0].artifacts["command_handled"] = True
    output.command_name = cme_name
    return output


def _extraction_error(name: str, message: str) -> CommandOutput:
    return CommandOutput(
        command_name=name,
        command_responses=[CommandResponse(response=f"PARAMETER EXTRACTION ERROR FOR COMMAND '{name}'\n{message}", success=False)],
    )


class ResponseGenerator:
    def __call__(self, workflow, command: str) -> CommandOutput:
        app_workflow = workflow.context["app_workflow"]
        stage = workflow.context.get("NLU_Pipeline_Stage", NLUPipelineStage.INTENT_DETECTION)
        name, tags = parse(command)
        if name in CME_COMMANDS:
            if name == "abort" or stage == NLUPipelineStage.INTENT_DETECTION:
                workflow.end_command_processing()
            return _handled(workflow, CME_COMMANDS[name], command)
        routing = fastworkflow.RoutingRegistry.get_definition(app_workflow.folderpath)
        if stage == NLUPipelineStage.PARAMETER_EXTRACTION:
            name = workflow.context["command_name"]
            _, earlier = parse(workflow.context.get("command", ""))
            tags = {**earlier, **tags}
        elif name not in routing.command_names():
            return CommandOutput(
                command_responses=[CommandResponse(response=f"Command '{name}' is not available in this workflow", success=False)]
            )
        workflow.context["NLU_Pipeline_Stage"] = NLUPipelineStage.PARAMETER_EXTRACTION
        workflow.context["command_name"] = name
        preserved = f"{name} " + " ".join(f"<{key}>{value}</{key}>" for key, value in tags.items())
        workflow.context["command"] = preserved

        parameters_class = routing.get_command_class(name, ModuleType.COMMAND_PARAMETERS_CLASS)
        cmd_parameters = None
        if parameters_class is not None:
            values: Dict[str, Any] = {}
            problems = []
            for field, annotation in fields(parameters_class).items():
                if field not in tags:
                    default = getattr(parameters_class, field, NOT_FOUND)
                    if default == NOT_FOUND:
                        problems.append(f"missing value for '{field}'")
                    continue
                try:
                    values[field] = coerce(tags[field], annotation)
                except (TypeError, ValueError) as error:
                    problems.append(f"invalid value for '{field}': {error}")
            if problems:
                return _extraction_error(name, "; ".join(problems))
            cmd_parameters = parameters_class(**values)
            signature = routing.get_command_class(name, ModuleType.INPUT_FOR_PARAM_EXTRACTION_CLASS)
            validate = getattr(signature, "validate_extracted_parameters", None)
            if validate is not None:
                ok, message = validate(app_workflow, command, cmd_parameters)
                if not ok:
                    return _extraction_error(name, message)

        workflow.end_command_processing()
        return CommandOutput(
            command_responses=[
                CommandResponse(response="", artifacts={"command": preserved, "command_name": name, "cmd_parameters": cmd_parameters})
            ]
        )
