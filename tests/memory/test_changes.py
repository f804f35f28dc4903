"""Change detection and the correction state machine, on fakes: what supersedes what, with
which typed provenance, in one judge batch per write; rules that never supersede (questions,
small talk, like items, another speaker); the background worker; a failing judge loses
nothing; restore undoes; forgotten stays forgotten; links never cross owners."""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path

import pytest

from mindstream.lm.fakes import FakeJudge, HashEmbeddings
from mindstream.memory import (
    ChromaStore,
    InMemoryStore,
    ManualClock,
    MemoryKind,
    MemoryStateError,
    MemoryStatus,
    MemoryStream,
    StreamConfig,
    new_memory,
)
from mindstream.memory.records import ChangePolicy, NewMemory

CITIES = ("Leeds", "York", "Bristol")


def moved(earlier: str, later: str) -> float:
    """Replaces when both name a (different) city and the later one says where 'we' live."""
    named = [c for c in CITIES if c in earlier], [c for c in CITIES if c in later]
    return 0.97 if all(named) and named[0] != named[1] else 0.1


def _stream(judge: FakeJudge | None = None, store: object = None, **policy: object) -> MemoryStream:
    config = StreamConfig(changes=ChangePolicy(enabled=True, min_similarity=-1.0, **policy))
    return MemoryStream(
        store or InMemoryStore(),  # type: ignore[arg-type]
        HashEmbeddings(),
        clock=ManualClock(),
        config=config,
        judge=judge if judge is not None else FakeJudge(replaces=moved),
    )


def _new(stream: MemoryStream, text: str, hours: float = 0.0, **fields: object) -> NewMemory:
    when = stream.clock.now() + timedelta(hours=hours)
    return new_memory(text=text, owner="maya", importance=5, created_at=when, **fields)


def _add(stream: MemoryStream, text: str, hours: float = 0.0, **fields: object) -> str:
    when = stream.clock.now() + timedelta(hours=hours)
    return stream.add(text, owner="maya", importance=5, created_at=when, **fields).id  # type: ignore[arg-type]


def test_a_change_supersedes_the_old_statement_with_provenance() -> None:
    stream = _stream()
    leeds = _add(stream, "I live in a small flat in Leeds")
    york = _add(stream, "The boxes went over to the new house in York", hours=240)
    old, new = stream.get(leeds), stream.get(york)
    assert old.status is MemoryStatus.SUPERSEDED
    assert old.provenance.superseded_by == (york,) and old.replaced_by == york
    assert old.provenance.how == "judge"
    assert old.provenance.probability == pytest.approx(0.97)
    assert old.provenance.superseded_at is not None
    assert new.provenance.supersedes == (leeds,) and new.status is MemoryStatus.ACTIVE
    found = [m.record.id for m in stream.retrieve("where do I live", 5, owner="maya")]
    assert found == [york]
    history = stream.retrieve("where do I live", 5, owner="maya", include_inactive=True)
    assert {m.record.id for m in history} == {leeds, york}


def test_history_in_recall_comes_after_what_replaced_it_and_never_forgotten() -> None:
    stream = _stream()
    leeds = _add(stream, "I live in a small flat in Leeds")
    york = _add(stream, "The boxes went over to the new house in York", hours=240)
    noise = _add(stream, "I had toast for breakfast in the small flat", hours=1)
    stream.forget(noise)
    for query in ("small flat in Leeds", "the new house in York"):
        found = stream.retrieve(query, 5, owner="maya", with_replaced=True)
        assert [m.record.id for m in found] == [york, leeds]  # the truth first, then history
    alone = stream.retrieve("small flat in Leeds", 1, owner="maya", with_replaced=True)
    assert len(alone) == 1 and noise not in {m.record.id for m in alone}


def test_a_compatible_statement_supersedes_nothing_but_keeps_its_closest_call() -> None:
    stream = _stream()
    leeds = _add(stream, "I live in Leeds")
    written = stream.write([_new(stream, "We adopted a dog called Max", 1)])
    dog = written.records[0].id
    assert stream.get(leeds).status is MemoryStatus.ACTIVE
    assert stream.get(dog).provenance.closest == leeds
    assert stream.get(dog).provenance.closest_p == pytest.approx(0.1)
    (decision,) = written.decisions
    assert (decision.old_id, decision.probability, decision.superseded) == (leeds, 0.1, False)
    assert decision.rule == "judge"


def test_one_judge_batch_per_write_batch_and_a_chain_inside_it() -> None:
    judge = FakeJudge(replaces=moved)
    stream = _stream(judge)
    leeds = _add(stream, "I live in Leeds")
    now = stream.clock.now()
    york, bristol = stream.add_many(
        [
            new_memory(text="We moved to York", owner="maya", importance=5, created_at=now),
            new_memory(
                text="Then on to Bristol",
                owner="maya",
                importance=5,
                created_at=now + timedelta(days=30),
            ),
        ]
    )
    assert judge.batches == 1  # nothing before the first add; one batch for the two
    assert stream.get(leeds).replaced_by == york.id
    assert stream.get(york.id).replaced_by == bristol.id
    active = [r.id for r in stream.records("maya") if r.status is MemoryStatus.ACTIVE]
    assert active == [bristol.id]


def test_a_failing_judge_keeps_every_write_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    judge = FakeJudge(replaces=moved)
    stream = _stream(judge)
    leeds = _add(stream, "I live in Leeds")
    judge.broken = True
    with caplog.at_level(logging.WARNING, logger="mindstream.memory.changes"):
        york = _add(stream, "We moved to York", hours=1)
        bristol = _add(stream, "Now Bristol", hours=2)
    assert [stream.get(i).status for i in (leeds, york, bristol)] == [MemoryStatus.ACTIVE] * 3
    warnings = [r for r in caplog.records if "change detection skipped" in r.message]
    assert len(warnings) == 1


def test_restore_undoes_an_automatic_supersede_and_nothing_else() -> None:
    stream = _stream()
    leeds = _add(stream, "I live in Leeds")
    york = _add(stream, "My sister lives in York", hours=1)  # the fake judge gets this wrong
    assert stream.get(leeds).status is MemoryStatus.SUPERSEDED
    restored = stream.restore(leeds)
    assert restored.status is MemoryStatus.ACTIVE
    assert restored.provenance.restored_from == york
    assert restored.provenance.superseded_by == () and restored.provenance.how is None
    assert stream.get(york).provenance.supersedes == ()
    assert stream.get(york).status is MemoryStatus.ACTIVE
    with pytest.raises(MemoryStateError, match="only a superseded memory"):
        stream.restore(leeds)
    stream.forget(york)
    with pytest.raises(MemoryStateError, match="forgotten"):
        stream.restore(york)


def test_superseding_follows_the_chain_and_forgotten_stays_forgotten() -> None:
    stream = _stream(use_judge=False)
    first = _add(stream, "My number is 0111")
    second = stream.supersede(first, "My number is 0222")
    third = stream.supersede(first, "My number is 0333")  # the first is already superseded
    assert stream.get(second.id).status is MemoryStatus.SUPERSEDED
    assert stream.get(second.id).replaced_by == third.id
    assert third.provenance.supersedes == (second.id,) and third.provenance.corrects == first
    active = [r.id for r in stream.records("maya") if r.status is MemoryStatus.ACTIVE]
    assert active == [third.id]
    stream.forget(third.id)
    with pytest.raises(MemoryStateError, match="stays forgotten"):
        stream.supersede(third.id, "My number is 0444")
    with pytest.raises(MemoryStateError, match="newest version"):
        stream.supersede(first, "My number is 0444")
    assert stream.get(third.id).status is MemoryStatus.FORGOTTEN


def test_a_new_state_of_the_same_subject_supersedes_without_a_judge() -> None:
    stream = _stream(use_judge=False)
    on = _add(stream, "the stove is on", kind="observation", subject="kitchen:stove")
    bed = _add(stream, "the bed is made", kind="observation", subject="bedroom:bed")
    off = _add(stream, "the stove is off", 1, kind="observation", subject="kitchen:stove")
    assert stream.get(on).replaced_by == off
    assert stream.get(on).provenance.how == "subject"
    assert stream.get(bed).status is MemoryStatus.ACTIVE


def test_a_reflection_citing_a_superseded_memory_goes_stale() -> None:
    stream = _stream()
    leeds = _add(stream, "I live in Leeds")
    insight = stream.add(
        "Maya is settled in the north",
        owner="maya",
        kind="reflection",
        evidence=(leeds,),
        importance=6,
    )
    _add(stream, "We moved to York", hours=1)
    assert stream.get(insight.id).stale
    assert stream.get(insight.id).status is MemoryStatus.ACTIVE  # re-derived by the reflector


def test_memories_kept_out_of_recall_are_neither_recalled_nor_judged() -> None:
    judge = FakeJudge(replaces=moved)
    stream = _stream(judge)
    leeds = _add(stream, "I live in Leeds")
    asked = _add(stream, "User: do I live in York?", 1, kind="dialogue", recall=False)
    assert stream.get(leeds).status is MemoryStatus.ACTIVE and judge.batches == 0
    assert [m.record.id for m in stream.retrieve("York", 5, owner="maya")] == [leeds]
    shown = stream.retrieve("York", 5, owner="maya", include_hidden=True)
    assert asked in {m.record.id for m in shown}
    assert [r.id for r in stream.recent(5, owner="maya")] == [leeds, asked]


def test_reflections_and_disabled_policies_are_left_alone() -> None:
    judge = FakeJudge(replaces=moved)
    stream = _stream(judge, kinds=(MemoryKind.FACT,))
    leeds = _add(stream, "I live in Leeds", kind="fact")
    _add(stream, "Maya moved to York", 1, kind="reflection")
    assert stream.get(leeds).status is MemoryStatus.ACTIVE and judge.batches == 0
    off = MemoryStream(InMemoryStore(), HashEmbeddings(), clock=ManualClock(), judge=judge)
    first = off.add("I live in Leeds", owner="maya", importance=5)
    off.add("We moved to York", owner="maya", importance=5)
    assert off.get(first.id).status is MemoryStatus.ACTIVE and judge.batches == 0


def test_supersedes_and_restores_survive_reopening_the_store(tmp_path: Path) -> None:
    stream = _stream(store=ChromaStore.persistent(tmp_path / "db"))
    leeds = _add(stream, "I live in Leeds")
    york = _add(stream, "We moved to York", hours=1)
    stream.close()
    reopened = _stream(store=ChromaStore.persistent(tmp_path / "db"))
    assert reopened.get(leeds).status is MemoryStatus.SUPERSEDED
    assert reopened.get(leeds).replaced_by == york
    assert [m.record.id for m in reopened.retrieve("live", 5, owner="maya")] == [york]
    reopened.restore(leeds)
    reopened.close()
    again = _stream(store=ChromaStore.persistent(tmp_path / "db"))
    assert again.get(leeds).status is MemoryStatus.ACTIVE
    assert {m.record.id for m in again.retrieve("live", 5, owner="maya")} == {leeds, york}


def doubtful(earlier: str, later: str) -> float:
    """A near miss: the later statement probably, not surely, replaces a Leeds one."""
    return 0.6 if "Leeds" in earlier and "York" in later else 0.1


def test_a_near_miss_ranks_above_what_it_probably_replaced_and_supersedes_nothing() -> None:
    stream = _stream(FakeJudge(replaces=doubtful), threshold=0.8, rank_above=0.5)
    leeds = _add(stream, "I live in a small flat in Leeds, the flat in Leeds is lovely")
    york = _add(stream, "Boxes in York", hours=240)
    assert stream.get(leeds).status is MemoryStatus.ACTIVE
    assert stream.get(york).provenance.closest == leeds
    assert stream.get(york).provenance.closest_p == pytest.approx(0.6)
    found = [m.record.id for m in stream.retrieve("the flat in Leeds", 5, owner="maya")]
    assert found == [york, leeds]
    off = _stream(FakeJudge(replaces=doubtful), threshold=0.8, rank_above=None)
    leeds = _add(off, "I live in a small flat in Leeds, the flat in Leeds is lovely")
    york = _add(off, "Boxes in York", hours=240)
    found = [m.record.id for m in off.retrieve("the flat in Leeds", 5, owner="maya")]
    assert found == [leeds, york]


def ages(earlier: str, later: str) -> float:
    """'officially 88' probably replaces both the age and the birthday told before it."""
    if "officially" not in later:
        return 0.1
    return 0.85 if "will be 88" in earlier else 0.8


def test_a_near_miss_ranks_above_every_memory_it_probably_replaced() -> None:
    """Not only above the closest: 'he's 87' is the one a question about his age finds."""
    for each_above, first in ((0.75, "new"), (None, "old")):
        stream = _stream(
            FakeJudge(replaces=ages), threshold=0.9, rank_above=0.25, rank_each_above=each_above
        )
        age = _add(stream, "dad is frank and he is 87 years old, frank is 87")
        birthday = _add(stream, "dad will be 88 on the 29th", hours=1)
        new = _add(stream, "officially eighty-eight today!", hours=240)
        assert stream.get(new).provenance.closest == birthday
        assert stream.get(new).provenance.near == ((birthday, age) if each_above else ())
        asked = "dad is frank and he is 87 years old, frank is 87"
        found = [m.record.id for m in stream.retrieve(asked, 3, owner="maya")]
        assert found.index(new) < found.index(age) if first == "new" else found[0] == age
