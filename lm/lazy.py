"""Lazy exports for the packages' `__init__` files: a name is imported the first time it is
used, so `import lm` (or `from memory import MemoryKind`) does not pull in langchain, numpy or
torch, and a command that needs none of them starts fast."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def attach(
    package: str, exports: dict[str, tuple[str, ...]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of a package exporting `exports` (module -> names)."""
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(where)

    return __getattr__, __dir__
