"""A small JSON-RPC 2.0 peer over newline-delimited JSON (one message per line, both directions).

Threads:
- the *reader* thread reads the protocol stream; it routes responses to the calls waiting for them
  (one ``threading.Event`` per call), answers cheap control requests itself, and queues every other
  request for the *session* thread;
- the *session* thread (``Peer.serve``) runs the queued requests one at a time. A user turn runs
  there, and the framework's tool calls made during the turn block on ``Peer.request`` while the
  reader thread keeps delivering the parent's answers. Running all session work on one thread also
  keeps libraries that pin configuration to the thread that set it (DSPy) happy.

Only the standard library is used, so the bridge can be put on ``PYTHONPATH`` of any interpreter.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import threading
import traceback
from typing import Any, BinaryIO, Callable, Dict, Optional

# Standard JSON-RPC codes and ours (the server-error range -32000..-32099).
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: The bridge itself failed (the channel, a patch, the parent's answer): an infrastructure error.
BRIDGE_ERROR = -32000
#: The agent or framework code raised while handling a turn: the agent failed, not the harness.
AGENT_ERROR = -32001
#: The session could not be set up (framework missing, bad workflow path, patch not installed).
SETUP_ERROR = -32002


class RpcError(Exception):
    """An error answer, sent to or received from the other side."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> Dict[str, Any]:
        error: Dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class PeerClosed(Exception):
    """The protocol stream ended (the parent went away) before an answer arrived."""


class RpcTimeout(Exception):
    """No answer within the caller's timeout."""


class _Slot:
    __slots__ = ("event", "result", "error")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.result: Any = None
        self.error: Optional[BaseException] = None


Handler = Callable[[Any], Any]


class Peer:
    """One end of the protocol. ``write_fd`` must be a file descriptor no library writes to."""

    def __init__(self, reader: BinaryIO, write_fd: int) -> None:
        self._reader = reader
        self._write_fd = write_fd
        self._write_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: Dict[int, _Slot] = {}
        self._pending_lock = threading.Lock()
        self._incoming: "queue.Queue[Optional[dict]]" = queue.Queue()
        self._handlers: Dict[str, Handler] = {}
        self._inline: Dict[str, Handler] = {}
        self._closed = threading.Event()
        self._stopping = threading.Event()
        self._reader_thread: Optional[threading.Thread] = None
        #: Called (on the reader thread) when the stream ends.
        self.on_close: Optional[Callable[[], None]] = None

    # ------------------------------------------------------------------ registration

    def add_method(self, name: str, handler: Handler, inline: bool = False) -> None:
        """Registers a request handler; ``inline`` ones run on the reader thread and must be quick."""
        (self._inline if inline else self._handlers)[name] = handler

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    # ------------------------------------------------------------------ writing

    def _write(self, message: Dict[str, Any]) -> None:
        # ensure_ascii keeps every line pure ASCII: no byte of a message can look like a line break.
        data = (json.dumps(message, separators=(",", ":"), ensure_ascii=True, default=str) + "\n").encode("ascii")
        with self._write_lock:
            view = memoryview(data)
            while view:
                written = os.write(self._write_fd, view)
                view = view[written:]

    def write_raw(self, data: bytes) -> None:
        """Writes bytes as they are (tests use it to corrupt the stream on purpose)."""
        with self._write_lock:
            os.write(self._write_fd, data)

    def notify(self, method: str, params: Any = None) -> None:
        message: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        try:
            self._write(message)
        except OSError:
            pass  # the parent is gone; the reader thread notices and shuts down

    def request(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Any:
        """Calls the parent and blocks until it answers. Safe from any thread."""
        if self._closed.is_set():
            raise PeerClosed(f"protocol stream closed before {method}")
        request_id = next(self._ids)
        slot = _Slot()
        with self._pending_lock:
            self._pending[request_id] = slot
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            self._write(message)
        except OSError as error:
            with self._pending_lock:
                self._pending.pop(request_id, None)
            raise PeerClosed(f"cannot write {method}: {error}") from error
        if not slot.event.wait(timeout):
            with self._pending_lock:
                self._pending.pop(request_id, None)
            raise RpcTimeout(f"{method} got no answer within {timeout} s")
        if slot.error is not None:
            raise slot.error
        return slot.result

    def _respond(self, request_id: Any, result: Any = None, error: Optional[RpcError] = None) -> None:
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        if error is not None:
            message["error"] = error.to_json()
        else:
            message["result"] = result
        try:
            self._write(message)
        except OSError:
            pass

    # ------------------------------------------------------------------ reading

    def start(self) -> None:
        """Starts the reader thread (daemon: it must never keep the process alive)."""
        self._reader_thread = threading.Thread(target=self._read_loop, name="taubridge-rpc-reader", daemon=True)
        self._reader_thread.start()

    def _read_loop(self) -> None:
        try:
            while True:
                line = self._reader.readline()
                if not line:
                    break
                line = line.strip()
                if line:
                    self._receive(line)
        except (OSError, ValueError):
            pass
        finally:
            self._shutdown_pending()

    def _shutdown_pending(self) -> None:
        self._closed.set()
        with self._pending_lock:
            pending = list(self._pending.values())
            self._pending.clear()
        for slot in pending:
            slot.error = PeerClosed("the parent closed the protocol stream")
            slot.event.set()
        self._incoming.put(None)
        if self.on_close is not None:
            try:
                self.on_close()
            except Exception:
                pass

    def _receive(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            self._respond(None, error=RpcError(PARSE_ERROR, "Parse error"))
            return
        if not isinstance(message, dict):
            self._respond(None, error=RpcError(INVALID_REQUEST, "batches and non-object messages are not supported"))
            return
        if "method" in message:
            method = message.get("method")
            inline = self._inline.get(method) if isinstance(method, str) else None
            if inline is not None:
                self._dispatch(message, inline)
            else:
                self._incoming.put(message)
            return
        # A response to one of our requests.
        request_id = message.get("id")
        with self._pending_lock:
            slot = self._pending.pop(request_id, None) if isinstance(request_id, int) else None
        if slot is None:
            return
        if "error" in message and message["error"] is not None:
            error = message["error"] if isinstance(message["error"], dict) else {}
            slot.error = RpcError(int(error.get("code", INTERNAL_ERROR)), str(error.get("message", "error")), error.get("data"))
        else:
            slot.result = message.get("result")
        slot.event.set()

    # ------------------------------------------------------------------ serving

    def _dispatch(self, message: Dict[str, Any], handler: Optional[Handler] = None) -> None:
        method = message.get("method")
        has_id = "id" in message
        request_id = message.get("id")
        if handler is None:
            handler = self._handlers.get(method) if isinstance(method, str) else None
        if handler is None:
            if has_id:
                self._respond(request_id, error=RpcError(METHOD_NOT_FOUND, f"Method not found: {method}"))
            return
        try:
            result = handler(message.get("params"))
        except RpcError as error:
            if has_id:
                self._respond(request_id, error=error)
            return
        except (SystemExit, KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException as error:  # the handler's own failure: report it, keep serving
            if has_id:
                self._respond(
                    request_id,
                    error=RpcError(INTERNAL_ERROR, f"{type(error).__name__}: {error}", {"traceback": traceback.format_exc()}),
                )
            return
        if has_id:
            self._respond(request_id, result)

    def serve(self) -> None:
        """Runs queued requests on the calling thread until ``stop()`` or the stream ends."""
        while not self._stopping.is_set():
            message = self._incoming.get()
            if message is None:
                break
            self._dispatch(message)

    def stop(self) -> None:
        """Makes ``serve`` return after the request it is running."""
        self._stopping.set()
        self._incoming.put(None)
