"""Test set-up: offline, one torch thread, real models only in `real_model` tests.

The real chat model and embedder are loaded once per session (the loaders cache per process).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("MINDSTREAM_THREADS", "1")

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).parent.parent


@pytest.fixture(autouse=True)
def _forbid_real_models_in_unit_tests(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if request.node.get_closest_marker("real_model") is None:
        import lm.loading

        monkeypatch.setattr(lm.loading, "guard_real_model_load", lm.loading.forbid_real_model_load)


@pytest.fixture(scope="session")
def real_chat_model():  # type: ignore[no-untyped-def]
    from lm.local import LocalChatModel

    model = LocalChatModel()
    model.backend  # noqa: B018  # load once, up front
    return model


@pytest.fixture(scope="session")
def real_embedder():  # type: ignore[no-untyped-def]
    from lm.embeddings import MiniLMEmbeddings

    return MiniLMEmbeddings()
