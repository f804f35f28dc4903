"""ReFeed (Yu et al. 2023): retrieval feedback for answers.

Sample n diverse answers; retrieve with the question plus each answer; merge, de-duplicate and
rank the documents (reciprocal rank fusion), keep the top k; refine with them; keep the initial
or the refined answer, whichever has the higher average token log-likelihood.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from mindstream.lm import Scorer, complete_batch
from mindstream.memory import MemoryStream, RetrievalWeights
from mindstream.memory.records import RelevanceMode
from mindstream.reflection.config import ReFeedConfig
from mindstream.reflection.prompts import REFEED_ANSWER, REFEED_REFINE, REFEED_SCORE_CONTEXT

Retrieve = Callable[[str, int], list[str]]  # (query, k) -> documents, best first
RRF_K = 60  # reciprocal rank fusion constant (Cormack et al. 2009)


def stream_retriever(stream: MemoryStream, owner: str, mode: RelevanceMode = "bm25") -> Retrieve:
    """Retrieve a stream's memories by relevance alone (a corpus has no recency)."""

    def retrieve(query: str, k: int) -> list[str]:
        found = stream.retrieve(
            query, k, owner=owner, mode=mode, weights=RetrievalWeights.relevance_only(), touch=False
        )
        return [m.record.text for m in found]

    return retrieve


def fuse(rankings: Sequence[Sequence[str]], k: int) -> list[str]:
    """Merge ranked lists by reciprocal rank fusion; duplicates add up, best first."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, document in enumerate(ranking):
            scores[document] = scores.get(document, 0.0) + 1.0 / (RRF_K + rank + 1)
    return sorted(scores, key=lambda d: -scores[d])[:k]


class ReFeedResult(BaseModel):
    question: str
    initial: str
    samples: list[str]
    documents: list[str]
    refined: str
    initial_score: float
    refined_score: float

    @property
    def answer(self) -> str:
        return self.refined if self.refined_score >= self.initial_score else self.initial


class ReFeed:
    def __init__(
        self,
        model: BaseChatModel,
        scorer: Scorer,
        retrieve: Retrieve,
        config: ReFeedConfig | None = None,
    ) -> None:
        self.model = model
        self.scorer = scorer
        self.retrieve = retrieve
        self.config = config or ReFeedConfig()

    def run(self, question: str) -> ReFeedResult:
        return self.run_batch([question])[0]

    def run_batch(self, questions: Sequence[str]) -> list[ReFeedResult]:
        initial = self.answer(questions)
        samples = self.sample(questions)
        documents = [self.feedback_documents(q, s) for q, s in zip(questions, samples, strict=True)]
        refine_prompts = [
            REFEED_REFINE.format(documents=_listed(d), question=q, answer=a)
            for q, a, d in zip(questions, initial, documents, strict=True)
        ]
        refined = self._ask(refine_prompts, "refine", sample=False)
        results = []
        for q, a, s, d, r in zip(questions, initial, samples, documents, refined, strict=True):
            context = REFEED_SCORE_CONTEXT.format(documents=_listed(d), question=q)
            first, second = self.scorer.choose_batch([(context, [" " + a, " " + r])])[0]
            results.append(
                ReFeedResult(
                    question=q,
                    initial=a,
                    samples=s,
                    documents=d,
                    refined=r,
                    initial_score=first,
                    refined_score=second,
                )
            )
        return results

    def answer(self, questions: Sequence[str]) -> list[str]:
        """One greedy answer per question."""
        return self._ask(
            [REFEED_ANSWER.format(question=q) for q in questions], "answer", sample=False
        )

    def sample(self, questions: Sequence[str]) -> list[list[str]]:
        """`samples` diverse answers per question, all in one batched call."""
        n = self.config.samples
        prompts = [REFEED_ANSWER.format(question=q) for q in questions for _ in range(n)]
        flat = self._ask(prompts, "sample", sample=True)
        return [flat[i * n : (i + 1) * n] for i in range(len(questions))]

    def feedback_documents(self, question: str, answers: Sequence[str]) -> list[str]:
        """Retrieve with question + each answer, fuse the rankings, keep the top documents."""
        rankings = [self.retrieve(f"{question} {a}", self.config.per_query) for a in answers]
        return fuse(rankings, self.config.keep)

    def _ask(self, prompts: list[str], component: str, *, sample: bool) -> list[str]:
        options = {"temperature": self.config.temperature} if sample else {}
        return complete_batch(
            self.model,
            prompts,
            f"refeed:{component}",
            max_tokens=self.config.max_tokens,
            **options,
        )


def _listed(documents: Sequence[str]) -> str:
    return "\n".join(f"- {d}" for d in documents)
