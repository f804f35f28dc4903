"""The layer rules of docs/DESIGN.md: first-party packages resolve here, imports flow one way."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parent.parent
LAYERS = ["lm", "memory", "reflection", "agents", "sim", "mindstream", "lab"]


@pytest.mark.parametrize("package", LAYERS)
def test_package_resolves_to_this_repository(package: str) -> None:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin).resolve().is_relative_to(REPO.resolve()), spec.origin


def _imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", LAYERS)
def test_imports_only_flow_downward(package: str) -> None:
    forbidden = set(LAYERS[LAYERS.index(package) + 1 :])
    offenders = {
        f"{path.relative_to(REPO)} imports {sorted(_imported_top_levels(path) & forbidden)}"
        for path in (REPO / package).rglob("*.py")
        if _imported_top_levels(path) & forbidden
    }
    assert not offenders


def test_layer_check_catches_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from agents import GenerativeAgent\nimport sim.world\n")
    assert _imported_top_levels(bad) == {"agents", "sim"}


@pytest.mark.parametrize("package", ["lm", "memory", "reflection"])
def test_importing_light_layers_does_not_import_torch(package: str) -> None:
    code = (
        f"import sys, {package}; "
        "heavy = [m for m in ('torch', 'transformers', 'sentence_transformers') "
        "if m in sys.modules]; "
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_command_line_loads_no_model_stack_until_a_command_needs_it() -> None:
    """`mindstream --help` and the `--server` commands stay fast: no torch, langchain, numpy
    or chromadb is imported just to build the command line."""
    code = (
        "import sys, mindstream.cli; "
        "heavy = [m for m in ('torch', 'transformers', 'langchain_core', 'numpy', 'chromadb', "
        "'httpx') if m in sys.modules]; print(heavy); sys.exit(1 if heavy else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr
