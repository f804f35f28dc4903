"""Build a chat model from a one-line spec, so every command and config names models alike."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from lm.accounting import CallLedger
from lm.config import DEFAULT_LOCAL_MODEL, DEFAULT_MODEL_SPEC, LocalModelConfig
from lm.errors import MissingExtraError, UnknownModelSpecError

SPEC_HELP = (
    "local:smollm2-135m (embedded default), hf:<local transformers folder>, "
    "openai:<model> (extra 'openai'), ollama:<model> (extra 'ollama')"
)


def resolve_model(
    spec: str = DEFAULT_MODEL_SPEC,
    *,
    settings: LocalModelConfig | None = None,
    ledger: CallLedger | None = None,
    **kwargs: Any,
) -> BaseChatModel:
    """`local:smollm2-135m` | `hf:<folder>` | `openai:<model>` | `ollama:<model>`."""
    scheme, _, name = spec.partition(":")
    if not name:
        raise UnknownModelSpecError(
            f"model spec {spec!r} has no name; expected one of: {SPEC_HELP}"
        )
    callbacks = [ledger.callback()] if ledger is not None else None
    if scheme in ("local", "hf"):
        return _local(scheme, name, settings or LocalModelConfig(), ledger, callbacks)
    if scheme == "openai":
        chat_openai = _optional("langchain_openai", "ChatOpenAI", "openai")
        return chat_openai(model=name, callbacks=callbacks, **kwargs)
    if scheme == "ollama":
        chat_ollama = _optional("langchain_ollama", "ChatOllama", "ollama")
        return chat_ollama(model=name, callbacks=callbacks, **kwargs)
    raise UnknownModelSpecError(
        f"unknown model scheme {scheme!r} in {spec!r}; expected {SPEC_HELP}"
    )


def _local(
    scheme: str,
    name: str,
    settings: LocalModelConfig,
    ledger: CallLedger | None,
    callbacks: list[Any] | None,
) -> BaseChatModel:
    from lm.local import LocalChatModel

    if scheme == "local" and name != DEFAULT_LOCAL_MODEL:
        raise UnknownModelSpecError(
            f"unknown embedded model {name!r}; the embedded default is {DEFAULT_LOCAL_MODEL!r}"
        )
    if scheme == "hf" and not (Path(name) / "config.json").is_file():
        raise UnknownModelSpecError(f"hf:{name}: no transformers model folder (config.json) there")
    return LocalChatModel(source=name, settings=settings, ledger=ledger, callbacks=callbacks)


def _optional(module: str, attribute: str, extra: str) -> Any:
    try:
        return getattr(importlib.import_module(module), attribute)
    except ImportError as error:
        raise MissingExtraError(
            f"this model needs the '{extra}' extra: pip install 'mindstream[{extra}]'"
        ) from error
