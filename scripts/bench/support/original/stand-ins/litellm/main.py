"""Import-only stand-in (see `litellm/__init__.py`): type names used in annotations only."""


class ModelResponse(dict):
    pass


class Usage(dict):
    pass
