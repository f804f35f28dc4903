"""Agents layer: the teachable reasoner (TeachMe); generative agents and the assistant follow."""

from agents.teachme import TeachableReasoner, TeachMeConfig, TeachMeSession

__all__ = ["TeachMeConfig", "TeachMeSession", "TeachableReasoner"]
