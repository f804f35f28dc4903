"""The change gate in the stream: pairs it drops never reach the judge, are decided as
`gate` and supersede nothing; a policy with `gate: false` judges every pair."""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from mindstream.lm.fakes import FakeJudge, HashEmbeddings
from mindstream.memory import (
    InMemoryStore,
    ManualClock,
    MemoryStatus,
    MemoryStream,
    StreamConfig,
    new_memory,
)
from mindstream.memory.records import ChangePolicy, NewMemory


class FixedGate:
    """Lets through the pairs whose cosine is at least `above`; remembers what it was shown."""

    def __init__(self, above: float) -> None:
        self.above = above
        self.shown: list[int] = []

    def keep(self, old: np.ndarray, new: np.ndarray, similarity: np.ndarray) -> np.ndarray:
        assert old.shape == new.shape and old.shape[0] == len(similarity)
        self.shown.append(len(similarity))
        return np.asarray(similarity >= self.above)


def _stream(judge: FakeJudge, passes: FixedGate, **policy: object) -> MemoryStream:
    config = StreamConfig(changes=ChangePolicy(enabled=True, min_similarity=-1.0, **policy))
    return MemoryStream(
        InMemoryStore(),
        HashEmbeddings(),
        clock=ManualClock(),
        config=config,
        judge=judge,
        gate=passes,
    )


def _write(stream: MemoryStream, *texts: str) -> list[str]:
    ids = []
    for hours, text in enumerate(texts):
        when = stream.clock.now() + timedelta(hours=hours)
        ids.append(stream.add(text, owner="maya", importance=5, created_at=when).id)
    return ids


def _later(stream: MemoryStream, text: str) -> NewMemory:
    when = stream.clock.now() + timedelta(days=1)
    return new_memory(text=text, owner="maya", importance=5, created_at=when)


def test_a_pair_the_gate_drops_is_never_judged_and_supersedes_nothing() -> None:
    judge = FakeJudge(replaces=lambda earlier, later: 0.99)
    stream = _stream(judge, FixedGate(above=2.0))  # no cosine reaches 2: every pair dropped
    leeds, york = _write(stream, "I live in Leeds", "We live in York now")
    assert judge.batches == 0
    assert stream.get(leeds).status is MemoryStatus.ACTIVE
    written = stream.write([_later(stream, "We live in Bristol now")])
    assert {d.rule for d in written.decisions} == {"gate"}
    assert not any(d.superseded for d in written.decisions)
    assert stream.get(york).status is MemoryStatus.ACTIVE


def test_a_pair_the_gate_lets_through_is_judged_as_before() -> None:
    judge = FakeJudge(replaces=lambda earlier, later: 0.99)
    gate = FixedGate(above=-2.0)
    stream = _stream(judge, gate)
    leeds, york = _write(stream, "I live in Leeds", "We live in York now")
    assert judge.batches == 1 and gate.shown == [1]
    assert stream.get(leeds).replaced_by == york


def test_a_policy_without_the_gate_judges_every_pair() -> None:
    judge = FakeJudge(replaces=lambda earlier, later: 0.99)
    gate = FixedGate(above=2.0)
    stream = _stream(judge, gate, gate=False)
    leeds, york = _write(stream, "I live in Leeds", "We live in York now")
    assert gate.shown == [] and judge.batches == 1
    assert stream.get(leeds).replaced_by == york
