"""The bridge's process-wide state and the one call every patch makes: ``execute_tool``.

One Python child serves one episode, so a module-level state is enough (no registry keyed by
session, unlike an in-process bridge).
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import json
import math
import sys
import threading
from typing import Any, Dict, List, Optional


class BridgeFailure(BaseException):
    """The bridge could not get an answer from the harness (channel closed, parent error).

    A ``BaseException`` on purpose: frameworks wrap tool calls in ``except Exception`` retry loops
    (FastWorkflow's ``execute_workflow_query`` tries twice). Retrying a call whose fate is unknown
    could step the environment twice, so this error must travel out of the framework untouched and
    end the turn; the harness then records an infrastructure error.
    """


@dataclasses.dataclass(frozen=True)
class ToolOutcome:
    """What the harness decided: ``passthrough`` (run the framework's own code) or ``output``."""

    passthrough: bool
    output: str = ""


PASSTHROUGH = ToolOutcome(passthrough=True)

_lock = threading.Lock()
_peer = None  # rpc.Peer
_enabled = False
_counter = itertools.count(1)
_patched: List[str] = []
_stats = {"toolCalls": 0, "passthrough": 0}


def attach(peer) -> None:
    """Connects the runtime to the parent; patches bridge only while a peer is attached."""
    global _peer, _enabled
    _peer = peer
    _enabled = peer is not None


def active() -> bool:
    """True when patched functions should bridge (otherwise they call the original)."""
    return _enabled and _peer is not None and not _peer.closed


def peer():
    return _peer


def record_patch(target: str) -> None:
    """Notes an installed patch (reported in ``bridge.ready``/``session.start``) and tells the parent."""
    with _lock:
        if target in _patched:
            return
        _patched.append(target)
    if _peer is not None:
        _peer.notify("bridge.patched", {"target": target})


def patched() -> List[str]:
    with _lock:
        return list(_patched)


def stats() -> Dict[str, int]:
    with _lock:
        return dict(_stats)


def next_call_id(prefix: str) -> str:
    return f"{prefix}_{next(_counter)}"


def _json_default(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)  # pydantic v2
    if callable(dump):
        return dump()
    legacy = getattr(value, "dict", None)  # pydantic v1
    if callable(legacy) and not isinstance(value, dict):
        return legacy()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def dumps_arguments(arguments: Dict[str, Any]) -> str:
    """``json.dumps`` of the planned arguments, as the harness wants them.

    Python's own ``json.dumps`` is the point: ``100.0`` stays ``100.0`` in the text, so the Node
    side (which parses it losslessly) keeps the float that τ-bench hashes. Non-finite floats have
    no JSON form the harness accepts, so they become strings.
    """

    def clean(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return repr(value)
        if isinstance(value, dict):
            return {str(key): clean(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [clean(item) for item in value]
        return value

    return json.dumps(clean(arguments), default=_json_default)


def execute_tool(tool_name: str, arguments: Dict[str, Any], call_id: Optional[str] = None) -> ToolOutcome:
    """Sends one planned tool call to the harness and returns its decision.

    Blocks until the harness answers (the harness owns the timeouts: it kills this process when a
    turn takes too long). Raises :class:`BridgeFailure` when no answer can be had.
    """
    from .rpc import PeerClosed, RpcError, RpcTimeout

    current = _peer
    if current is None:
        raise BridgeFailure("taubridge bridge is not connected to the harness")
    try:
        raw = dumps_arguments(arguments)
    except (TypeError, ValueError) as error:
        raw = json.dumps({"__unserializable__": str(error)})
    params = {"toolName": tool_name, "rawArguments": raw, "toolCallId": call_id or next_call_id("tb")}
    try:
        result = current.request("tool.execute", params)
    except (PeerClosed, RpcTimeout, RpcError) as error:
        raise BridgeFailure(f"tool.execute {tool_name} failed: {error}") from error
    with _lock:
        _stats["toolCalls"] += 1
    if not isinstance(result, dict):
        raise BridgeFailure(f"tool.execute {tool_name}: unexpected answer {result!r}")
    if result.get("passthrough"):
        with _lock:
            _stats["passthrough"] += 1
        return PASSTHROUGH
    output = result.get("output")
    return ToolOutcome(passthrough=False, output=output if isinstance(output, str) else json.dumps(output))


def log(message: str) -> None:
    """Diagnostics go to stderr (the parent keeps the last lines for error reports)."""
    try:
        sys.stderr.write(f"taubridge: {message}\n")
        sys.stderr.flush()
    except Exception:
        pass
