"""Cancel a pending order (taubridge test fixture for the FastWorkflow stand-in)."""

from typing import List

from fastworkflow._standin import NOT_FOUND, Model, native_response


class Signature:
    """Cancel a pending order"""

    class Input(Model):
        order_id: str = NOT_FOUND
        reason: str = NOT_FOUND

    @staticmethod
    def validate_extracted_parameters(workflow, command: str, cmd_parameters) -> tuple:
        # Normalizes like the real retail workflow: order ids get their '#' prefix.
        if not cmd_parameters.order_id.startswith("#"):
            cmd_parameters.order_id = "#" + cmd_parameters.order_id
        return True, ""


class ResponseGenerator:
    def __call__(self, workflow, command: str, command_parameters: Signature.Input):
        return native_response("cancel_pending_order", command_parameters)
