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
) -> list[FactJudgement]:
    """One verifier batch: every fact against every hypothesis, and the positive form of each
    relevant negative fact against every hypothesis."""
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
    out = []
    for n, fact in enumerate(facts):
        entailment = judged[n * width : (n + 1) * width]
        ruled_out = None
        if n in positive and max(positive[n]) >= config.veto_entailment:
            ruled_out = int(np.argmax(positive[n]))
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


def _similarities(embedder: Embeddings, question: str, texts: list[str]) -> list[float]:
    vectors = np.asarray(embedder.embed_documents([question, *texts]), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return [float(v) for v in vectors[1:] @ vectors[0]]
