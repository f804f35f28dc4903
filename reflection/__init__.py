"""Reflection layer: reflection trees, scheduled reflection, Self-Refine, ReFeed."""

from reflection.reflector import Insight, ReflectionConfig, ReflectionResult, Reflector

__all__ = ["Insight", "ReflectionConfig", "ReflectionResult", "Reflector"]
