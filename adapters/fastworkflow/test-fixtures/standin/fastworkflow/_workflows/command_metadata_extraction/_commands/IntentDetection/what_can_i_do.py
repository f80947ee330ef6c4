"""Stand-in CME ``what_can_i_do``: lists the app workflow's commands."""

import fastworkflow
from fastworkflow import CommandOutput, CommandResponse


class ResponseGenerator:
    def __call__(self, workflow, command: str) -> CommandOutput:
        app = workflow.context["app_workflow"]
        names = fastworkflow.RoutingRegistry.get_definition(app.folderpath).command_names()
        return CommandOutput(command_responses=[CommandResponse(response="Commands: " + ", ".join(names))])
