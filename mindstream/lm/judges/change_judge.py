"""The change judge: how a later statement relates to an earlier one, read by a small trained
pair model (a cross-encoder on all-MiniLM-L6-v2, shipped as a LoRA adapter and a head in
`adapters/change_judge/`, trained by `mindstream train change-judge`).

Three relations, as probabilities that sum to one: `other` (another question: another item of
a list, another person's fact), `same_slot` (the same question, and the earlier stays true:
a restatement, a detail, a plan) and `replaces` (the same question, and the earlier is out of
date). Deciding "same slot" and "replaces" together is what keeps like items of a list and
other people's facts from superseding each other.

The pair model is merged into the base weights and exported to an onnxruntime graph once per
machine (in the model cache), so judging a write imports neither torch nor transformers and
runs a few hundred pairs a second on one core.

Two judges are shipped and read as one (`PairEnsemble`): the judge trained on the 47 train
conversations with counterfactual negatives (`adapters/change_judge/`), and the one trained
on 33 before it (`adapters/change_judge_second/`). A pair the first finds at least
`ENSEMBLE_FROM` likely to be a replacement is read by both and their probabilities averaged:
two models trained on different data err on different pairs. On the dev streams this took
precision from 87.8% (the first alone) to 94.4% at the same threshold; the second judge reads
3% of the dev conversations' mined pairs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from mindstream.lm.backends import loading
from mindstream.lm.backends.onnx_embedder import (
    export_bert,
    fingerprint,
    session_options,
    written_once,
)

CHANGE_JUDGE_DIR = Path(__file__).parents[1] / "adapters" / "change_judge"
SECOND_CHANGE_JUDGE_DIR = CHANGE_JUDGE_DIR.with_name("change_judge_second")
ENSEMBLE_FROM = 0.5  # below it the average stays under 0.75, short of a supersede (0.9)
SETTINGS = "judge_config.json"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class Relation(BaseModel):
    """P(other), P(same slot, still true), P(replaces) for one (earlier, later) pair."""

    model_config = ConfigDict(frozen=True)

    other: float
    same_slot: float
    replaces: float

    @property
    def about_the_same(self) -> float:
        """P(both answer the same question about the same person or thing)."""
        return self.same_slot + self.replaces


class JudgeSettings(BaseModel):
    """What training wrote beside the adapter: how to read the model's logits."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    labels: tuple[str, ...] = ("other", "same slot", "replaces")
    temperature: float = Field(1.0, gt=0)
    max_length: int = Field(128, ge=8)
    built_on: str | None = None  # the fingerprint of the adapter it was trained on top of
    layers: int | None = Field(None, ge=1)  # MiniLM's first N layers (None: all six)
    candidates: int | None = Field(None, ge=1)  # a reranker: the top N it was trained to read


def settings_of(folder: Path) -> JudgeSettings:
    path = folder / SETTINGS
    return (
        JudgeSettings.model_validate_json(path.read_text()) if path.is_file() else JudgeSettings()
    )


def probabilities(logits: np.ndarray, temperature: float) -> np.ndarray:
    scaled = logits / temperature
    scaled = scaled - scaled.max(axis=1, keepdims=True)
    weights = np.exp(scaled)
    return weights / weights.sum(axis=1, keepdims=True)


class OnnxPairModel:
    """An exported MiniLM cross-encoder: its logits for (first, second) text pairs."""

    def __init__(
        self,
        graph: Path,
        tokenizer_dir: Path,
        settings: JudgeSettings,
        threads: int | None,
        spin: bool = True,
    ):
        import onnxruntime
        from tokenizers import Tokenizer

        self.session = onnxruntime.InferenceSession(
            str(graph), session_options(threads, spin), providers=["CPUExecutionProvider"]
        )
        self.settings = settings
        self.tokenizer = Tokenizer.from_file(str(tokenizer_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(settings.max_length)
        self.tokenizer.enable_padding()

    def logits(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> np.ndarray:
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out = np.zeros((len(pairs), len(self.settings.labels)), dtype=np.float32)
        for first in range(0, len(order), batch_size):
            chosen = order[first : first + batch_size]
            encoded = self.tokenizer.encode_batch([pairs[i] for i in chosen])
            feeds = {
                "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
            }
            (logits,) = self.session.run(["logits"], feeds)
            out[chosen] = logits
        return out


class OnnxChangeJudge(OnnxPairModel):
    """The exported change judge: `relate_batch` for the three relations, `replaces_batch` for
    the memory stream's `ReplacementJudge` protocol."""

    def relate_batch(self, pairs: Sequence[tuple[str, str]]) -> list[Relation]:
        if not pairs:
            return []
        p = probabilities(self.logits(pairs), self.settings.temperature)
        return [Relation(other=float(a), same_slot=float(b), replaces=float(c)) for a, b, c in p]

    def replaces_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return [r.replaces for r in self.relate_batch(pairs)]


class PairJudge(Protocol):
    def relate_batch(self, pairs: Sequence[tuple[str, str]]) -> list[Relation]: ...


class PairEnsemble:
    """Two change judges read as one: where the first finds a pair at least `ask_from` likely
    to be a replacement, the two judges' probabilities averaged; elsewhere the first's."""

    def __init__(self, first: PairJudge, second: PairJudge, ask_from: float = ENSEMBLE_FROM):
        self.first = first
        self.second = second
        self.ask_from = ask_from

    def relate_batch(self, pairs: Sequence[tuple[str, str]]) -> list[Relation]:
        out = list(self.first.relate_batch(pairs))
        asked = [i for i, r in enumerate(out) if r.replaces >= self.ask_from]
        if asked:
            again = self.second.relate_batch([pairs[i] for i in asked])
            for i, other in zip(asked, again, strict=True):
                out[i] = _mean(out[i], other)
        return out

    def replaces_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return [r.replaces for r in self.relate_batch(pairs)]


def _mean(a: Relation, b: Relation) -> Relation:
    return Relation(
        other=(a.other + b.other) / 2,
        same_slot=(a.same_slot + b.same_slot) / 2,
        replaces=(a.replaces + b.replaces) / 2,
    )


def keep_layers(model: Any, layers: int | None) -> None:
    """Keep MiniLM's first `layers` transformer layers: a pair costs in proportion to the
    layers it passes, and the reranker is on the query path, the change judge on every write."""
    if layers is None or layers >= len(model.bert.encoder.layer):
        return
    model.bert.encoder.layer = model.bert.encoder.layer[:layers]
    model.config.num_hidden_layers = layers


def merged_model(folder: Path, base: Path) -> Any:
    """The base MiniLM with the trained LoRA adapter and head merged in (torch, for export
    and for training-time measures)."""
    from peft import PeftModel
    from transformers import AutoModelForSequenceClassification
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    settings = settings_of(folder)
    model = AutoModelForSequenceClassification.from_pretrained(
        str(base), num_labels=len(settings.labels), local_files_only=True
    )
    keep_layers(model, settings.layers)
    return PeftModel.from_pretrained(model, str(folder)).merge_and_unload().eval()


def cached_graph(folder: Path, base: Path, cache_dir: Path, quantized: bool = True) -> Path:
    """The merged model as an onnxruntime graph, exported once per adapter version; with
    `quantized`, its weights in int8 (dynamic quantization: about twice the pairs a second
    on this CPU, probabilities within a few hundredths, measured in training.json)."""
    stem = cache_dir / f"change-judge-{fingerprint(folder)}"
    return exported_graph(stem, "the change judge", lambda: merged_model(folder, base), quantized)


def exported_graph(stem: Path, what: str, model: Callable[[], Any], quantized: bool) -> Path:
    """`stem`.onnx (or `stem`-int8.onnx) holding `model()`'s logits, exported once: a pair
    model's graph in the model cache (the change judge's, the reranker's)."""

    def write(path: Path) -> None:
        full = path.with_name("fp32.onnx")
        export(model(), full)
        if quantized:
            quantize(full, path)
        else:
            full.rename(path)

    target = stem.with_name(f"{stem.name}{'-int8' if quantized else ''}.onnx")
    return written_once(target, what, write)


def quantize(source: Path, target: Path) -> None:
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # its advice to pre-process is not for BERT
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8)
    finally:
        root.setLevel(level)  # else every later warning of the process is lost


def export(model: Any, path: Path) -> None:
    export_bert(_Logits(model), path, "logits")


def _Logits(model: Any) -> Any:
    import torch

    class Logits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            return self.model(input_ids=ids, attention_mask=mask, token_type_ids=types).logits

    return Logits()


@lru_cache(maxsize=4)
def load_change_judge(
    folder: Path = CHANGE_JUDGE_DIR,
    cache_dir: Path | None = None,
    threads: int | None = None,
    quantized: bool = True,
) -> OnnxChangeJudge:
    """The shipped change judge (exported on first use)."""
    from mindstream.lm.config import LocalModelConfig

    if not (folder / "adapter_config.json").is_file():
        raise FileNotFoundError(
            f"{folder}: no change judge here (train one: mindstream train change-judge)"
        )
    base = loading.minilm_model_dir()
    loading.guard_real_model_load(f"the change judge in {folder}")
    graph = cached_graph(folder, base, cache_dir or LocalModelConfig().cache_dir, quantized)
    return OnnxChangeJudge(graph, base, settings_of(folder), threads, spin=False)


def load_pair_judges(
    cache_dir: Path | None = None, threads: int | None = None
) -> PairEnsemble | OnnxChangeJudge:
    """The shipped change judges as one (`PairEnsemble`); the first alone where the second is
    not installed."""
    first = load_change_judge(CHANGE_JUDGE_DIR, cache_dir, threads)
    if not (SECOND_CHANGE_JUDGE_DIR / "adapter_config.json").is_file():
        return first
    return PairEnsemble(first, load_change_judge(SECOND_CHANGE_JUDGE_DIR, cache_dir, threads))


def describe(folder: Path = CHANGE_JUDGE_DIR) -> dict[str, Any]:
    """The shipped judge's training report (what it was trained on, how it did)."""
    path = folder / "training.json"
    return dict(json.loads(path.read_text())) if path.is_file() else {}
