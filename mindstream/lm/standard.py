"""What LangChain users expect of a chat model's constructor, shared by mindstream's models."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import LangSmithParams


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


def ls_params(
    provider: str,
    model: str,
    kwargs: dict[str, Any],
    temperature: float | None,
    max_tokens: int | None,
    stop: list[str] | None,
) -> LangSmithParams:
    """What tracing records of a call: the model (a per-call `model=` wins) and its settings."""
    return LangSmithParams(
        ls_provider=provider,
        ls_model_name=str(kwargs.get("model") or model),
        ls_model_type="chat",
        ls_temperature=temperature,
        ls_max_tokens=max_tokens,
        ls_stop=stop or None,
    )
