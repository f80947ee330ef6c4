"""What a Python agent's exception says about its model endpoint, for the harness to classify.

A turn that raised is the agent's failure, unless the exception (or one in its chain) is a failed
model call: an HTTP status from the endpoint, or a connection that failed. The child reports what
it found (``endpoint_evidence``) in the error's data; the harness decides with the same rule as for
Node frameworks (``bridge/endpoint-failure.ts``). The bridge reads the exception rather than the
HTTP traffic: only the exception says what the turn died of, and Python agents use many clients
(the ``openai`` package over httpx, litellm, requests, urllib), none of which the bridge patches.

Read from the exception chain (``__cause__``, ``__context__``, ``reason``, exceptions in ``args``):
``status_code`` / ``status`` / ``http_status`` / ``code`` (openai, litellm, urllib's ``HTTPError``)
or ``response.status_code`` (httpx, requests) between 400 and 599; ``ConnectionRefusedError``,
``socket.gaierror``, other ``ConnectionError`` / ``TimeoutError``, and classes named like a
connection failure (``APIConnectionError``, httpx's ``ConnectError``, urllib3's
``NewConnectionError``, requests' ``ConnectionError``).
"""

from __future__ import annotations

import re
import socket
from typing import Any, Dict, List, Optional

_CONNECTION_NAME = re.compile(r"APIConnection|ConnectError|ConnectionError|ConnectTimeout|ReadTimeout|RemoteProtocolError|NewConnectionError|MaxRetryError")


def _status(error: BaseException) -> Optional[int]:
    response = getattr(error, "response", None)
    candidates: List[Any] = [getattr(error, name, None) for name in ("status_code", "status", "http_status", "code")]
    if response is not None:
        candidates += [getattr(response, "status_code", None), getattr(response, "status", None)]
    for value in candidates:
        if isinstance(value, int) and not isinstance(value, bool) and 400 <= value <= 599:
            return value
    return None


def _connection_code(error: BaseException) -> Optional[str]:
    if isinstance(error, ConnectionRefusedError):
        return "ECONNREFUSED"
    if isinstance(error, socket.gaierror):
        return "ENOTFOUND"
    if isinstance(error, ConnectionResetError):
        return "ECONNRESET"
    if isinstance(error, BrokenPipeError):
        return "EPIPE"
    if isinstance(error, (TimeoutError, socket.timeout)):
        return "ETIMEDOUT"
    if isinstance(error, ConnectionError):
        return "connection"
    if any(_CONNECTION_NAME.search(cls.__name__) for cls in type(error).__mro__):
        return "connection"
    return None


def _chain(error: BaseException) -> List[BaseException]:
    """The exception and every exception it carries, outermost first, each once."""
    seen: set = set()
    order: List[BaseException] = []
    pending: List[Any] = [error]
    while pending:
        current = pending.pop(0)
        if not isinstance(current, BaseException) or id(current) in seen:
            continue
        seen.add(id(current))
        order.append(current)
        pending += [current.__cause__, current.__context__, getattr(current, "reason", None), *current.args]
    return order


def _type_name(error: BaseException) -> str:
    kind = type(error)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def endpoint_evidence(error: BaseException) -> Optional[Dict[str, Any]]:
    """``{"status": 404, "type": ...}`` or ``{"code": "ECONNREFUSED", "type": ...}`` when the chain shows a failed model call, else None."""
    chain = _chain(error)
    for current in chain:
        status = _status(current)
        if status is not None:
            return {"status": status, "type": _type_name(current), "message": str(current)[:300]}
    found = [(current, _connection_code(current)) for current in chain]
    connection = [(current, code) for current, code in found if code is not None]
    if not connection:
        return None
    # The most specific code in the chain (a refused connection under a client's ConnectionError).
    current, code = next(((current, code) for current, code in connection if code != "connection"), connection[0])
    return {"code": code, "type": _type_name(current), "message": str(current)[:300]}
