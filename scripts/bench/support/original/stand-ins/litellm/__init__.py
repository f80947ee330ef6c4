"""Import-only stand-in for `litellm`, for taubridge's offline benchmark of the original code.

The original τ²-bench imports litellm at module level (its LLM helper module), so none of its
environment or evaluator modules can be imported without it. The benchmark's work makes no model
call: the stand-in provides only the names that are read or assigned at import time, and every
function that would talk to a model raises. It is never to be used for anything else.
"""

client_session = None
aclient_session = None
success_callback: list = []
drop_params = False
cache = None


class StandInError(RuntimeError):
    pass


def _refuse(name):
    def refuse(*args, **kwargs):
        raise StandInError(f"litellm stand-in: {name}() called; the offline benchmark makes no model call")

    refuse.__name__ = name
    return refuse


completion = _refuse("completion")
completion_cost = _refuse("completion_cost")
enable_cache = _refuse("enable_cache")


def disable_cache():
    """Called at import time by the original when its cache setting is off: a no-op here."""
    return None
