"""Deterministic stand-ins for unit tests: a scripted chat model, a scorer, embeddings."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from mindstream.lm.scoring.scorer import LogLikelihood, mean_loglik_choices, scale_labels

_WORD = re.compile(r"[a-z0-9]+")


class ScriptedChatModel(BaseChatModel):
    """Replies chosen by prompt substring: the first rule whose key occurs in the prompt wins.

    A rule's value is a string or a list of strings served in turn (the last one repeats).
    Every prompt is kept in `prompts`, and its sampling options (temperature, seed) in
    `options`, so tests can assert what was asked and how.
    """

    rules: dict[str, str | list[str]] = Field(default_factory=dict)
    default: str = ""
    prompts: list[str] = Field(default_factory=list)
    options: list[dict[str, Any]] = Field(default_factory=list)
    served: dict[str, int] = Field(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = "\n".join(m.text for m in messages)
        self.prompts.append(prompt)
        self.options.append({k: v for k, v in kwargs.items() if k in ("temperature", "seed")})
        reply = self._reply(prompt)
        usage = {"input_tokens": len(prompt.split()), "output_tokens": len(reply.split())}
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        message = AIMessage(content=reply, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _reply(self, prompt: str) -> str:
        for key, value in self.rules.items():
            if key in prompt:
                if isinstance(value, str):
                    return value
                turn = self.served.get(key, 0)
                self.served[key] = turn + 1
                return value[min(turn, len(value) - 1)]
        return self.default


class FakeScorer:
    """A `Scorer` driven by word overlap, or by a function you pass in.

    `loglik` rewards continuations sharing words with the prompt; `rate_batch` and
    `p_yes_batch` call `rating` / `yes` on the prompt (defaults: midpoint, 0.5).
    """

    def __init__(
        self,
        rating: Callable[[str], float] | None = None,
        yes: Callable[[str], float] | None = None,
    ) -> None:
        self._rating = rating
        self._yes = yes
        self.calls: list[str] = []

    def choose_batch(self, requests: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
        return mean_loglik_choices(self, requests)

    def loglik(self, prompt: str, continuations: Sequence[str]) -> list[LogLikelihood]:
        return self.loglik_batch([(prompt, c) for c in continuations])

    def loglik_batch(self, pairs: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        self.calls.append("loglik")
        out = []
        for prompt, text in pairs:
            prompt_words = set(_WORD.findall(prompt.lower()))
            words = _WORD.findall(text.lower()) or [""]
            per_token = [0.0 if w in prompt_words else -2.0 for w in words]
            out.append(
                LogLikelihood(
                    total=sum(per_token), mean=sum(per_token) / len(words), tokens=len(words)
                )
            )
        return out

    def rate_batch(self, prompts: Sequence[str], low: int = 1, high: int = 10) -> list[float]:
        scale_labels(low, high)
        self.calls.append("rate")
        middle = (low + high) / 2
        return [min(max(self._rating(p), low), high) if self._rating else middle for p in prompts]

    def p_yes_batch(self, prompts: Sequence[str]) -> list[float]:
        self.calls.append("p_yes")
        return [self._yes(p) if self._yes else 0.5 for p in prompts]


class HashEmbeddings(Embeddings):
    """Bag-of-words vectors hashed into `dimension` buckets, normalised.

    Texts that share words are similar, so retrieval tests behave sensibly without a model.
    """

    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest, "little") % self.dimension] += 1.0
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:
                out[row, 0] = 1.0
            else:
                out[row] /= norm
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_array([text])[0].tolist()


Relation = Callable[[str, str], float]


class FakeJudge:
    """A relation judge from two functions of a pair (unit tests only); counts its batches,
    and fails every call while `broken` (a server down)."""

    def __init__(self, replaces: Relation | None = None, contradicts: Relation | None = None):
        self.replaces = replaces or (lambda earlier, later: 0.0)
        self.contradicts = contradicts or (lambda fact, claim: 0.0)
        self.batches = 0
        self.broken = False

    def replaces_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self._call(self.replaces, pairs)

    def contradicts_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self._call(self.contradicts, pairs)

    def _call(self, relation: Relation, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if self.broken:
            raise ConnectionError("the judge's server is down")
        self.batches += 1
        return [relation(a, b) for a, b in pairs]
