"""LangChain's standard integration suites (`langchain-tests`) against the embedded model in
process: invoke, stream, batch, async, usage metadata, stop sequences, structured output, as
a LangChain user's code runs them. (Tool calling, images, audio and PDFs are declared not
supported and skipped by the suite.)"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_tests.integration_tests import ChatModelIntegrationTests

from mindstream.lm.local import LocalChatModel

pytestmark = pytest.mark.real_model


class TestLocalChatModelIntegration(ChatModelIntegrationTests):
    @property
    def chat_model_class(self) -> type[LocalChatModel]:
        return LocalChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"model": "smollm2-135m", "temperature": 0.0, "max_tokens": 40}

    @property
    def standard_chat_model_params(self) -> dict[str, Any]:
        return {k: v for k, v in super().standard_chat_model_params.items() if k != "api_key"}

    @property
    def has_tool_calling(self) -> bool:
        return False

    @property
    def has_structured_output(self) -> bool:
        return True

    @property
    def supports_json_mode(self) -> bool:
        return False
