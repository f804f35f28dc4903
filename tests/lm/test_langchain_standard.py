"""LangChain's own standard unit tests (`langchain-tests`) against mindstream's chat models and
embeddings: what a LangChain user's code and tracing expect of a model object. The
integration suites (real generations) are in tests/real/test_langchain_real.py."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_tests.unit_tests import ChatModelUnitTests, EmbeddingsUnitTests

from mindstream.lm.embeddings import MiniLMEmbeddings
from mindstream.lm.local import LocalChatModel, until_stop


class TestLocalChatModelUnit(ChatModelUnitTests):
    @property
    def chat_model_class(self) -> type[LocalChatModel]:
        return LocalChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"model": "smollm2-135m"}

    @property
    def standard_chat_model_params(self) -> dict[str, Any]:
        """The standard ones but `api_key`: an in-process model has no key (and refuses one)."""
        return {k: v for k, v in super().standard_chat_model_params.items() if k != "api_key"}

    @property
    def has_tool_calling(self) -> bool:
        return False

    @property
    def has_structured_output(self) -> bool:
        return True


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
