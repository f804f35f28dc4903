"""Training the dialogue retriever: LoRA on all-MiniLM-L6-v2 as a bi-encoder (mean pooling,
normalised), in-batch negatives plus one mined hard negative per pair (the
MultipleNegativesRanking loss of sentence-transformers, written out so no `datasets` is
needed). The curve is evidence recall@10 on held-apart conversations; the adapter's folder
gets `training.json` and `training.png`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from mindstream.lab.training.adapter import CurvePoint, peak_memory_mb, plot_curve
from mindstream.lab.training.retriever_data import Dialogue, Pair

TARGETS = ("query", "key", "value", "dense")
SCALE = 20.0  # cosine -> logit, as sentence-transformers' MultipleNegativesRankingLoss


class RetrieverTraining(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rank: int = Field(16, ge=1)
    learning_rate: float = Field(3e-4, gt=0)
    epochs: float = Field(2.0, gt=0)
    batch_size: int = Field(32, ge=4)
    max_length: int = Field(64, ge=8)
    curve_points: int = Field(6, ge=1)
    seed: int = 0


class RetrieverReport(BaseModel):
    config: RetrieverTraining
    examples: int
    by_source: dict[str, int]
    curve: list[CurvePoint]
    checks: dict[str, dict[str, float]]  # measure -> {"stock": .., "tuned": ..}
    seconds: float
    peak_memory_mb: float


class Encoder:
    """The model being trained, as a sentence encoder."""

    def __init__(self, model: Any, tokenizer: Any, max_length: int) -> None:
        self.model, self.tokenizer, self.max_length = model, tokenizer, max_length

    def __call__(self, texts: Sequence[str]) -> Any:
        import torch

        batch = self.tokenizer(
            list(texts),
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
        )
        hidden = self.model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=-1)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        self.model.eval()
        with torch.no_grad():
            parts = [self(texts[i : i + 64]).numpy() for i in range(0, len(texts), 64)]
        return np.concatenate(parts) if parts else np.zeros((0, 384), dtype=np.float32)


def recall_at(
    dialogues: Sequence[Dialogue], embed: Callable[[Sequence[str]], np.ndarray], k: int
) -> float:
    """Mean share of each question's answering turns among its k nearest turns."""
    found = []
    for dialogue in dialogues:
        if not dialogue.questions:
            continue
        similarity = embed([q for q, _, _ in dialogue.questions]) @ embed(list(dialogue.turns)).T
        found += shares_found(similarity, dialogue, k)
    return float(np.mean(found)) if found else 0.0


def shares_found(similarity: np.ndarray, dialogue: Dialogue, k: int) -> list[float]:
    """Each question's share of its answering turns among the k turns most similar to it
    (`similarity`: one row per question, one column per turn)."""
    found = []
    for (_, answers, _), row in zip(dialogue.questions, similarity, strict=True):
        top = set(np.argsort(-row, kind="stable")[:k].tolist())
        found.append(len(top & set(answers)) / len(answers))
    return found


def train(
    pairs: Sequence[Pair],
    dev: Sequence[Dialogue],
    config: RetrieverTraining,
    progress: Callable[[int, int], None],
    log: Callable[[CurvePoint], None],
) -> tuple[Encoder, list[CurvePoint]]:
    """The trained encoder (its LoRA model inside) and its curve (dev recall@10 every few
    steps)."""
    import torch

    torch.manual_seed(config.seed)
    rng = random.Random(config.seed)
    encoder = _encoder(config)
    trainable = [p for p in encoder.model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trainable, lr=config.learning_rate)
    steps = max(1, int(config.epochs * len(pairs) / config.batch_size))
    every = max(1, steps // config.curve_points)
    started = time.perf_counter()
    curve = [_point(0, 0, float("nan"), dev, encoder, started)]
    log(curve[0])
    for step in range(1, steps + 1):
        encoder.model.train()
        batch = rng.sample(list(pairs), min(config.batch_size, len(pairs)))
        loss = _loss(encoder, batch, rng)
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
        progress(step, steps)
        if step % every == 0 or step == steps:
            curve.append(
                _point(step, step * len(batch), float(loss.detach()), dev, encoder, started)
            )
            log(curve[-1])
    return encoder, curve


def _encoder(config: RetrieverTraining) -> Encoder:
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModel, AutoTokenizer

    from mindstream.lm.backends.loading import minilm_model_dir

    folder = str(minilm_model_dir())
    lora = LoraConfig(
        r=config.rank, lora_alpha=2 * config.rank, lora_dropout=0.05, target_modules=list(TARGETS)
    )
    model = get_peft_model(AutoModel.from_pretrained(folder, local_files_only=True), lora)
    return Encoder(model, AutoTokenizer.from_pretrained(folder), config.max_length)


def _loss(encoder: Encoder, batch: Sequence[Pair], rng: random.Random) -> Any:
    import torch

    queries = encoder([p.query for p in batch])
    documents = encoder(
        [p.positive for p in batch]
        + [rng.choice(p.negatives) if p.negatives else p.positive for p in batch]
    )
    logits = SCALE * queries @ documents.T
    return torch.nn.functional.cross_entropy(logits, torch.arange(len(batch)))


def _point(
    step: int, examples: int, loss: float, dev: Sequence[Dialogue], encoder: Encoder, started: float
) -> CurvePoint:
    return CurvePoint(
        step=step,
        examples=examples,
        loss=loss,
        heldout_accuracy=recall_at(dev, encoder.embed, 10),
        seconds=round(time.perf_counter() - started, 1),
    )


def save(model: Any, report: RetrieverReport, out: Path) -> None:
    """The adapter, `training.json` and the curve (`training.png`)."""
    model.save_pretrained(str(out))
    (out / "training.json").write_text(report.model_dump_json(indent=1))
    plot_curve(
        report.curve,
        out / "training.png",
        "dialogue retriever (LoRA on MiniLM)",
        "dev evidence recall@10",
    )


def report_of(
    config: RetrieverTraining,
    pairs: Sequence[Pair],
    curve: list[CurvePoint],
    checks: dict[str, dict[str, float]],
    seconds: float,
) -> RetrieverReport:
    sources: dict[str, int] = {}
    for pair in pairs:
        sources[pair.source] = sources.get(pair.source, 0) + 1
    return RetrieverReport(
        config=config,
        examples=len(pairs),
        by_source=sources,
        curve=curve,
        checks=checks,
        seconds=round(seconds, 1),
        peak_memory_mb=round(peak_memory_mb(), 1),
    )
