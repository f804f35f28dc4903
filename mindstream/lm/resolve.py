"""Build a chat model and its scorer from a one-line spec, so every command names models alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from mindstream.lm.accounting import CallLedger
from mindstream.lm.config import (
    DEFAULT_LOCAL_MODEL,
    DEFAULT_MODEL_SPEC,
    LocalModelConfig,
    ModelConfig,
)
from mindstream.lm.errors import UnknownModelSpecError
from mindstream.lm.scoring.scorer import Scorer

SPEC_HELP = (
    "local:smollm2-135m (embedded default), hf:<local transformers folder>, "
    "openai:<model> (any OpenAI-compatible server, with --base-url), "
    "ollama:<model> (Ollama's OpenAI-compatible /v1)"
)


def resolve_model(
    spec: str = DEFAULT_MODEL_SPEC,
    *,
    settings: LocalModelConfig | None = None,
    ledger: CallLedger | None = None,
    config: ModelConfig | None = None,
) -> BaseChatModel:
    """`local:smollm2-135m` | `hf:<folder>` | `openai:<model>` | `ollama:<model>`.

    `config` carries the server's URL and limits for served specs (its `spec` is ignored).
    """
    scheme, _, name = spec.partition(":")
    if not name:
        raise UnknownModelSpecError(
            f"model spec {spec!r} has no name; expected one of: {SPEC_HELP}"
        )
    model_config = (config or ModelConfig()).model_copy(update={"spec": spec})
    callbacks = [ledger.callback()] if ledger is not None else None
    if scheme in ("local", "hf"):
        local = settings or model_config.local
        return _local(scheme, name, local, ledger, callbacks)
    if scheme in ("openai", "ollama"):
        from mindstream.lm.served.chat import ServedChatModel

        return ServedChatModel(endpoint=endpoint_of(model_config), callbacks=callbacks)
    raise UnknownModelSpecError(
        f"unknown model scheme {scheme!r} in {spec!r}; expected {SPEC_HELP}"
    )


def endpoint_of(config: ModelConfig) -> Any:
    """The server endpoint a served spec names."""
    from mindstream.lm.served.endpoint import Endpoint

    return Endpoint(
        url=config.base_url(), model=config.spec.partition(":")[2], config=config.served
    )


def resolve_scorer(
    model: BaseChatModel, config: ModelConfig, ledger: CallLedger | None = None
) -> Scorer:
    """The scorer of a model: the local model scores itself; a served one is probed once
    (or asked through the path `config.scorer` names)."""
    if not config.is_served:
        if config.scorer not in ("auto", "local"):
            raise UnknownModelSpecError(
                f"scorer {config.scorer!r} needs a served model; {config.spec} scores locally"
            )
        if not isinstance(model, Scorer):
            raise UnknownModelSpecError(f"{config.spec} cannot score")
        return model
    from mindstream.lm.served.scorer import served_scorer

    return served_scorer(endpoint_of(config), config.scorer, ledger)


def _local(
    scheme: str,
    name: str,
    settings: LocalModelConfig,
    ledger: CallLedger | None,
    callbacks: list[Any] | None,
) -> BaseChatModel:
    from mindstream.lm.backends.local import LocalChatModel

    if scheme == "local" and name != DEFAULT_LOCAL_MODEL:
        raise UnknownModelSpecError(
            f"unknown embedded model {name!r}; the embedded default is {DEFAULT_LOCAL_MODEL!r}"
        )
    if scheme == "hf" and not (Path(name) / "config.json").is_file():
        raise UnknownModelSpecError(f"hf:{name}: no transformers model folder (config.json) there")
    return LocalChatModel(source=name, settings=settings, ledger=ledger, callbacks=callbacks)
