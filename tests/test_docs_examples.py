"""Every Python example in README.md and docs/ runs (docs/results* are written by experiments
and hold none to run).

Each ```python block is run on its own, in a fresh namespace and an empty working folder; the
examples use the framework's fakes, so they are fast and offline. A block whose first line is
`# needs: real model` is not run (it loads the embedded model or a server): it must compile,
and its imports must resolve, so a renamed API still fails here.
"""

from __future__ import annotations

import ast
import linecache
import os
import re
import textwrap
from pathlib import Path
from types import CodeType

import pytest

ROOT = Path(__file__).resolve().parents[1]
REAL_MODEL = "# needs: real model"
# A fenced block opened by ```python (maybe indented, as inside a list), closed by ``` at the
# same indentation.
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```python[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S
)


class Example:
    def __init__(self, path: Path, line: int, code: str) -> None:
        self.path, self.line, self.code = path, line, code

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    def compiled(self) -> CodeType:
        """The block as code whose tracebacks show its lines (under the page's name)."""
        lines = self.code.splitlines(keepends=True)
        linecache.cache[self.name] = (len(self.code), None, lines, self.name)
        return compile(self.code, self.name, "exec")

    @property
    def needs_real_model(self) -> bool:
        first = self.code.lstrip().splitlines()[0] if self.code.strip() else ""
        return first.strip() == REAL_MODEL


def documented_files() -> list[Path]:
    docs = ROOT / "docs"
    pages = [
        p
        for p in sorted(docs.rglob("*.md"))
        if p != docs / "results.md" and (docs / "results") not in p.parents
    ]
    return [ROOT / "README.md", *pages]


def examples() -> list[Example]:
    found = []
    for path in documented_files():
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            code = textwrap.dedent(match.group("body"))
            found.append(Example(path, line, code))
    return found


EXAMPLES = examples()
RUNNABLE = [e for e in EXAMPLES if not e.needs_real_model]
REAL = [e for e in EXAMPLES if e.needs_real_model]


def test_the_docs_have_examples_and_most_of_them_run() -> None:
    assert len(EXAMPLES) >= 15, [e.name for e in EXAMPLES]
    assert any(e.path.name == "README.md" for e in RUNNABLE)
    assert len(REAL) <= len(RUNNABLE) // 3, [e.name for e in REAL]


@pytest.mark.parametrize("example", RUNNABLE, ids=[e.name for e in RUNNABLE])
def test_example_runs(example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # anything an example writes lands here
    for name in [n for n in os.environ if n.startswith("MINDSTREAM_")]:
        if name != "MINDSTREAM_THREADS":  # a developer's configuration is not the example's
            monkeypatch.delenv(name)
    exec(example.compiled(), {"__name__": f"docs_example_{example.line}"})


@pytest.mark.parametrize("example", REAL, ids=[e.name for e in REAL])
def test_real_model_example_compiles_and_imports(example: Example) -> None:
    tree = ast.parse(example.code, example.name)
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    assert imports, "an example shows where its names come from"
    module = ast.Module(body=imports, type_ignores=[])
    exec(compile(module, example.name, "exec"), {"__name__": f"docs_imports_{example.line}"})
