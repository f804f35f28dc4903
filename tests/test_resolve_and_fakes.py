"""resolve_model's specs and errors, the real-model guard, and the fakes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mindstream.lm import (
    ModelConfig,
    RealModelForbiddenError,
    ServedConfig,
    UnknownModelSpecError,
    resolve_model,
)
from mindstream.lm.backends.local import LocalChatModel
from mindstream.lm.config import OLLAMA_BASE_URL
from mindstream.lm.fakes import HashEmbeddings, ScriptedChatModel
from mindstream.lm.served.chat import ServedChatModel


@pytest.mark.parametrize("spec", ["smollm2", "foo:bar", "local:gpt-5", "local:"])
def test_bad_specs_are_refused(spec: str) -> None:
    with pytest.raises(UnknownModelSpecError):
        resolve_model(spec)


def test_hf_spec_needs_a_model_folder(tmp_path: Path) -> None:
    with pytest.raises(UnknownModelSpecError, match=r"config\.json"):
        resolve_model(f"hf:{tmp_path}")
    (tmp_path / "config.json").write_text("{}")
    model = resolve_model(f"hf:{tmp_path}")
    assert isinstance(model, LocalChatModel) and model.source == str(tmp_path)


def test_local_spec_builds_lazily_without_loading() -> None:
    model = resolve_model("local:smollm2-135m")
    assert isinstance(model, LocalChatModel)


def test_unit_tests_cannot_load_the_real_model() -> None:
    with pytest.raises(RealModelForbiddenError):
        resolve_model("local:smollm2-135m").invoke("hi")


def test_served_specs_name_their_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
    model = resolve_model("openai:my-model")
    assert isinstance(model, ServedChatModel)
    assert (model.endpoint.url, model.endpoint.model) == ("http://127.0.0.1:9/v1", "my-model")
    configured = ModelConfig(served=ServedConfig(base_url="http://10.0.0.2:8000/v1"))
    assert resolve_model("openai:m", config=configured).endpoint.url == "http://10.0.0.2:8000/v1"
    ollama = resolve_model("ollama:llama3")
    assert (ollama.endpoint.url, ollama.endpoint.model) == (OLLAMA_BASE_URL, "llama3")


def test_scripted_model_serves_lists_in_turn() -> None:
    model = ScriptedChatModel(rules={"plan": ["first", "second"]}, default="?")
    assert [model.invoke("plan it").text for _ in range(3)] == ["first", "second", "second"]
    assert model.invoke("other").text == "?"


def test_hash_embeddings_are_normalised_and_overlap_means_similar() -> None:
    vectors = HashEmbeddings().embed_array(["party at the cafe", "the cafe party", "tax law"])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
