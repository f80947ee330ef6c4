"""The bridge server: protocol methods, the ready handshake, and the three ways to start.

Parent → child requests: ``session.start`` {driver, workflowPath, patchTarget, runAsAgent, envFiles,
fwEnv, entry, patchTargets} → {driver, patched, info}; ``session.user_turn`` {text} → {reply,
status, failureReason, toolCalls} (an exception of the agent's turn is an agent error whose data
carries its ``traceback`` and, when its chain shows a failed model call, ``endpoint``: see
``endpoint.py``); ``session.close``; ``bridge.ping`` (answered on the reader
thread, also during a turn); ``bridge.shutdown``. Child → parent: the ``bridge.ready`` and
``bridge.patched`` notifications and the ``tool.execute`` {toolName, rawArguments, toolCallId} →
{output} | {passthrough: true} request.

Configuration from the environment (the parent sets it):
``TAUBRIDGE_BRIDGE_CHANNEL`` (``stdio`` | ``fd:N``), ``TAUBRIDGE_BRIDGE_DEBUG=1`` (test-only
``debug.*`` methods), ``TAUBRIDGE_BRIDGE_PATCH_TARGET`` (FastWorkflow target),
``TAUBRIDGE_BRIDGE_TARGETS`` (comma-separated generic targets, registered before the user's
program starts in ``run``/``sitecustomize`` mode).
"""

from __future__ import annotations

import os
import platform
import sys
import threading
import time
import traceback
from typing import Any, Dict, Optional

from . import PROTOCOL_VERSION, __version__, drivers, fastworkflow_patch, generic, hooks, runtime
from .endpoint import endpoint_evidence
from .channel import open_channel
from .rpc import AGENT_ERROR, BRIDGE_ERROR, INVALID_PARAMS, SETUP_ERROR, Peer, RpcError

_started = False
#: How long a process whose parent went away may take to finish the request it is running.
PARENT_GONE_GRACE_SECONDS = 10.0
_start_lock = threading.Lock()


def _agent_error_data(error: BaseException) -> Dict[str, Any]:
    """The traceback, and what the exception chain says about the model endpoint (the harness classifies it)."""
    data: Dict[str, Any] = {"traceback": traceback.format_exc()}
    evidence = endpoint_evidence(error)
    if evidence is not None:
        data["endpoint"] = evidence
    return data


class BridgeServer:
    def __init__(self, peer: Peer, launch: str, channel: str, debug: bool) -> None:
        self.peer = peer
        self.launch = launch
        self.channel = channel
        self.debug = debug
        self.driver: Optional[drivers.Driver] = None
        self.turns = 0

    # ------------------------------------------------------------------ lifecycle

    def register(self) -> None:
        add = self.peer.add_method
        add("session.start", self.session_start)
        add("session.user_turn", self.session_user_turn)
        add("session.close", self.session_close)
        add("bridge.shutdown", self.shutdown)
        add("bridge.ping", self.ping, inline=True)
        if self.debug:
            add("debug.echo", lambda params: params)
            add("debug.sleep", self.debug_sleep)
            add("debug.print", self.debug_print)
            add("debug.garbage", self.debug_garbage)
            add("debug.exit", self.debug_exit, inline=True)  # inline: it can end a process whose session thread is busy
            add("debug.call_tool", self.debug_call_tool)
            add("debug.import", self.debug_import)

    def ready_params(self) -> Dict[str, Any]:
        return {
            "protocol": PROTOCOL_VERSION,
            "bridgeVersion": __version__,
            "pythonVersion": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
            "pid": os.getpid(),
            "launch": self.launch,
            "channel": self.channel,
            "watched": hooks.watched(),
            "patched": runtime.patched(),
            "patchTarget": fastworkflow_patch.target(),
        }

    # ------------------------------------------------------------------ session methods

    def session_start(self, params: Any) -> Dict[str, Any]:
        if self.driver is not None:
            raise RpcError(SETUP_ERROR, "a session is already running in this process (one per episode)")
        options = params if isinstance(params, dict) else {}
        try:
            self.driver = drivers.create(options)
        except RpcError:
            raise
        except runtime.BridgeFailure as error:
            raise RpcError(BRIDGE_ERROR, str(error)) from None
        except Exception as error:
            raise RpcError(SETUP_ERROR, f"{type(error).__name__}: {error}", {"traceback": traceback.format_exc()}) from error
        return {"driver": self.driver.name, "patched": runtime.patched(), "info": self.driver.info()}

    def session_user_turn(self, params: Any) -> Dict[str, Any]:
        if self.driver is None:
            raise RpcError(SETUP_ERROR, "session.user_turn before session.start")
        if not isinstance(params, dict) or not isinstance(params.get("text"), str):
            raise RpcError(INVALID_PARAMS, "session.user_turn needs {text: string}")
        before = runtime.stats()["toolCalls"]
        self.turns += 1
        try:
            result = self.driver.user_turn(params["text"])
        except runtime.BridgeFailure as error:
            raise RpcError(BRIDGE_ERROR, str(error), {"traceback": traceback.format_exc()}) from None
        except RpcError:
            raise
        except Exception as error:
            raise RpcError(AGENT_ERROR, f"{type(error).__name__}: {error}", _agent_error_data(error)) from error
        except BaseException as error:  # e.g. a framework's suspension signal escaping the turn
            if isinstance(error, (SystemExit, KeyboardInterrupt)):
                raise
            raise RpcError(AGENT_ERROR, f"{type(error).__name__}: {error}", {"traceback": traceback.format_exc()}) from None
        result["toolCalls"] = runtime.stats()["toolCalls"] - before
        return result

    def session_close(self, _params: Any = None) -> Dict[str, Any]:
        driver, self.driver = self.driver, None
        if driver is not None:
            driver.close()
        return {"turns": self.turns, **runtime.stats()}

    def shutdown(self, _params: Any = None) -> Dict[str, Any]:
        self.session_close()
        self.peer.stop()
        return {}

    def ping(self, _params: Any = None) -> Dict[str, Any]:
        return {"pong": True, "pid": os.getpid()}

    # ------------------------------------------------------------------ debug (tests, bench)

    def debug_sleep(self, params: Any) -> Dict[str, Any]:
        time.sleep(float((params or {}).get("seconds", 0)))
        return {}

    def debug_print(self, params: Any) -> Dict[str, Any]:
        text = str((params or {}).get("text", "library output"))
        print(text)  # sys.stdout
        print(text, file=sys.__stdout__, flush=True)
        os.write(1, (text + "\n").encode())  # what C code writing to fd 1 would do
        return {"printed": 3}

    def debug_garbage(self, params: Any) -> Dict[str, Any]:
        self.peer.write_raw((str((params or {}).get("text", "this is not json")) + "\n").encode())
        return {}

    def debug_exit(self, params: Any) -> Dict[str, Any]:
        params = params or {}
        message = params.get("stderr")
        if message:
            sys.stderr.write(str(message) + "\n")
            sys.stderr.flush()
        os._exit(int(params.get("code", 3)))

    def debug_call_tool(self, params: Any) -> Dict[str, Any]:
        import json

        params = params or {}
        tool_name = str(params.get("toolName", "tool"))
        arguments = params.get("arguments")
        if arguments is None:
            arguments = json.loads(params.get("rawArguments") or "{}")
        repeat = max(1, int(params.get("repeat", 1)))
        durations = []
        outputs = []
        for index in range(repeat):
            started = time.perf_counter_ns()
            outcome = runtime.execute_tool(tool_name, arguments, f"dbg_{index}_{time.monotonic_ns()}")
            durations.append((time.perf_counter_ns() - started) / 1000.0)
            if index < 5:
                outputs.append(None if outcome.passthrough else outcome.output)
        return {"microseconds": durations, "outputs": outputs}

    def debug_import(self, params: Any) -> Dict[str, Any]:
        import importlib
        import inspect

        module_name = str((params or {}).get("module"))
        module = importlib.import_module(module_name)
        signatures: Dict[str, str] = {}
        for qualname in (params or {}).get("signatures") or []:
            target: Any = module
            for part in str(qualname).split("."):
                target = getattr(target, part)
            target = getattr(target, "__wrapped__", target)
            signatures[str(qualname)] = str(inspect.signature(target))
        return {"patched": runtime.patched(), "signatures": signatures}


def _configure_from_environment() -> None:
    target = os.environ.get("TAUBRIDGE_BRIDGE_PATCH_TARGET")
    if target:
        fastworkflow_patch.set_target(target)
    fastworkflow_patch.install()
    targets = [item for item in os.environ.get("TAUBRIDGE_BRIDGE_TARGETS", "").split(",") if item.strip()]
    if targets:
        generic.install(targets)


def start(launch: str, background: bool) -> BridgeServer:
    """Opens the channel, installs the hooks, says ``bridge.ready`` and serves.

    ``background=False`` serves on the calling (main) thread until shutdown; ``True`` serves on a
    non-daemon thread so the user's program can own the main thread, and the process stays alive
    until the harness shuts the session down.
    """
    global _started
    with _start_lock:
        if _started:
            raise RuntimeError("the taubridge bridge is already running in this process")
        _started = True
    debug = os.environ.get("TAUBRIDGE_BRIDGE_DEBUG") == "1"
    reader, write_fd, channel = open_channel(os.environ.get("TAUBRIDGE_BRIDGE_CHANNEL", "stdio"))
    peer = Peer(reader, write_fd)
    server = BridgeServer(peer, launch, channel, debug)
    server.register()
    runtime.attach(peer)
    _configure_from_environment()

    def parent_gone() -> None:
        # The stream ended: the session thread drains what was already received, then the
        # process leaves. Without the parent nobody will ever shut it down, so a watchdog ends it
        # even if a turn (or a library's non-daemon thread) never returns.
        watchdog = threading.Timer(PARENT_GONE_GRACE_SECONDS, lambda: os._exit(0))
        watchdog.daemon = True
        watchdog.start()

    peer.on_close = parent_gone
    peer.start()
    peer.notify("bridge.ready", server.ready_params())

    def serve() -> None:
        try:
            peer.serve()
        finally:
            if background or peer.closed:
                _flush()
                os._exit(0)

    if background:
        threading.Thread(target=serve, name="taubridge-session", daemon=False).start()
    else:
        serve()
    return server


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
