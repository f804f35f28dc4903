"""Reflection on a scripted week of 63 observations, on the real embedded model."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from mindstream.memory import (
    InMemoryStore,
    ManualClock,
    MemoryKind,
    MemoryStream,
    new_memory,
    scorer_rater,
)
from mindstream.reflection import Reflector
from tests.conftest import DATA

pytestmark = pytest.mark.real_model

START = datetime(2023, 2, 8, tzinfo=UTC)


@pytest.fixture(scope="module")
def klaus(real_chat_model, real_embedder):  # type: ignore[no-untyped-def]
    lines = [json.loads(x) for x in (DATA / "klaus_week.jsonl").read_text().splitlines()]
    clock = ManualClock(START)
    stream = MemoryStream(
        InMemoryStore(), real_embedder, clock=clock, rater=scorer_rater(real_chat_model)
    )
    stream.add_many(
        [
            new_memory(
                text=line["text"],
                owner="Klaus Mueller",
                created_at=START + timedelta(days=line["day"], hours=line["hour"]),
            )
            for line in lines
        ]
    )
    clock.set(START + timedelta(days=7))
    return stream, Reflector(stream, real_chat_model)  # 160 new tokens: ReflectionConfig


def test_a_week_triggers_reflection_and_every_citation_is_real(klaus) -> None:  # type: ignore[no-untyped-def]
    stream, reflector = klaus
    assert len(stream) == 63
    assert reflector.should_reflect("Klaus Mueller")  # 63 memories rated ~4-5 each > 150
    result = reflector.reflect("Klaus Mueller")
    print("questions:", result.questions)
    for insight in result.insights:
        print("insight:", insight.record.text, "<-", [e.text for e in insight.evidence])
    print("dropped:", result.dropped)
    assert result.questions and result.insights
    for insight in result.insights:
        assert insight.record.kind is MemoryKind.REFLECTION
        assert insight.record.evidence
        for cited in insight.record.evidence:
            assert stream.get(cited).owner == "Klaus Mueller"
    assert not reflector.should_reflect("Klaus Mueller")  # the trigger resets


def test_forgetting_evidence_then_rederiving_replaces_the_reflection(klaus) -> None:  # type: ignore[no-untyped-def]
    stream, reflector = klaus
    reflections = [r for r in stream.records("Klaus Mueller") if r.kind is MemoryKind.REFLECTION]
    target = reflections[0]
    stream.forget(target.evidence[0])
    assert target.id in {r.id for r in stream.stale("Klaus Mueller")}
    result = reflector.rederive("Klaus Mueller")
    assert target.id in result.replaced
    assert stream.get(target.id).status.value in ("superseded", "forgotten")
    assert stream.stale("Klaus Mueller") == []
    for insight in result.insights:
        assert target.evidence[0] not in insight.record.evidence
