"""Put this folder first on PYTHONPATH and the interpreter behaves as if PyTorch, sentence-transformers
and transformers were not installed (the default, torch-free install): importing them raises
ModuleNotFoundError, and so does looking for them (``importlib.util.find_spec``)."""

import importlib.abc
import sys

BLOCKED = {"torch", "sentence_transformers", "transformers", "triton"}


class _Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: torch-free check)", name=name)
        return None


sys.meta_path.insert(0, _Block())
