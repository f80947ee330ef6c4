"""Stand-in of ``fastworkflow.command_routing``: finds a command's classes in ``<workflow>/_commands``."""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import Dict, List, Optional


class RoutingDefinition:
    def __init__(self, folderpath: str) -> None:
        self.folderpath = folderpath
        self._modules: Dict[str, object] = {}
        self._lock = threading.Lock()

    def command_names(self) -> List[str]:
        directory = os.path.join(self.folderpath, "_commands")
        names = []
        for root, _dirs, files in os.walk(directory):
            for file in files:
                if file.endswith(".py") and not file.startswith("_"):
                    relative = os.path.relpath(os.path.join(root, file), directory)
                    names.append(relative[:-3].replace(os.sep, "/"))
        return sorted(names)

    def _module(self, command_name: str) -> Optional[object]:
        with self._lock:
            if command_name in self._modules:
                return self._modules[command_name]
            path = os.path.join(self.folderpath, "_commands", *command_name.split("/")) + ".py"
            module = None
            if os.path.isfile(path):
                unique = f"_fw_standin_cmd_{abs(hash(path))}"
                spec = importlib.util.spec_from_file_location(unique, path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            self._modules[command_name] = module
            return module

    def get_command_class(self, command_name: str, module_type):
        from fastworkflow import ModuleType

        module = self._module(command_name)
        if module is None:
            return None
        if module_type is ModuleType.RESPONSE_GENERATION_INFERENCE:
            return getattr(module, "ResponseGenerator", None)
        signature = getattr(module, "Signature", None)
        if module_type is ModuleType.COMMAND_PARAMETERS_CLASS:
            return getattr(signature, "Input", None)
        if module_type is ModuleType.INPUT_FOR_PARAM_EXTRACTION_CLASS:
            return signature
        return None


class RoutingRegistry:
    _definitions: Dict[str, RoutingDefinition] = {}
    _lock = threading.Lock()

    @classmethod
    def get_definition(cls, folderpath: str) -> RoutingDefinition:
        with cls._lock:
            definition = cls._definitions.get(folderpath)
            if definition is None:
                definition = cls._definitions[folderpath] = RoutingDefinition(folderpath)
            return definition
