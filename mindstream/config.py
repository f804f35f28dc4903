"""`MindstreamConfig`: one frozen configuration for everything mindstream builds.

Read from a YAML file, then the environment, then command-line flags, each overriding the one
before. A bad value is reported as one line naming where it came from and the field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mindstream.agents.assistant.config import AssistantConfig
from mindstream.agents.teachme.config import TeachMeConfig
from mindstream.lm.config import ModelConfig
from mindstream.memory.records import StreamConfig
from mindstream.reflection.config import ReFeedConfig, ReflectionConfig, SelfRefineConfig
from mindstream.service.config import ServiceConfig
from mindstream.sim.config import BelievabilityConfig, SimConfig

ENV_PREFIX = "MINDSTREAM_"
# Variables with a meaning of their own, and where they land in the configuration.
ENV_SHORTCUTS = {
    "MINDSTREAM_MODEL": ("model", "spec"),
    "MINDSTREAM_SCORER": ("model", "scorer"),
    "MINDSTREAM_BASE_URL": ("model", "served", "base_url"),
    "OPENAI_BASE_URL": ("model", "served", "base_url"),
    "MINDSTREAM_THREADS": ("model", "local", "threads"),
}


class ConfigError(ValueError):
    """The configuration cannot be used; the message names the source and the field."""


class EmbedderConfig(BaseModel):
    """The sentence embedder: the embedded all-MiniLM-L6-v2 (its threads: `model.local`), by
    default with the shipped dialogue-retrieval adapter (`mindstream train retriever`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Literal["minilm-dialogue", "minilm"] = Field(
        "minilm-dialogue",
        description="minilm-dialogue: tuned to find the chat turn a question needs; minilm: stock",
    )
    batch_size: int = Field(64, ge=1)
    backend: Literal["auto", "onnx", "torch"] = Field(
        "auto", description="onnx: onnxruntime, no torch import; torch: sentence-transformers"
    )


class StoreConfig(BaseModel):
    """Where memories live: a chromadb folder (the default), a chroma server, or memory only."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["chroma", "chroma-server", "memory"] = "chroma"
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    memory_host: str | None = Field(
        None, description="the host of `memory_port`'s server, when not `host`"
    )
    memory_port: int | None = Field(
        None,
        ge=1,
        le=65535,
        description="another chroma server for the memories (`port`'s keeps the user registry"
        " and TeachMe): this process's store when a replica set spreads over several",
    )


class MindstreamConfig(BaseModel):
    """Model, scorer, embedder, store, retrieval policy per use (`stream` for memory commands,
    `sim.stream` for towns, `assistant.stream` for an assistant's months), reflection,
    refinement, TeachMe, the sandbox and the assistant: every tuning number in one place."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: ModelConfig = Field(default_factory=ModelConfig)
    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    stream: StreamConfig = Field(default_factory=StreamConfig)
    reflection: ReflectionConfig = Field(default_factory=ReflectionConfig)
    refine: SelfRefineConfig = Field(default_factory=SelfRefineConfig)
    refeed: ReFeedConfig = Field(default_factory=ReFeedConfig)
    teachme: TeachMeConfig = Field(default_factory=TeachMeConfig)
    sim: SimConfig = Field(default_factory=SimConfig)
    assistant: AssistantConfig = Field(default_factory=AssistantConfig)
    service: ServiceConfig = Field(default_factory=ServiceConfig)
    believability: BelievabilityConfig = Field(default_factory=BelievabilityConfig)

    def to_yaml(self) -> str:
        """The effective configuration, as a file `--config` reads back."""
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


def load_config(
    file: Path | None = None,
    environ: Mapping[str, str] | None = None,
    flags: Mapping[str, Any] | None = None,
) -> MindstreamConfig:
    """File, then environment, then flags (dotted keys: {"model.spec": "openai:x"})."""
    environ = os.environ if environ is None else environ
    file = file or (
        Path(environ["MINDSTREAM_CONFIG"]) if environ.get("MINDSTREAM_CONFIG") else None
    )
    layers = [
        (_read_file(file) if file else {}, str(file)),
        (_from_environment(environ), "environment"),
        (_nested({k: v for k, v in (flags or {}).items() if v is not None}), "flags"),
    ]
    # Layers go over the defaults, so a partial section keeps its use's defaults
    # (`assistant.stream.gate` alone leaves the assistant's recency in days).
    merged: dict[str, Any] = MindstreamConfig().model_dump(mode="json")
    sources: dict[tuple[str, ...], str] = {}
    for values, source in layers:
        _merge(merged, values, sources, source, ())
    try:
        return MindstreamConfig.model_validate(merged)
    except ValidationError as error:
        raise ConfigError(_describe(error, sources)) from None


def _read_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ConfigError(f"{path}: no such configuration file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ConfigError(f"{path}: not valid YAML{where}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of sections (model, stream, ...)")
    return data


def _from_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    """`MINDSTREAM_STREAM__DECAY=0.99` sets stream.decay; a few variables are shortcuts."""
    out: dict[str, Any] = {}
    for name, raw in environ.items():
        if not raw.strip():  # set but empty: as if unset
            continue
        if name in ENV_SHORTCUTS:
            path: tuple[str, ...] = ENV_SHORTCUTS[name]
        elif name.startswith(ENV_PREFIX) and "__" in name:
            path = tuple(p.lower() for p in name[len(ENV_PREFIX) :].split("__"))
        else:
            continue
        _set(out, path, _env_value(raw))
    return out


def _env_value(raw: str) -> Any:
    """JSON where it parses as an object or list (weights, tuples), else the string."""
    if raw[:1] in "[{":
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def _nested(dotted: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in dotted.items():
        _set(out, tuple(key.split(".")), value)
    return out


def _set(target: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value


def _merge(
    into: dict[str, Any],
    values: Mapping[str, Any],
    sources: dict[tuple[str, ...], str],
    source: str,
    prefix: tuple[str, ...],
) -> None:
    for key, value in values.items():
        path = (*prefix, str(key))
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _merge(into[key], value, sources, source, path)
        else:
            into[key] = dict(value) if isinstance(value, Mapping) else value
            sources[path] = source


def _describe(error: ValidationError, sources: dict[tuple[str, ...], str]) -> str:
    first = error.errors()[0]
    loc = tuple(str(p) for p in first["loc"])
    source = next(
        (sources[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in sources), "defaults"
    )
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"configuration ({source}): {'.'.join(loc)}: {message} (got {first.get('input')!r})"
