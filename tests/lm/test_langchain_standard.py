"""LangChain's own standard unit tests (`langchain-tests`) against mindstream's chat models and
embeddings: what a LangChain user's code and tracing expect of a model object. The
integration suites (real generations) are in tests/real/test_langchain_real.py."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests
from langchain_tests.unit_tests import ChatModelUnitTests, EmbeddingsUnitTests

from mindstream.lm.backends.embeddings import MiniLMEmbeddings
from mindstream.lm.backends.local import LocalChatModel, until_stop
from mindstream.lm.fakes import HashEmbeddings
from mindstream.lm.served.chat import ServedChatModel
from mindstream.memory import InMemoryStore, ManualClock, MemoryStream
from mindstream.memory.retriever import MemoryStreamRetriever
from tests.lm.chat_features import InProcessChatFeatures, MindstreamChatFeatures


class TestLocalChatModelUnit(InProcessChatFeatures, ChatModelUnitTests):
    @property
    def chat_model_class(self) -> type[LocalChatModel]:
        return LocalChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"model": "smollm2-135m"}


class TestServedChatModelUnit(MindstreamChatFeatures, ChatModelUnitTests):
    @property
    def chat_model_class(self) -> type[ServedChatModel]:
        return ServedChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"model": "smollm2", "base_url": "http://127.0.0.1:9/v1"}

    @property
    def init_from_env_params(self) -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
        """As ChatOpenAI: the server and key from OPENAI_BASE_URL and OPENAI_API_KEY."""
        env = {"OPENAI_BASE_URL": "http://127.0.0.1:8011/v1", "OPENAI_API_KEY": "sk-test"}
        return env, {"model": "smollm2"}, {"base_url": env["OPENAI_BASE_URL"], "api_key": "sk-test"}


class TestMiniLMEmbeddingsUnit(EmbeddingsUnitTests):
    @property
    def embeddings_class(self) -> type[MiniLMEmbeddings]:
        return MiniLMEmbeddings

    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return {}


def test_an_unknown_argument_is_refused_in_one_line_naming_it() -> None:
    with pytest.raises(TypeError, match=r"LocalChatModel: unknown argument 'max_length'"):
        LocalChatModel(max_length=5)


def test_standard_parameters_reach_the_generation_settings() -> None:
    model = LocalChatModel(max_tokens=5, temperature=0.0, stop=["\n"])
    settings = model._settings({})
    assert settings.max_new_tokens == 5 and settings.temperature == 0.0
    assert model._settings({"max_tokens": 7}).max_new_tokens == 7  # the call's wins
    params = model._get_ls_params(model="other")
    assert params["ls_model_name"] == "other" and params["ls_max_tokens"] == 5


def test_a_stream_stops_at_a_stop_string_split_across_pieces() -> None:
    pieces = iter(["Hello", " wor", "ld\nUs", "er: more"])
    assert "".join(until_stop(pieces, ["\nUser:"])) == "Hello world"
    assert "".join(until_stop(iter(["a", "b"]), [])) == "ab"


def test_a_served_model_built_from_the_environment_reaches_that_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8011/v1")
    model = ServedChatModel(model="smollm2", max_tokens=5, timeout=7)
    assert model.endpoint.url == "http://127.0.0.1:8011/v1" and model.endpoint.model == "smollm2"
    assert model.endpoint.config.timeout == 7 and model._options({})["max_tokens"] == 5
    with pytest.raises(TypeError, match=r"ServedChatModel: unknown argument 'max_length'"):
        ServedChatModel(model="smollm2", max_length=5)


class _FilledRetriever(MemoryStreamRetriever):
    """The retriever on a stream of twelve memories (the standard suite builds it bare)."""

    def __init__(self, **kwargs: Any) -> None:
        stream = MemoryStream(InMemoryStore(), HashEmbeddings(), clock=ManualClock())
        for n in range(12):
            stream.add(f"garden note {n}", owner="u", importance=5, kind="fact")
        super().__init__(memory_stream=stream, owner="u", **kwargs)


class TestMemoryStreamRetriever(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[_FilledRetriever]:
        return _FilledRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {}

    @property
    def retriever_query_example(self) -> str:
        return "garden"


def test_the_retriever_filters_per_call_by_kind_status_and_time() -> None:
    retriever = _FilledRetriever(k=5)
    stream = retriever.memory_stream
    later = stream.clock.now() + timedelta(days=1)
    plan = stream.add(
        "garden plan for spring", owner="u", importance=5, kind="plan", created_at=later
    )
    stream.forget(stream.records("u")[0].id)
    assert [d.id for d in retriever.invoke("garden plan", kinds=["plan"])] == [plan.id]
    everything = retriever.invoke("garden note 0", k=20, status="any")
    assert len(everything) == 13 and "forgotten" in {d.metadata["status"] for d in everything}
    assert len(retriever.invoke("garden", k=20)) == 12
    assert [d.id for d in retriever.invoke("garden", k=20, since=later)] == [plan.id]
    with pytest.raises(TypeError, match="unknown option 'limit'"):
        retriever.invoke("garden", limit=3)
