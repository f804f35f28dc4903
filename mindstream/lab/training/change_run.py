"""The change judge's training job: data from the train and dev conversations, a progress bar,
the adapter and its report (`training.json`, curve) on disk."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict
from rich.console import Console
from rich.progress import Progress

from mindstream.lab.experiments import truth_data
from mindstream.lab.experiments.report import table
from mindstream.lab.experiments.truth_data import Conversation
from mindstream.lab.training import change_data
from mindstream.lab.training.change_judge import ChangeJudgeTraining, train, write_report
from mindstream.lab.training.counterfactual import counterfactuals, minilm_vocabulary
from mindstream.lab.training.foretold import foretold_pairs
from mindstream.lab.training.run import check_out, check_start
from mindstream.lab.training.state_updates import state_pairs
from mindstream.lm.backends.onnx_embedder import fingerprint

console = Console()


def run_change_judge(
    out: Path,
    *,
    overwrite: bool,
    epochs: float,
    learning_rate: float,
    rank: int,
    templates: int,
    hand: Path | None,
    threads: int,
    layers: int | None = None,
    distil_from: Path | None = None,
    distil: float = 0.5,
    focus: Focus | None = None,
    start_from: Path | None = None,
    replay: int = 3,
) -> dict[str, object]:
    """`start_from` goes on training a judge on the `focus` pairs and `replay` times as many
    drawn from the full set (so it keeps what it knew); else a new judge on everything."""
    import torch

    from mindstream.lm.backends.embeddings import MiniLMEmbeddings

    check_out(out, overwrite)
    check_start(distil_from, "--distil-from")
    check_start(start_from, "--start-from")
    torch.set_num_threads(threads)
    embed = MiniLMEmbeddings(threads=threads).embed_array
    in_vocabulary = minilm_vocabulary()
    train_part = truth_data.split("train")
    examples = change_data.build(
        train_part,
        embed,
        templates=templates,
        hand=hand or change_data.HAND,
        counterfactual=lambda conversation: counterfactuals(conversation, in_vocabulary),
    )
    chosen = (focus or Focus()).pairs(embed, train_part)
    examples = _continued(examples, chosen, replay) if start_from else examples + chosen
    dev = [e for c in truth_data.split("dev") for e in change_data.mined(c, embed)]
    config = ChangeJudgeTraining(
        epochs=epochs,
        learning_rate=learning_rate,
        rank=rank,
        alpha=2 * rank,
        layers=layers,
        distil=distil if distil_from else 0.0,
        start_from=str(start_from) if start_from else None,
    )
    console.print(f"{len(examples)} training pairs, {len(dev)} dev pairs")
    teacher = _teacher_logits(distil_from, examples, threads) if distil_from else None
    with Progress(console=console) as progress:
        task = progress.add_task("training", total=None)
        report = train(
            examples,
            dev,
            out,
            config,
            lambda done, total: progress.update(task, completed=done, total=total),
            lambda point: console.print(
                f"step {point['step']}: loss {point['loss']:.3f}, dev AUC {point['auc']:.3f}, "
                f"P/R at 0.5 {point['precision_at']['0.5']}/{point['recall_at']['0.5']}"
            ),
            teacher=teacher,
        )
    if distil_from:
        report["distilled_from"] = {"fingerprint": fingerprint(distil_from), "weight": distil}
    write_report(report, out)
    rows = [
        [
            p["step"],
            f"{p['loss']:.3f}",
            f"{p['auc']:.3f}",
            p["precision_at"]["0.9"],
            p["recall_at"]["0.9"],
        ]
        for p in report["curve"]
    ]
    console.print(table(["step", "loss", "dev AUC", "P@0.9", "R@0.9"], rows))
    console.print(
        f"temperature {report['temperature']}, {report['seconds']} s, "
        f"peak {report['peak_memory_mb']} MB; written {out}"
    )
    return report


class Focus(BaseModel):
    """What a judge that goes on training reads most: fresh state-update draws, foretold
    draws (a plan or forecast, then it happening), the hand-written pairs, the pairs mined
    from some conversations (added to the train part), and the share of the written pairs
    shown among other chat (`change_data.with_context`)."""

    model_config = ConfigDict(frozen=True)

    state_updates: int = 0
    state_seed: int = 0
    foretold: int = 0
    hand: bool = False
    context_share: float = 0.0
    chats: tuple[Path, ...] = ()

    def pairs(
        self, embed: change_data.Embed, train_part: Sequence[Conversation]
    ) -> list[change_data.Example]:
        """`train_part` gives the sentences of chat set beside the written pairs."""
        written = state_pairs(self.state_updates, self.state_seed) if self.state_updates else []
        written += foretold_pairs(self.foretold, self.state_seed) if self.foretold else []
        written += change_data.hand_pairs() if self.hand else []
        if self.context_share > 0:  # before the names, which stay in front of the whole turn
            sentences = change_data.chat_sentences(train_part)
            written = change_data.with_context(
                written, sentences, share=self.context_share, seed=self.state_seed
            )
        chats = [c for path in self.chats for c in truth_data.load(path)]
        mined = change_data.build(chats, embed, templates=0, hand=None) if chats else []
        return change_data.styled(written, seed=1) + mined


def _continued(
    everything: list[change_data.Example], focus: list[change_data.Example], replay: int
) -> list[change_data.Example]:
    """The focus pairs and `replay` times as many of the rest, shuffled."""
    rng = random.Random(0)
    drawn = rng.sample(everything, min(len(everything), replay * len(focus)))
    mixed = focus + drawn
    rng.shuffle(mixed)
    return mixed


def _teacher_logits(folder: Path, examples: list[change_data.Example], threads: int) -> np.ndarray:
    """A trained judge's logits on every training pair (its exported graph: a few minutes)."""
    from mindstream.lm.judges.change_judge import load_change_judge

    judge = load_change_judge(folder, threads=threads)
    console.print(f"the teacher ({folder}) reads {len(examples)} pairs")
    return judge.logits([(e.earlier, e.later) for e in examples], batch_size=16)
