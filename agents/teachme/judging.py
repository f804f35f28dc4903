"""Premise gating and vetoes: which taught facts may enter a proof, and which answers they
rule out.

A retrieved fact becomes a premise only when it bears on the question: its embedding is close
enough to the question's, and the verifier judges that it entails at least one choice's
hypothesis. A relevant taught fact about the question itself (its embedding close to the
question's alone) rules a choice out only when the relation judge finds that the fact shows
that choice's hypothesis false, clearly more than the others', and never a
choice the fact supports (the verifier's entailment at least `support_floor`): "Sound travels
fastest through steel and cannot travel through empty space" rules out "empty space", never
"steel". Nor is a fact the premise of a choice the judge finds it shows false (at looser
thresholds, with the same support guard), or of one its own negation entails more than it does
(the verifier reads a denial almost as support). The thresholds live in `TeachMeConfig`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from mindstream.agents.teachme.config import TeachMeConfig, VetoRule
from mindstream.agents.teachme.language import negate
from mindstream.lm.judges.relation import RelationJudge
from mindstream.lm.judges.verifier import Verifier
from mindstream.memory import MemoryRecord
from mindstream.memory.embedder import Embedder


class Veto(BaseModel):
    """A choice a taught fact rules out, and how sure the judge was."""

    model_config = ConfigDict(frozen=True)

    choice_index: int
    memory_id: str
    fact: str
    contradiction: float  # P(the fact shows the choice's hypothesis false)
    entailment: float  # P(the fact entails it): below the support floor, or no veto


class FactJudgement(BaseModel):
    """What the verifier and the judge made of one retrieved fact for one question."""

    model_config = ConfigDict(frozen=True)

    fact: MemoryRecord
    similarity: float  # cosine of the fact's and the question's (with its choices) embeddings
    on_topic: float  # cosine of the fact's and the question's alone: what it is about
    entailment: list[float]  # P(fact entails choice i's hypothesis)
    contradiction: list[float] = []  # P(fact shows choice i's hypothesis false); relevant only
    negation_entailment: list[float] = []  # P(the fact's negation entails choice i's); relevant
    used: bool = False  # passed the gate: it may be a proof's premise

    @property
    def relevant(self) -> bool:
        return bool(self.contradiction)


def judge_facts(
    verifier: Verifier,
    judge: RelationJudge | None,
    embedder: Embedder,
    question: str,
    choices: Sequence[str],
    hypotheses: Sequence[str],
    facts: Sequence[MemoryRecord],
    config: TeachMeConfig,
) -> list[FactJudgement]:
    """One verifier batch (every fact against every hypothesis) and one judge batch (every
    relevant fact against every hypothesis)."""
    if not facts:
        return []
    similarity, on_topic = gate_similarities(embedder, question, choices, [f.text for f in facts])
    relevant = [n for n, s in enumerate(similarity) if s >= config.gate_similarity]
    negated = relevant if config.negation_margin is not None else []
    judged = verifier.entailment_batch(
        [([f.text], h) for f in facts for h in hypotheses]
        + [([negate(facts[n].text)], h) for n in negated for h in hypotheses]
    )
    pairs = [(facts[n].text, h) for n in relevant for h in hypotheses]
    contradiction = (
        contradiction_both_ways(judge, pairs, config.claim_first_share)
        if judge is not None and pairs
        else []
    )
    width = len(hypotheses)
    against = {n: contradiction[k * width : (k + 1) * width] for k, n in enumerate(relevant)}
    start = len(facts) * width
    opposite = {
        n: judged[start + k * width : start + (k + 1) * width] for k, n in enumerate(negated)
    }
    out = []
    for n, fact in enumerate(facts):
        entailment = judged[n * width : (n + 1) * width]
        out.append(
            FactJudgement(
                fact=fact,
                similarity=similarity[n],
                on_topic=on_topic[n],
                entailment=entailment,
                contradiction=against.get(n, []),
                negation_entailment=opposite.get(n, []),
                used=n in against and max(entailment) >= config.gate_entailment,
            )
        )
    return out


def contradiction_both_ways(
    judge: RelationJudge, pairs: Sequence[tuple[str, str]], claim_first_share: float
) -> list[float]:
    """P(the fact shows the claim false), read in both orders in one judge batch and mixed:
    contradiction is symmetric, and the claim-first reading tells subjects apart better ("Rubber
    does not conduct electricity" read first leans to "a copper wire"; read second, to "a
    rubber band")."""
    if claim_first_share <= 0:
        return judge.contradicts_batch(pairs)
    return mix_readings(*both_readings(judge, pairs), claim_first_share)


def both_readings(
    judge: RelationJudge, pairs: Sequence[tuple[str, str]]
) -> tuple[list[float], list[float]]:
    """P(contradicts) read fact first and claim first, in one judge batch."""
    both = judge.contradicts_batch([*pairs, *((claim, fact) for fact, claim in pairs)])
    return both[: len(pairs)], both[len(pairs) :]


def mix_readings(
    fact_first: Sequence[float], claim_first: Sequence[float], claim_first_share: float
) -> list[float]:
    return [
        (1 - claim_first_share) * f + claim_first_share * c
        for f, c in zip(fact_first, claim_first, strict=True)
    ]


def vetoes(
    judgements: Sequence[FactJudgement], config: TeachMeConfig, question: str | None = None
) -> list[Veto]:
    """Each relevant fact about the question (`about_the_question`) rules out at most one
    choice (`ruled_out_by`), unless a newer taught fact overrules it (`overruled`); the surest
    fact per choice is kept. A fact taught for this very `question` needs only the narrower
    `taught_here_margin`."""
    best: dict[int, Veto] = {}
    for j in judgements:
        if not about_the_question(j.on_topic, config.veto_on_topic):
            continue
        here = question is not None and taught_for(j.fact, question)
        rule = config.taught_here_rule if here else config.veto_rule
        top = ruled_out_by(j.contradiction, j.entailment, rule)
        if top is None or overruled(j, top, judgements):
            continue
        contra = j.contradiction[top]
        if top not in best or contra > best[top].contradiction:
            best[top] = Veto(
                choice_index=top,
                memory_id=j.fact.id,
                fact=j.fact.text,
                contradiction=round(contra, 4),
                entailment=round(j.entailment[top], 4),
            )
    return [best[i] for i in sorted(best)]


def about_the_question(on_topic: float, floor: float | None) -> bool:
    """Whether a fact is about what is asked, not only about a choice's words: "Eagles do not
    eat fish" names "a fish" and says "not", but is about eagles, not about "Which would a
    strawberry most rely on to ensure it gets planted?" (cosine to the question alone 0.05),
    so it vetoes nothing there. The relation judge alone reads "not" next to a shared noun as
    a denial. None: every relevant fact may veto."""
    return floor is None or on_topic >= floor


def overruled(vetoing: FactJudgement, choice: int, judgements: Sequence[FactJudgement]) -> bool:
    """Whether a fact taught after the vetoing one makes `choice` the choice it supports best
    and may prove it (it passed the gate): what was taught last is what is true now, as in the
    memory stream. "Ice is not denser than liquid water", misread as denying "on the top
    surface", no longer rules it out once "Ice floats on water because it is less dense" is
    taught."""
    return any(
        other.used
        and other.fact.created_at > vetoing.fact.created_at
        and int(np.argmax(other.entailment)) == choice
        for other in judgements
    )


def taught_for(fact: MemoryRecord, question: str) -> bool:
    """Whether the teacher added this fact as the one missing for this very question: then
    the judge's guess that it shows a choice false does not keep it from proving that choice
    here (the teacher's word on this question outranks the judge's reading)."""
    return (
        fact.metadata.get("action") == "missing fact" and fact.metadata.get("question") == question
    )


def shown_false(judgement: FactJudgement, config: TeachMeConfig) -> int | None:
    """The choice this fact must never be a premise of: the veto rule at the looser block
    thresholds, so a negation the judge reads as denying Y does not prove Y on the verifier's
    weak entailment ("A magnet does not attract copper" entailing "a copper coin" at 0.04 was
    still the best proof). A choice the fact supports keeps it."""
    return ruled_out_by(judgement.contradiction, judgement.entailment, config.block_rule)


def not_premise_of(judgement: FactJudgement, config: TeachMeConfig) -> set[int]:
    """The choices this fact must not prove: the one it is shown to deny (`shown_false`), and
    those its own negation supports more (by `negation_margin`). The verifier reads a denial
    almost as support ("Rubber does not conduct electricity" entails "a rubber band" at 0.22,
    its best), but "Rubber conducts electricity" entails it far more (0.75): a statement is no
    evidence for what its negation supports better."""
    shown = shown_false(judgement, config)
    out = set() if shown is None else {shown}
    if config.negation_margin is not None and judgement.negation_entailment:
        pairs = zip(judgement.entailment, judgement.negation_entailment, strict=True)
        out |= {i for i, (p, q) in enumerate(pairs) if q - p > config.negation_margin}
    return out


def ruled_out_by(
    contradiction: Sequence[float], entailment: Sequence[float], rule: VetoRule
) -> int | None:
    """The choice a fact rules out: the one the judge finds it shows false most, when that P
    reaches the rule's floor, leads the next choice by its margin, and the fact does not
    support it (the verifier's entailment below `support`, and not the choice it entails most
    at `best_support` or more), unless the judge's lead reaches `overruled_at`: the verifier is
    blind to a denial, the judge is not. The judge ranks
    better than it is calibrated, so the rule is relative (`mindstream eval teachme-vetoes`
    measures the thresholds)."""
    if len(contradiction) < 2:
        return None
    order = sorted(range(len(contradiction)), key=contradiction.__getitem__, reverse=True)
    top, runner_up = order[0], order[1]
    lead = contradiction[top] - contradiction[runner_up]
    best = max(range(len(entailment)), key=entailment.__getitem__)
    supported = entailment[top] >= rule.support or (
        rule.best_support is not None and top == best and entailment[top] >= rule.best_support
    )
    supported = supported and (rule.overruled_at is None or lead < rule.overruled_at)
    if contradiction[top] < rule.floor or lead < rule.margin or supported:
        return None
    return top


def gate_similarities(
    embedder: Embedder, question: str, choices: Sequence[str], texts: Sequence[str]
) -> tuple[list[float], list[float]]:
    """Cosine of each text to the question with its choices (the relevance gate's measure,
    TeachMe's retrieval query) and to the question alone (what a veto must be about), from one
    embedding batch."""
    queries = [" ".join([question, *choices]), question]
    vectors = np.asarray(embedder.embed_documents([*queries, *texts]), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    cosines = vectors[2:] @ vectors[:2].T
    return [float(c) for c in cosines[:, 0]], [float(c) for c in cosines[:, 1]]
