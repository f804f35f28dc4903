"""TeachMe: a question answerer that reasons from beliefs and learns from user corrections."""

from typing import TYPE_CHECKING

from mindstream.lm.lazy import attach_declared

if TYPE_CHECKING:
    from mindstream.agents.teachme.config import TeachMeConfig
    from mindstream.agents.teachme.reasoner import Answer, Premise, Proof, TeachableReasoner
    from mindstream.agents.teachme.session import NoAnswerError, TeachMeSession, split_choices

__getattr__, __dir__, __all__ = attach_declared(__name__, __file__)
