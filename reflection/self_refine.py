"""Self-Refine (Madaan et al. 2023): generate, get feedback, refine, until a stop condition.

    y0 = generate(x)
    for t = 0, 1, ...:  fb_t = feedback(x, y_t);  stop if stop(fb_t, t) or t = max_iters
                        y_{t+1} = refine(x, y0, fb0, ..., y_t, fb_t)

The same model plays all three parts by default; feedback and stop are pluggable (a program can
give feedback, as in constrained generation). `run_batch` advances many tasks together so each
step is one batched model call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.prompts import PromptTemplate
from pydantic import BaseModel, ConfigDict

from mindstream.lm import complete_batch
from mindstream.reflection.config import SelfRefineConfig
from mindstream.reflection.prompts import (
    SELF_REFINE_FEEDBACK,
    SELF_REFINE_GENERATE,
    SELF_REFINE_REFINE,
)

Feedback = Callable[[Sequence[str], Sequence[str]], list[str]]  # (tasks, outputs) -> feedback
Stop = Callable[[str, int], bool]  # (feedback, iteration) -> stop?

STOP_PHRASES = ("it is correct", "no changes", "is already correct", "looks good")


def stop_when_satisfied(feedback: str, iteration: int) -> bool:
    """Default stop: the feedback says the answer needs no change."""
    return any(phrase in feedback.lower() for phrase in STOP_PHRASES)


class SelfRefinePrompts(BaseModel):
    """Templates: generate {task}; feedback {task} {output}; refine {task} {history}."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    generate: PromptTemplate = SELF_REFINE_GENERATE
    feedback: PromptTemplate = SELF_REFINE_FEEDBACK
    refine: PromptTemplate = SELF_REFINE_REFINE


class RefineStep(BaseModel):
    output: str
    feedback: str | None = None


class RefineHistory(BaseModel):
    """Every output and the feedback it got; `final` is the last output."""

    task: str
    steps: list[RefineStep]
    stopped_by: str  # "stop condition" or "max_iters"

    @property
    def final(self) -> str:
        return self.steps[-1].output


class SelfRefine:
    def __init__(
        self,
        model: BaseChatModel,
        *,
        prompts: SelfRefinePrompts | None = None,
        feedback: Feedback | None = None,
        stop: Stop = stop_when_satisfied,
        config: SelfRefineConfig | None = None,
    ) -> None:
        self.model = model
        self.prompts = prompts or SelfRefinePrompts()
        self.feedback = feedback or self._model_feedback
        self.stop = stop
        self.config = config or SelfRefineConfig()

    def run(self, task: str) -> RefineHistory:
        return self.run_batch([task])[0]

    def run_batch(self, tasks: Sequence[str]) -> list[RefineHistory]:
        outputs = self._ask([self.prompts.generate.format(task=t) for t in tasks], "generate")
        histories = [
            RefineHistory(task=t, steps=[RefineStep(output=y)], stopped_by="max_iters")
            for t, y in zip(tasks, outputs, strict=True)
        ]
        active = list(range(len(tasks)))
        for iteration in range(self.config.max_iters + 1):
            if not active:
                break
            notes = self.feedback([tasks[i] for i in active], [histories[i].final for i in active])
            still = []
            for i, note in zip(active, notes, strict=True):
                histories[i].steps[-1].feedback = note
                if self.stop(note, iteration):
                    histories[i].stopped_by = "stop condition"
                elif iteration < self.config.max_iters:
                    still.append(i)
            active = still
            if active:
                prompts = [
                    self.prompts.refine.format(task=tasks[i], history=_history(histories[i]))
                    for i in active
                ]
                for i, output in zip(active, self._ask(prompts, "refine"), strict=True):
                    histories[i].steps.append(RefineStep(output=output))
        return histories

    def _model_feedback(self, tasks: Sequence[str], outputs: Sequence[str]) -> list[str]:
        prompts = [
            self.prompts.feedback.format(task=t, output=y)
            for t, y in zip(tasks, outputs, strict=True)
        ]
        return self._ask(prompts, "feedback")

    def _ask(self, prompts: list[str], component: str) -> list[str]:
        return complete_batch(
            self.model, prompts, f"self-refine:{component}", max_tokens=self.config.max_tokens
        )


def _history(history: RefineHistory) -> str:
    return "\n".join(
        f"Answer {n}: {step.output}\nFeedback {n}: {step.feedback}"
        for n, step in enumerate(history.steps)
    )
