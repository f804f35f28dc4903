"""The layer rules of docs/DESIGN.md: first-party packages resolve here, imports flow one way."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parent.parent
PACKAGE = REPO / "mindstream"
# Layers, lowest first: `mindstream.<layer>`; "front" is the rest of `mindstream` (the command
# line, the service, composition). The four folders the project's layout names sit at the
# repository root and are linked into the package (mindstream/memory -> ../memory, ...).
SUBLAYERS = ["lm", "memory", "reflection", "agents", "sim"]
LAYERS = [*SUBLAYERS, "front", "lab"]
OLD_TOP_LEVELS = {"lm", "memory", "reflection", "agents", "sim", "lab"}


def layer_files(layer: str) -> list[Path]:
    if layer != "front":
        return sorted((PACKAGE / layer).rglob("*.py"))
    inner = {PACKAGE / name for name in [*SUBLAYERS, "lab"]}
    return sorted(p for p in PACKAGE.rglob("*.py") if not any(p.is_relative_to(i) for i in inner))


def layer_of(module: str) -> str | None:
    """The layer a first-party module belongs to (None: not first-party)."""
    parts = module.split(".")
    if parts[0] != "mindstream":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "front"


@pytest.mark.parametrize("package", [*SUBLAYERS, "lab"])
def test_package_resolves_to_this_repository(package: str) -> None:
    spec = importlib.util.find_spec(f"mindstream.{package}")
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin).resolve().is_relative_to(REPO.resolve()), spec.origin


def test_no_generic_top_level_package_is_importable_outside_the_repository(
    tmp_path: Path,
) -> None:
    """Installed, mindstream is one name: `agents`, `memory`, ... belong to other packages."""
    code = (
        "import importlib.util, sys; "
        f"found = [n for n in {sorted(OLD_TOP_LEVELS)!r} "
        "if (s := importlib.util.find_spec(n)) and 'mindstream' in str(s.origin)]; "
        "print(found); sys.exit(1 if found else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _imported_layers(path: Path) -> set[str]:
    return {layer for m in _imported_modules(path) if (layer := layer_of(m)) is not None}


@pytest.mark.parametrize("package", LAYERS)
def test_imports_only_flow_downward(package: str) -> None:
    forbidden = set(LAYERS[LAYERS.index(package) + 1 :])
    offenders = {
        f"{path.relative_to(REPO)} imports {sorted(_imported_layers(path) & forbidden)}"
        for path in layer_files(package)
        if _imported_layers(path) & forbidden
    }
    assert not offenders


def test_nothing_imports_the_old_top_level_names() -> None:
    files = [p for p in REPO.rglob("*.py") if ".venv" not in p.parts and ".engine" not in p.parts]
    offenders = sorted(
        f"{p.relative_to(REPO)}: {m}"
        for p in files
        for m in _imported_modules(p)
        if m.split(".")[0] in OLD_TOP_LEVELS
    )
    assert not offenders


def test_layer_check_catches_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from mindstream.agents import GenerativeAgent\nimport mindstream.sim.world\n")
    assert _imported_layers(bad) == {"agents", "sim"}


@pytest.mark.parametrize("package", ["lm", "memory", "reflection"])
def test_importing_light_layers_does_not_import_torch(package: str) -> None:
    code = (
        f"import sys, mindstream.{package}; "
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


def _module_graph() -> dict[str, set[str]]:
    """Module -> the first-party modules it imports (at the top, in a function or for typing
    only); package facades (`__init__`, lazy) are left out as targets."""
    files = {
        ".".join(path.relative_to(REPO).with_suffix("").parts): path
        for layer in LAYERS
        for path in layer_files(layer)
        if path.name != "__init__.py"
    }
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    target = full if full in files else node.module
                    if target in files and target != name:
                        graph[name].add(target)
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in files}
    return graph


def test_no_two_modules_import_each_other_even_for_typing() -> None:
    graph = _module_graph()
    reach: dict[str, set[str]] = {}

    def reachable(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen

    for name in graph:
        reach[name] = reachable(name)
    circles = sorted(name for name in graph if name in reach[name])
    assert not circles, f"modules on an import circle: {circles}"
