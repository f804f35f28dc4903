"""Knowing what is true now, on the real embedded model and the committed judge adapter: the
judge's clear cases, the assistant's Leeds-to-York move on a chroma store on disk, and the two
TeachMe cases where a taught fact used to veto the answer it supports."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindstream.cli import app
from mindstream.compose import Parts
from mindstream.lm.config import LocalModelConfig
from mindstream.lm.judge import load_adapter_judge
from mindstream.lm.loading import cached_smollm2_dir
from mindstream.memory import MemoryStatus

pytestmark = pytest.mark.real_model

LEEDS = "I live in a small flat in Leeds."
YORK = "We finally signed the lease on the house in York, the boxes went over on Saturday."

# The issue's own sentences. The York one is also one of the judge's training templates
# (mindstream/lab/training/data/judge_slots.yaml): passing here shows the adapter fits what it was
# taught; how it does on wordings it never saw is `mindstream eval changed-facts`.


@pytest.fixture(scope="module")
def judge():  # type: ignore[no-untyped-def]
    return load_adapter_judge(cached_smollm2_dir(LocalModelConfig().cache_dir), threads=1)


def test_the_judge_separates_a_move_from_compatible_news(judge) -> None:  # type: ignore[no-untyped-def]
    changed, sister, pet = judge.replaces_batch(
        [
            (LEEDS, YORK),
            (LEEDS, "My sister lives in York now."),
            ("We have a dog called Bess.", "We adopted a kitten as well."),
        ]
    )
    print(f"\nP(replaces): move {changed:.2f}, sister's move {sister:.2f}, second pet {pet:.2f}")
    assert changed >= 0.5 > max(sister, pet)


def test_the_judge_finds_what_a_fact_shows_false(judge) -> None:  # type: ignore[no-untyped-def]
    fact = "Sound travels fastest through solids like steel and cannot travel through empty space."
    stem = "Through which material does sound travel fastest"
    space, steel = judge.contradicts_batch(
        [(fact, f"{stem}: empty space."), (fact, f"{stem}: steel.")]
    )
    print(f"\nP(contradicts): empty space {space:.2f}, steel {steel:.2f}")
    assert space > steel


def test_the_assistant_answers_with_the_move_not_the_old_flat(tmp_path: Path) -> None:
    """The issue's user: Leeds, three other things over three days, York ten days later."""
    assistant = Parts.load().assistant(tmp_path / "memory")
    stream = assistant.stream
    start = datetime(2026, 3, 2, 9, tzinfo=UTC)
    said = [
        (LEEDS, 0),
        ("Had a lovely walk along the canal this morning.", 1),
        ("The printer at work jammed again.", 2),
        ("Booked tickets for a gig in March.", 3),
        (YORK, 13),
    ]
    ids = [
        stream.add(
            text, owner="maya", kind="fact", importance=5, created_at=start + timedelta(d)
        ).id
        for text, d in said
    ]
    leeds = stream.get(ids[0])
    print(f"\nLeeds: {leeds.status.value} {dict(leeds.metadata)}")
    assert leeds.status is MemoryStatus.SUPERSEDED and leeds.replaced_by == ids[-1]
    found = assistant.search("maya", "Which city do I live in?")
    assert found[0].record.id == ids[-1]
    assert ids[0] not in {m.record.id for m in found}
    before = assistant.search("maya", "Where did I live before?", history=True)
    assert ids[0] in {m.record.id for m in before}
    others = [stream.get(i).status for i in ids[1:4]]
    assert others == [MemoryStatus.ACTIVE] * 3  # everyday remarks replace nothing
    stream.close()


def _teach(store: Path, *lines: str) -> str:
    dialogue = "\n".join([*lines, "quit"]) + "\n"
    result = CliRunner().invoke(app, ["teach", "--store", str(store)], input=dialogue)
    print(result.output)
    assert result.exit_code == 0, result.output
    return result.output


def _answers(output: str) -> list[str]:
    lines = [line.removeprefix("> ") for line in output.splitlines()]
    return [
        line.removeprefix("Answer: ").split("   (")[0]
        for line in lines
        if line.startswith("Answer:")
    ]


def test_a_taught_fact_never_vetoes_the_answer_it_supports(tmp_path: Path) -> None:
    output = _teach(
        tmp_path / "sound",
        "q Through which material does sound travel fastest? (A) air (B) empty space "
        "(C) steel (D) cotton",
        "m Sound travels fastest through solids like steel and cannot travel through empty space.",
    )
    assert _answers(output)[-1] == "steel"
    assert "ruled out 'steel'" not in output


def test_a_negated_premise_then_the_right_fact_answers_the_top_surface(tmp_path: Path) -> None:
    """The final answer is right and rules nothing right out. (The answer in between, after
    `f 1` alone, still rules out the top surface: the contradicts adapter misreads "Ice is not
    denser than liquid water" as denying it, 0.37; the newer fact then overrules that veto.)"""
    output = _teach(
        tmp_path / "ice",
        "q In winter a pond freezes. Where does the ice form? (A) at the bottom "
        "(B) on the top surface (C) in the mud (D) under the rocks",
        "m Ice is denser than liquid water.",
        "f 1",
        "m Ice floats on water because it is less dense than water.",
    )
    assert _answers(output)[-1] == "on the top surface"
    last = output.rsplit("Answer:", 1)[1]
    assert "ruled out 'on the top surface'" not in last
