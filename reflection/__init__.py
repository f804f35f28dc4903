"""Reflection layer: reflection trees, scheduled reflection, Self-Refine, ReFeed."""

from typing import TYPE_CHECKING

from lm.lazy import attach

if TYPE_CHECKING:
    from reflection.config import ReFeedConfig, ReflectionConfig, SelfRefineConfig
    from reflection.reflector import Insight, ReflectionResult, Reflector

__getattr__, __dir__ = attach(
    __name__,
    {
        "reflection.config": ("ReFeedConfig", "ReflectionConfig", "SelfRefineConfig"),
        "reflection.reflector": ("Insight", "ReflectionResult", "Reflector"),
    },
)

__all__ = [
    "Insight",
    "ReFeedConfig",
    "ReflectionConfig",
    "ReflectionResult",
    "Reflector",
    "SelfRefineConfig",
]
