"""What mindstream's chat models declare to LangChain's standard suites (unit, and integration
in process and over vLLM): one place, so the four test classes cannot drift apart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a plain mixin at run time: langchain-tests refuses a second suite base
    from langchain_tests.unit_tests.chat_models import ChatModelTests as _Suite
else:
    _Suite = object


class MindstreamChatFeatures(_Suite):
    """No tool calling and no provider JSON mode; structured output through a JSON form with
    a prefilled opening (`mindstream.lm.structured`)."""

    @property
    def has_tool_calling(self) -> bool:
        return False

    @property
    def has_structured_output(self) -> bool:
        return True

    @property
    def supports_json_mode(self) -> bool:
        return False


class InProcessChatFeatures(MindstreamChatFeatures):
    """The embedded model: the standard parameters but `api_key` (it has none, and refuses
    one)."""

    @property
    def standard_chat_model_params(self) -> dict[str, Any]:
        return {k: v for k, v in super().standard_chat_model_params.items() if k != "api_key"}
