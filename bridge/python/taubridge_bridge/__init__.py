"""taubridge's Python bridge (stdlib only).

Runs inside the Python process of an agent under test and connects it to the taubridge harness
(the Node parent) over JSON-RPC 2.0. The agent's code is not changed: a post-import hook patches
the framework's tool-execution entrypoint when the framework imports it, the patch plans only
(tool name + validated parameters), and the harness executes the call against its benchmark
environment and returns the observation as the tool result.

Entry points:
- ``python -m taubridge_bridge [serve]``: the harness launches the bridge, which drives the agent;
- ``python -m taubridge_bridge run <script.py | -m module> [args...]``: runs the user's program
  with the bridge serving on a background thread;
- ``sitecustomize.py`` (next to this package, on ``PYTHONPATH``) with ``TAUBRIDGE_BRIDGE=1``: the
  same as ``run`` for any ``python`` command line, without changing it.
"""

from __future__ import annotations

#: Bumped when a message shape changes; the Node side refuses a different version.
PROTOCOL_VERSION = 1
__version__ = "0.1.0"

__all__ = ["PROTOCOL_VERSION", "__version__"]
