"""Post-import hooks: run a callback right after a named module's body has executed.

Why a ``sys.meta_path`` finder and not a ``builtins.__import__`` wrapper:
- ``importlib.import_module`` (which plugin loaders, FastWorkflow's command routing among them, use)
  never goes through ``__import__``; every import system path does go through ``sys.meta_path``;
- the finder is consulted once per module (the first import), not on every ``import`` statement,
  so it costs nothing on the hot path;
- the callback runs after the module body and *before* the importer receives any name from it, so
  ``from fastworkflow.workflow_agent import _execute_workflow_query`` already sees the patched
  function; a wrapper around ``__import__`` would have to diff ``sys.modules`` after the fact.
The ``find_spec``/``exec_module`` protocol it relies on exists on every Python 3.4+.

The finder delegates the real lookup to the finders after it and wraps only the spec's loader, and
puts the original loader back on the module before executing it, so ``module.__loader__`` and
``module.__spec__.loader`` look exactly as without the hook.
"""

from __future__ import annotations

import sys
import threading
import traceback
from types import ModuleType
from typing import Callable, Dict, List

Callback = Callable[[ModuleType], None]

_lock = threading.RLock()
_callbacks: Dict[str, List[Callback]] = {}
_searching = threading.local()


def _run_callbacks(module: ModuleType) -> None:
    name = getattr(getattr(module, "__spec__", None), "name", None) or module.__name__
    with _lock:
        callbacks = list(_callbacks.get(name, ()))
    for callback in callbacks:
        try:
            callback(module)
        except Exception:  # a failed patch must never break the user's import
            sys.stderr.write(f"taubridge: post-import hook for {name} failed:\n{traceback.format_exc()}")


class _HookedLoader:
    """Wraps a loader for one import; delegates everything, then runs the module's callbacks."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: ModuleType) -> None:
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is self:
            spec.loader = self._loader
        if getattr(module, "__loader__", None) is self:
            module.__loader__ = self._loader
        self._loader.exec_module(module)
        _run_callbacks(module)

    def __getattr__(self, name: str):
        return getattr(self._loader, name)


class PostImportFinder:
    """The ``sys.meta_path`` entry. Returns a spec only for watched module names."""

    def find_spec(self, fullname: str, path=None, target=None):
        with _lock:
            watched = fullname in _callbacks
        if not watched:
            return None
        active = getattr(_searching, "names", None)
        if active is None:
            active = _searching.names = set()
        if fullname in active:
            return None
        active.add(fullname)
        try:
            spec = None
            for finder in list(sys.meta_path):
                if finder is self or isinstance(finder, PostImportFinder):
                    continue
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        finally:
            active.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _HookedLoader(spec.loader)
        return spec

    # Python < 3.10 may still call these on meta-path entries.
    def invalidate_caches(self) -> None:
        return None


_finder = PostImportFinder()


def install() -> None:
    """Puts the finder first on ``sys.meta_path`` (idempotent)."""
    if not any(isinstance(finder, PostImportFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _finder)


def when_imported(module_name: str, callback: Callback) -> None:
    """Runs ``callback(module)`` after ``module_name`` is imported, or now if it already is."""
    install()
    with _lock:
        _callbacks.setdefault(module_name, []).append(callback)
    module = sys.modules.get(module_name)
    if module is not None and getattr(module, "__spec__", None) is not None and not _is_initializing(module):
        try:
            callback(module)
        except Exception:
            sys.stderr.write(f"taubridge: post-import hook for {module_name} failed:\n{traceback.format_exc()}")


def watched() -> List[str]:
    with _lock:
        return sorted(_callbacks)


def _is_initializing(module: ModuleType) -> bool:
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", False))
