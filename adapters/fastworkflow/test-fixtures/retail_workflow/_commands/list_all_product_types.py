"""List all product types (taubridge test fixture for the FastWorkflow stand-in)."""

from typing import List

from fastworkflow._standin import NOT_FOUND, Model, native_response


class Signature:
    """List all product types"""


class ResponseGenerator:
    def __call__(self, workflow, command: str):
        return native_response("list_all_product_types")
