"""The change judge's training pieces that need no model: the distillation loss, the batches,
and the refusal to distil without a teacher (checked before any model is loaded)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import torch

from mindstream.lab.training.change_data import Example
from mindstream.lab.training.change_judge import ChangeJudgeTraining, _batches, train
from mindstream.lab.training.distil import distillation_loss as _distillation


def _examples(count: int) -> list[Example]:
    return [Example(earlier="a" * n, later="b", label=n % 3, source="t") for n in range(count)]


def test_distillation_is_zero_when_the_student_says_what_the_teacher_says() -> None:
    logits = torch.tensor([[2.0, -1.0, 0.5], [0.0, 3.0, -2.0]])
    assert float(_distillation(logits, logits.clone(), 2.0)) == pytest.approx(0.0, abs=1e-6)


def test_distillation_grows_as_the_student_strays_and_pulls_it_back() -> None:
    teacher = torch.tensor([[3.0, 0.0, -3.0]])
    near = torch.tensor([[2.0, 0.0, -2.0]], requires_grad=True)
    far = torch.tensor([[-3.0, 0.0, 3.0]])
    assert float(_distillation(far, teacher, 2.0)) > float(_distillation(near, teacher, 2.0)) > 0
    _distillation(near, teacher, 2.0).backward()
    assert near.grad is not None and near.grad[0, 0] < 0 < near.grad[0, 2]  # towards the teacher


def test_one_pass_of_batches_holds_every_example_once() -> None:
    examples = _examples(101)
    batches = _batches(examples, 8, random.Random(0))
    seen = sorted(i for batch in batches for i in batch)
    assert seen == list(range(101))
    assert max(len(b) for b in batches) == 8


def test_distilling_without_the_teachers_logits_is_refused(tmp_path: Path) -> None:
    examples = _examples(4)
    config = ChangeJudgeTraining(distil=0.5, layers=3)
    with pytest.raises(ValueError, match="teacher"):
        train(examples, examples, tmp_path, config)
    with pytest.raises(ValueError, match="teacher"):
        train(examples, examples, tmp_path, config, teacher=np.zeros((3, 3), dtype=np.float32))
    assert not any(tmp_path.iterdir())


def test_a_reranker_taught_by_a_teacher_that_agrees_only_keeps_its_hard_loss() -> None:
    from mindstream.lab.training.reranker import RerankerTraining, _loss
    from mindstream.lab.training.retriever_data import Pair

    scores = torch.tensor([1.0, 2.0, -1.0, 0.0])
    pair = Pair(query="q", positive="p", negatives=("a", "b", "c"), source="t")
    config = RerankerTraining(distil=0.5, negatives=3)
    hard = float(_loss(lambda q, texts: scores, pair, config, random.Random(0)))
    agreeing = _loss(lambda q, texts: scores, pair, config, random.Random(0), lambda q, t: scores)
    assert float(agreeing) == pytest.approx(0.5 * hard, abs=1e-5)
    disagreeing = _loss(
        lambda q, texts: scores, pair, config, random.Random(0), lambda q, t: -scores.numpy()
    )
    assert float(disagreeing) > float(agreeing)
