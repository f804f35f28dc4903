"""Knowing what is true now, on the real embedded models: the shipped change judge's clear
cases (a change told as a new state, a list of like notes, another person's fact), what the
second shipped judge keeps true, the
assistant's Leeds-to-York move judged in the background on a chroma store on disk, a list of
25 like notes that must all stay, and the two TeachMe cases where a taught fact used to veto
the answer it supports."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindstream.cli import app
from mindstream.compose import Parts
from mindstream.lm.backends.loading import cached_smollm2_dir
from mindstream.lm.config import LocalModelConfig
from mindstream.lm.judges.change_judge import PairEnsemble, load_change_judge, load_pair_judges
from mindstream.lm.judges.relation import load_adapter_judge
from mindstream.memory import MemoryStatus
from mindstream.memory.confirmation import ConfirmedJudge
from mindstream.memory.records import ChangePolicy

pytestmark = pytest.mark.real_model

LEEDS = "I live in a small flat in Leeds."
YORK = "We finally signed the lease on the house in York, the boxes went over on Saturday."


@pytest.fixture(scope="module")
def judge():  # type: ignore[no-untyped-def]
    return load_adapter_judge(cached_smollm2_dir(LocalModelConfig().cache_dir), threads=1)


def test_the_change_judge_reads_a_change_and_keeps_what_stays_true() -> None:
    judge = load_change_judge(threads=1)
    move, car, note, sister, manager = judge.relate_batch(
        [
            (LEEDS, YORK),
            ("i cycle everywhere, don't own a car", "passed my test!! picked up a little corsa"),
            ("note: locker 14 code 2291", "note: the bike shed code is 7781"),
            (LEEDS, "My sister just moved to York."),
            ("My manager is Priya.", "Priya's own boss is leaving in June."),
        ]
    )
    print(
        f"\nP(replaces): move {move.replaces:.2f}, car {car.replaces:.2f}, "
        f"other note {note.replaces:.2f}, sister {sister.replaces:.2f}, "
        f"manager's boss {manager.replaces:.2f}"
    )
    threshold = ChangePolicy().threshold
    # What the shipped policy promises: none of the three that stay true reaches the threshold.
    assert max(note.replaces, sister.replaces, manager.replaces) < threshold
    # A change told as a new state outranks a like note and another person's move.
    assert car.replaces > max(note.replaces, sister.replaces)


def test_the_change_judge_separates_an_indirect_move_from_another_persons_fact() -> None:
    judge = load_change_judge(threads=1)
    move, manager = judge.relate_batch(
        [(LEEDS, YORK), ("My manager is Priya.", "Priya's own boss is leaving in June.")]
    )
    assert move.replaces > 0.5 > manager.replaces


CODE = (
    "Writing this down before I forget: the front door keypad code at Banksia is 4417, then "
    "the hash key.",
    "Also, Banksia have changed the front door code after the escape business. It's 7731 and "
    "hash now.",
)


def test_the_second_pair_judge_keeps_true_what_the_first_alone_would_retire() -> None:
    """A near neighbour from the dev chats that the first judge alone retires (the cafe job by
    "i got the job!!!!!", weeks before the last shift there) stays true once the second judge
    is read too; a new dose of the same tablet still supersedes. (A pair's probability moves
    by a few hundredths with the batch it is read in: int8 scales are set per batch.)"""
    judges = load_pair_judges(threads=1)
    assert isinstance(judges, PairEnsemble)
    pairs = [
        (
            "n i work full time as a barista at kettle & crumb, wee cafe on duke st",
            "i got the job!!!!!",
        ),
        (
            "And my own bit of news: my bloods came back and my TSH was high, so Dr Rinaldi has "
            "put my levothyroxine up to 100 micrograms.",
            "Thyroid results are back. Now my TSH is too low, so Dr Rinaldi has dropped the "
            "levothyroxine to 88 micrograms. I didn't even know there was a dose in between.",
        ),
    ]
    (job_alone, _), (job, dose) = judges.first.relate_batch(pairs), judges.relate_batch(pairs)
    print(
        f"\nthe job: first alone {job_alone.replaces:.3f}, both {job.replaces:.3f}; "
        f"dose {dose.replaces:.3f}"
    )
    threshold = ChangePolicy().threshold
    assert job_alone.replaces >= threshold > job.replaces
    assert dose.replaces >= threshold


def test_the_chat_models_second_opinion_can_only_lower_the_pair_judges(judge) -> None:  # type: ignore[no-untyped-def]
    """`confirm_from`, off for the assistant since the two pair judges (it added nothing on
    the dev chats at half the speed), still never raises a pair above what the judges said."""
    confirmed = ConfirmedJudge(load_pair_judges(threads=1), judge, gate=0.3)
    judged = confirmed.relate_batch([CODE, (LEEDS, YORK)])
    print(
        "\n(pair judges, chat model, combined):", [(r.judge, r.model, r.replaces) for r in judged]
    )
    assert all(r.model is not None and r.replaces <= r.judge for r in judged)


def test_the_judge_finds_what_a_fact_shows_false(judge) -> None:  # type: ignore[no-untyped-def]
    fact = "Sound travels fastest through solids like steel and cannot travel through empty space."
    stem = "Through which material does sound travel fastest"
    space, steel = judge.contradicts_batch(
        [(fact, f"{stem}: empty space."), (fact, f"{stem}: steel.")]
    )
    print(f"\nP(contradicts): empty space {space:.2f}, steel {steel:.2f}")
    assert space > steel


@pytest.mark.xfail(
    strict=True,
    reason="known weakness (issue 47): MiniLM puts this indirect move at cosine 0.28 to the "
    "old flat, under the candidate gate's 0.3 (chosen on dev), so the judge never sees the pair",
)
def test_the_assistant_answers_with_the_move_not_the_old_flat(tmp_path: Path) -> None:
    """The issue's user: Leeds, three other things over three days, York ten days later;
    judged in the background after each write returns. Shown the pair, the judge puts it at
    about the threshold (0.90-0.92, by thread count), so either outcome the policy allows is
    accepted: Leeds superseded by York, or kept active as York's near miss; both must put
    York first."""
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
    assert stream.settle(timeout=120)
    leeds, york = stream.get(ids[0]), stream.get(ids[-1])
    print(f"\nLeeds: {leeds.status.value}; York: {york.provenance}")
    superseded = leeds.status is MemoryStatus.SUPERSEDED and leeds.replaced_by == ids[-1]
    near_miss = york.provenance.closest == ids[0] and (york.provenance.closest_p or 0) >= 0.5
    assert superseded or near_miss
    found = assistant.search("maya", "Which city do I live in?")
    assert found[0].record.id == ids[-1]
    history = [m for m in found if m.record.id == ids[0]]
    assert all(m.record.status is MemoryStatus.SUPERSEDED for m in history)
    others = [stream.get(i).status for i in ids[1:4]]
    assert others == [MemoryStatus.ACTIVE] * 3  # everyday remarks replace nothing
    assert stream.get(ids[-1]).provenance.detection == "done"
    stream.close()


def test_a_list_of_like_notes_all_stay_true(tmp_path: Path) -> None:
    """The attacker's paging notes: 25 notes of one shape, then an unrelated one."""
    assistant = Parts.load().assistant(tmp_path / "memory")
    notes = [f"Paging note number {n}: the parcel code is P0{n:02d}" for n in range(1, 26)]
    for text in [*notes, "Remember to water the tomatoes on Friday."]:
        assistant.remember("sam", text, importance=5)
    assert assistant.stream.settle(timeout=300)
    statuses = [r.status for r in assistant.memories("sam")]
    assert statuses == [MemoryStatus.ACTIVE] * 26
    found = assistant.search("sam", "what is the parcel code", k=5)
    assert all("parcel code" in m.record.text for m in found)
    assistant.stream.close()


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
