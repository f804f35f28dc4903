"""The chat model's second opinion on the change judge's likely replacements, on fakes: only
pairs above the gate are asked, the two opinions combine by their odds and can only lower the
pair judge's, a pair the chat model doubts stays true (ranked above, not retired), both
opinions are on the decision, and a failing second judge keeps every write."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest

from mindstream.compose import Parts
from mindstream.config import load_config
from mindstream.lm.fakes import FakeJudge, HashEmbeddings
from mindstream.memory import InMemoryStore, ManualClock, MemoryStatus, MemoryStream, new_memory
from mindstream.memory.confirmation import ConfirmedJudge, combined
from mindstream.memory.records import ChangePolicy, StreamConfig
from mindstream.models import DeferredJudge


def eager(earlier: str, later: str) -> float:
    """A pair judge that takes any later statement for a replacement."""
    return 0.95


def knows_moves(earlier: str, later: str) -> float:
    """A chat model that only believes a move replaces where someone lived."""
    return 0.9 if "moved" in later and "live" in earlier else 0.06


def test_two_opinions_combine_by_their_odds() -> None:
    assert combined(0.8, 0.5) == pytest.approx(0.8)  # a shrug changes nothing
    assert combined(0.9, 0.9) == pytest.approx(0.81 / 0.82)
    assert combined(0.95, 0.05) == pytest.approx(0.5)
    assert combined(0.3, 0.7) == pytest.approx(combined(0.7, 0.3))


def test_only_pairs_at_or_above_the_gate_are_asked_again() -> None:
    model = FakeJudge(replaces=lambda a, b: 0.99)
    judge = ConfirmedJudge(FakeJudge(replaces=lambda a, b: float(a)), model, gate=0.5)
    relations = judge.relate_batch([("0.2", "x"), ("0.5", "y"), ("0.9", "z")])
    assert [r.model for r in relations] == [None, 0.99, 0.99]
    assert relations[0].replaces == pytest.approx(0.2)  # not asked: its own opinion
    assert relations[2].replaces == pytest.approx(0.9)  # a second yes never raises it
    assert model.batches == 1
    assert ConfirmedJudge(FakeJudge(), model, gate=0.5).relate_batch([("a", "b")])[0].model is None
    assert model.batches == 1  # nothing above the gate: the chat model is not called


def _stream(second: FakeJudge) -> MemoryStream:
    policy = ChangePolicy(enabled=True, min_similarity=-1.0, candidates=5, confirm_from=0.5)
    return MemoryStream(
        InMemoryStore(),
        HashEmbeddings(),
        clock=ManualClock(),
        config=StreamConfig(changes=policy),
        judge=ConfirmedJudge(FakeJudge(replaces=eager), second, gate=0.5),
    )


def _write(stream: MemoryStream, text: str, hours: float) -> object:
    when = stream.clock.now() + timedelta(hours=hours)
    return stream.write([new_memory(text=text, owner="maya", importance=5, created_at=when)])


def test_a_pair_the_chat_model_doubts_stays_true_and_both_opinions_are_recorded() -> None:
    stream = _stream(FakeJudge(replaces=knows_moves))
    leeds = _write(stream, "I live in Leeds", 0).records[0].id  # type: ignore[attr-defined]
    written = _write(stream, "We moved to York", 1)
    (move,) = written.decisions  # type: ignore[attr-defined]
    assert (move.superseded, move.model) == (True, 0.9)
    assert move.probability == pytest.approx(0.95)
    later = _write(stream, "My sister started a pottery class", 2)
    (doubt,) = later.decisions  # type: ignore[attr-defined]
    assert doubt.old_id != leeds and not doubt.superseded
    assert (doubt.model, doubt.likely) == (0.06, True)  # kept, ranked above as a near miss
    assert stream.get(doubt.old_id).status is MemoryStatus.ACTIVE


def test_a_failing_second_opinion_keeps_every_write(caplog: pytest.LogCaptureFixture) -> None:
    second = FakeJudge(replaces=knows_moves)
    stream = _stream(second)
    leeds = _write(stream, "I live in Leeds", 0).records[0].id  # type: ignore[attr-defined]
    second.broken = True
    with caplog.at_level(logging.WARNING, logger="mindstream.memory.changes"):
        _write(stream, "We moved to York", 1)
    assert stream.get(leeds).status is MemoryStatus.ACTIVE
    assert any("change detection skipped" in r.message for r in caplog.records)


def test_the_composition_root_wraps_the_pair_judge_when_the_policy_asks() -> None:
    parts = Parts(load_config(None, {}, {"store.kind": "memory"}))
    policy = parts.config.assistant.stream
    asks = policy.with_changes(confirm_from=0.6)
    judge = parts.judge_for(asks)
    assert isinstance(judge, ConfirmedJudge) and judge.gate == 0.6
    assert isinstance(judge.model, DeferredJudge) and judge.model._built is None  # not loaded
    alone = policy.with_changes(confirm_from=None)
    assert not isinstance(parts.judge_for(alone), ConfirmedJudge)


def test_the_chat_models_opinion_is_kept_on_the_new_memory() -> None:
    stream = _stream(FakeJudge(replaces=knows_moves))
    leeds = _write(stream, "I live in Leeds", 0).records[0].id  # type: ignore[attr-defined]
    york = _write(stream, "We moved to York", 1).records[0].id  # type: ignore[attr-defined]
    provenance = stream.get(york).provenance
    assert (provenance.closest, provenance.closest_model) == (leeds, 0.9)
    assert provenance.closest_p == pytest.approx(0.95)


def test_a_sure_chat_model_never_turns_a_doubt_into_a_supersede() -> None:
    sure = FakeJudge(replaces=lambda a, b: 0.999)
    judge = ConfirmedJudge(FakeJudge(replaces=lambda a, b: 0.6), sure, gate=0.5)
    (relation,) = judge.relate_batch([("I live in Leeds", "York is lovely in spring")])
    assert (relation.judge, relation.model, relation.replaces) == (0.6, 0.999, 0.6)
    doubtful = ConfirmedJudge(FakeJudge(replaces=lambda a, b: 0.6), FakeJudge(), gate=0.5)
    assert doubtful.replaces_batch([("a", "b")])[0] < 0.01  # while a 'no' lowers it
