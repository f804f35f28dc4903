"""Where the lab looks by default when it runs from a checkout: the shared data beside the
repository, the repository's tests/data and docs/. Every command that reads them also takes
the path as a flag, so an installed package never depends on these."""

from __future__ import annotations

from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
SHARED_DATA = CHECKOUT.parent / "shared" / "data"
TEST_DATA = CHECKOUT / "tests" / "data"
DOCS = CHECKOUT / "docs"


def in_checkout() -> bool:
    """Whether the lab runs from a clone of the repository (not from site-packages)."""
    return (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "docs").is_dir()
