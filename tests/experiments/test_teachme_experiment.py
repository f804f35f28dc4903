"""The simulated-teacher experiment on a tiny data set with a scripted scorer: the teacher adds
a core fact only for wrong answers, teaching helps where the fact is relevant, and a finished
run resumes without scoring anything again, unless TeachMe's settings changed."""

from __future__ import annotations

import json
from pathlib import Path

from mindstream.agents.teachme import TeachMeConfig
from mindstream.lab.experiments.teachme import Lab, run
from mindstream.lm.fakes import FakeScorer, HashEmbeddings
from tests.plain_build import plain_parts

# (stem, wrong choice, right choice, core fact). The scorer favours a choice whose word is in
# the context, so only a proof citing the right fact gets the answer right; ties go to (A).
TRAIN = [
    ("What does a magnet pull?", "wood", "iron", "a magnet pulls iron"),
    ("What do plants need?", "salt", "sunlight", "plants need sunlight"),
    ("What melts ice?", "cold", "heat", "heat melts ice"),
    ("What do lungs take in?", "stone", "oxygen", "lungs take in oxygen"),
    ("Do we breathe stone or oxygen?", "stone", "oxygen", "we breathe oxygen"),  # right untaught
]
DEV = [
    ("A magnet will pick up", "wood", "iron", "a magnet pulls iron"),
    ("Green plants need", "salt", "sunlight", "plants need sunlight"),
]


def _write(folder: Path, name: str, rows: list[tuple[str, str, str, str]]) -> None:
    lines = [
        json.dumps(
            {
                "id": f"{name}-{n}",
                "answerKey": "B",
                "fact1": fact,
                "question": {
                    "stem": stem,
                    "choices": [{"text": wrong, "label": "A"}, {"text": right, "label": "B"}],
                },
            }
        )
        for n, (stem, wrong, right, fact) in enumerate(rows)
    ]
    (folder / f"{name}_complete.jsonl").write_text("\n".join(lines) + "\n")


def test_teacher_teaches_wrong_answers_and_a_finished_run_resumes_for_free(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    _write(data, "train", TRAIN)
    _write(data, "dev", DEV)
    out, work = tmp_path / "results", tmp_path / "work"

    def experiment(scorer: FakeScorer, retrieve_k: int = 5) -> dict:  # type: ignore[type-arg]
        embedder = HashEmbeddings()
        lab = Lab(
            plain_parts(embedder), scorer, embedder, config=TeachMeConfig(retrieve_k=retrieve_k)
        )
        return run(
            data / "dev_complete.jsonl",
            data / "train_complete.jsonl",
            None,
            None,
            2,
            1,
            0,
            work,
            lab,
            out=out,
        )

    result = experiment(FakeScorer())
    assert (result["direct"], result["before"]) == (0.0, 0.0)  # ties go to the wrong (A)
    assert (result["after"], result["upper_bound"]) == (1.0, 1.0)
    assert result["taught_per_ordering"] == [4]  # the one right answer taught nothing
    curve = result["curves"][0]
    assert curve[0] == 0.0 and curve[-1] == 1.0 and curve == sorted(curve)
    assert {"teachme.md", "teachme.json", "teachme_curve.png"} <= {p.name for p in out.iterdir()}
    assert (
        "| TeachMe, after teaching (4 facts, 5 train questions) | 100.0% |"
        in (out / "teachme.md").read_text()
    )

    again = FakeScorer()
    assert experiment(again)["curves"] == result["curves"]
    assert again.calls == []  # everything came from the saved state

    changed = FakeScorer()
    assert experiment(changed, retrieve_k=3)["after"] == 1.0
    assert changed.calls != []  # other settings: the saved state was not reused
