"""resolve_model's specs and errors, the real-model guard, and the fakes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lm import (
    MissingExtraError,
    RealModelForbiddenError,
    UnknownModelSpecError,
    resolve_model,
)
from lm.fakes import HashEmbeddings, ScriptedChatModel
from lm.local import LocalChatModel


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


def test_missing_extra_names_the_extra() -> None:
    pytest.importorskip("pytest")  # always present; the branch below depends on the extra
    try:
        import langchain_openai  # noqa: F401
    except ImportError:
        with pytest.raises(MissingExtraError, match=r"mindstream\[openai\]"):
            resolve_model("openai:gpt-4o-mini")
    else:
        assert resolve_model("openai:gpt-4o-mini", api_key="x") is not None


def test_scripted_model_serves_lists_in_turn() -> None:
    model = ScriptedChatModel(rules={"plan": ["first", "second"]}, default="?")
    assert [model.invoke("plan it").text for _ in range(3)] == ["first", "second", "second"]
    assert model.invoke("other").text == "?"


def test_hash_embeddings_are_normalised_and_overlap_means_similar() -> None:
    vectors = HashEmbeddings().embed_array(["party at the cafe", "the cafe party", "tax law"])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
