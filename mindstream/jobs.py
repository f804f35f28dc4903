"""Jobs run by the scheduler, built from the configuration they were scheduled with."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import yaml

log = logging.getLogger("mindstream.reflection.schedule")

REFLECT_JOB = "mindstream.jobs:reflect"


def reflect(store: str, owner: str, settings: str) -> dict[str, Any]:
    """One scheduled run: reflect if the trigger fired, re-derive stale reflections."""
    from mindstream.compose import Parts
    from mindstream.config import MindstreamConfig

    parts = Parts(MindstreamConfig.model_validate(yaml.safe_load(settings) or {}))
    stream = parts.stream(Path(store))
    try:
        reflector = parts.reflector(stream)
        pending = reflector.importance_since_last(owner)
        reflected = reflector.reflect(owner)
        rederived = reflector.rederive(owner)
    finally:
        stream.close()
    summary = {
        "owner": owner,
        "model": parts.config.model.spec,
        "importance_since_last": round(pending, 1),
        "threshold": reflector.config.threshold,
        "insights": len(reflected.insights),
        "stale_rederived": len(rederived.replaced),
    }
    log.warning(
        "reflection job %s (%s): importance since last %.0f / %.0f, %d new insights, "
        "%d stale reflections re-derived",
        owner,
        summary["model"],
        pending,
        reflector.config.threshold,
        len(reflected.insights),
        len(rederived.replaced),
    )
    return summary
