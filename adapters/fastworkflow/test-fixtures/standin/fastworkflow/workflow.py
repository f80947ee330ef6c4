"""Stand-in of ``fastworkflow.workflow.Workflow`` (folder path, context dict, NLU-stage reset)."""

from __future__ import annotations

import os
from typing import Optional


class Workflow:
    def __init__(self, folderpath: str, workflow_id_str: str, context: dict) -> None:
        self._folderpath = folderpath
        self.id = workflow_id_str
        self._context = context
        self.current_command_context = None
        self.command_context_for_response_generation = None

    @classmethod
    def create(
        cls,
        workflow_folderpath: str,
        workflow_id_str: Optional[str] = None,
        parent_workflow_id: Optional[int] = None,
        workflow_context: dict = None,
        project_folderpath: Optional[str] = None,
    ) -> "Workflow":
        if workflow_id_str is not None and parent_workflow_id is not None:
            raise ValueError("workflow_id_str and parent_workflow_id cannot both be provided")
        if not os.path.exists(workflow_folderpath):
            raise ValueError(f"The folder path {workflow_folderpath} does not exist")
        return cls(workflow_folderpath, workflow_id_str or "workflow", dict(workflow_context or {}))

    @property
    def folderpath(self) -> str:
        return self._folderpath

    @property
    def context(self) -> dict:
        return self._context

    @context.setter
    def context(self, value: dict) -> None:
        self._context = value

    @property
    def current_command_context_displayname(self) -> str:
        return "*"

    def end_command_processing(self) -> None:
        import fastworkflow

        self._context["NLU_Pipeline_Stage"] = fastworkflow.NLUPipelineStage.INTENT_DETECTION
        self._context.pop("command", None)
        self._context.pop("command_name", None)

    def flush(self) -> None:
        return None

    def close(self) -> bool:
        return True
