"""Stand-in helpers (not part of FastWorkflow's API): a tiny model base and native-run logging."""

from __future__ import annotations

import copy
import os
import typing
from typing import Any, Dict

NOT_FOUND = "NOT_FOUND"
_MISSING = object()


def fields(cls) -> Dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {name: hint for name, hint in hints.items() if not name.startswith("_") and typing.get_origin(hint) is not typing.ClassVar}


class Model:
    """Keyword construction with class-level defaults (copied), and ``model_dump()`` like pydantic."""

    def __init__(self, **data: Any) -> None:
        for name in fields(type(self)):
            if name in data:
                value = data.pop(name)
            else:
                default = getattr(type(self), name, _MISSING)
                if default is _MISSING:
                    raise ValueError(f"{type(self).__name__}.{name}: field required")
                value = copy.copy(default)
            object.__setattr__(self, name, value)
        if data:
            raise ValueError(f"{type(self).__name__}: unexpected fields {sorted(data)}")

    def model_dump(self) -> Dict[str, Any]:
        return {name: copy.deepcopy(getattr(self, name)) for name in fields(type(self))}

    def __repr__(self) -> str:
        inner = ", ".join(f"{key}={value!r}" for key, value in self.model_dump().items())
        return f"{type(self).__name__}({inner})"


def native_response(command_name: str, parameters: Any = None):
    """What an app command returns when its own code runs; logged so tests can see it ran."""
    from fastworkflow import CommandOutput, CommandResponse

    log = os.environ.get("FASTWORKFLOW_STANDIN_NATIVE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(command_name + "\n")
    dumped = parameters.model_dump() if parameters is not None else {}
    return CommandOutput(command_responses=[CommandResponse(response=f"native {command_name} {dumped}")])
