"""The entailment verifier: does a set of premises entail a hypothesis?

TeachMe checks every proof with a model trained to judge entailment. The embedded 135M model
has no such skill out of the box, so a LoRA adapter (trained by `mindstream train verifier`
on OpenBookQA train and EntailmentBank train, shipped in `lm/adapters/verifier`) gives it one.
The judgement is read from one position: the difference of the " Yes" and " No" logits after
the prompt, so training and inference share `entailment_logits`. A served model has no
adapter; it answers the same question through its scorer's `p_yes_batch`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from langchain_core.prompts import PromptTemplate

from lm.config import VERIFIER_ADAPTER_DIR
from lm.loading import guard_real_model_load

if TYPE_CHECKING:
    import torch

    from lm.scoring import Scorer

ADAPTER_DIR = VERIFIER_ADAPTER_DIR
NO_PREMISES = "(none)"

# One template for training and inference; a premise-free request asks about the claim alone.
VERIFY = PromptTemplate.from_template(
    "Facts: {premises}\nClaim: {hypothesis}\nDo the facts show that the claim is true? Answer:"
)
FEW_SHOT = PromptTemplate.from_template(
    "Answer each question with Yes or No.\n\n"
    "Facts: Snow is cold. Ice is frozen water.\nClaim: Ice is cold.\n"
    "Do the facts show that the claim is true? Answer: Yes\n\n"
    "Facts: Dogs are animals.\nClaim: Dogs can fly.\n"
    "Do the facts show that the claim is true? Answer: No\n\n"
    "{request}"
)


def verify_prompt(premises: Sequence[str], hypothesis: str) -> str:
    joined = " ".join(p.strip().rstrip(".") + "." for p in premises if p.strip())
    claim = hypothesis.strip().rstrip(".") + "."
    return VERIFY.format(premises=joined or NO_PREMISES, hypothesis=claim)


@runtime_checkable
class Verifier(Protocol):
    """Judges proofs: P(premises entail hypothesis) for each request."""

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]: ...


class MemoVerifier:
    """A verifier that judges each (premises, hypothesis) once: a frozen model's judgement
    never changes, and experiments ask the same ones many times."""

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier
        self.memo: dict[tuple[tuple[str, ...], str], float] = {}

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        keys = [(tuple(p), h) for p, h in requests]
        new = list(dict.fromkeys(k for k in keys if k not in self.memo))
        self.memo.update(zip(new, self.verifier.entailment_batch(new), strict=True))
        return [self.memo[k] for k in keys]


class ScorerVerifier:
    """Any scorer as a verifier (a served model): its P(yes) on a few-shot prompt."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        prompts = [FEW_SHOT.format(request=verify_prompt(p, h)) for p, h in requests]
        return self.scorer.p_yes_batch(prompts) if prompts else []


class AdapterVerifier:
    """The embedded model with the verifier adapter merged in (its own copy of the weights,
    so the chat model stays as it was)."""

    def __init__(self, model: torch.nn.Module, tokenizer: object, batch_size: int = 32) -> None:
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.yes_no = yes_no_ids(tokenizer)
        self.load_seconds = 0.0
        self.precision = "float32"

    def measure_precision(self) -> dict[str, float]:
        """Use bfloat16 autocast where it is faster on this CPU (the adapter was trained and
        its curve measured under it); seconds per probe batch of each, for the record."""
        probe = [(["a fact of about the usual length for a proof"], "a claim to check")] * 16
        timings = {}
        for precision in ("float32", "bfloat16"):
            self.precision = precision
            self.entailment_batch(probe)  # warm-up
            start = time.perf_counter()
            self.entailment_batch(probe)
            timings[precision] = time.perf_counter() - start
        self.precision = min(timings, key=timings.__getitem__)
        return timings

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        import torch

        prompts = [verify_prompt(p, h) for p, h in requests]
        order = sorted(range(len(prompts)), key=lambda n: len(prompts[n]))  # less padding
        out = [0.0] * len(prompts)
        with torch.inference_mode(), autocast(self.precision):
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                batch = tokenize(self.tokenizer, [prompts[n] for n in rows])
                logits = entailment_logits(self.model, batch, self.yes_no).float()
                for n, z in zip(rows, logits.tolist(), strict=True):
                    out[n] = 1 / (1 + math.exp(-z))
        return out


def yes_no_ids(tokenizer: object) -> tuple[int, int]:
    """The single tokens " Yes" and " No" (the answer follows "Answer:")."""
    ids = [tokenizer.encode(word, add_special_tokens=False) for word in (" Yes", " No")]  # type: ignore[attr-defined]
    if any(len(i) != 1 for i in ids):
        raise ValueError(f"the tokenizer splits ' Yes'/' No' into {ids}")
    return ids[0][0], ids[1][0]


def tokenize(tokenizer: object, prompts: Sequence[str]) -> dict[str, torch.Tensor]:
    """Right-padded ids and mask; the judgement is read at each row's last real token."""
    return tokenizer(  # type: ignore[operator]
        list(prompts), return_tensors="pt", padding=True, padding_side="right"
    )


def autocast(precision: str) -> torch.autocast:
    """bfloat16 autocast on the CPU when `precision` says so (training and inference agree)."""
    import torch

    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bfloat16")


def entailment_logits(
    model: torch.nn.Module, batch: dict[str, torch.Tensor], yes_no: tuple[int, int]
) -> torch.Tensor:
    """logit(" Yes") - logit(" No") after each prompt, computing the output layer only for
    those two tokens at the last position (the full vocabulary is a fifth of the model)."""
    import torch

    body = model.get_decoder()
    hidden = body(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
    ).last_hidden_state
    last = batch["attention_mask"].sum(1) - 1
    final = hidden[torch.arange(hidden.shape[0]), last]
    weights = model.get_output_embeddings().weight
    direction = weights[yes_no[0]] - weights[yes_no[1]]
    return final @ direction


def load_adapter_verifier(
    base: Path, adapter: Path = ADAPTER_DIR, threads: int | None = None
) -> AdapterVerifier:
    """The base model in `base` with `adapter` merged; loaded once per process."""
    guard_real_model_load(f"the verifier ({adapter} on {base})")
    return _load(base, adapter, threads)


@lru_cache(maxsize=2)
def _load(base: Path, adapter: Path, threads: int | None) -> AdapterVerifier:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    if not (adapter / "adapter_config.json").is_file():
        raise FileNotFoundError(
            f"no verifier adapter in {adapter}; `mindstream train verifier` makes one"
        )
    if threads:
        torch.set_num_threads(threads)
    hf_logging.set_verbosity_error()
    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(
        str(base), dtype=torch.float32, local_files_only=True
    )
    merged = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    verifier = AdapterVerifier(merged, tokenizer)
    verifier.measure_precision()
    verifier.load_seconds = time.perf_counter() - started
    return verifier
