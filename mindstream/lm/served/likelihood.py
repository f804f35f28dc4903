"""Exact log-likelihoods from a server that gives the log-probabilities of chosen next tokens
(vLLM's `logprob_token_ids`): the local scorer's questions over HTTP.

Texts are tokenised by the server (`/tokenize`, as the local backend does: no special tokens,
a prompt's trailing space moved onto the continuation). Each token of a continuation is one
step, (the prompt and the continuation's tokens before it, the token); the steps' distinct
contexts go as token-id prompts of one generated token, packed several per
`/v1/completions` request, each asking the log-probabilities of just the tokens it needs.
(Echoed prompt log-probabilities would do too, but vLLM computes them without its prefix
cache: 90 s against 5 s for the 20 test ratings here.) Ratings and yes/no go through the same label
trie as in-process (`label_log_scores`), choices through mean log-likelihoods, and `choose_many`
with a baseline gets its PMI, so a served model and the local one answer the same questions.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from mindstream.lm.accounting import CallLedger
from mindstream.lm.errors import ScoringInputError, ServedModelError
from mindstream.lm.scoring.scorer import (
    NO_LABELS,
    YES_LABELS,
    LogLikelihood,
    expected_value,
    label_log_scores,
    mean_loglik_choices,
    normalise,
    scale_labels,
    yes_share,
)
from mindstream.lm.served.endpoint import Endpoint

T = TypeVar("T")
R = TypeVar("R")
REQUEST_BATCH = 16  # prompts per /v1/completions request
MAX_TOKENS_ASKED = 20  # vLLM's default --max-logprobs


def server_root(endpoint: Endpoint) -> str:
    """vLLM serves `/tokenize` beside `/v1`, not under it."""
    url = endpoint.url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


class Tokens:
    """The server's tokenisation of texts, remembered (prompts repeat across a batch)."""

    def __init__(self, endpoint: Endpoint, limit: int = 4096) -> None:
        self.endpoint = endpoint
        self.limit = limit
        self._known: dict[str, list[int]] = {}
        self._lock = threading.Lock()

    def of(self, text: str) -> list[int]:
        with self._lock:
            if text in self._known:
                return self._known[text]
        ids = self.ask({"prompt": text, "add_special_tokens": False})
        with self._lock:
            if len(self._known) >= self.limit:
                self._known.clear()
            self._known[text] = ids
        return ids

    def chat(self, messages: list[dict[str, str]]) -> list[int]:
        """The model's own chat template applied by the server; a final assistant message is
        continued (a prefill), as the local backend does."""
        prefill = bool(messages) and messages[-1]["role"] == "assistant"
        return self.ask(
            {
                "messages": messages,
                "add_generation_prompt": not prefill,
                "continue_final_message": prefill,
            }
        )

    def ask(self, body: dict[str, Any]) -> list[int]:
        url = f"{server_root(self.endpoint)}/tokenize"
        reply = self.endpoint.call(
            lambda client: client.post(
                url, body={"model": self.endpoint.model, **body}, cast_to=object
            ),
            "tokenisation (/tokenize)",
        )
        if not isinstance(reply, dict) or not isinstance(reply.get("tokens"), list):
            raise ServedModelError(f"the server at {self.endpoint.url} gave no tokens: {reply!r}")
        return [int(t) for t in reply["tokens"]]


Step = tuple[tuple[int, ...], int]  # (context token ids, the next token)


def next_token_logprobs(endpoint: Endpoint, steps: list[Step]) -> dict[Step, float]:
    """log P(token | context) for each step, in one request: every distinct context is one
    prompt of one generated token, with the log-probabilities of just the tokens asked for
    (`logprob_token_ids`, vLLM), so the engine's prefix cache serves the shared prompt."""
    contexts = list(dict.fromkeys(context for context, _ in steps))
    wanted = sorted({token for _, token in steps})
    reply = endpoint.call(
        lambda client: client.completions.create(
            model=endpoint.model,
            prompt=[list(c) for c in contexts],
            max_tokens=1,
            temperature=0.0,
            logprobs=len(wanted),
            extra_body={"logprob_token_ids": wanted, "return_tokens_as_token_ids": True},
        ),
        "a completion with next-token log-probabilities",
    )
    found: dict[Step, float] = {}
    for choice in reply.choices:
        alternatives = (getattr(choice.logprobs, "top_logprobs", None) or [{}])[0] or {}
        for name, logprob in alternatives.items():
            token = int(str(name).removeprefix("token_id:"))
            found[(contexts[choice.index], token)] = float(logprob)
    missing = [step for step in steps if step not in found]
    if missing:
        raise ServedModelError(
            f"the server at {endpoint.url} gave no log-probability for {len(missing)} asked "
            "tokens (it needs vLLM's logprob_token_ids)"
        )
    return {step: found[step] for step in steps}


def packed(steps: list[Step], contexts: int, tokens: int) -> list[list[Step]]:
    """Steps in requests of at most `contexts` prompts asking at most `tokens` token ids (a
    server caps the log-probabilities per position, vLLM at 20 by default)."""
    by_context: dict[tuple[int, ...], set[int]] = {}
    for context, token in steps:
        by_context.setdefault(context, set()).add(token)
    out: list[list[Step]] = []
    chunk: list[Step] = []
    asked: set[int] = set()
    held: set[tuple[int, ...]] = set()
    for context, wanted in by_context.items():
        if chunk and (len(held) >= contexts or len(asked | wanted) > tokens):
            out.append(chunk)
            chunk, asked, held = [], set(), set()
        chunk += [(context, token) for token in sorted(wanted)]
        asked |= wanted
        held.add(context)
    return [*out, chunk] if chunk else out


class ServedLikelihoodScorer:
    """A `LikelihoodScorer` on a server: a batch's steps packed into requests, up to the
    endpoint's `max_concurrency` in flight (a batching engine runs them together)."""

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        tokens: Tokens | None = None,
        ledger: CallLedger | None = None,
        component: str = "decision",
    ) -> None:
        self.endpoint = endpoint
        self.tokens = tokens or Tokens(endpoint)
        self.ledger = ledger
        self.component = component

    def for_component(
        self, component: str, ledger: CallLedger | None = None
    ) -> ServedLikelihoodScorer:
        return ServedLikelihoodScorer(
            self.endpoint,
            tokens=self.tokens,
            ledger=ledger or self.ledger,
            component=component,
        )

    # ---- LikelihoodScorer -------------------------------------------------------------
    def loglik(self, prompt: str, continuations: Sequence[str]) -> list[LogLikelihood]:
        return self.loglik_batch([(prompt, c) for c in continuations])

    def loglik_batch(self, pairs: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        rows = [row for _, row in self._measured(list(pairs))]
        return [LogLikelihood(total=sum(r), mean=sum(r) / len(r), tokens=len(r)) for r in rows]

    # ---- Scorer -------------------------------------------------------------------------
    def choose_batch(self, requests: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
        return mean_loglik_choices(self, requests)

    def rate_batch(self, prompts: Sequence[str], low: int = 1, high: int = 10) -> list[float]:
        rows = self.label_probabilities(prompts, scale_labels(low, high))
        return [expected_value(row, low) for row in rows]

    def p_yes_batch(self, prompts: Sequence[str]) -> list[float]:
        rows = self.label_probabilities(prompts, [*YES_LABELS, *NO_LABELS])
        return [yes_share(row) for row in rows]

    def label_probabilities(
        self, prompts: Sequence[str], labels: Sequence[str]
    ) -> list[list[float]]:
        """P(label | prompt) over a closed set, normalised: the local backend's trie, with
        each label's tokens scored by the server."""
        if not labels:
            raise ScoringInputError("no labels to choose from")
        pairs = [(prompt, label) for prompt in prompts for label in labels]
        scored = iter(self._measured(pairs))
        return [_distribution([next(scored) for _ in labels]) for _ in prompts]

    # ---- requests -----------------------------------------------------------------------
    def _scored_tokens(
        self, pairs: Sequence[tuple[str, str]]
    ) -> tuple[list[tuple[tuple[int, ...], list[float]]], int]:
        """Each continuation's token ids and their log-probabilities after its prompt, and
        the tokens the scored sequences hold."""
        split = [_move_trailing_space(prompt, continuation) for prompt, continuation in pairs]
        if any(not prompt or not continuation for prompt, continuation in split):
            raise ScoringInputError("a served likelihood needs a prompt and a continuation")
        distinct = list(dict.fromkeys(text for pair in split for text in pair))
        limit = self.endpoint.config.max_concurrency
        ids = dict(zip(distinct, parallel(self.tokens.of, distinct, limit), strict=True))
        per_pair = [_steps(ids[p], ids[c]) for p, c in split]
        logprob = step_logprobs(self.endpoint, [s for steps in per_pair for s in steps])
        scored = [
            (tuple(ids[c]), [logprob[step] for step in steps])
            for (_, c), steps in zip(split, per_pair, strict=True)
        ]
        return scored, sum(len(ids[p]) + len(ids[c]) for p, c in split)

    def _measured(self, pairs: list[tuple[str, str]]) -> list[tuple[tuple[int, ...], list[float]]]:
        if not pairs:
            return []
        start = time.perf_counter()
        scored, tokens = self._scored_tokens(pairs)
        if self.ledger is not None:
            self.ledger.record(
                self.component,
                calls=len(pairs),
                prompt_tokens=tokens,
                seconds=time.perf_counter() - start,
            )
        return scored


def step_logprobs(endpoint: Endpoint, steps: list[Step]) -> dict[Step, float]:
    """`next_token_logprobs` of many steps: packed into requests within the server's limits,
    up to the endpoint's `max_concurrency` in flight."""
    logprob: dict[Step, float] = {}
    asked = packed(steps, REQUEST_BATCH, MAX_TOKENS_ASKED)
    limit = endpoint.config.max_concurrency
    for answer in parallel(lambda chunk: next_token_logprobs(endpoint, chunk), asked, limit):
        logprob.update(answer)
    return logprob


def parallel(ask: Callable[[T], R], items: list[T], limit: int) -> list[R]:
    """`ask` of each item, up to `limit` at once (requests to a batching engine)."""
    workers = min(limit, len(items))
    if workers <= 1:
        return [ask(item) for item in items]
    with ThreadPoolExecutor(workers, thread_name_prefix="mindstream-likelihood") as pool:
        return list(pool.map(ask, items))


def _steps(prompt: list[int], continuation: list[int]) -> list[Step]:
    return [(tuple(prompt + continuation[:d]), token) for d, token in enumerate(continuation)]


def _distribution(labels: list[tuple[tuple[int, ...], list[float]]]) -> list[float]:
    """The labels' probabilities from each label's tokens and their log-probabilities."""
    steps = {(ids[:d], ids[d]): lp for ids, row in labels for d, lp in enumerate(row)}
    return normalise(label_log_scores([ids for ids, _ in labels], lambda *step: steps[step]))


def _move_trailing_space(prompt: str, continuation: str) -> tuple[str, str]:
    """As the local backend: "Rating: " + "7" is scored as "Rating:" + " 7"."""
    stripped = prompt.rstrip(" ")
    return stripped, prompt[len(stripped) :] + continuation
