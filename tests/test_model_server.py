"""The vLLM server is started with the model's own context length (a reflection over 100
memories runs past 2048 tokens), read from the model folder's config.json."""

from __future__ import annotations

import json
from pathlib import Path

from mindstream.lm.server import VllmServer, model_context


def test_the_engine_gets_the_context_length_the_model_declares(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"max_position_embeddings": 8192}))
    command = VllmServer(tmp_path, adapters=False).command()
    assert command[command.index("--max-model-len") + 1] == "8192"
    assert VllmServer(tmp_path, adapters=False, max_model_len=1024).max_model_len == 1024


def test_a_folder_without_a_readable_config_falls_back(tmp_path: Path) -> None:
    assert model_context(tmp_path) == 2048
    (tmp_path / "config.json").write_text("{not json")
    assert model_context(tmp_path) == 2048
