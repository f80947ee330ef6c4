"""Get loan details (taubridge test fixture for the FastWorkflow stand-in)."""

from typing import List

from fastworkflow._standin import NOT_FOUND, Model, native_response


class Signature:
    """Get loan details"""

    class Input(Model):
        loan_id: str = NOT_FOUND


class ResponseGenerator:
    def __call__(self, workflow, command: str, command_parameters: Signature.Input):
        return native_response("get_loan_details", command_parameters)
