"""Transfer to a human agent (taubridge test fixture for the FastWorkflow stand-in)."""

from typing import List

from fastworkflow._standin import NOT_FOUND, Model, native_response


class Signature:
    """Transfer to a human agent"""

    class Input(Model):
        summary: str = NOT_FOUND


class ResponseGenerator:
    def __call__(self, workflow, command: str, command_parameters: Signature.Input):
        return native_response("transfer_to_human_agents", command_parameters)
