"""Stand-in CME ``abort``: leaves any pending command and returns to intent detection."""

from fastworkflow import CommandOutput, CommandResponse


class ResponseGenerator:
    def __call__(self, workflow, command: str) -> CommandOutput:
        workflow.end_command_processing()
        return CommandOutput(command_responses=[CommandResponse(response="command aborted", artifacts={"command_name": "abort"})])
