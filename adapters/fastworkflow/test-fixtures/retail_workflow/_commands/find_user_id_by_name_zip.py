"""Find a user id by name and zip (taubridge test fixture for the FastWorkflow stand-in)."""

from typing import List

from fastworkflow._standin import NOT_FOUND, Model, native_response


class Signature:
    """Find a user id by name and zip"""

    class Input(Model):
        first_name: str = NOT_FOUND
        last_name: str = NOT_FOUND
        zip: str = NOT_FOUND


class ResponseGenerator:
    def __call__(self, workflow, command: str, command_parameters: Signature.Input):
        return native_response("find_user_id_by_name_zip", command_parameters)
