"""Show the store's opening hours (not a benchmark tool: runs natively) (taubridge test fixture for the FastWorkflow stand-in)."""

from typing import List

from fastworkflow._standin import NOT_FOUND, Model, native_response


class Signature:
    """Show the store's opening hours (not a benchmark tool: runs natively)"""


class ResponseGenerator:
    def __call__(self, workflow, command: str):
        return native_response("show_store_hours")
