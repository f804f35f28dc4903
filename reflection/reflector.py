"""Reflection (Generative Agents): recent memories -> focal questions -> insights citing evidence.

Insights are stored as `reflection` memories whose evidence ids are the memories they cite and
whose depth is one more than their deepest evidence, so reflections form trees. Reflections
whose evidence was later forgotten or superseded are stale; `rederive` replaces them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, Field

from mindstream.lm import Scorer, complete_batch, rate_importance
from mindstream.memory import (
    MemoryKind,
    MemoryRecord,
    MemoryStatus,
    MemoryStream,
    corrections,
    new_memory,
)
from mindstream.reflection.config import ReflectionConfig
from mindstream.reflection.evidence import distinct, naming, owner_names, unnamed, wanted_names
from mindstream.reflection.offers import InsightOffers, choose_offered
from mindstream.reflection.parsing import ParsedInsight, parse_insights, parse_questions
from mindstream.reflection.prompts import (
    EXAMPLE_INSIGHTS,
    EXAMPLE_OWNER,
    EXAMPLE_QUESTIONS,
    EXAMPLE_STATEMENTS,
    FOCAL_QUESTIONS,
    INSIGHTS,
)

log = logging.getLogger(__name__)


class Insight(BaseModel):
    question: str
    record: MemoryRecord
    evidence: list[MemoryRecord]


class ReflectionResult(BaseModel):
    owner: str
    questions: list[str]
    insights: list[Insight]
    dropped: list[str] = Field(default_factory=list, description="unusable model lines")
    reason: str | None = Field(None, description="why nothing was asked, when nothing was")
    replaced: list[str] = Field(default_factory=list, description="stale ids re-derived")


class Reflector:
    """One entry point, `reflect`; `rederive` refreshes stale reflections. With `offers`, each
    reflection also stores the insights the application's memories prove that the model rates
    most important (`reflection.offers`)."""

    def __init__(
        self,
        stream: MemoryStream,
        model: BaseChatModel,
        config: ReflectionConfig | None = None,
        offers: InsightOffers | None = None,
    ) -> None:
        self.stream = stream
        self.model = model
        self.config = config or ReflectionConfig()
        self.offers = offers
        self._tried: dict[str, str] = {}  # owner -> its newest memory at a fruitless attempt

    def importance_since_last(self, owner: str) -> float:
        """Summed importance of the memories added after the owner's latest reflection, or
        after its latest attempt that stored nothing: else a fruitless attempt is repeated at
        every check (a 25-agent day spent 131 reflection requests on 3 reflections)."""
        total, tried = 0.0, self._tried.get(owner)
        for record in reversed(self.stream.records(owner)):
            if record.kind is MemoryKind.REFLECTION or record.id == tried:
                break
            if record.status is MemoryStatus.ACTIVE:
                total += record.importance
        return total

    def fruitless(self) -> dict[str, str]:
        """Each owner's newest memory at its last attempt that stored nothing: a resumed run
        keeps it, else every agent tries again at once (7 agents at 23:00 on a resumed day)."""
        return dict(self._tried)

    def resume_fruitless(self, tried: Mapping[str, str]) -> None:
        self._tried = dict(tried)

    def should_reflect(self, owner: str) -> bool:
        return self.importance_since_last(owner) >= self.config.threshold

    def reflect(self, owner: str, *, force: bool = False) -> ReflectionResult:
        """Reflect if the trigger fired (or `force`); returns what was asked and stored."""
        gathered = self.importance_since_last(owner)
        if not force and gathered < self.config.threshold:
            why = (
                f"below the threshold: {gathered:g} of {self.config.threshold:g} importance "
                "since the last reflection (force it to reflect now)"
            )
            return ReflectionResult(owner=owner, questions=[], insights=[], reason=why)
        recent = self.stream.recent(self.config.recent, owner=owner)
        if not recent:
            return ReflectionResult(owner=owner, questions=[], insights=[], reason="no memories")
        newest = self.stream.records(owner)[-1].id
        result = self._reflect_on(owner, recent)
        result.insights += self._offered(owner, recent)
        if not result.insights:
            self._tried[owner] = newest
        return result

    def _reflect_on(self, owner: str, recent: list[MemoryRecord]) -> ReflectionResult:
        reply = self._ask_batch([_questions_prompt(_numbered(recent), self.config.questions)])[0]
        questions = parse_questions(reply, self.config.questions, echo_of=FOCAL_QUESTIONS.template)
        given = _words(" ".join([owner, *(r.text for r in recent)]))
        questions = [q for q in questions if not _names_the_example(q, given)]
        if not questions:
            log.warning("reflection for %s: no usable question in %r", owner, reply[:200])
            return ReflectionResult(owner=owner, questions=[], insights=[], dropped=[reply[:200]])
        insights, dropped = self._insights(owner, questions)
        return ReflectionResult(
            owner=owner, questions=questions, insights=insights, dropped=dropped
        )

    def _offered(self, owner: str, recent: list[MemoryRecord]) -> list[Insight]:
        if self.offers is None or self.config.offered == 0:
            return []
        offered = self.offers.offer(owner, recent)
        chosen = choose_offered(self.stream, owner, offered, self._rate, self.config.offered)
        return [
            Insight(question=o.question, record=r, evidence=list(o.evidence)) for o, r in chosen
        ]

    def _rate(self, texts: Sequence[str]) -> Sequence[float]:
        """Importance as the stream rates it (a town's trained rater), else by the model when
        it gives likelihoods, else none: the offers keep their order."""
        if self.stream.rater is not None:
            return self.stream.rater(texts)
        if isinstance(self.model, Scorer):
            return rate_importance(self.model, texts)
        return [0.0] * len(texts)

    def rederive(self, owner: str) -> ReflectionResult:
        """Re-ask the question of every stale reflection; supersede it by the new insight, or
        forget it when no insight can be supported any more."""
        stale = self.stream.stale(owner)
        if not stale:
            return ReflectionResult(owner=owner, questions=[], insights=[])
        questions = [str(r.metadata.get("question", r.text)) for r in stale]
        insights, dropped = self._insights(owner, questions, exclude={r.id for r in stale})
        by_question: dict[str, list[Insight]] = {}
        for insight in insights:
            by_question.setdefault(insight.question, []).append(insight)
        for record, question in zip(stale, questions, strict=True):
            fresh = by_question.get(question)
            if fresh:
                corrections.retire(self.stream, record, fresh[0].record, how="rederived")
            else:
                self.stream.forget(record.id)
        return ReflectionResult(
            owner=owner,
            questions=questions,
            insights=insights,
            dropped=dropped,
            replaced=[r.id for r in stale],
        )

    def _insights(
        self, owner: str, questions: list[str], exclude: set[str] | None = None
    ) -> tuple[list[Insight], list[str]]:
        evidence_sets = []
        for question in questions:
            found = self.stream.retrieve(question, self.config.evidence_k, owner=owner)
            evidence_sets.append([m.record for m in found if m.record.id not in (exclude or set())])
        prompts = [
            _insights_prompt(owner, _numbered(e), self.config.insights_per_question)
            for e in evidence_sets
        ]
        replies = self._ask_batch(prompts)
        pending, dropped = [], []
        # Active reflections only, and not the stale ones being replaced: re-deriving the same
        # insight from evidence that still stands is the point of `rederive`.
        seen = {
            _gist(r.text)
            for r in self.stream.records(owner)
            if r.kind is MemoryKind.REFLECTION
            and r.status is MemoryStatus.ACTIVE
            and r.id not in (exclude or set())
        }
        keep_uncited = self.config.min_found_evidence is not None
        for question, evidence, reply in zip(questions, evidence_sets, replies, strict=True):
            parsed = parse_insights(
                reply, len(evidence), self.config.insights_per_question, keep_uncited=keep_uncited
            )
            dropped += parsed.dropped
            given = _words(" ".join([owner, *(r.text for r in evidence)]))
            meaning = self._meaning(evidence) if parsed.insights else None
            for insight in parsed.insights:
                if _gist(insight.text) in seen:
                    dropped.append(f"duplicate: {insight.text[:80]}")
                elif _echoes_example(insight.text, given):
                    dropped.append(f"the prompt's example: {insight.text[:80]}")
                elif _copies_a_memory(insight.text, owner, evidence):
                    dropped.append(f"a copy of a memory, not an insight: {insight.text[:80]}")
                elif not (cited := self._supported(owner, insight, evidence, meaning)):
                    dropped.append(f"no memory it was given supports it: {insight.text[:80]}")
                else:
                    seen.add(_gist(insight.text))
                    pending.append((question, insight, cited))
        records = self.stream.add_many([_as_memory(owner, q, p, cited) for q, p, cited in pending])
        insights = [
            Insight(question=q, record=r, evidence=cited)
            for (q, _, cited), r in zip(pending, records, strict=True)
        ]
        log.info(
            "reflection for %s: %d insights, %d lines dropped", owner, len(insights), len(dropped)
        )
        return insights, dropped

    def _meaning(self, memories: list[MemoryRecord]) -> np.ndarray | None:
        """What each memory says (names left out), embedded once per question: every insight
        drawn from the question's evidence is compared with the same memories."""
        if self.config.min_evidence_similarity is None or not memories:
            return None
        return self.stream.embed([unnamed(r.text) for r in memories])

    def _supported(
        self,
        owner: str,
        insight: ParsedInsight,
        evidence: list[MemoryRecord],
        meaning: np.ndarray | None,
    ) -> list[MemoryRecord]:
        """The cited memories that support the insight (`reflection.evidence`: alike in what
        they say, each naming whom it names); small models often cite numbers copied from the
        example. When none does, the given memories that do, if `min_found_evidence` distinct
        ones do: an insight rests on more than one memory. `meaning`: `_meaning(evidence)`."""
        cited = [evidence[n - 1] for n in insight.citations]
        threshold = self.config.min_evidence_similarity
        if threshold is None or meaning is None:
            return cited
        similarity = meaning @ self.stream.embed([unnamed(insight.text)])[0]
        own = owner_names(owner, insight.text)
        named = wanted_names(own, insight.text)
        cited_at = [n - 1 for n in insight.citations]
        similar = naming(_alike(evidence, similarity, cited_at, threshold), named, own)
        if similar:
            return similar
        needed = self.config.min_found_evidence
        if needed is None:
            return []
        every = range(len(evidence))
        found = distinct(naming(_alike(evidence, similarity, every, threshold), named, own))
        return found if len(found) >= needed else []

    def _ask_batch(self, prompts: list[list[BaseMessage]]) -> list[str]:
        return complete_batch(self.model, prompts, "reflection", max_tokens=self.config.max_tokens)


def _alike(
    memories: list[MemoryRecord], similarity: np.ndarray, at: Iterable[int], threshold: float
) -> list[MemoryRecord]:
    """The memories at positions `at` whose `similarity` (cosine, names left out) reaches
    `threshold`, most similar first."""
    ranked = sorted(at, key=lambda i: (similarity[i], i), reverse=True)
    return [memories[i] for i in ranked if similarity[i] >= threshold]


def _questions_prompt(statements: str, count: int) -> list[BaseMessage]:
    return [
        HumanMessage(FOCAL_QUESTIONS.format(statements=EXAMPLE_STATEMENTS, count=3)),
        AIMessage(EXAMPLE_QUESTIONS),
        HumanMessage(FOCAL_QUESTIONS.format(statements=statements, count=count)),
    ]


def _insights_prompt(owner: str, statements: str, count: int) -> list[BaseMessage]:
    return [
        HumanMessage(INSIGHTS.format(owner=EXAMPLE_OWNER, statements=EXAMPLE_STATEMENTS, count=3)),
        AIMessage(EXAMPLE_INSIGHTS),
        HumanMessage(INSIGHTS.format(owner=owner, statements=statements, count=count)),
    ]


def _echoes_example(text: str, given: set[str]) -> bool:
    """Three or more of the insight's words come from the prompt's worked example and from
    none of the statements it was given (`given`: their `_words` and the owner's; two can be
    chance: "work", "housing"). "Hailey Johnson is dedicated to his research on
    gentrification" is Klaus's example insight with another name (a day of 25 agents on the
    135M model stored such copies)."""
    return len((_words(text) & _EXAMPLE_WORDS) - given) >= 3


def _names_the_example(question: str, given: set[str]) -> bool:
    """A question about the worked example's people ("What is Klaus passionate about?") when
    none of the statements names them: the small model copied the example."""
    return bool((_words(question) & _EXAMPLE_NAMES) - given)


def _copies_a_memory(text: str, owner: str, evidence: list[MemoryRecord]) -> bool:
    """Every word of the insight (the owner's name aside) is in one memory it was given: it
    says nothing that memory does not ("Maya walked the dog" from "I walked the dog")."""
    said = _words(text) - _words(owner)
    return any(said <= _words(r.text) for r in evidence)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4}


_EXAMPLE_WORDS = _words(f"{EXAMPLE_STATEMENTS} {EXAMPLE_INSIGHTS}") - _words(EXAMPLE_OWNER)
_EXAMPLE_NAMES = _words(f"{EXAMPLE_OWNER} Maria Hobbs")


def _gist(text: str) -> frozenset[str]:
    """Two insights with the same longer words say the same thing ("Carmen is a creative and
    creative person", "Carmen is a creative person")."""
    return frozenset(_words(text))


def _numbered(records: list[MemoryRecord]) -> str:
    return "\n".join(f"{n}. {r.text}" for n, r in enumerate(records, start=1))


def _as_memory(owner: str, question: str, insight: ParsedInsight, cited: list[MemoryRecord]) -> Any:
    depth = 1 + max(int(r.metadata.get("depth", 0)) for r in cited)
    return new_memory(
        text=insight.text,
        owner=owner,
        kind=MemoryKind.REFLECTION,
        evidence=tuple(r.id for r in cited),
        metadata={"question": question, "depth": depth},
    )
