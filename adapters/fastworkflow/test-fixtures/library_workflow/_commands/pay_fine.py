"""Pay a fine (taubridge test fixture for the FastWorkflow stand-in)."""

from typing import List

from fastworkflow._standin import NOT_FOUND, Model, native_response


class Signature:
    """Pay a fine"""

    class Input(Model):
        member_id: str = NOT_FOUND
        amount: float = NOT_FOUND
        payment_method_id: str = NOT_FOUND


class ResponseGenerator:
    def __call__(self, workflow, command: str, command_parameters: Signature.Input):
        return native_response("pay_fine", command_parameters)
