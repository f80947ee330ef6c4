"""Exchange delivered order items (taubridge test fixture for the FastWorkflow stand-in)."""

from typing import List

from fastworkflow._standin import NOT_FOUND, Model, native_response


class Signature:
    """Exchange delivered order items"""

    class Input(Model):
        order_id: str = NOT_FOUND
        item_ids: List[str] = []
        new_item_ids: List[str] = []
        payment_method_id: str = NOT_FOUND

    @staticmethod
    def validate_extracted_parameters(workflow, command: str, cmd_parameters) -> tuple:
        # Normalizes like the real retail workflow: order ids get their '#' prefix.
        if not cmd_parameters.order_id.startswith("#"):
            cmd_parameters.order_id = "#" + cmd_parameters.order_id
        return True, ""


class ResponseGenerator:
    def __call__(self, workflow, command: str, command_parameters: Signature.Input):
        return native_response("exchange_delivered_order_items", command_parameters)
