"""Import-only stand-in (see `litellm/__init__.py`)."""


class Cache:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("litellm stand-in: Cache() constructed; the offline benchmark uses no model cache")
