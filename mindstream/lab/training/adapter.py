"""Training a yes/no adapter (`lm.yes_no`): LoRA on the embedded model, binary cross-entropy on
logit(" Yes") - logit(" No"), plus a ranking term over groups with one right member.

The verifier and the relation judge are trained by this one loop; each brings its examples (a
prompt and a label) and its own held-out measure for the curve.
"""

from __future__ import annotations

import json
import random
import resource
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mindstream.lm.judges.yes_no import autocast, tokenize, yes_no_ids, yes_no_logits
from mindstream.lm.timing import fastest

if TYPE_CHECKING:
    import torch

TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


class AdapterTraining(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rank: int = Field(16, ge=1)
    alpha: int = Field(32, ge=1)
    top_layers: int = Field(16, ge=1, description="LoRA on the last N decoder layers only")
    learning_rate: float = Field(3e-4, gt=0)
    epochs: float = Field(1.0, gt=0)
    batch_size: int = Field(32, ge=4, description="sequences per step (groups kept whole)")
    curve_points: int = Field(8, ge=1)
    precision: Literal["auto", "bfloat16", "float32"] = "auto"
    seed: int = 0
    start_from: Path | None = Field(
        None, description="go on training this adapter folder rather than a fresh LoRA"
    )


class Labelled(BaseModel):
    """One yes/no training example. Examples sharing a `group` (> 0) have exactly one yes and
    are also ranked against each other."""

    model_config = ConfigDict(frozen=True)

    prompt: str
    label: bool
    group: int = 0
    source: str = ""


class CurvePoint(BaseModel):
    step: int
    examples: int
    loss: float
    heldout_accuracy: float
    seconds: float


class Hooks(BaseModel):
    """What the loop reports as it goes (a progress bar, curve lines, the chosen precision)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    progress: Callable[[int, int], None] = lambda done, total: None
    log: Callable[[CurvePoint], None] = lambda point: None
    log_precision: Callable[[str], None] = lambda precision: None


Evaluate = Callable[[Any, str], float]  # (model, precision) -> held-out accuracy


def train_adapter(
    model: torch.nn.Module,
    tokenizer: object,
    examples: Sequence[Labelled],
    evaluate: Evaluate,
    settings: AdapterTraining,
    hooks: Hooks | None = None,
) -> tuple[torch.nn.Module, list[CurvePoint], str]:
    """Wrap `model` in a LoRA adapter and train it; returns the peft model, its curve and the
    precision it was trained under."""
    import torch

    hooks = hooks or Hooks()
    torch.manual_seed(settings.seed)
    peft_model = with_adapter(model, settings)
    yes_no = yes_no_ids(tokenizer)
    precision = choose_precision(peft_model, tokenizer, yes_no, settings.precision)
    hooks.log_precision(precision)
    batches = make_batches(examples, settings)
    optimizer = torch.optim.AdamW(
        [p for p in peft_model.parameters() if p.requires_grad], lr=settings.learning_rate
    )
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, settings.learning_rate, total_steps=len(batches), pct_start=0.06
    )
    every = max(1, len(batches) // settings.curve_points)
    started, seen, losses = time.perf_counter(), 0, []

    def point(step: int, loss: float) -> CurvePoint:
        peft_model.eval()
        accuracy = evaluate(peft_model, precision)
        made = CurvePoint(
            step=step,
            examples=seen,
            loss=round(loss, 4),
            heldout_accuracy=accuracy,
            seconds=round(time.perf_counter() - started, 1),
        )
        hooks.log(made)
        return made

    curve = [point(0, float("nan"))]
    for step, batch in enumerate(batches, start=1):
        peft_model.train()
        loss = batch_loss(peft_model, tokenizer, yes_no, batch, precision)
        loss.backward()
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        seen += len(batch)
        losses.append(loss.item())
        hooks.progress(step, len(batches))
        if step % every == 0 or step == len(batches):
            curve.append(point(step, sum(losses[-every:]) / len(losses[-every:])))
    return peft_model, curve, precision


def with_adapter(model: torch.nn.Module, settings: AdapterTraining) -> torch.nn.Module:
    """A fresh LoRA on the top layers, or the adapter in `start_from` made trainable again (a
    short second pass on new examples costs minutes where the first pass cost an hour)."""
    from peft import LoraConfig, PeftModel, get_peft_model

    if settings.start_from is not None:
        return PeftModel.from_pretrained(model, str(settings.start_from), is_trainable=True)
    layers = model.config.num_hidden_layers
    lora = LoraConfig(
        r=settings.rank,
        lora_alpha=settings.alpha,
        target_modules=list(TARGET_MODULES),
        layers_to_transform=list(range(max(0, layers - settings.top_layers), layers)),
        lora_dropout=0.0,
    )
    return get_peft_model(model, lora)


def choose_precision(
    model: torch.nn.Module, tokenizer: object, yes_no: tuple[int, int], wanted: str
) -> str:
    """bfloat16 autocast where it is faster on this CPU (measured), else float32."""
    if wanted != "auto":
        return wanted
    probe = "Facts: a fact of average length here.\nClaim: a claim.\nAnswer:"
    batch = tokenize(tokenizer, [probe] * 16)
    chosen, _ = fastest(
        {p: partial(_forward_backward, model, yes_no, batch, p) for p in ("float32", "bfloat16")}
    )
    return chosen


def _forward_backward(
    model: torch.nn.Module, yes_no: tuple[int, int], batch: dict, precision: str
) -> None:
    import torch

    with autocast(precision):
        z = yes_no_logits(model, batch, yes_no)
    torch.nn.functional.softplus(-z.float()).mean().backward()
    model.zero_grad()


def batch_loss(
    model: torch.nn.Module,
    tokenizer: object,
    yes_no: tuple[int, int],
    batch: Sequence[Labelled],
    precision: str,
) -> torch.Tensor:
    import torch
    import torch.nn.functional as F

    inputs = tokenize(tokenizer, [e.prompt for e in batch])
    with autocast(precision):
        z = yes_no_logits(model, inputs, yes_no).float()
    labels = torch.tensor([float(e.label) for e in batch])
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


def yes_probabilities(
    model: torch.nn.Module, tokenizer: object, prompts: Sequence[str], precision: str
) -> list[float]:
    """P(yes) per prompt from a model being trained (batches of 16, no gradients)."""
    import torch

    yes_no = yes_no_ids(tokenizer)
    out: list[float] = []
    with torch.inference_mode(), autocast(precision):
        for start in range(0, len(prompts), 16):
            batch = tokenize(tokenizer, prompts[start : start + 16])
            out += torch.sigmoid(yes_no_logits(model, batch, yes_no).float()).tolist()
    return out


def make_batches(examples: Sequence[Labelled], settings: AdapterTraining) -> list[list[Labelled]]:
    """Shuffled units (a ranked group stays together), packed into batches; `epochs` may be
    fractional (the last pass takes a prefix of a fresh shuffle)."""
    units: dict[tuple[int, int], list[Labelled]] = {}
    for index, example in enumerate(examples):
        key = (example.group, 0) if example.group else (0, index)
        units.setdefault(key, []).append(example)
    rng = random.Random(settings.seed)
    pool: list[list[Labelled]] = []
    remaining = settings.epochs
    while remaining > 0:
        shuffled = list(units.values())
        rng.shuffle(shuffled)
        pool += shuffled[: round(len(shuffled) * min(1.0, remaining))]
        remaining -= 1
    batches: list[list[Labelled]] = []
    current: list[Labelled] = []
    for unit in pool:
        if current and len(current) + len(unit) > settings.batch_size:
            batches.append(current)
            current = []
        current += unit
    return [*batches, current] if current else batches


def peak_memory_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_report(report: BaseModel, folder: Path) -> None:
    (folder / "training.json").write_text(json.dumps(report.model_dump(mode="json"), indent=1))


def plot_curve(curve: Sequence[CurvePoint], path: Path, title: str, measure: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, left = plt.subplots(figsize=(6, 4))
    left.plot([p.examples for p in curve], [100 * p.heldout_accuracy for p in curve], marker="o")
    left.set_xlabel("training examples seen")
    left.set_ylabel(f"{measure} (%)")
    right = left.twinx()
    right.plot([p.examples for p in curve[1:]], [p.loss for p in curve[1:]], color="grey", ls="--")
    right.set_ylabel("training loss (dashed)")
    left.set_title(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
