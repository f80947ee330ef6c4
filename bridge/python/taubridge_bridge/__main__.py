"""``python -m taubridge_bridge [serve | run <script.py | -m module> [args...]]``.

- ``serve`` (default): the bridge owns the main thread and drives the agent (``session.start``
  names the driver: FastWorkflow, or an ``entry`` callable). This is what the harness launches.
- ``run``: the hooks are installed and the bridge serves on a background thread, then the user's
  program runs unchanged as ``__main__`` (``runpy``), exactly like ``python script.py`` would.
"""

from __future__ import annotations

import os
import runpy
import sys

USAGE = "usage: python -m taubridge_bridge [serve | run <script.py | -m module> [args...]]"


def main(argv: list) -> int:
    from . import server

    if not argv or argv[0] == "serve":
        server.start(launch="module", background=False)
        return 0
    if argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if argv[0] != "run" or len(argv) < 2:
        sys.stderr.write(USAGE + "\n")
        return 2
    rest = argv[1:]
    server.start(launch="run", background=True)
    if rest[0] == "-m":
        if len(rest) < 2:
            sys.stderr.write(USAGE + "\n")
            return 2
        sys.argv = [rest[1], *rest[2:]]
        runpy.run_module(rest[1], run_name="__main__", alter_sys=True)
        return 0
    script = os.path.abspath(rest[0])
    sys.argv = [rest[0], *rest[1:]]
    sys.path.insert(0, os.path.dirname(script))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
