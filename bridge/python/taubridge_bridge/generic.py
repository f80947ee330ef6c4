"""Generic mode: bridge any Python agent's tool functions, named in the options, without decorators.

A patch target is ``module:qualname`` or ``module:qualname=tool_name`` (the benchmark tool name
when it differs from the function's name), e.g. ``my_agent.tools:get_user_details`` or
``my_agent.tools:Toolbox.cancel=cancel_pending_order``. When the module is imported (or at once, if
it already is), the function is replaced by a wrapper that binds the call's arguments to the
function's signature, sends them as the planned call, and returns the harness's observation string
instead of running the function. A ``passthrough`` answer (not a benchmark tool) runs the original.

The wrapper replaces the attribute on its module or class. Code that copied the function *before*
the patch (``from tools import f`` executed before the bridge started, a list of tool objects built
earlier) keeps the original; the post-import hook avoids that for every module imported after the
bridge started, which is why targets are registered before the agent is imported.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import hooks, runtime


def parse_target(spec: str) -> Tuple[str, str, Optional[str]]:
    """``module:qualname[=tool]`` → (module, qualname, tool name or None)."""
    text = spec.strip()
    tool_name: Optional[str] = None
    if "=" in text:
        text, tool_name = text.split("=", 1)
        tool_name = tool_name.strip() or None
    if ":" not in text:
        raise ValueError(f"patch target {spec!r} must look like module:function or module:Class.method")
    module_name, qualname = text.split(":", 1)
    if not module_name or not qualname:
        raise ValueError(f"patch target {spec!r} must look like module:function or module:Class.method")
    return module_name.strip(), qualname.strip(), tool_name


def _arguments(signature: inspect.Signature, skip_first: bool, args: tuple, kwargs: dict) -> Dict[str, Any]:
    bound = signature.bind(*args, **kwargs)
    names = list(signature.parameters)
    result: Dict[str, Any] = {}
    for index, (name, value) in enumerate(bound.arguments.items()):
        if skip_first and index == 0 and names and name == names[0]:
            continue
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            result.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            result[name] = list(value)
        else:
            result[name] = value
    return result


def _wrap(function: Callable, tool_name: str, skip_first: bool) -> Callable:
    signature = inspect.signature(function)

    @functools.wraps(function)
    def bridged(*args, **kwargs):
        if not runtime.active():
            return function(*args, **kwargs)
        try:
            arguments = _arguments(signature, skip_first, args, kwargs)
        except TypeError:
            return function(*args, **kwargs)  # a bad call fails exactly as it would natively
        outcome = runtime.execute_tool(tool_name, arguments, runtime.next_call_id("py"))
        if outcome.passthrough:
            return function(*args, **kwargs)
        return outcome.output

    bridged.__taubridge_patched__ = True  # type: ignore[attr-defined]
    return bridged


def _patch(module, spec: str, qualname: str, tool_name: Optional[str]) -> None:
    parts = qualname.split(".")
    owner: Any = module
    for part in parts[:-1]:
        owner = getattr(owner, part)
    attribute = parts[-1]
    raw = owner.__dict__.get(attribute) if hasattr(owner, "__dict__") else None
    if raw is None:
        raw = getattr(owner, attribute)
    if getattr(raw, "__taubridge_patched__", False) or getattr(getattr(raw, "__func__", None), "__taubridge_patched__", False):
        return
    if isinstance(raw, staticmethod):
        replacement: Any = staticmethod(_wrap(raw.__func__, tool_name or attribute, skip_first=False))
    elif isinstance(raw, classmethod):
        replacement = classmethod(_wrap(raw.__func__, tool_name or attribute, skip_first=True))
    elif inspect.isfunction(raw) and isinstance(owner, type):
        replacement = _wrap(raw, tool_name or attribute, skip_first=True)
    elif callable(raw):
        replacement = _wrap(raw, tool_name or attribute, skip_first=False)
    else:
        raise TypeError(f"{spec}: {qualname} is not callable")
    setattr(owner, attribute, replacement)
    runtime.record_patch(spec)


def install(specs: List[str]) -> List[str]:
    """Registers every target; returns the normalized list. Raises ValueError on a malformed one."""
    parsed = [(spec, *parse_target(spec)) for spec in specs if spec.strip()]
    for spec, module_name, qualname, tool_name in parsed:

        def callback(module, spec=spec, qualname=qualname, tool_name=tool_name) -> None:
            _patch(module, spec.strip(), qualname, tool_name)

        hooks.when_imported(module_name, callback)
    return [spec.strip() for spec, *_ in parsed]
