"""Lazy exports for the packages' `__init__` files: a name is imported the first time it is
used, so `import lm` (or `from memory import MemoryKind`) does not pull in langchain, numpy or
torch, and a command that needs none of them starts fast."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
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


def attach_declared(
    package: str, init_file: str
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """`attach` for the names a package's `__init__` imports under `if TYPE_CHECKING:` (read
    from its source), and its `__all__`: each export is written once, where type checkers and
    readers look for it."""
    exports = declared_exports(Path(init_file).read_text())
    getattr_, dir_ = attach(package, exports)
    return getattr_, dir_, sorted(name for names in exports.values() for name in names)


def declared_exports(source: str) -> dict[str, tuple[str, ...]]:
    """module -> names of the `from module import name` lines under `if TYPE_CHECKING:`."""
    exports: dict[str, tuple[str, ...]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for line in node.body:
                if isinstance(line, ast.ImportFrom) and line.module:
                    if any(alias.asname not in (None, alias.name) for alias in line.names):
                        where = line.module
                        raise ValueError(f"{where}: a facade exports names as they are (no `as`)")
                    names = tuple(alias.name for alias in line.names)
                    exports[line.module] = exports.get(line.module, ()) + names
    return exports
