"""`mindstream train verifier`: a LoRA adapter that makes the embedded model judge entailment.

Trained on OpenBookQA train (minus a held-out slice that draws the curve and sets TeachMe's
thresholds) and EntailmentBank train; dev is never read. The loss is binary cross-entropy on
logit(" Yes") - logit(" No"), plus a ranking term over each question's four choices.
"""

from __future__ import annotations

import json
import random
import resource
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.teachme.language import rule_hypothesis
from lm.verifier import autocast, entailment_logits, tokenize, verify_prompt, yes_no_ids
from mindstream.experiments.openbookqa import Question
from mindstream.training.verifier_data import Example

if TYPE_CHECKING:
    import torch

TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


class VerifierTraining(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rank: int = Field(16, ge=1)
    alpha: int = Field(32, ge=1)
    top_layers: int = Field(16, ge=1, description="LoRA on the last N decoder layers only")
    learning_rate: float = Field(3e-4, gt=0)
    epochs: float = Field(1.0, gt=0)
    batch_size: int = Field(32, ge=4, description="sequences per step (groups kept whole)")
    heldout: int = Field(500, ge=0, description="last N OpenBookQA train questions kept out")
    curve_questions: int = Field(200, ge=0, description="held-out questions per curve point")
    curve_points: int = Field(8, ge=1)
    entailmentbank_share: float = Field(0.3, ge=0, le=1, description="of its steps, used")
    precision: Literal["auto", "bfloat16", "float32"] = "auto"
    seed: int = 0


class CurvePoint(BaseModel):
    step: int
    examples: int
    loss: float
    heldout_accuracy: float
    seconds: float


class TrainingReport(BaseModel):
    config: VerifierTraining
    examples: dict[str, int]
    precision: str
    threads: int
    curve: list[CurvePoint]
    seconds: float
    peak_memory_mb: float
    heldout_ids: list[str]


def train_verifier(
    model: torch.nn.Module,
    tokenizer: object,
    examples: list[Example],
    heldout: list[Question],
    settings: VerifierTraining,
    progress: Callable[[int, int], None] = lambda done, total: None,
    log: Callable[[CurvePoint], None] = lambda point: None,
    log_precision: Callable[[str], None] = lambda precision: None,
) -> tuple[torch.nn.Module, list[CurvePoint], str]:
    """Wrap `model` in a LoRA adapter and train it; returns the peft model and its curve."""
    import torch
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(settings.seed)
    layers = model.config.num_hidden_layers
    lora = LoraConfig(
        r=settings.rank,
        lora_alpha=settings.alpha,
        target_modules=list(TARGET_MODULES),
        layers_to_transform=list(range(max(0, layers - settings.top_layers), layers)),
        lora_dropout=0.0,
    )
    peft_model = get_peft_model(model, lora)
    yes_no = yes_no_ids(tokenizer)
    precision = choose_precision(peft_model, tokenizer, yes_no, settings.precision)
    batches = _batches(examples, settings)
    log_precision(precision)
    optimizer = torch.optim.AdamW(
        [p for p in peft_model.parameters() if p.requires_grad], lr=settings.learning_rate
    )
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, settings.learning_rate, total_steps=len(batches), pct_start=0.06
    )
    every = max(1, len(batches) // settings.curve_points)
    curve_set = heldout[: settings.curve_questions]
    started, seen, losses = time.perf_counter(), 0, []
    curve = [
        _point(peft_model, tokenizer, yes_no, curve_set, precision, 0, 0, float("nan"), started)
    ]
    log(curve[-1])
    for step, batch in enumerate(batches, start=1):
        peft_model.train()
        loss = _loss(peft_model, tokenizer, yes_no, batch, precision)
        loss.backward()
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        seen += len(batch)
        losses.append(loss.item())
        progress(step, len(batches))
        if step % every == 0 or step == len(batches):
            mean = sum(losses[-every:]) / len(losses[-every:])
            curve.append(
                _point(
                    peft_model, tokenizer, yes_no, curve_set, precision, step, seen, mean, started
                )
            )
            log(curve[-1])
    return peft_model, curve, precision


def choose_precision(
    model: torch.nn.Module, tokenizer: object, yes_no: tuple[int, int], wanted: str
) -> str:
    """bfloat16 autocast where it is faster on this CPU (measured), else float32."""
    if wanted != "auto":
        return wanted
    batch = tokenize(tokenizer, [verify_prompt(["a fact of average length here"], "a claim")] * 16)
    timings = {}
    for precision in ("float32", "bfloat16"):
        _forward_backward(model, tokenizer, yes_no, batch, precision)  # warm-up
        start = time.perf_counter()
        _forward_backward(model, tokenizer, yes_no, batch, precision)
        timings[precision] = time.perf_counter() - start
    return min(timings, key=timings.__getitem__)


def _forward_backward(
    model: torch.nn.Module, tokenizer: object, yes_no: tuple[int, int], batch: dict, precision: str
) -> None:
    import torch

    with autocast(precision):
        z = entailment_logits(model, batch, yes_no)
    torch.nn.functional.softplus(-z.float()).mean().backward()
    model.zero_grad()


def _loss(
    model: torch.nn.Module,
    tokenizer: object,
    yes_no: tuple[int, int],
    batch: Sequence[Example],
    precision: str,
) -> torch.Tensor:
    import torch
    import torch.nn.functional as F

    inputs = tokenize(tokenizer, [verify_prompt(e.premises, e.hypothesis) for e in batch])
    with autocast(precision):
        z = entailment_logits(model, inputs, yes_no).float()
    labels = torch.tensor([float(e.entailed) for e in batch])
    loss = F.binary_cross_entropy_with_logits(z, labels)
    groups: dict[int, list[int]] = {}
    for index, example in enumerate(batch):
        if example.group:
            groups.setdefault(example.group, []).append(index)
    ranked = [
        F.cross_entropy(z[rows][None], labels[rows].argmax()[None])
        for rows in groups.values()
        if labels[rows].sum() == 1
    ]
    return loss + torch.stack(ranked).mean() if ranked else loss


def heldout_accuracy(
    model: torch.nn.Module,
    tokenizer: object,
    yes_no: tuple[int, int],
    questions: Sequence[Question],
    precision: str = "float32",
) -> float:
    """Gold-fact oracle: the choice whose hypothesis the question's core fact best entails."""
    import torch

    if not questions:
        return float("nan")
    model.eval()
    right = 0
    with torch.inference_mode(), autocast(precision):
        for start in range(0, len(questions), 8):
            chunk = questions[start : start + 8]
            prompts = [
                verify_prompt([q.fact], rule_hypothesis(q.stem, c))
                for q in chunk
                for c in q.choices
            ]
            z = entailment_logits(model, tokenize(tokenizer, prompts), yes_no).float()
            at = 0
            for q in chunk:
                scores = z[at : at + len(q.choices)]
                right += int(scores.argmax()) == q.answer_index
                at += len(q.choices)
    return right / len(questions)


def _point(
    model: torch.nn.Module,
    tokenizer: object,
    yes_no: tuple[int, int],
    questions: Sequence[Question],
    precision: str,
    step: int,
    seen: int,
    loss: float,
    started: float,
) -> CurvePoint:
    accuracy = heldout_accuracy(model, tokenizer, yes_no, questions, precision)
    return CurvePoint(
        step=step,
        examples=seen,
        loss=round(loss, 4),
        heldout_accuracy=accuracy,
        seconds=round(time.perf_counter() - started, 1),
    )


def _batches(examples: list[Example], settings: VerifierTraining) -> list[list[Example]]:
    """Shuffled units (a ranked group stays together), packed into batches; `epochs` may be
    fractional (the last pass takes a prefix of a fresh shuffle)."""
    units: dict[tuple[int, int], list[Example]] = {}
    for index, example in enumerate(examples):
        key = (example.group, 0) if example.group else (0, index)
        units.setdefault(key, []).append(example)
    rng = random.Random(settings.seed)
    pool: list[list[Example]] = []
    remaining = settings.epochs
    while remaining > 0:
        shuffled = list(units.values())
        rng.shuffle(shuffled)
        pool += shuffled[: round(len(shuffled) * min(1.0, remaining))]
        remaining -= 1
    batches: list[list[Example]] = []
    current: list[Example] = []
    for unit in pool:
        if current and len(current) + len(unit) > settings.batch_size:
            batches.append(current)
            current = []
        current += unit
    return [*batches, current] if current else batches


def peak_memory_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_report(report: TrainingReport, folder: Path) -> None:
    (folder / "training.json").write_text(json.dumps(report.model_dump(mode="json"), indent=1))
