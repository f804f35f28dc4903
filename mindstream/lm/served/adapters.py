"""mindstream's trained adapters (the verifier, the relation judge) served by vLLM as LoRA
modules (`--enable-lora --lora-modules NAME=DIR`), read with the same two-logit judgement as
in-process: P(yes) = sigmoid(logit(" Yes") - logit(" No")) after the prompt, which is the two
tokens' log-probability difference. `mindstream model serve --engine vllm` serves them under
the names below; a server that lists them in `/v1/models` is asked through them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from mindstream.lm.config import JUDGE_ADAPTER_DIR, VERIFIER_ADAPTER_DIR
from mindstream.lm.errors import ServedModelError, ServerUnreachableError
from mindstream.lm.served.endpoint import Endpoint
from mindstream.lm.served.likelihood import Step, Tokens, parallel, step_logprobs

ADAPTERS = {
    "mindstream-verifier": VERIFIER_ADAPTER_DIR,
    "mindstream-judge-replaces": JUDGE_ADAPTER_DIR / "replaces",
    "mindstream-judge-contradicts": JUDGE_ADAPTER_DIR / "contradicts",
    "mindstream-judge-reacts": JUDGE_ADAPTER_DIR / "reacts",
    "mindstream-judge-poignant": JUDGE_ADAPTER_DIR / "poignant",
}


def lora_modules(adapters: dict[str, Path] = ADAPTERS) -> list[str]:
    """vLLM's flags to serve `adapters` (rank 16, as trained); one not trained here (a trimmed
    install) is left out, and asking for it answers few-shot instead."""
    modules = [
        f"{name}={folder}"
        for name, folder in adapters.items()
        if (folder / "adapter_config.json").is_file()
    ]
    limits = ["--max-lora-rank", "16", "--max-loras", str(len(modules))]
    return ["--enable-lora", *limits, "--lora-modules", *modules]


def served_adapters(endpoint: Endpoint) -> set[str]:
    """Which of mindstream's adapters the server lists as models (none where it cannot list
    them: `transformers serve` answers 500 offline)."""
    try:
        listed = endpoint.call(
            lambda client: client.with_options(max_retries=0).models.list(), "the list of models"
        )
    except ServerUnreachableError:
        raise
    except ServedModelError:
        return set()
    return {m.id for m in listed.data} & set(ADAPTERS)


class ServedYesNo:
    """P(yes) for prompts from an adapter on the server (the `YesNoAdapter` of a server)."""

    load_seconds = 0.0
    precision = "served"

    def __init__(self, endpoint: Endpoint, adapter: str) -> None:
        self.endpoint = endpoint.model_copy(update={"model": adapter})
        self.tokens = Tokens(self.endpoint)
        yes, no = self.tokens.of(" Yes"), self.tokens.of(" No")
        if len(yes) != 1 or len(no) != 1:
            raise ServedModelError(f"the server's tokenizer splits ' Yes'/' No' ({yes}, {no})")
        self.yes, self.no = yes[0], no[0]

    def p_yes(self, prompts: Sequence[str]) -> list[float]:
        if not prompts:
            return []
        limit = self.endpoint.config.max_concurrency
        ids = [tuple(i) for i in parallel(self.tokens.of, list(prompts), limit)]
        steps: list[Step] = [(i, token) for i in ids for token in (self.yes, self.no)]
        logprob = step_logprobs(self.endpoint, steps)
        return [_sigmoid(logprob[(i, self.yes)] - logprob[(i, self.no)]) for i in ids]


@lru_cache(maxsize=16)
def served_yes_no(endpoint: Endpoint, adapter: str) -> ServedYesNo:
    """One `ServedYesNo` per adapter and server in a process (it tokenises on creation)."""
    return ServedYesNo(endpoint, adapter)


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))
