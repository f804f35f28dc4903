"""What LangChain users expect of a chat model's constructor, shared by mindstream's models."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel


def check_arguments(model: type[BaseChatModel], given: dict[str, Any]) -> None:
    """Refuse a constructor argument the model does not have, in one line naming it."""
    known = set(model.model_fields)
    known |= {f.alias for f in model.model_fields.values() if f.alias}
    unknown = sorted(set(given) - known)
    if unknown:
        raise TypeError(
            f"{model.__name__}: unknown argument {unknown[0]!r} "
            "(standard ones: model, max_tokens, temperature, stop, timeout, max_retries)"
        )
