"""Training the reranker: a cross-encoder started from the dialogue retriever's weights, with a
LoRA adapter and a one-logit head, taught to put a question's answering turn above the turns
the tuned retriever confuses with it (softmax over the positive and a few mined negatives).
The curve is dev evidence recall@10 after re-scoring the retriever's top candidates, as the
memory stream does (`memory.relevance.reranked`). A shallower one (`layers`) can also learn
the shipped reranker's scores over the same candidates (`distil`): a cheaper query."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from mindstream.lab.training.adapter import CurvePoint, plot_curve
from mindstream.lab.training.distil import distillation_loss
from mindstream.lab.training.retriever import TARGETS
from mindstream.lab.training.retriever_data import Dialogue, Pair
from mindstream.lm.judges.reranker import keep_layers
from mindstream.memory.scoring import minmax

Embed = Callable[[Sequence[str]], np.ndarray]
Scores = Callable[[str, Sequence[str]], np.ndarray]  # a reranker: one score per text


class RerankerTraining(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rank: int = Field(16, ge=1)
    learning_rate: float = Field(3e-4, gt=0)
    epochs: float = Field(1.0, gt=0)
    questions_per_step: int = Field(8, ge=1)
    negatives: int = Field(3, ge=1)
    max_length: int = Field(128, ge=8)
    layers: int = Field(6, ge=1, le=6, description="MiniLM's first N layers: fewer, faster")
    candidates: int = Field(20, ge=10, description="the retriever's top N the reranker reads")
    weight: float = Field(0.5, ge=0, description="its score beside the retriever's")
    curve_points: int = Field(3, ge=1)
    seed: int = 0
    distil: float = Field(
        0.0, ge=0, le=1, description="weight of a trained reranker's scores in the loss"
    )
    distil_temperature: float = Field(1.0, gt=0)


class RerankerReport(BaseModel):
    config: RerankerTraining
    examples: int
    by_source: dict[str, int]
    curve: list[CurvePoint]
    checks: dict[str, dict[str, float]]  # measure -> {"retriever": .., "reranked": ..}
    seconds: float
    peak_memory_mb: float


class CrossEncoder:
    """The model being trained: one logit per (question, turn)."""

    def __init__(self, model: Any, tokenizer: Any, max_length: int) -> None:
        self.model, self.tokenizer, self.max_length = model, tokenizer, max_length

    def __call__(self, query: str, texts: Sequence[str]) -> Any:
        batch = self.tokenizer(
            [query] * len(texts),
            list(texts),
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
        )
        return self.model(**batch).logits.squeeze(-1)

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        import torch

        self.model.eval()
        with torch.no_grad():
            return np.asarray(self(query, texts).numpy(), dtype=np.float32)


def recall_reranked(
    dialogues: Sequence[Dialogue],
    embed: Embed,
    rerank: Callable[[str, Sequence[str]], np.ndarray] | None,
    config: RerankerTraining,
    k: int = 10,
) -> float:
    """Mean share of answering turns among the top k: the retriever's order, or its top
    `candidates` re-scored as the stream does."""
    found = []
    for dialogue in dialogues:
        if not dialogue.questions:
            continue
        similarity = embed([q for q, _, _ in dialogue.questions]) @ embed(list(dialogue.turns)).T
        for (query, answers, _), row in zip(dialogue.questions, similarity, strict=True):
            top = np.argsort(-row, kind="stable")[: config.candidates]
            if rerank is not None:
                read = rerank(query, [dialogue.turns[i] for i in top])
                mixed = minmax(row[top]) + config.weight * minmax(read)
                top = top[np.argsort(-mixed, kind="stable")]
            found.append(len(set(top[:k].tolist()) & set(answers)) / len(answers))
    return float(np.mean(found)) if found else 0.0


def train(
    pairs: Sequence[Pair],
    dev: Sequence[Dialogue],
    embed: Embed,
    config: RerankerTraining,
    progress: Callable[[int, int], None],
    log: Callable[[CurvePoint], None],
    teacher: Scores | None = None,
) -> tuple[CrossEncoder, list[CurvePoint]]:
    """The trained cross-encoder and its curve; `teacher`: a trained reranker whose scores
    it also learns (with `config.distil`)."""
    import torch

    torch.manual_seed(config.seed)
    rng = random.Random(config.seed)
    encoder = _cross_encoder(config)
    trainable = [p for p in encoder.model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trainable, lr=config.learning_rate)
    steps = max(1, int(config.epochs * len(pairs) / config.questions_per_step))
    every = max(1, steps // config.curve_points)
    started = time.perf_counter()
    curve = [_point(0, float("nan"), recall_reranked(dev, embed, None, config), started)]
    log(curve[0])  # the retriever alone
    for step in range(1, steps + 1):
        encoder.model.train()
        batch = rng.sample(list(pairs), min(config.questions_per_step, len(pairs)))
        loss = sum(_loss(encoder, pair, config, rng, teacher) for pair in batch) / len(batch)
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
        progress(step, steps)
        if step % every == 0 or step == steps:
            recall = recall_reranked(dev, embed, encoder.scores, config)
            curve.append(_point(step * len(batch), float(loss.detach()), recall, started, step))
            log(curve[-1])
    return encoder, curve


def _point(examples: int, loss: float, recall: float, started: float, step: int = 0) -> CurvePoint:
    return CurvePoint(
        step=step,
        examples=examples,
        loss=loss,
        heldout_accuracy=recall,
        seconds=round(time.perf_counter() - started, 1),
    )


def _loss(
    encoder: Callable[[str, Sequence[str]], Any],
    pair: Pair,
    config: RerankerTraining,
    rng: random.Random,
    teacher: Scores | None = None,
) -> Any:
    import torch

    chosen = rng.sample(list(pair.negatives), min(config.negatives, len(pair.negatives)))
    texts = [pair.positive, *chosen]
    logits = encoder(pair.query, texts).unsqueeze(0)
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor([0]))
    if teacher is None or not config.distil:
        return loss
    taught = torch.from_numpy(np.asarray(teacher(pair.query, texts), dtype=np.float32))
    soft = distillation_loss(logits, taught.unsqueeze(0), config.distil_temperature)
    return (1 - config.distil) * loss + config.distil * soft


def _cross_encoder(config: RerankerTraining) -> CrossEncoder:
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from mindstream.lm.backends.embeddings import RETRIEVER_DIR
    from mindstream.lm.backends.loading import minilm_model_dir
    from mindstream.lm.backends.onnx_embedder import merged_encoder

    base = minilm_model_dir()
    model = AutoModelForSequenceClassification.from_pretrained(
        str(base), num_labels=1, local_files_only=True
    )
    model.bert.load_state_dict(merged_encoder(base, RETRIEVER_DIR).state_dict(), strict=False)
    keep_layers(model, config.layers)
    lora = LoraConfig(
        r=config.rank,
        lora_alpha=2 * config.rank,
        lora_dropout=0.05,
        target_modules=list(TARGETS),
        modules_to_save=["classifier"],
    )
    return CrossEncoder(
        get_peft_model(model, lora), AutoTokenizer.from_pretrained(str(base)), config.max_length
    )


def save(encoder: CrossEncoder, report: RerankerReport, out: Path) -> None:
    """The adapter with how to read it (`judge_config.json`), `training.json`, the curve."""
    from mindstream.lm.backends.embeddings import RETRIEVER_DIR
    from mindstream.lm.backends.onnx_embedder import fingerprint

    encoder.model.save_pretrained(str(out))
    settings = {
        "labels": ["relevant"],
        "max_length": report.config.max_length,
        "layers": report.config.layers,
        "candidates": report.config.candidates,
        "built_on": fingerprint(RETRIEVER_DIR),
    }
    (out / "judge_config.json").write_text(json.dumps(settings))
    (out / "training.json").write_text(report.model_dump_json(indent=1))
    plot_curve(
        report.curve,
        out / "training.png",
        "reranker (LoRA cross-encoder on the dialogue retriever)",
        "dev evidence recall@10, reranked",
    )
