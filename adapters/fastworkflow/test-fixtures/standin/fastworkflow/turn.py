"""Stand-in of ``fastworkflow.turn``: the public result of one logical turn."""

from __future__ import annotations

from enum import Enum
from typing import Optional

from ._standin import Model


class TurnStatus(str, Enum):
    COMPLETED = "completed"
    AWAITING_USER = "awaiting_user"
    FAILED = "failed"
    CANCELLED = "cancelled"
    ABANDONED = "abandoned"


class TurnOutput(Model):
    turn_key: str
    status: TurnStatus
    failure_reason: Optional[str] = None
    answer: str = ""
    command_outputs: list = []

    @property
    def success(self) -> bool:
        return all(output.success for output in self.command_outputs)
