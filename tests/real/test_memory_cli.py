"""`mindstream memory` end to end on a real store, real embeddings and real model ratings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindstream.cli import app

pytestmark = pytest.mark.real_model


def test_add_search_forget_stats(tmp_path: Path) -> None:
    runner = CliRunner()
    store = str(tmp_path / "store")

    def run(*args: str) -> str:
        result = runner.invoke(app, ["memory", *args, "--store", store])
        assert result.exit_code == 0, result.output
        return result.output

    added = run("add", "Isabella is planning a party at Hobbs Cafe", "--owner", "isabella")
    assert "importance" in added
    swept = run("add", "Isabella swept the floor", "--owner", "isabella", "--importance", "2")
    memory_id, swept_id = added.split()[1], swept.split()[1]
    found = run("search", "party", "--owner", "isabella", "-k", "2")
    assert found.index(memory_id[:8]) < found.index(swept_id[:8])
    assert "forgot" in run("forget", memory_id[:10])
    assert "forgotten 1" in run("stats")


def test_threads_apply_when_only_the_embedder_loads(tmp_path: Path) -> None:
    """`memory add --importance` loads no chat model and no torch (the embedder runs on
    onnxruntime); MINDSTREAM_THREADS still sets its threads."""
    code = (
        "import gc, sys; from typer.testing import CliRunner; from mindstream.cli import app; "
        f"r = CliRunner().invoke(app, ['memory', 'add', 'x', '--store', '{tmp_path / 's'}', "
        "'--importance', '3']); assert r.exit_code == 0, r.output; "
        "from mindstream.lm.backends.onnx_embedder import OnnxMiniLM; "
        "s = [o for o in gc.get_objects() if isinstance(o, OnnxMiniLM)]; "
        "print(s[0].session.get_session_options().intra_op_num_threads, "
        "'torch' in sys.modules, 'mindstream.lm.backends.causal_lm' in sys.modules)"
    )
    env = {**os.environ, "MINDSTREAM_THREADS": "1", "OMP_NUM_THREADS": ""}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "False", "False"]  # one thread; no torch, no chat model
