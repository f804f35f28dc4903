"""Package facades: every export written once (under `if TYPE_CHECKING:`), resolved lazily."""

from __future__ import annotations

import importlib

import pytest

from mindstream.lm.lazy import declared_exports

FACADES = tuple(
    f"mindstream.{name}"
    for name in ("lm", "memory", "reflection", "agents", "agents.generative", "agents.assistant")
)
FACADES += ("mindstream.agents.teachme", "mindstream.sim")


def test_declared_exports_reads_only_the_type_checking_block() -> None:
    source = (
        "from typing import TYPE_CHECKING\nimport os\n"
        "if TYPE_CHECKING:\n    from a.b import X, Y\n    from a.c import W\n"
    )
    assert declared_exports(source) == {"a.b": ("X", "Y"), "a.c": ("W",)}
    with pytest.raises(ValueError, match="no `as`"):
        declared_exports("if TYPE_CHECKING:\n    from a.b import Y as Z\n")


@pytest.mark.parametrize("name", FACADES)
def test_a_facade_exports_what_it_declares_and_each_name_resolves(name: str) -> None:
    package = importlib.import_module(name)
    assert package.__all__ and sorted(package.__all__) == sorted(dir(package))
    for export in package.__all__:
        assert getattr(package, export) is not None
    with pytest.raises(AttributeError):
        _ = package.not_an_export
