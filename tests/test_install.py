"""The wheel installs beside other people's stacks: site-packages gets `mindstream` alone, and
OpenAI's Agents SDK (which imports as `agents`) installs beside it, each surviving the other's
removal. Built from this checkout, installed into a fresh virtualenv (dependencies are read
from this environment, so nothing heavy is downloaded; openai-agents comes from PyPI)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).parent.parent
pytestmark = pytest.mark.real_model  # minutes, not seconds: out of `make test-fast`


def _run(*command: str | Path, cwd: Path | None = None) -> str:
    result = subprocess.run(
        [str(c) for c in command], capture_output=True, text=True, cwd=cwd, timeout=900
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", out, REPO)  # fmt: skip
    (built,) = out.glob("mindstream-*.whl")
    return built


def test_the_wheel_holds_one_top_level_package_and_its_type_marker(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"mindstream"}, tops
    for layer in ("agents", "memory", "reflection", "sim", "lm", "lab"):
        assert f"mindstream/{layer}/__init__.py" in names, layer
    assert "mindstream/py.typed" in names
    for judge in ("change_judge", "change_judge_second"):
        assert f"mindstream/lm/adapters/{judge}/adapter_model.safetensors" in names, judge
    assert "mindstream/lm/adapters/change_gate/gate.json" in names
    assert "mindstream/lab/experiments/data/truth/heldout/lena.chat" in names


def test_it_installs_beside_openai_agents_and_each_survives_the_others_removal(
    wheel: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    site = Path(
        _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    )
    # the dependencies of this environment, read-only (its editable mindstream is not seen)
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = [python, "-m", "pip", "install", "-q"]
    _run(*pip, "--no-deps", wheel)
    _run(*pip, "openai-agents")  # with what it needs beyond this environment's packages
    both = (
        "import agents, mindstream.agents as ours; "
        "from mindstream.agents import Assistant; "
        "print(agents.__file__); print(ours.__file__); print(hasattr(agents, 'Agent'))"
    )
    theirs, ours, sdk = _run(python, "-c", both, cwd=tmp_path).split()
    assert "site-packages/agents/" in theirs and sdk == "True"
    assert "site-packages/mindstream/agents/" in ours
    _run(python, "-m", "pip", "uninstall", "-q", "-y", "openai-agents")
    _run(python, "-c", "from mindstream.agents import Assistant", cwd=tmp_path)
    _run(*pip, "openai-agents")
    _run(python, "-m", "pip", "uninstall", "-q", "-y", "mindstream")
    _run(python, "-c", "import agents; assert hasattr(agents, 'Agent')", cwd=tmp_path)
