"""LangChain's standard integration suites (`langchain-tests`) against the embedded model in
process: invoke, stream, batch, async, usage metadata, stop sequences, structured output, as
a LangChain user's code runs them. (Tool calling, images, audio and PDFs are declared not
supported and skipped by the suite.)"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_tests.integration_tests import ChatModelIntegrationTests

from mindstream.lm.backends.local import LocalChatModel
from tests.lm.chat_features import InProcessChatFeatures

pytestmark = pytest.mark.real_model


class TestLocalChatModelIntegration(InProcessChatFeatures, ChatModelIntegrationTests):
    @property
    def chat_model_class(self) -> type[LocalChatModel]:
        return LocalChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"model": "smollm2-135m", "temperature": 0.0, "max_tokens": 40}
