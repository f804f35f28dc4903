"""Reflection layer: reflection trees, scheduled reflection, Self-Refine, ReFeed."""

from typing import TYPE_CHECKING

from mindstream.lm.lazy import attach_declared

if TYPE_CHECKING:
    from mindstream.reflection.config import ReFeedConfig, ReflectionConfig, SelfRefineConfig
    from mindstream.reflection.reflector import Insight, ReflectionResult, Reflector

__getattr__, __dir__, __all__ = attach_declared(__name__, __file__)
