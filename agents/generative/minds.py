"""The model calls of many agents, batched: one generation, one scoring pass per step of a tick.

`batched=False` sends each prompt on its own, the same calls one at a time: the baseline of
the batching benchmark. Every call is counted per component in a `CallLedger`.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig

from mindstream.lm import BusyClock, CallLedger, Choice, Scorer, choose_many, rate_importance
from mindstream.lm.accounting import counted, counted_chat
from mindstream.lm.judges.poignancy import AnchoredImportance, PoignancyJudge
from mindstream.lm.judges.relation import ReactionJudge

BREAK = "\n\n"  # a reply ends at its first blank line: nothing after it is generated


class Minds:
    """Generation, choice among options and yes/no for a list of prompts at once."""

    def __init__(
        self,
        model: BaseChatModel,
        scorer: Scorer,
        *,
        batched: bool = True,
        concurrent: bool = False,
        ledger: CallLedger | None = None,
        clock: BusyClock | None = None,
        reactions: ReactionJudge | None = None,
        poignancy: PoignancyJudge | None = None,
    ) -> None:
        self.ledger = ledger or CallLedger()
        self.requests: Counter[str] = Counter()  # prompts sent, per component
        self.batched = batched
        # Calls from several threads overlap (a served model): a town then runs each agent's
        # steps on its own instead of one phase at a time over all agents.
        self.concurrent = concurrent
        self._counting = threading.Lock()
        # Time with a model call under way; the rest of a run's wall time is the framework's
        # own. A served model's clock is given (it times the HTTP requests themselves); an
        # in-process model's is this one, timing each call.
        self.clock = clock or BusyClock()
        self._times_calls = clock is None
        self._model = model
        self._scorer = scorer
        # Whether an object's new state needs an agent to stop (a trained adapter on the
        # embedded model); None: the model's own yes/no on the full reaction prompt.
        self.reactions = reactions
        # How poignant a memory is (a trained adapter on the embedded model), averaged with
        # the model's own 1-10 stretched between anchors; None: the model's own rating alone,
        # which orders a town's memories but is flat (4.1-5.2).
        self._importance = (
            None
            if poignancy is None
            else AnchoredImportance(
                lambda texts: rate_importance(counted(scorer, "importance", self.ledger), texts),
                poignancy,
            )
        )

    @property
    def model(self) -> BaseChatModel:
        """The chat model, uncounted; `counted_model` gives one whose calls are counted."""
        return self._model

    def counted_model(self, component: str) -> BaseChatModel:
        """The chat model for a component outside `Minds` (the reflector): its calls land in
        this ledger and in `requests` under `component`."""
        return counted_chat(self._model, component, self.ledger, _Counter(self))

    def restore_counts(self, requests: dict[str, int], ledger: dict[str, dict[str, float]]) -> None:
        """Add the counts of a resumed run (to a fresh `Minds`: the run continues its totals)."""
        self.requests.update(requests)
        for component, usage in ledger.items():
            self.ledger.record(
                component,
                calls=int(usage["calls"]),
                prompt_tokens=int(usage["prompt_tokens"]),
                completion_tokens=int(usage["completion_tokens"]),
                seconds=float(usage["seconds"]),
            )

    def generate(
        self,
        prompts: Sequence[str | tuple[str, str]],
        component: str,
        max_tokens: int,
        **sampling: Any,
    ) -> list[str]:
        """One reply per prompt, cut at the first blank line. A (request, prefill) pair makes
        the reply continue the prefill (returned without it). `sampling` (temperature, seed)
        overrides the model's own settings, which are greedy by default."""
        if not prompts:
            return []
        messages = [_messages(p) for p in prompts]
        model = counted(self._model, component, self.ledger)
        self._count(component, len(prompts))
        # Generation is counted through the callback (the local model's own ledger sees
        # only scoring), so every chat model reports its tokens the same way.
        config: RunnableConfig = {
            "callbacks": [self.ledger.callback()],
            "metadata": {"component": component},
        }
        with self._busy():
            replies = [
                str(r.content).strip()
                for chunk in self._chunks(messages)
                for r in model.batch(
                    chunk, config=config, max_tokens=max_tokens, stop=[BREAK], **sampling
                )
            ]
        return [reply.split(BREAK)[0].strip() for reply in replies]

    def choose(
        self,
        requests: Sequence[tuple[str, Sequence[str]]],
        component: str,
        baseline: str | None = None,
    ) -> list[Choice]:
        """The best option of each request (see `lm.choose_many` for `baseline`)."""
        scorer = counted(self._scorer, component, self.ledger)
        self._count(component, len(requests))
        with self._busy():
            return [
                c
                for chunk in self._chunks(list(requests))
                for c in choose_many(scorer, chunk, baseline)
            ]

    def p_yes(self, prompts: Sequence[str], component: str) -> list[float]:
        scorer = counted(self._scorer, component, self.ledger)
        self._count(component, len(prompts))
        with self._busy():
            return [p for chunk in self._chunks(list(prompts)) for p in scorer.p_yes_batch(chunk)]

    def reacts(self, sights: Sequence[tuple[str, str, str]]) -> list[float]:
        """P(stop and deal with it) for (name, activity, observation) through `reactions`."""
        assert self.reactions is not None
        self._count("react", len(sights))
        with self._busy():
            return [
                p
                for chunk in self._chunks(list(sights))
                for p in self.reactions.reacts_batch(chunk)
            ]

    def rate_importance(self, texts: Sequence[str]) -> list[float]:
        """Poignancy 1-10 of new memories: the memory stream's rater."""
        self._count("importance", len(texts))
        chunks = self._chunks(list(texts))
        if self._importance is not None:
            rate = self._importance
            with self._busy():
                return [r for chunk in chunks for r in rate(chunk)]
        scorer = counted(self._scorer, "importance", self.ledger)
        with self._busy():
            return [r for chunk in chunks for r in rate_importance(scorer, chunk)]

    def _busy(self) -> AbstractContextManager[None]:
        return self.clock.busy() if self._times_calls else nullcontext()

    def _chunks(self, items: list[Any]) -> list[list[Any]]:
        return [items] if self.batched else [[item] for item in items]

    def _count(self, component: str, calls: int) -> None:
        with self._counting:
            self.requests[component] += calls


class _Counter(BaseCallbackHandler):
    """Counts the prompts a chat model is sent, per component, into `Minds.requests`."""

    def __init__(self, minds: Minds) -> None:
        self._minds = minds

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        component = str((metadata or {}).get("component", "chat"))
        self._minds._count(component, len(messages))
        if self._minds._times_calls:
            self._minds.clock.enter()

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        if self._minds._times_calls:
            self._minds.clock.leave()

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        if self._minds._times_calls:
            self._minds.clock.leave()


def _messages(prompt: str | tuple[str, str]) -> list[BaseMessage]:
    if isinstance(prompt, str):
        return [HumanMessage(prompt)]
    request, prefill = prompt
    return [HumanMessage(request), AIMessage(prefill)]
