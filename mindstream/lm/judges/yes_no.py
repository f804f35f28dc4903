"""Yes/no adapters: a LoRA on the embedded model that answers one kind of question well.

The 135M model judges badly out of the box; where it must judge (entailment, a statement out
of date, a contradiction), a small adapter trained on built data gives it the skill. Every such
adapter is read the same way: logit(" Yes") - logit(" No") at the prompt's last token, so
training and inference share `yes_no_logits`. The verifier and the relation judge are both
`YesNoAdapter`s with their own prompts.
"""

from __future__ import annotations

import math
import threading
import time
import warnings
from collections.abc import Sequence
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from mindstream.lm.backends import loading
from mindstream.lm.timing import fastest

if TYPE_CHECKING:
    import torch


class YesNo(Protocol):
    """P(yes) for prompts from a trained adapter: in this process, or served (`ServedYesNo`)."""

    load_seconds: float
    precision: str

    def p_yes(self, prompts: Sequence[str]) -> list[float]: ...


class YesNoAdapter:
    """The embedded model with one adapter merged in (its own copy of the weights, so the chat
    model stays as it was): P(yes) for each prompt."""

    def __init__(self, model: torch.nn.Module, tokenizer: object, batch_size: int = 32) -> None:
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.yes_no = yes_no_ids(tokenizer)
        self.load_seconds = 0.0
        self.precision = "float32"

    def measure_precision(self, probe: str) -> dict[str, float]:
        """Use bfloat16 autocast where it is faster on this CPU (adapters are trained and their
        curves measured under it); seconds per probe batch of each, for the record."""

        def run(precision: str) -> None:
            self.precision = precision
            self.p_yes([probe] * 16)

        self.precision, timings = fastest(
            {precision: partial(run, precision) for precision in ("float32", "bfloat16")}
        )
        return timings

    def p_yes(self, prompts: Sequence[str]) -> list[float]:
        import torch

        order = sorted(range(len(prompts)), key=lambda n: len(prompts[n]))  # less padding
        out = [0.0] * len(prompts)
        with torch.inference_mode(), autocast(self.precision):
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                batch = tokenize(self.tokenizer, [prompts[n] for n in rows])
                logits = yes_no_logits(self.model, batch, self.yes_no).float()
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


def yes_no_logits(
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


def load_yes_no_adapter(
    base: Path, adapter: Path, probe: str, threads: int | None = None, trainer: str = ""
) -> YesNoAdapter:
    """The base model in `base` with `adapter` merged; loaded once per process (service
    threads that need it at the same time wait for the one load)."""
    loading.guard_real_model_load(f"an adapter ({adapter} on {base})")
    with _LOADING:
        return _load(base, adapter, probe, threads, trainer)


_LOADING = threading.Lock()


@lru_cache(maxsize=6)
def _load(base: Path, adapter: Path, probe: str, threads: int | None, trainer: str) -> YesNoAdapter:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    if not (adapter / "adapter_config.json").is_file():
        raise FileNotFoundError(f"no adapter in {adapter}; `{trainer}` makes one")
    if threads:
        torch.set_num_threads(threads)
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()  # no "Loading weights" bar in a command's output
    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(
        str(base), dtype=torch.float32, local_files_only=True
    )
    with warnings.catch_warnings():  # peft asks transformers a deprecated question, each load
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*")
        merged = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    loaded = YesNoAdapter(merged, tokenizer)
    loaded.measure_precision(probe)
    loaded.load_seconds = time.perf_counter() - started
    return loaded
