"""TeachMe: a question answerer that reasons from beliefs and learns from user corrections."""

from agents.teachme.reasoner import Answer, Premise, Proof, TeachableReasoner, TeachMeConfig
from agents.teachme.session import NoAnswerError, TeachMeSession, split_choices

__all__ = [
    "Answer",
    "NoAnswerError",
    "Premise",
    "Proof",
    "TeachMeConfig",
    "TeachMeSession",
    "TeachableReasoner",
    "split_choices",
]
