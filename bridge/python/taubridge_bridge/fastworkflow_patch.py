"""FastWorkflow interception (FastWorkflow >= 2.14: fastworkflow/command_executor.py, fastworkflow/workflow_agent.py).

Two targets are patched when their modules are imported (post-import hook; FastWorkflow imports
them lazily and ``fastworkflow.init()`` must run first, so the bridge never imports them eagerly
before the session has called ``init``):

- ``fastworkflow.command_executor.CommandExecutor.invoke_command`` (classmethod) — **the default**.
  It replaces only "execute the resolved app command". Everything around it stays FastWorkflow's
  own: trace events, turn-output capture, the action log, and the NLU-stage post-processing in
  ``_execute_workflow_query`` (intent ambiguity/misunderstanding clarification, and the abort +
  re-plan after a parameter-extraction error). It also covers assistant-mode (``/cmd``) messages,
  which reach ``invoke_command`` without the agent.
- ``fastworkflow.workflow_agent._execute_workflow_query`` (module global, looked up at call time by
  the agent's tool closure) — the alternative (``patchTarget=execute_workflow_query``). A bridged
  command returns the observation text directly and skips FastWorkflow's bookkeeping for it (the
  bridge appends the turn output and action record itself when the session offers them).

Both patches are always installed; only the selected one bridges, the other delegates. In both,
planning is FastWorkflow's own CME ``wildcard`` action: on success it yields ``command_name`` and
the validated, normalized ``cmd_parameters``; the bridge sends exactly those to the harness, and the
app command's own code never runs. The wildcard's other outcomes carry no ``command_name``:
*handled* (a CME meta-command such as ``abort`` or ``what_can_i_do`` already ran) and *failure*
(ambiguity, out of scope, ``PARAMETER EXTRACTION ERROR``). For those — and for commands the harness
says are not benchmark tools (``passthrough``) — the bridge *replays* the original function with
the wildcard's result: the original calls ``perform_action(wildcard)`` again, the patched
``perform_action`` hands back the result already computed (the wildcard runs once, its CME state
changes happen once), and every branch after it is FastWorkflow's code, unchanged.

Never raise after the harness has stepped: FastWorkflow's tool closure retries on exceptions, and
a retry would step twice. Failures to reach the harness raise ``BridgeFailure`` (a BaseException
the closure does not catch), so the turn ends and the harness records an infrastructure error.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Dict, Optional

from . import hooks, runtime

COMMAND_EXECUTOR_MODULE = "fastworkflow.command_executor"
WORKFLOW_AGENT_MODULE = "fastworkflow.workflow_agent"
INVOKE_COMMAND = "fastworkflow.command_executor:CommandExecutor.invoke_command"
PERFORM_ACTION = "fastworkflow.command_executor:CommandExecutor.perform_action"
EXECUTE_WORKFLOW_QUERY = "fastworkflow.workflow_agent:_execute_workflow_query"

#: ``patchTarget`` values.
TARGETS = ("invoke_command", "execute_workflow_query")
DEFAULT_TARGET = "invoke_command"

_settings = {"target": DEFAULT_TARGET}
_installed = False
_install_lock = threading.Lock()
_replay = threading.local()
_originals: Dict[str, Any] = {}


def set_target(target: str) -> None:
    if target not in TARGETS:
        raise ValueError(f"unknown FastWorkflow patch target {target!r}; expected one of {', '.join(TARGETS)}")
    _settings["target"] = target


def target() -> str:
    return _settings["target"]


def install() -> None:
    """Registers the post-import hooks (idempotent). Patching happens when FastWorkflow imports."""
    global _installed
    with _install_lock:
        if _installed:
            return
        _installed = True
    hooks.when_imported(COMMAND_EXECUTOR_MODULE, _patch_command_executor)
    hooks.when_imported(WORKFLOW_AGENT_MODULE, _patch_workflow_agent)


# ---------------------------------------------------------------------------------------------
# parameters


def _sentinels() -> tuple:
    """FastWorkflow's "no value" markers (env ``NOT_FOUND``/``INVALID`` and the signatures module)."""
    strings = {"NOT_FOUND", "INVALID"}
    numbers = {-sys.maxsize, -sys.float_info.max}
    fw = sys.modules.get("fastworkflow")
    get_env_var = getattr(fw, "get_env_var", None)
    if callable(get_env_var):
        for key in ("NOT_FOUND", "INVALID"):
            try:
                value = get_env_var(key, str, key)
            except Exception:
                value = None
            if isinstance(value, str) and value:
                strings.add(value)
    return strings, numbers


def serialize_parameters(parameters: Any) -> Dict[str, Any]:
    """``cmd_parameters`` → plain kwargs: pydantic v2/v1 model, dict or None; sentinel values dropped.

    A wildcard *success* has already validated the parameters, so a sentinel can only remain in an
    optional field the user never gave; dropping it lets the benchmark tool apply its own default
    (or report the missing argument the way the original tool would).
    """
    if parameters is None:
        return {}
    if isinstance(parameters, dict):
        data = dict(parameters)
    elif callable(getattr(parameters, "model_dump", None)):
        data = parameters.model_dump()
    elif callable(getattr(parameters, "dict", None)):
        data = parameters.dict()
    elif hasattr(parameters, "__dict__"):
        data = {key: value for key, value in vars(parameters).items() if not key.startswith("_")}
    else:
        raise TypeError(f"cannot read command parameters of type {type(parameters).__name__}")
    strings, numbers = _sentinels()

    def is_sentinel(value: Any) -> bool:
        if isinstance(value, bool):
            return False
        if isinstance(value, str):
            return value in strings
        if isinstance(value, (int, float)):
            return value in numbers
        return False

    return {key: value for key, value in data.items() if not is_sentinel(value)}


# ---------------------------------------------------------------------------------------------
# replay: run the original with the wildcard result already computed


class _Pending:
    __slots__ = ("command", "output")

    def __init__(self, command: str, output: Any) -> None:
        self.command = command
        self.output = output


def _with_replay(command: str, wildcard_output: Any, call):
    previous = getattr(_replay, "pending", None)
    _replay.pending = _Pending(command, wildcard_output)
    try:
        return call()
    finally:
        _replay.pending = previous


def _take_replay(action: Any) -> Optional[Any]:
    pending = getattr(_replay, "pending", None)
    if pending is None:
        return None
    if getattr(action, "command_name", None) != "wildcard" or getattr(action, "command", None) != pending.command:
        return None
    _replay.pending = None
    return pending.output


# ---------------------------------------------------------------------------------------------
# shared planning


def _plan(executor_cls, session, command: str):
    """Runs FastWorkflow's own planning (the CME wildcard); returns (output, name, parameters)."""
    import fastworkflow

    output = executor_cls.perform_action(session.cme_workflow, fastworkflow.Action(command_name="wildcard", command=command))
    if output.command_handled or not output.success:
        return output, None, None
    responses = getattr(output, "command_responses", None) or []
    artifacts = getattr(responses[0], "artifacts", None) if responses else None
    if not isinstance(artifacts, dict) or "command_name" not in artifacts:
        return output, None, None
    return output, artifacts["command_name"], artifacts.get("cmd_parameters")


def _bridged_command_output(session, name: str, parameters: Any, text: str):
    """The CommandOutput the original tail would build, with the harness's observation as response."""
    import fastworkflow

    output = fastworkflow.CommandOutput(command_responses=[fastworkflow.CommandResponse(response=text)])
    # Attributes are set after construction, as FastWorkflow's own invoke_command does: the model
    # declares ``command_parameters: str`` but carries the pydantic input object.
    try:
        workflow = session.get_active_workflow()
        if workflow is not None:
            output.workflow_name = str(getattr(workflow, "folderpath", "")).rstrip("/").split("/")[-1]
            output.context = getattr(workflow, "current_command_context_displayname", "") or ""
    except Exception:
        pass
    try:
        output.command_name = name
        output.command_parameters = parameters or None
    except Exception:
        pass
    try:
        context = getattr(session.cme_workflow, "_context", None)
        if isinstance(context, dict) and "is_assistant_mode_command" in context:
            del context["is_assistant_mode_command"]
    except Exception:
        pass
    return output


def _plain_output(text: str):
    import fastworkflow

    return fastworkflow.CommandOutput(command_responses=[fastworkflow.CommandResponse(response=text)])


def _after_step(build, text: str, name: str):
    """Builds the result of a stepped call without ever raising an ``Exception``.

    FastWorkflow's tool closure retries a command that raised, which would step the environment a
    second time. If even a bare ``CommandOutput`` cannot be built, the turn is ended with
    ``BridgeFailure`` (which the retry loop does not catch): a visible infrastructure error beats a
    silently repeated write.
    """
    try:
        return build()
    except Exception:
        pass
    try:
        return _plain_output(text)
    except Exception as error:
        raise runtime.BridgeFailure(f"{name} was executed, but its CommandOutput could not be built: {error!r}") from error


# ---------------------------------------------------------------------------------------------
# CommandExecutor.invoke_command / perform_action


def _patch_command_executor(module) -> None:
    executor = getattr(module, "CommandExecutor", None)
    if executor is None:
        runtime.log(f"{COMMAND_EXECUTOR_MODULE} has no CommandExecutor; nothing patched")
        return
    if getattr(executor, "__taubridge_patched__", False):
        return
    original_invoke = executor.__dict__.get("invoke_command")
    original_perform = executor.__dict__.get("perform_action")
    if not isinstance(original_invoke, classmethod) or not isinstance(original_perform, classmethod):
        runtime.log("CommandExecutor.invoke_command/perform_action are not classmethods; FastWorkflow version unsupported")
        return
    invoke_function = original_invoke.__func__
    perform_function = original_perform.__func__
    _originals["invoke_command"] = invoke_function
    _originals["perform_action"] = perform_function

    def perform_action(cls, workflow, action):
        replayed = _take_replay(action)
        if replayed is not None:
            return replayed
        return perform_function(cls, workflow, action)

    def invoke_command(cls, chat_session, command):
        if not runtime.active() or _settings["target"] != "invoke_command" or not command:
            return invoke_function(cls, chat_session, command)
        wildcard, name, parameters = _plan(cls, chat_session, command)
        if name is None:  # handled or failure: FastWorkflow's own branches, unchanged
            return _with_replay(command, wildcard, lambda: invoke_function(cls, chat_session, command))
        try:
            kwargs = serialize_parameters(parameters)
        except Exception as error:
            return _plain_output(f"Error: could not read the parameters of {name}: {error}")
        outcome = runtime.execute_tool(name, kwargs, runtime.next_call_id("fw"))
        if outcome.passthrough:  # not a benchmark tool: the app command runs natively
            return _with_replay(command, wildcard, lambda: invoke_function(cls, chat_session, command))
        return _after_step(lambda: _bridged_command_output(chat_session, name, parameters, outcome.output), outcome.output, name)

    perform_action.__name__ = "perform_action"
    perform_action.__doc__ = perform_function.__doc__
    perform_action.__wrapped__ = perform_function  # type: ignore[attr-defined]
    invoke_command.__name__ = "invoke_command"
    invoke_command.__doc__ = invoke_function.__doc__
    invoke_command.__wrapped__ = invoke_function  # type: ignore[attr-defined]
    executor.perform_action = classmethod(perform_action)
    executor.invoke_command = classmethod(invoke_command)
    executor.__taubridge_patched__ = True
    runtime.record_patch(PERFORM_ACTION)
    runtime.record_patch(INVOKE_COMMAND)


# ---------------------------------------------------------------------------------------------
# workflow_agent._execute_workflow_query


def _patch_workflow_agent(module) -> None:
    original = getattr(module, "_execute_workflow_query", None)
    if original is None or not callable(original):
        runtime.log(f"{WORKFLOW_AGENT_MODULE} has no _execute_workflow_query (FastWorkflow < 2.14?); nothing patched")
        return
    if getattr(original, "__taubridge_patched__", False):
        return
    _originals["execute_workflow_query"] = original

    def _execute_workflow_query(command, chat_session_obj=None, **extra):
        if not runtime.active() or _settings["target"] != "execute_workflow_query" or not command:
            return original(command, chat_session_obj=chat_session_obj, **extra)
        from fastworkflow.command_executor import CommandExecutor

        wildcard, name, parameters = _plan(CommandExecutor, chat_session_obj, command)
        if name is None:
            # Handled or failure: the original runs with the planned result, so its NLU-stage
            # post-processing (abort + re-plan on PARAMETER_EXTRACTION, clarification) is kept.
            return _with_replay(command, wildcard, lambda: original(command, chat_session_obj=chat_session_obj, **extra))
        try:
            kwargs = serialize_parameters(parameters)
        except Exception as error:
            return f"Error: could not read the parameters of {name}: {error}"
        outcome = runtime.execute_tool(name, kwargs, runtime.next_call_id("fw"))
        if outcome.passthrough:
            return _with_replay(command, wildcard, lambda: original(command, chat_session_obj=chat_session_obj, **extra))
        try:
            _record_bridged(module, chat_session_obj, command, name, parameters, kwargs, outcome.output)
        except Exception:
            pass  # bookkeeping only; never raise after a step
        return outcome.output

    _execute_workflow_query.__doc__ = original.__doc__
    _execute_workflow_query.__wrapped__ = original  # type: ignore[attr-defined]
    _execute_workflow_query.__taubridge_patched__ = True  # type: ignore[attr-defined]
    module._execute_workflow_query = _execute_workflow_query
    runtime.record_patch(EXECUTE_WORKFLOW_QUERY)


def _record_bridged(module, session, command: str, name: str, parameters: Any, kwargs: Dict[str, Any], text: str) -> None:
    """What the original does after a command, minus trace events and NLU handling (none needed)."""
    output = _bridged_command_output(session, name, parameters, text)
    append_turn_output = getattr(module, "_append_turn_output", None)
    if callable(append_turn_output):
        append_turn_output(session, output)
    append_action_record = getattr(module, "_append_action_record", None)
    if callable(append_action_record):
        append_action_record(session, {"command": command, "command_name": name, "parameters": kwargs, "response": text})
    workflow = session.get_active_workflow()
    context = getattr(workflow, "context", None)
    if isinstance(context, dict) and "is_user_command" in context:
        del context["is_user_command"]
