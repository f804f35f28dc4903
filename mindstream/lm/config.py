"""Configuration of the model layer: frozen pydantic models, built once by the composition root."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_LOCAL_MODEL = "smollm2-135m"
DEFAULT_MODEL_SPEC = f"local:{DEFAULT_LOCAL_MODEL}"  # what every command uses by default
OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1"
OPENAI_BASE_URL = "https://api.openai.com/v1"

ScorerPath = Literal["auto", "local", "likelihood", "systemone", "logprobs", "generate"]

# The TeachMe verifier adapter shipped with the package (`mindstream train verifier`).
VERIFIER_ADAPTER_DIR = Path(__file__).parent / "adapters" / "verifier"
# The relation judge adapter (`mindstream train judge`): replaces / contradicts.
JUDGE_ADAPTER_DIR = Path(__file__).parent / "adapters" / "judge"


def _default_cache_dir() -> Path:
    return Path(os.environ.get("MINDSTREAM_CACHE_DIR", Path.home() / ".cache" / "mindstream"))


def default_threads() -> int | None:
    """MINDSTREAM_THREADS, if set: torch threads for this process's models."""
    raw = os.environ.get("MINDSTREAM_THREADS")
    return int(raw) if raw else None


class LocalModelConfig(BaseModel):
    """How the local transformers model generates and scores.

    `threads=None` leaves torch's default; tests and CI use 1 (two threads collapse when another
    process is busy on a 2-core machine).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_new_tokens: int = Field(128, ge=1, le=4096)
    temperature: float = Field(0.0, ge=0.0, le=5.0)
    top_p: float = Field(0.95, gt=0.0, le=1.0)
    seed: int | None = None
    generation_batch_size: int = Field(8, ge=1)
    scoring_batch_size: int = Field(16, ge=1)
    threads: int | None = Field(default_factory=default_threads)
    cache_dir: Path = Field(default_factory=_default_cache_dir)


class ServedConfig(BaseModel):
    """How a model server is reached (any OpenAI-compatible endpoint).

    The API key is read from the environment variable `api_key_env` when needed and is never
    stored in the configuration or printed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str | None = Field(
        None, description="e.g. http://127.0.0.1:8000/v1; default: OPENAI_BASE_URL or the scheme's"
    )
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = Field(
        300.0,
        gt=0,
        description="seconds per request; a CPU server queues packed requests (at 60 s, a "
        "25-agent unscripted day on a 2-core vLLM timed out in its first tick)",
    )
    retries: int = Field(
        3, ge=0, description="retries with backoff on 429/5xx and lost connections"
    )
    max_concurrency: int = Field(8, ge=1, description="requests in flight at once")
    max_tokens: int = Field(256, ge=1, description="default reply length")
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    parse_attempts: int = Field(4, ge=1, description="chat-only decisions: asks before giving up")


class ModelConfig(BaseModel):
    """Which model, and how to score with it (`scorer`: auto probes the endpoint once)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: str = DEFAULT_MODEL_SPEC
    scorer: ScorerPath = "auto"
    local: LocalModelConfig = Field(default_factory=LocalModelConfig)
    served: ServedConfig = Field(default_factory=ServedConfig)

    @property
    def scheme(self) -> str:
        return self.spec.partition(":")[0]

    @property
    def is_served(self) -> bool:
        return self.scheme in ("openai", "ollama")

    def base_url(self) -> str:
        """The server's URL: configured, else OPENAI_BASE_URL, else the scheme's default."""
        if self.served.base_url:
            return self.served.base_url.rstrip("/")
        if self.scheme == "ollama":
            return OLLAMA_BASE_URL
        return os.environ.get("OPENAI_BASE_URL", OPENAI_BASE_URL).rstrip("/")
