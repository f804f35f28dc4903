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


def two_town_ticks(out: Path) -> list[str]:
    """`sim run` of two of smallville's residents for two 10-minute ticks into `out`, without
    the final interviews: the town the tests run through a real model server."""
    two = str(DATA / "smallville_two.yaml")
    return ["sim", "run", two, "--hours", "0.34", "--out", str(out), "--no-interviews"]


@pytest.fixture(autouse=True)
def _forbid_real_models_in_unit_tests(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if request.node.get_closest_marker("real_model") is None:
        from mindstream.lm.backends import loading

        monkeypatch.setattr(loading, "guard_real_model_load", loading.forbid_real_model_load)


@pytest.fixture(scope="session")
def real_chat_model():  # type: ignore[no-untyped-def]
    from mindstream.lm.backends.local import LocalChatModel

    model = LocalChatModel()
    model.backend  # noqa: B018  # load once, up front
    return model


@pytest.fixture(scope="session")
def real_embedder():  # type: ignore[no-untyped-def]
    from mindstream.lm.backends.embeddings import MiniLMEmbeddings

    return MiniLMEmbeddings()


@pytest.fixture(scope="module")
def model_server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A real `transformers serve` with the embedded model on a loopback port, for the module
    that uses it: with continuous batching it grows to 10-15 GB, so it must be gone before the
    next server or the replica set starts (both at once ran the suite out of memory).

    Its first chat request sets up continuous batching (seconds), so it is made here.
    """
    import httpx

    from mindstream.lm.backends.loading import cached_smollm2_dir
    from mindstream.lm.config import LocalModelConfig
    from mindstream.lm.served.server import ModelServer

    log = tmp_path_factory.mktemp("model-server") / "server.log"
    server = ModelServer(cached_smollm2_dir(LocalModelConfig().cache_dir), threads=1, log=log)
    server.start(timeout=240)
    body = {"model": server.model, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}
    httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=120).raise_for_status()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def vllm_server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """vLLM's CPU engine (`make engine`) with the embedded model in float32, for the module
    that uses it (4.5 GB; see `model_server`). Its first start compiles the model (about a
    minute, cached after)."""
    from mindstream.lm.backends.loading import cached_smollm2_dir
    from mindstream.lm.config import LocalModelConfig
    from mindstream.lm.served.server import ENGINE_HINT, VllmServer, engine_python

    if not engine_python().is_file():
        pytest.skip(ENGINE_HINT)
    log = tmp_path_factory.mktemp("vllm") / "server.log"
    server = VllmServer(cached_smollm2_dir(LocalModelConfig().cache_dir), threads=1, log=log)
    server.start(timeout=600)
    yield server
    server.stop()
