"""TeachMe: a question answerer that reasons from beliefs and learns from user corrections."""

from typing import TYPE_CHECKING

from lm.lazy import attach

if TYPE_CHECKING:
    from agents.teachme.config import TeachMeConfig
    from agents.teachme.reasoner import Answer, Premise, Proof, TeachableReasoner
    from agents.teachme.session import NoAnswerError, TeachMeSession, split_choices

__getattr__, __dir__ = attach(
    __name__,
    {
        "agents.teachme.reasoner": (
            "Answer",
            "Premise",
            "Proof",
            "TeachableReasoner",
        ),
        "agents.teachme.config": ("TeachMeConfig",),
        "agents.teachme.session": (
            "NoAnswerError",
            "TeachMeSession",
            "split_choices",
        ),
    },
)

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
