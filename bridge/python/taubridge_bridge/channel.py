"""The protocol stream, isolated from everything else the process prints or reads.

``stdio`` (default): the protocol keeps private duplicates of the original stdin/stdout; then fd 1
is pointed at stderr and fd 0 at ``/dev/null``. Every later write to stdout — ``print``, a
library's logging handler, ``sys.__stdout__``, even C code writing to fd 1 — lands on stderr, and
nothing can read (steal) protocol bytes from stdin.

``fd:N``: the parent passed a dedicated bidirectional descriptor (Node creates extra stdio pipes as
socket pairs); stdin and stdout stay the program's own, for programs that use them.
"""

from __future__ import annotations

import io
import os
import sys
from typing import BinaryIO, Tuple


def _dup_private(fd: int) -> int:
    duplicate = os.dup(fd)  # os.dup creates non-inheritable descriptors: child processes never get them
    os.set_inheritable(duplicate, False)
    return duplicate


def open_channel(spec: str) -> Tuple[BinaryIO, int, str]:
    """Returns (reader, write fd, normalized spec)."""
    spec = (spec or "stdio").strip()
    if spec == "stdio":
        for stream in (sys.stdout, sys.__stdout__):
            try:
                if stream is not None:
                    stream.flush()
            except Exception:
                pass
        read_fd = _dup_private(0)
        write_fd = _dup_private(1)
        os.dup2(2, 1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        # fd 1 now is stderr; make the Python-level stream follow it unbuffered-ish and in order.
        sys.stdout = sys.stderr
        try:
            sys.stdin = open(os.devnull, "r")
        except OSError:
            pass
        reader = io.open(read_fd, "rb", buffering=io.DEFAULT_BUFFER_SIZE, closefd=True)
        return reader, write_fd, "stdio"
    if spec.startswith("fd:"):
        fd = int(spec[3:])
        os.set_inheritable(fd, False)
        write_fd = _dup_private(fd)
        reader = io.open(fd, "rb", buffering=io.DEFAULT_BUFFER_SIZE, closefd=True)
        return reader, write_fd, spec
    raise ValueError(f"unknown channel {spec!r}; expected stdio or fd:N")
