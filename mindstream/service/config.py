"""How `mindstream serve` runs: where its data lives and the limits it enforces."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ServiceConfig(BaseModel):
    """The service's address (loopback by default), its data folder and its limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(8080, ge=0, le=65535)
    data: Path = Field(Path("runs/service"), description="store, users and scheduled jobs")
    runs: Path = Field(Path("runs"), description="run folders the town pages can open")
    max_body_bytes: int = Field(64 * 1024, ge=1024, description="larger requests get 413")
    max_import_bytes: int = Field(
        256 * 1024 * 1024, ge=1024, description="POST /v1/import carries a whole export"
    )
    rate_per_minute: float = Field(600.0, gt=0, description="requests per API key per minute")
    burst: int = Field(60, ge=1, description="requests a key may make at once")
    replicas: int = Field(1, ge=1, le=64, description="processes sharing users (by key)")
    replica: int = Field(0, ge=0, description="which of them this process is")
    resident_memories: int | None = Field(
        None,
        ge=1,
        description="memories a process keeps loaded: past it the least recently used users"
        " are unloaded (they stay in the store); replicas and a set budget load each user on"
        " their first request",
    )

    @model_validator(mode="after")
    def _one_of_them(self) -> ServiceConfig:
        if self.replica >= self.replicas:
            raise ValueError(f"replica {self.replica}: must be below replicas ({self.replicas})")
        return self
