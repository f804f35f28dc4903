"""Configuration of the local model, as a frozen pydantic model read from the environment."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_LOCAL_MODEL = "smollm2-135m"
DEFAULT_MODEL_SPEC = f"local:{DEFAULT_LOCAL_MODEL}"  # what every command uses by default


def _default_cache_dir() -> Path:
    return Path(os.environ.get("MINDSTREAM_CACHE_DIR", Path.home() / ".cache" / "mindstream"))


def _default_threads() -> int | None:
    raw = os.environ.get("MINDSTREAM_THREADS")
    return int(raw) if raw else None


class LocalModelConfig(BaseModel):
    """How the local transformers model generates and scores.

    `threads=None` leaves torch's default; tests and CI use 1 (two threads collapse when another
    process is busy on a 2-core machine).
    """

    model_config = ConfigDict(frozen=True)

    max_new_tokens: int = Field(128, ge=1, le=4096)
    temperature: float = Field(0.0, ge=0.0, le=5.0)
    top_p: float = Field(0.95, gt=0.0, le=1.0)
    seed: int | None = None
    generation_batch_size: int = Field(8, ge=1)
    scoring_batch_size: int = Field(16, ge=1)
    threads: int | None = Field(default_factory=_default_threads)
    cache_dir: Path = Field(default_factory=_default_cache_dir)
