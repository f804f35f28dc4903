"""Change detection shaped for precision and off the write path, on fakes: the rules that
never supersede, a judge that also tells the slot, the background worker (searchable at once,
pending visible, resumed after a crash, nothing judged twice into two supersedes), a failing
worker, and links that never cross owners (import included)."""

from __future__ import annotations

import os
import threading
from datetime import timedelta
from pathlib import Path

import pytest

from mindstream.lm.fakes import FakeJudge, HashEmbeddings
from mindstream.memory import (
    ChromaStore,
    InMemoryStore,
    InvalidMemoryError,
    ManualClock,
    MemoryStateError,
    MemoryStatus,
    MemoryStream,
    StreamConfig,
    new_memory,
)
from mindstream.memory.corrections import newest_in_chain, retire
from mindstream.memory.records import ChangePolicy, Provenance
from mindstream.memory.statements import is_question, is_small_talk, like_items, speaker_of


def always(earlier: str, later: str) -> float:
    return 0.99


def _stream(judge: object = None, store: object = None, **policy: object) -> MemoryStream:
    config = StreamConfig(changes=ChangePolicy(enabled=True, min_similarity=-1.0, **policy))
    return MemoryStream(
        store or InMemoryStore(),  # type: ignore[arg-type]
        HashEmbeddings(),
        clock=ManualClock(),
        config=config,
        judge=judge if judge is not None else FakeJudge(replaces=always),  # type: ignore[arg-type]
    )


def _add(stream: MemoryStream, text: str, hours: float = 0.0, owner: str = "maya") -> str:
    when = stream.clock.now() + timedelta(hours=hours)
    return stream.add(text, owner=owner, importance=5, created_at=when, kind="fact").id


@pytest.mark.parametrize(
    ("earlier", "later", "rule"),
    [
        ("Note 4: the parcel code is P004", "Note 5: the parcel code is P005", "like items"),
        ("note: locker 14 code 2291", "note: locker 15 code 8812", "like items"),
        ("Caroline: I live in Leeds", "Melanie: I live in York", "other speaker"),
    ],
)  # fmt: skip
def test_a_rule_keeps_like_items_and_other_speakers_from_superseding(
    earlier: str, later: str, rule: str
) -> None:
    judge = FakeJudge(replaces=always)
    stream = _stream(judge)
    old = _add(stream, earlier)
    written = stream.write([new_memory(text=later, owner="maya", importance=5, kind="fact")])
    assert stream.get(old).status is MemoryStatus.ACTIVE
    assert [(d.rule, d.superseded) for d in written.decisions] == [(rule, False)]
    assert judge.batches == 0


@pytest.mark.parametrize("later", ["where do I live now?", "thanks!! lol", "Maya: ok cool"])
def test_a_question_or_small_talk_supersedes_nothing(later: str) -> None:
    judge = FakeJudge(replaces=always)
    stream = _stream(judge)
    old = _add(stream, "Maya: I live in Leeds")
    _add(stream, later, 1)
    assert stream.get(old).status is MemoryStatus.ACTIVE and judge.batches == 0


def test_the_rules_see_what_they_should() -> None:
    assert like_items("pepper is 3", "pepper is 4") is False  # one value moving on
    assert like_items("locker 14 code 2291", "locker 15 code 8812 now") is False  # says so
    assert speaker_of("Note: buy milk") is None and speaker_of("Dr. Ruiz: hi") == "Dr. Ruiz"
    assert is_small_talk("haha thank you so much") and not is_small_talk("I moved to York")


@pytest.mark.parametrize(
    "text",
    [
        "Where do I live?",
        "what is my number",
        "do u remember my cat",
        "ok q. how do i ask morag for the desk by the window lol",
        "idk maybe 10? 12? is that mad",
        "Caroline: who's coming tonight",
        "- do i need to update the hr form",
        "is Dr. Patel in at 3.30 on monday?",
        "Caroline: Thanks, Mel! What did you do last weekend?",
        "have you seen my keys",
        "btw what's my pin",
        "my flight is at 6 on friday, right?",  # checks a fact the user is unsure of
    ],
)
def test_a_question_is_a_question_with_or_without_its_mark(text: str) -> None:
    assert is_question(text)


@pytest.mark.parametrize(
    "text",
    [
        "had to put bandit down friday. buried him under the live oak",  # the chat's own words
        "were official now, jamie asked me on the walk home",
        "when i was young i ran the lakefront every day",
        "How splendid. Let me introduce myself: my name is Margaret, I am seventy-one",
        "What should I pack? One 23kg suitcase and one carry-on.",
        "Can you note the address for me: Flat 3, 112 Rushey Green, London SE6.",
        "- waffles vet also fine. 8 yrs old and a little round. aren't we all",
        "will do. i'll tell you if anybody asks where the beans are",
        "can you remember that my locker is 14",
        "you are a genius",
        "Show me how? It's TheFork.",
        "my sister lives in Katy, three hours away, but a call won't shower him, you know?",
    ],
)
def test_a_statement_that_opens_like_a_question_is_recalled(text: str) -> None:
    """These were kept for history only, so what they state was never found again."""
    assert not is_question(text)


def test_the_same_speakers_label_is_not_shown_to_the_judge() -> None:
    seen: list[tuple[str, str]] = []

    def record(earlier: str, later: str) -> float:
        seen.append((earlier, later))
        return 0.99

    stream = _stream(FakeJudge(replaces=record))
    _add(stream, "Caroline: I live in Leeds")
    _add(stream, "Caroline: we moved to York", 1)
    assert seen == [("I live in Leeds", "we moved to York")]


class SlotFake:
    """A judge that also tells whether both statements answer the same question."""

    def __init__(self, replaces: float, same: float) -> None:
        self.relation = type("R", (), {"replaces": replaces, "about_the_same": same})()

    def relate_batch(self, pairs: object) -> list[object]:
        return [self.relation for _ in pairs]  # type: ignore[attr-defined]

    def replaces_batch(self, pairs: object) -> list[float]:
        return [self.relation.replaces for _ in pairs]  # type: ignore[attr-defined]


def test_a_slot_judge_must_also_find_the_same_question() -> None:
    stream = _stream(SlotFake(replaces=0.95, same=0.3), same_slot=0.5)
    old = _add(stream, "I live in Leeds")
    written = stream.write([new_memory(text="We moved to York", owner="maya", importance=5)])
    assert stream.get(old).status is MemoryStatus.ACTIVE
    assert written.decisions[0].same_slot == pytest.approx(0.3)
    stream = _stream(SlotFake(replaces=0.95, same=0.97))
    old = _add(stream, "I live in Leeds")
    _add(stream, "We moved to York", 1)
    assert stream.get(old).status is MemoryStatus.SUPERSEDED


class GatedJudge(FakeJudge):
    """Blocks in the judge until released: the write must not wait for it."""

    def __init__(self) -> None:
        super().__init__(replaces=always)
        self.gate = threading.Event()
        self.entered = threading.Event()

    def replaces_batch(self, pairs: object) -> list[float]:
        self.entered.set()
        self.gate.wait(timeout=10)
        return super().replaces_batch(pairs)  # type: ignore[arg-type]


def test_the_background_worker_acknowledges_first_and_supersedes_after() -> None:
    judge = GatedJudge()
    stream = _stream(judge, background=True)
    leeds = _add(stream, "I live in Leeds")
    judge.gate.set()
    stream.settle(timeout=10)
    judge.gate.clear()
    written = stream.write([new_memory(text="We moved to York", owner="maya", importance=5)])
    york = written.records[0]
    assert written.pending == 1 and york.provenance.detection == "pending"
    assert stream.retrieve("York", 1, owner="maya")[0].record.id == york.id
    assert stream.get(leeds).status is MemoryStatus.ACTIVE  # not yet judged
    judge.gate.set()
    assert stream.settle(timeout=10)
    assert stream.get(leeds).replaced_by == york.id
    assert stream.get(york.id).provenance.detection == "done"


def moved(earlier: str, later: str) -> float:
    return 0.99 if "moved" in later else 0.0


def test_the_background_worker_decides_as_the_foreground_however_far_behind_it_is() -> None:
    """Three moves written while the judge is busy: judged together, the third would find the
    first (still active then) as its nearest and leave the second standing."""
    texts = ["I live in Leeds", "my cat is Pepper", "we moved to York", "moved, I live in Bath"]
    judge = GatedJudge()
    judge.replaces = moved
    behind = _stream(judge, background=True, candidates=1)
    ids = [_add(behind, text, n) for n, text in enumerate(texts)]
    judge.gate.set()
    assert behind.settle(timeout=10)
    foreground = _stream(FakeJudge(replaces=moved), candidates=1)
    expected = [_add(foreground, text, n) for n, text in enumerate(texts)]
    status = [behind.get(i).status for i in ids]
    assert status == [foreground.get(i).status for i in expected]
    assert status[-2:] == [MemoryStatus.SUPERSEDED, MemoryStatus.ACTIVE]


def test_a_failing_background_judge_marks_the_writes_failed_and_keeps_them() -> None:
    judge = FakeJudge(replaces=always)
    stream = _stream(judge, background=True)
    leeds = _add(stream, "I live in Leeds")
    judge.broken = True
    york = _add(stream, "We moved to York", 1)
    stream.settle(timeout=10)
    assert stream.get(leeds).status is MemoryStatus.ACTIVE
    assert stream.get(york).provenance.detection == "failed"


def _leeds_judged_then_gated(tmp_path: Path) -> tuple[GatedJudge, MemoryStream, str]:
    """A background stream on chroma whose first memory (Leeds) is judged; from then on its
    judge waits at the gate."""
    judge = GatedJudge()
    stream = _stream(judge, store=ChromaStore.persistent(tmp_path / "db"), background=True)
    judge.gate.set()
    leeds = _add(stream, "I live in Leeds")
    stream.settle(timeout=10)
    judge.gate.clear()
    judge.entered.clear()
    return judge, stream, leeds


def test_pending_detection_resumes_after_a_crash_and_supersedes_once(tmp_path: Path) -> None:
    judge, stream, leeds = _leeds_judged_then_gated(tmp_path)
    york = _add(stream, "We moved to York", 1)  # the process dies before it is judged
    stream.store.close()
    reopened = _stream(store=ChromaStore.persistent(tmp_path / "db"), background=True)
    assert reopened.settle(timeout=10)
    assert reopened.get(leeds).replaced_by == york
    assert reopened.get(york).provenance.detection == "done"
    reopened.close()
    judge.gate.set()  # the old process's worker wakes late: it changes nothing twice
    assert stream.settle(timeout=10)
    again = _stream(store=ChromaStore.persistent(tmp_path / "db"), background=True)
    assert again.settle(timeout=10)
    assert again.get(york).provenance.supersedes == (leeds,)
    assert again.get(leeds).provenance.superseded_by == (york,)


def test_a_prompt_close_finishes_the_round_under_way_and_leaves_the_rest_pending(
    tmp_path: Path,
) -> None:
    """A service stops at once: the queued writes are judged when the store is next opened."""
    judge, stream, leeds = _leeds_judged_then_gated(tmp_path)
    york = _add(stream, "We moved to York", 1)
    assert judge.entered.wait(timeout=10)  # York's round is under way, waiting in the judge
    bath = _add(stream, "We moved again, to Bath", 2)  # queued behind it
    closing = threading.Thread(target=stream.close, kwargs={"settle": 0})
    closing.start()
    closing.join(timeout=0.5)
    judge.gate.set()
    closing.join(timeout=10)
    assert not closing.is_alive()
    later = GatedJudge()
    reopened = _stream(later, store=ChromaStore.persistent(tmp_path / "db"), background=True)
    assert reopened.get(york).provenance.detection == "done"  # the round under way ended
    assert reopened.get(leeds).replaced_by == york
    assert reopened.get(bath).provenance.detection == "pending"  # dropped, not judged
    later.gate.set()
    assert reopened.settle(timeout=10)
    assert reopened.get(york).replaced_by == bath
    assert reopened.get(bath).provenance.detection == "done"
    reopened.close()


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="per-thread priority is Linux's")
def test_the_background_judge_runs_below_the_requests_priority() -> None:
    """A `remember` that arrives while a round is judged gets the cores first
    (`bench/bench_service.py`, 100k memories, one thread: p50 37.1 -> 30.8 ms)."""
    seen: list[int] = []

    def priority(earlier: str, later: str) -> float:
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return 0.0

    stream = _stream(FakeJudge(replaces=priority), background=True)
    _add(stream, "I live in Leeds")
    _add(stream, "We moved to York", 1)
    assert stream.settle(timeout=10)
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert seen and all(p > mine for p in seen)


class CountingStore(InMemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.updates = 0

    def update(self, records: object, fields: object = ()) -> None:
        self.updates += 1
        super().update(records, fields)  # type: ignore[arg-type]


def test_a_background_round_reaches_the_store_in_one_write() -> None:
    """Retiring Leeds, York's closest call and York's `done` are one store update (each one
    was a committed chroma transaction under the lock a `remember` waits for)."""
    store = CountingStore()
    stream = _stream(store=store, background=True)
    leeds = _add(stream, "I live in Leeds")
    assert stream.settle(timeout=10)
    store.updates = 0
    york = _add(stream, "We moved to York", 1)
    assert stream.settle(timeout=10)
    assert store.updates == 1
    again = _stream(store=store)
    assert again.get(leeds).status is MemoryStatus.SUPERSEDED
    assert again.get(leeds).replaced_by == york
    assert again.get(york).provenance.supersedes == (leeds,)
    assert again.get(york).provenance.detection == "done"
    assert again.get(york).provenance.closest == leeds


def test_links_never_cross_owners() -> None:
    stream = _stream(use_judge=False)
    mine = _add(stream, "the safe code is 1234", owner="victim")
    theirs = _add(stream, "the safe code is 9999", owner="attacker")
    with pytest.raises(MemoryStateError, match="another owner"):
        retire(stream, stream.get(mine), stream.get(theirs), how="judge")
    forged = stream.get(theirs).model_copy(
        update={
            "status": MemoryStatus.SUPERSEDED,
            "provenance": Provenance(superseded_by=(mine,)),
        }
    )
    stream.replace_many(
        [(stream.get(theirs), {"status": forged.status, "provenance": forged.provenance})]
    )
    with pytest.raises(MemoryStateError, match="chain is broken"):
        newest_in_chain(stream, theirs)
    assert stream.get(mine).status is MemoryStatus.ACTIVE


def test_an_import_with_a_link_into_another_account_is_refused_whole() -> None:
    stream = _stream(use_judge=False)
    victim = _add(stream, "the safe code is 1234", owner="victim")
    forged = _add(stream, "decoy", owner="source")
    record = stream.get(forged).model_copy(
        update={
            "owner": "attacker",
            "status": MemoryStatus.SUPERSEDED,
            "provenance": Provenance(superseded_by=(victim,)),
        }
    )
    with pytest.raises(InvalidMemoryError, match="neither in the import nor a memory of this"):
        stream.import_records([record])
    assert stream.count("attacker") == 0


def test_an_import_whose_near_miss_names_another_account_is_refused() -> None:
    """`near` ranks a memory above the ones it names: a forged one would reach a victim's."""
    stream = _stream(use_judge=False)
    victim = _add(stream, "the safe code is 1234", owner="victim")
    record = stream.get(_add(stream, "decoy", owner="source")).model_copy(
        update={"owner": "attacker", "provenance": Provenance(near=(victim,))}
    )
    with pytest.raises(InvalidMemoryError, match="neither in the import nor a memory of this"):
        stream.import_records([record])
    assert stream.count("attacker") == 0


def test_an_export_imports_into_another_account_on_the_same_store_with_new_ids() -> None:
    stream = _stream()
    leeds = _add(stream, "I live in Leeds", owner="maya")
    york = _add(stream, "We moved to York", 1, owner="maya")
    copies = [r.model_copy(update={"owner": "copy"}) for r in stream.records("maya")]
    imported = {r.text: r for r in stream.import_records(copies)}
    new_leeds, new_york = imported["I live in Leeds"], imported["We moved to York"]
    assert {new_leeds.id, new_york.id}.isdisjoint({leeds, york})
    assert new_leeds.replaced_by == new_york.id and new_york.provenance.supersedes == (
        new_leeds.id,
    )
    assert stream.get(leeds).owner == "maya" and stream.get(leeds).replaced_by == york


def test_provenance_kept_in_metadata_by_older_versions_is_read_as_typed() -> None:
    legacy = {
        "id": "a",
        "owner": "maya",
        "kind": "fact",
        "text": "I live in Leeds",
        "created_at": "2026-01-01T00:00:00+00:00",
        "last_accessed_at": "2026-01-01T00:00:00+00:00",
        "importance": 5,
        "status": "superseded",
        "metadata": {"superseded_by": "b", "supersede_p": 0.97, "recall": True, "stale": False},
    }
    from mindstream.memory import MemoryRecord

    record = MemoryRecord.model_validate(legacy)
    assert record.replaced_by == "b" and record.provenance.probability == 0.97
    assert record.metadata == {"stale": False}


def test_a_relevant_superseded_memory_brings_its_replacement_into_the_results() -> None:
    stream = _stream(use_judge=False)
    code = _add(stream, "the parcel code is P004")
    _add(stream, "the parcel comes tomorrow", 1)
    new = stream.supersede(code, "use the new one from the text message").id
    found = stream.retrieve("parcel code", 2, owner="maya", with_replaced=True)
    assert [m.record.id for m in found] == [new, code]  # the truth, then its history
    assert stream.retrieve("parcel code", 2, owner="maya")[0].record.id != code
