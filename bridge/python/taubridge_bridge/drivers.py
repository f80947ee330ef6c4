"""Session drivers: turn the harness's "here is the user's message" into the agent's reply.

- ``fastworkflow``: FastWorkflow's synchronous programmatic API (``WorkflowExecutionContext``,
  ``process_turn``; ``process_message`` on 2.18–2.20). An ``ask_user`` suspension comes back as an
  ``awaiting_user`` turn whose answer is the question, which is exactly what the simulated user
  should see; the next ``process_turn`` resumes the agent.
- ``entry``: any Python agent exposing ``module:callable`` (``reply = callable(message)``; a class is
  instantiated once per session, then ``instance.respond(message)`` or ``instance(message)``). Its
  tool functions are bridged through generic patch targets.
"""

from __future__ import annotations

import importlib
import os
import uuid
from typing import Any, Dict, List, Optional

from . import fastworkflow_patch, generic, runtime
from .rpc import AGENT_ERROR, SETUP_ERROR, RpcError


def read_env_file(path: str) -> Dict[str, str]:
    """A dotenv file (``KEY=VALUE`` lines, ``#`` comments, optional quotes), as FastWorkflow's CLI reads them."""
    values: Dict[str, str] = {}
    try:
        with open(path, "r", encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise RpcError(SETUP_ERROR, f"cannot read env file {path}: {error.strerror or error}") from error
    for line in lines:
        text = line.strip()
        if not text or text.startswith("#") or "=" not in text:
            continue
        if text.startswith("export "):
            text = text[len("export ") :]
        key, value = text.split("=", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def _resolve(spec: str) -> Any:
    if ":" not in spec:
        raise RpcError(SETUP_ERROR, f"entry {spec!r} must look like module:callable")
    module_name, qualname = spec.split(":", 1)
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as error:
        raise RpcError(SETUP_ERROR, f"cannot import {module_name}: {type(error).__name__}: {error}") from error
    for part in qualname.split("."):
        try:
            target = getattr(target, part)
        except AttributeError as error:
            raise RpcError(SETUP_ERROR, f"{module_name} has no {qualname}") from error
    return target


class Driver:
    name = "driver"

    def info(self) -> Dict[str, Any]:
        return {}

    def user_turn(self, text: str) -> Dict[str, Any]:
        raise NotImplementedError

    def close(self) -> None:
        return None


class FastWorkflowDriver(Driver):
    """Drives one FastWorkflow session (one episode)."""

    name = "fastworkflow"

    def __init__(self, options: Dict[str, Any]) -> None:
        workflow_path = options.get("workflowPath")
        if not workflow_path or not isinstance(workflow_path, str):
            raise RpcError(SETUP_ERROR, "session.start needs workflowPath for the fastworkflow driver")
        workflow_path = os.path.abspath(workflow_path)
        if not os.path.isdir(workflow_path):
            raise RpcError(SETUP_ERROR, f"workflow directory not found: {workflow_path}")
        target = str(options.get("patchTarget") or fastworkflow_patch.DEFAULT_TARGET)
        try:
            fastworkflow_patch.set_target(target)
        except ValueError as error:
            raise RpcError(SETUP_ERROR, str(error)) from error
        fastworkflow_patch.install()
        try:
            import fastworkflow  # noqa: F401
        except Exception as error:
            raise RpcError(SETUP_ERROR, f"cannot import fastworkflow: {type(error).__name__}: {error}") from error
        self._fw = fastworkflow
        env_vars: Dict[str, str] = {}
        for path in options.get("envFiles") or []:
            env_vars.update(read_env_file(str(path)))
        env_vars.update({str(key): str(value) for key, value in (options.get("fwEnv") or {}).items()})
        init = getattr(fastworkflow, "init", None)
        if callable(init):
            try:
                init(env_vars)
            except Exception as error:
                raise RpcError(SETUP_ERROR, f"fastworkflow.init failed: {type(error).__name__}: {error}") from error
        # Import the patch targets now that init() has run, so the patches are verifiably in
        # place before the first turn (the hooks patch them as they load).
        modules = [fastworkflow_patch.COMMAND_EXECUTOR_MODULE]
        if target == "execute_workflow_query":
            modules.append(fastworkflow_patch.WORKFLOW_AGENT_MODULE)
        for module_name in modules:
            try:
                importlib.import_module(module_name)
            except Exception as error:
                raise RpcError(SETUP_ERROR, f"cannot import {module_name}: {type(error).__name__}: {error}") from error
        wanted = fastworkflow_patch.INVOKE_COMMAND if target == "invoke_command" else fastworkflow_patch.EXECUTE_WORKFLOW_QUERY
        if wanted not in runtime.patched():
            raise RpcError(SETUP_ERROR, f"patch target {wanted} was not installed; this FastWorkflow version is not supported")
        context_class = getattr(fastworkflow, "WorkflowExecutionContext", None)
        if context_class is None:
            raise RpcError(
                SETUP_ERROR,
                "this FastWorkflow has no WorkflowExecutionContext (added in 2.18; process_turn in 2.21); upgrade FastWorkflow",
            )
        self.session_key = str(options.get("sessionKey") or f"taubridge_{os.getpid()}_{uuid.uuid4().hex[:12]}")
        self.run_as_agent = bool(options.get("runAsAgent", True))
        self.target = target
        try:
            self._context = context_class(run_as_agent=self.run_as_agent, session_key=self.session_key)
            self._workflow = fastworkflow.Workflow.create(workflow_path, workflow_id_str=self.session_key)
            self._context.bind_app_workflow(self._workflow)
        except RpcError:
            raise
        except Exception as error:
            raise RpcError(SETUP_ERROR, f"cannot start the FastWorkflow session: {type(error).__name__}: {error}") from error
        self.workflow_path = workflow_path

    def info(self) -> Dict[str, Any]:
        return {
            "fastworkflowVersion": getattr(self._fw, "__version__", None) or _distribution_version("fastworkflow"),
            "patchTarget": self.target,
            "runAsAgent": self.run_as_agent,
            "sessionKey": self.session_key,
            "workflowPath": self.workflow_path,
            "api": "process_turn" if hasattr(self._context, "process_turn") else "process_message",
        }

    def user_turn(self, text: str) -> Dict[str, Any]:
        process_turn = getattr(self._context, "process_turn", None)
        if callable(process_turn):
            turn = process_turn(text)
            status = getattr(turn, "status", "completed")
            status = getattr(status, "value", status)
            return {
                "reply": str(getattr(turn, "answer", "") or ""),
                "status": str(status),
                "failureReason": getattr(turn, "failure_reason", None),
            }
        output = self._context.process_message(text)
        responses = getattr(output, "command_responses", None) or []
        reply = "\n".join(str(response.response) for response in responses if getattr(response, "response", None))
        return {"reply": reply, "status": "completed", "failureReason": None}

    def close(self) -> None:
        for resource in (getattr(self, "_context", None), getattr(self, "_workflow", None)):
            close = getattr(resource, "close", None)
            if callable(close):
                try:
                    close()
                except Exception as error:
                    runtime.log(f"closing {type(resource).__name__} failed: {error}")


class EntryDriver(Driver):
    """Drives any Python agent through one callable."""

    name = "entry"

    def __init__(self, options: Dict[str, Any]) -> None:
        entry = options.get("entry")
        if not entry or not isinstance(entry, str):
            raise RpcError(SETUP_ERROR, "session.start needs entry=module:callable for the entry driver")
        target = _resolve(entry)
        if isinstance(target, type):
            try:
                target = target()
            except Exception as error:
                raise RpcError(SETUP_ERROR, f"cannot create {entry}: {type(error).__name__}: {error}") from error
        respond = getattr(target, "respond", None)
        self._call = respond if callable(respond) else target
        if not callable(self._call):
            raise RpcError(SETUP_ERROR, f"{entry} is not callable")
        self.entry = entry

    def info(self) -> Dict[str, Any]:
        return {"entry": self.entry}

    def user_turn(self, text: str) -> Dict[str, Any]:
        reply = self._call(text)
        if reply is not None and not isinstance(reply, str):
            # A dict or object is not words for the user: str() of it would be sent as the reply (the
            # function agent refuses a non-text reply the same way: the episode ends as agent_error).
            raise RpcError(AGENT_ERROR, f"{self.entry} returned a {type(reply).__name__}, not the reply text (a str): {reply!r:.200}")
        return {"reply": "" if reply is None else reply, "status": "completed", "failureReason": None}


def create(options: Dict[str, Any]) -> Driver:
    """Installs the requested patches, then builds the driver (which imports the agent)."""
    targets: List[str] = [str(item) for item in (options.get("patchTargets") or [])]
    try:
        generic.install(targets)
    except ValueError as error:
        raise RpcError(SETUP_ERROR, str(error)) from error
    kind = str(options.get("driver") or "fastworkflow")
    if kind == "fastworkflow":
        return FastWorkflowDriver(options)
    if kind == "entry":
        return EntryDriver(options)
    raise RpcError(SETUP_ERROR, f"unknown driver {kind!r}; expected fastworkflow or entry")


def _distribution_version(name: str) -> Optional[str]:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return None
