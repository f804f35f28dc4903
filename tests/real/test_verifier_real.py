"""The committed verifier adapter on the real embedded model: it uses a fact (gold-fact oracle
on train questions training never saw), taught negations move answers (contrast pairs), and
`mindstream train verifier` makes an adapter that loads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mindstream.agents.teachme.language import rule_hypothesis
from mindstream.cli import app
from mindstream.compose import Parts
from mindstream.lab.experiments.openbookqa import DEFAULT_DATA, load_questions
from mindstream.lab.experiments.teachme import Lab
from mindstream.lab.experiments.teachme_contrast import run as run_contrast
from mindstream.lm.backends.loading import cached_smollm2_dir
from mindstream.lm.config import LocalModelConfig
from mindstream.lm.judges.verifier import load_adapter_verifier

pytestmark = pytest.mark.real_model

HELD_OUT_FROM = 4457  # the last 500 train questions: the verifier never trains on them


@pytest.fixture(scope="module")
def lab() -> Lab:
    return Lab.of(Parts.load())


def test_the_adapter_uses_the_gold_fact_on_unseen_train_questions(lab: Lab) -> None:
    questions = load_questions(DEFAULT_DATA / "train_complete.jsonl")[HELD_OUT_FROM:][:80]
    assert lab.verifier is not None
    right = 0
    for q in questions:
        judged = lab.verifier.entailment_batch(
            [([q.fact], rule_hypothesis(q.stem, c)) for c in q.choices]
        )
        right += int(np.argmax(judged)) == q.answer_index
    print(f"gold-fact oracle with the verifier: {right}/{len(questions)}")
    assert right / len(questions) >= 0.5


def test_taught_negations_keep_most_answers_off_the_denied_choice(lab: Lab, tmp_path: Path) -> None:
    """A floor under the measured 77% / 80% (README: the lexical rule reached 100% by also
    vetoing supported choices; the judge's vetoes do not, and lose some pairs)."""
    result = run_contrast(lab, tmp_path)
    print(result["away_from_y"])
    assert result["away_from_y"]["own"] >= 0.7
    assert result["away_from_y"]["all"] >= 0.7


def test_train_verifier_makes_an_adapter_that_loads(tmp_path: Path) -> None:
    out = tmp_path / "adapter"
    args = ["train", "verifier", "--limit", "4", "--curve-questions", "4", "--threads", "1"]
    result = CliRunner().invoke(app, [*args, "--out", str(out)])
    print(result.output)
    assert result.exit_code == 0, result.output
    assert "held-out gold-fact accuracy" in result.output
    assert (out / "training.json").is_file() and (out / "training.png").is_file()
    base = cached_smollm2_dir(LocalModelConfig().cache_dir)
    verifier = load_adapter_verifier(base, out, threads=1)
    (p,) = verifier.entailment_batch([(["Iron is a metal."], "Iron is a metal.")])
    assert 0.0 < p < 1.0
