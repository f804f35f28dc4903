"""TeachMe (Dalvi Mishra, Tafjord, Clark 2022): answer with a proof built from beliefs, where
user-taught facts in memory are the forced first premise of candidate proofs.

Adapted to a small model: every step is scoring, not writing. With a verifier (the default), a
proof is a gated taught fact and a choice's hypothesis, scored by the verifier's P(entailed);
without a gated fact the direct answer stands, and a taught negation rules its choice out
(`judging`). Without one, a proof's support is the scorer's score of the answer with the
proof's premises before the question. The model and the verifier stay frozen; only the
memory changes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from mindstream.agents.teachme.config import TeachMeConfig
from mindstream.agents.teachme.judging import (
    FactJudgement,
    Veto,
    judge_facts,
    not_premise_of,
    taught_for,
    vetoes,
)
from mindstream.agents.teachme.language import negate, normal_form, polarity, rule_hypothesis
from mindstream.agents.teachme.prompts import (
    DIRECT,
    ENTAILMENT,
    HYPOTHESIS,
    PREMISE,
    PREMISE_LINE,
    WITH_PREMISES,
)
from mindstream.lm import Scorer, belief, complete_batch
from mindstream.lm.judges.relation import RelationJudge
from mindstream.lm.judges.verifier import Verifier
from mindstream.memory import MemoryKind, MemoryRecord, MemoryStatus, MemoryStream, RetrievalWeights

FACT_KINDS = (MemoryKind.FACT, MemoryKind.CORRECTION)


class Premise(BaseModel):
    text: str
    memory_id: str | None = None  # set for facts from memory (believed: the user taught them)
    belief: float = 1.0


class Proof(BaseModel):
    choice_index: int
    hypothesis: str
    premises: list[Premise]
    support: float  # the scorer's score of the answer given the premises and the question
    entailment: float | None = None
    score: float

    @property
    def forced(self) -> bool:
        return bool(self.premises) and self.premises[0].memory_id is not None


class Answer(BaseModel):
    question: str
    choices: list[str]
    choice_index: int | None
    proof: Proof | None
    proofs: list[Proof]
    considered: list[MemoryRecord] = Field(default_factory=list)
    judgements: list[FactJudgement] = Field(default_factory=list)
    vetoes: list[Veto] = Field(default_factory=list)  # choices taught facts show false, and why
    mode: Literal["proof", "direct"] = "proof"
    note: str | None = None  # why a forced premise did or did not change the proof

    @property
    def ruled_out(self) -> list[int]:
        return [v.choice_index for v in self.vetoes]

    @property
    def found(self) -> bool:
        return self.choice_index is not None

    @property
    def choice(self) -> str | None:
        return None if self.choice_index is None else self.choices[self.choice_index]

    def explain(self) -> str:
        if self.proof is None:
            return "No proof found."
        lines = [f"{n}. {p.text}" for n, p in enumerate(self.proof.premises, start=1)]
        return "\n".join([*lines, f"Therefore: {self.proof.hypothesis}"])


class TeachableReasoner:
    """Answers from the model's beliefs plus the user's taught facts (the stream's `user` owner)."""

    def __init__(
        self,
        stream: MemoryStream,
        scorer: Scorer,
        model: BaseChatModel | None = None,
        *,
        user: str = "user",
        config: TeachMeConfig | None = None,
        verifier: Verifier | None = None,
        judge: RelationJudge | None = None,
    ) -> None:
        self.stream = stream
        self.scorer = scorer
        self.model = model
        self.user = user
        self.config = config or TeachMeConfig()
        self.verifier = verifier if self.config.verifier == "auto" else None
        self.judge = judge

    # ---- answering ---------------------------------------------------------------------
    def answer(
        self, question: str, choices: Sequence[str] | None = None, force: str | None = None
    ) -> Answer:
        """The choice with the best proof. Without choices, candidates are sampled first.
        `force` (a taught memory's id, with a verifier) makes that fact the proof's premise."""
        options = list(choices) if choices else self._candidates(question)
        hypotheses = self._hypotheses(question, options)
        facts = self.retrieve_facts(question, options)
        if self.verifier is not None:
            if force is not None and force not in {f.id for f in facts}:
                facts = [*facts, self.stream.get(force)]
            return self._verified(question, options, hypotheses, facts, force)
        starts: list[list[Premise]] = [[]]
        starts += [[Premise(text=f.text, memory_id=f.id)] for f in facts]
        proofs = self._score(question, options, hypotheses, self._premise_sets(starts, hypotheses))
        if self.config.entailment_check:
            proofs = self._check_entailment(proofs)
        proofs = self._allowed(proofs)
        # On a tie, a proof grounded in what the user taught wins.
        best = max(proofs, key=lambda p: (p.score, p.forced), default=None)
        if (
            best is not None
            and self.config.min_proof_score is not None
            and best.score < self.config.min_proof_score
        ):
            best = None
        return Answer(
            question=question,
            choices=options,
            choice_index=None if best is None else best.choice_index,
            proof=best,
            proofs=proofs,
            considered=facts,
        )

    def _verified(
        self,
        question: str,
        options: list[str],
        hypotheses: list[str],
        facts: list[MemoryRecord],
        force: str | None = None,
    ) -> Answer:
        """Proofs from gated facts, judged by the verifier; without one, the direct answer.
        Choices a relevant taught fact shows false are never picked (unless all are), nor
        proved from that fact."""
        assert self.verifier is not None
        judgements = judge_facts(
            self.verifier,
            self.judge,
            self.stream.embedder,
            question,
            options,
            hypotheses,
            facts,
            self.config,
        )
        vetoed = vetoes(judgements, self.config, question)
        ruled_out = {v.choice_index for v in vetoed}
        direct = self._score(question, options, hypotheses, [([], None)])
        denied = {
            j.fact.id: set() if taught_for(j.fact, question) else not_premise_of(j, self.config)
            for j in judgements
        }
        proofs = [
            Proof(
                choice_index=i,
                hypothesis=hypotheses[i],
                premises=[Premise(text=j.fact.text, memory_id=j.fact.id)],
                support=direct[i].support,
                entailment=p,
                score=math.log(max(p, 1e-9)),
            )
            for j in judgements
            if j.used or j.fact.id == force
            for i, p in enumerate(j.entailment)
            if i not in denied[j.fact.id]
        ]
        kept = self._allowed([*proofs, *direct])  # one read of what was taught and blocked
        proofs = [p for p in kept if p.premises]
        if force is not None:
            proofs = [p for p in proofs if p.premises[0].memory_id == force]
        unblocked = [p for p in kept if not p.premises] or direct
        allowed = [p for p in proofs if p.choice_index not in ruled_out]
        fallback = [p for p in unblocked if p.choice_index not in ruled_out] or unblocked
        best = max(allowed or fallback, key=lambda p: p.score)
        return Answer(
            question=question,
            choices=options,
            choice_index=best.choice_index,
            proof=best,
            proofs=[*proofs, *direct],
            considered=facts,
            judgements=judgements,
            vetoes=vetoed,
        )

    def _allowed(self, proofs: list[Proof]) -> list[Proof]:
        """Not blocked as bad reasoning, and no premise that contradicts what the user taught
        or another premise of the same proof."""
        blocked = self._blocked()
        taught = {polarity(r.text) for r in self._taught()}

        def consistent(premises: list[Premise]) -> bool:
            keys = [polarity(q.text) for q in premises]
            return not any((about, not denies) in {*taught, *keys} for about, denies in keys)

        return [
            p
            for p in proofs
            if (p.hypothesis, _key(p.premises)) not in blocked and consistent(p.premises)
        ]

    def direct(self, question: str, choices: Sequence[str]) -> Answer:
        """The "fast thinking" baseline: the choice the model finds likeliest, no proof."""
        options = list(choices)
        hypotheses = self._hypotheses(question, options)
        proofs = self._score(question, options, hypotheses, [([], None)])
        best = max(proofs, key=lambda p: p.score)
        return Answer(
            question=question,
            choices=options,
            choice_index=best.choice_index,
            proof=best,
            proofs=proofs,
            mode="direct",
        )

    def retrieve_facts(self, question: str, choices: Sequence[str]) -> list[MemoryRecord]:
        """Up to r taught facts, found by the question and its choices (TeachMe's query)."""
        if self.config.retrieve_k == 0:
            return []
        query = " ".join([question, *choices])
        found = self.stream.retrieve(
            query,
            self.config.retrieve_k + 5,
            owner=self.user,
            kinds=FACT_KINDS,
            mode=self.config.retrieval,
            weights=RetrievalWeights.relevance_only(),
            touch=False,
        )
        usable = [m.record for m in found if "blocked_hypothesis" not in m.record.metadata]
        return usable[: self.config.retrieve_k]

    def _premise_sets(
        self, starts: list[list[Premise]], hypotheses: list[str]
    ) -> list[tuple[list[Premise], int | None]]:
        """(premises, the one hypothesis they were written for, or None for all)."""
        if not self.config.write_premises or self.model is None:
            return [(start, None) for start in starts]
        prompts = [
            PREMISE.format(given=" ".join(p.text for p in start), hypothesis=h)
            for start in starts
            for h in hypotheses
        ]
        written = self._generate(prompts)
        beliefs = self._beliefs(written)
        sets: list[tuple[list[Premise], int | None]] = []
        for n, (text, b) in enumerate(zip(written, beliefs, strict=True)):
            start, i = starts[n // len(hypotheses)], n % len(hypotheses)
            # A written premise the user refuted, or one that only restates the hypothesis,
            # falls away; the forced start still stands.
            usable = b > 0 and normal_form(text) != normal_form(hypotheses[i])
            sets.append(([*start, Premise(text=text, belief=b)] if usable else start, i))
        return sets

    def _score(
        self,
        question: str,
        options: list[str],
        hypotheses: list[str],
        sets: list[tuple[list[Premise], int | None]],
    ) -> list[Proof]:
        """Score every premise set against the options in one batch of the scorer."""
        answers = [" " + option for option in options]
        scores = self.scorer.choose_batch(
            [(context_for(question, premises), answers) for premises, _ in sets]
        )
        proofs = []
        for n, (premises, only) in enumerate(sets):
            penalty = sum(math.log(max(p.belief, 1e-9)) for p in premises)
            for i in range(len(options)) if only is None else [only]:
                support = scores[n][i]
                proofs.append(
                    Proof(
                        choice_index=i,
                        hypothesis=hypotheses[i],
                        premises=premises,
                        support=support,
                        score=support + penalty,
                    )
                )
        return proofs

    def _beliefs(self, statements: list[str]) -> list[float]:
        """The model's belief in what it wrote, overruled by what the user taught: a statement
        the user taught is believed, one whose negation the user taught is not."""
        taught = {normal_form(r.text) for r in self._taught()}
        model = belief(self.scorer, statements) if statements else []
        out = []
        for text, b in zip(statements, model, strict=True):
            if normal_form(text) in taught:
                out.append(1.0)
            elif normal_form(negate(text)) in taught:
                out.append(0.0)
            else:
                out.append(b)
        return out

    def _check_entailment(self, proofs: list[Proof]) -> list[Proof]:
        with_premises = [p for p in proofs if p.premises]
        prompts = [
            ENTAILMENT.format(
                premises=" ".join(q.text.rstrip(".") + "." for q in p.premises),
                hypothesis=p.hypothesis.rstrip("."),
            )
            for p in with_premises
        ]
        checked = dict(zip(map(id, with_premises), self.scorer.p_yes_batch(prompts), strict=True))
        return [
            p.model_copy(
                update={
                    "entailment": checked[id(p)],
                    "score": p.score + math.log(max(checked[id(p)], 1e-6)),
                }
            )
            if id(p) in checked
            else p
            for p in proofs
        ]

    def _hypotheses(self, question: str, options: list[str]) -> list[str]:
        rules = [rule_hypothesis(question, option) for option in options]
        if self.config.hypotheses == "rule" or self.model is None:
            return rules
        written = self._generate([HYPOTHESIS.format(question=question, choice=o) for o in options])
        return [
            w if _mentions(w, o) else r for w, o, r in zip(written, options, rules, strict=True)
        ]

    def _candidates(self, question: str) -> list[str]:
        if self.model is None:
            raise ValueError("an open question (no choices) needs a model to propose answers")
        answers = self._generate([DIRECT.format(question=question)] * 4, temperature=0.8)
        unique = list(dict.fromkeys(a.split("\n")[0].strip() for a in answers if a.strip()))
        if not unique:
            raise ValueError(f"the model proposed no answer to {question!r}")
        return unique

    def _generate(self, prompts: list[str], **options: Any) -> list[str]:
        assert self.model is not None
        replies = complete_batch(
            self.model, prompts, "teachme", max_tokens=self.config.max_tokens, **options
        )
        return [reply.split("\n")[0] for reply in replies]

    def _taught(self) -> list[MemoryRecord]:
        return [
            r
            for r in self.stream.records(self.user)
            if r.status is MemoryStatus.ACTIVE and r.kind in FACT_KINDS
        ]

    def _blocked(self) -> set[tuple[str, str]]:
        """(hypothesis, premises) pairs the user called bad reasoning."""
        return {
            (str(r.metadata["blocked_hypothesis"]), str(r.metadata["blocked_premises"]))
            for r in self.stream.records(self.user)
            if "blocked_hypothesis" in r.metadata and r.status is MemoryStatus.ACTIVE
        }


def context_for(question: str, premises: Sequence[Premise]) -> str:
    """The text a proof's answer is scored after: its premises, then the question."""
    if not premises:
        return DIRECT.format(question=question)
    lines = "\n".join(PREMISE_LINE.format(fact=p.text) for p in premises)
    return WITH_PREMISES.format(premises=lines, question=question)


def _key(premises: Sequence[Premise]) -> str:
    return json.dumps([p.text for p in premises])


def _mentions(sentence: str, choice: str) -> bool:
    words = {w for w in choice.lower().split() if len(w) > 2}
    return (
        bool(sentence)
        and len(sentence.split()) <= 40
        and (not words or sum(w in sentence.lower() for w in words) >= 0.6 * len(words))
    )
