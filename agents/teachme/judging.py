"""Premise gating and negation: which taught facts may enter a proof, and which answers they
rule out.

A retrieved fact becomes a premise only when it bears on the question: its embedding is close
enough to the question's, and the verifier judges that it entails at least one choice's
hypothesis. A relevant negative fact ("X does not Y") rules out the choice its positive form
would support (Y), whatever the model believes. The thresholds live in `TeachMeConfig` and are
measured by `mindstream eval teachme-scoring` on train questions the verifier never saw.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from langchain_core.embeddings import Embeddings
from pydantic import BaseModel, ConfigDict

from agents.teachme.config import TeachMeConfig
from agents.teachme.language import is_negative, negate
from lm.verifier import Verifier
from memory import MemoryRecord


class FactJudgement(BaseModel):
    """What the verifier made of one retrieved fact for one question."""

    model_config = ConfigDict(frozen=True)

    fact: MemoryRecord
    similarity: float  # cosine of the fact's and the question's embeddings
    entailment: list[float]  # P(fact entails choice i's hypothesis)
    contradicted: int | None = None  # the choice a relevant negative fact rules out
    used: bool = False  # passed the gate: it may be a proof's premise


def judge_facts(
    verifier: Verifier,
    embedder: Embeddings,
    question: str,
    hypotheses: Sequence[str],
    facts: Sequence[MemoryRecord],
    config: TeachMeConfig,
    choices: Sequence[str] = (),
) -> list[FactJudgement]:
    """One verifier batch: every fact against every hypothesis, and the positive form of each
    relevant negative fact against every hypothesis. A negative fact rules out the one choice
    it names ("Fish do not breathe with lungs." names "lungs"); when no negative fact names
    one, the closest rules out the choice its positive form entails most (the verifier alone
    reads "Ice is a liquid" as support for "water", so naming comes first)."""
    if not facts:
        return []
    similarity = _similarities(embedder, question, [f.text for f in facts])
    relevant = [s >= config.gate_similarity for s in similarity]
    negatives = [n for n, f in enumerate(facts) if relevant[n] and is_negative(f.text)]
    requests = [([f.text], h) for f in facts for h in hypotheses]
    requests += [([negate(facts[n].text)], h) for n in negatives for h in hypotheses]
    judged = verifier.entailment_batch(requests)
    width = len(hypotheses)
    positive = {n: judged[(len(facts) + k) * width :][:width] for k, n in enumerate(negatives)}
    vetoes = _vetoes(facts, choices, positive, similarity, config)
    out = []
    for n, fact in enumerate(facts):
        entailment = judged[n * width : (n + 1) * width]
        ruled_out = vetoes.get(n)
        out.append(
            FactJudgement(
                fact=fact,
                similarity=similarity[n],
                entailment=entailment,
                contradicted=ruled_out,
                used=relevant[n] and max(entailment) >= config.gate_entailment,
            )
        )
    return out


def _vetoes(
    facts: Sequence[MemoryRecord],
    choices: Sequence[str],
    positive: dict[int, list[float]],
    similarity: list[float],
    config: TeachMeConfig,
) -> dict[int, int]:
    """Fact index -> the choice it rules out. Named choices first; only when no negative
    fact names a choice may the closest one rule out what its positive form entails most (so
    a loosely related "A foam cup does not conduct heat well." cannot veto "a campfire")."""
    named = {n: named_choice(facts[n].text, choices) for n in positive}
    vetoes = {n: i for n, i in named.items() if i is not None}
    if vetoes or not positive:
        return vetoes
    closest = max(positive, key=lambda n: similarity[n])
    if max(positive[closest]) >= config.veto_entailment:
        vetoes[closest] = int(np.argmax(positive[closest]))
    return vetoes


_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "do",
        "does",
        "did",
        "not",
        "no",
        "can",
        "cannot",
        "will",
        "would",
        "should",
        "has",
        "have",
        "had",
        "their",
        "there",
    ]
)


def named_choice(fact: str, choices: Sequence[str]) -> int | None:
    """The one choice whose content words the fact mentions (crudely stemmed), if one."""
    words = _content_words(fact)
    named = [i for i, choice in enumerate(choices) if _content_words(choice) & words]
    return named[0] if len(named) == 1 else None


def _content_words(text: str) -> set[str]:
    tokens = (t.strip(".,;:!?'\"()").lower() for t in text.split())
    return {t.rstrip("s") for t in tokens if len(t) > 2 and t not in _FUNCTION_WORDS}


def _similarities(embedder: Embeddings, question: str, texts: list[str]) -> list[float]:
    vectors = np.asarray(embedder.embed_documents([question, *texts]), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return [float(v) for v in vectors[1:] @ vectors[0]]
