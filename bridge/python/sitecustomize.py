"""taubridge's ``sitecustomize``: bridge any ``python ...`` command line without changing it.

Put ``bridge/python`` first on ``PYTHONPATH`` and set ``TAUBRIDGE_BRIDGE=1``: ``site`` imports this
module at interpreter start-up, which installs the post-import hooks and serves the bridge on a
background thread while the program runs as usual. Without the flag it only chain-loads.

Chain-loading: this file shadows any other ``sitecustomize`` (Debian ships one in
``/etc/python3.X``), so it first executes the next ``sitecustomize.py`` found on ``sys.path`` after
this directory, keeping the interpreter's own start-up behaviour. ``-I``/``-E`` ignore
``PYTHONPATH`` and ``-S`` disables ``site``: those interpreters cannot be bridged this way (use
``python -m taubridge_bridge run ...``).
"""


def _chain_load() -> None:
    import importlib.util
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    seen_self = False
    for entry in list(sys.path):
        directory = os.path.abspath(entry or os.getcwd())
        if directory == here:
            seen_self = True
            continue
        if not seen_self:
            continue
        candidate = os.path.join(directory, "sitecustomize.py")
        if os.path.isfile(candidate) and os.path.abspath(candidate) != os.path.abspath(__file__):
            spec = importlib.util.spec_from_file_location("_taubridge_chained_sitecustomize", candidate)
            if spec is None or spec.loader is None:
                return
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as error:  # as site.py does: report, never abort start-up
                sys.stderr.write(f"Error in chained sitecustomize {candidate}: {error!r}\n")
            return


def _autostart() -> None:
    import os
    import sys

    if os.environ.get("TAUBRIDGE_BRIDGE") != "1":
        return
    # Only the process the harness started: Python children it spawns inherit the environment
    # but must not try to open the parent's channel a second time.
    os.environ["TAUBRIDGE_BRIDGE"] = "0"
    try:
        from taubridge_bridge import server

        server.start(launch="sitecustomize", background=True)
    except Exception as error:
        sys.stderr.write(f"taubridge: bridge start-up failed: {error!r}\n")


_chain_load()
_autostart()
