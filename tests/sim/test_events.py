"""The run's typed record: events round-trip through events.jsonl; a bad line names itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindstream.sim.errors import CheckpointError
from mindstream.sim.events import Move, Tick, Whereabouts, read_events


def test_events_round_trip_with_the_log_spelling(tmp_path: Path) -> None:
    move = Move(tick=3, time="2023-02-14T16:00:00", agent="Ann", from_="a", to="b")
    tick = Tick(agents={"Ann": Whereabouts(place="cafe: counter", doing="work")})
    log = tmp_path / "events.jsonl"
    log.write_text(move.as_json() + "\n" + tick.as_json() + "\n")
    assert '"from":"a"' in move.as_json() and "insights" not in move.as_json()
    assert read_events(log) == [move, tick]
    assert move.involves("Ann") and not move.involves("Bob")


def test_a_bad_line_names_the_file_line_and_field(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    log.write_text('{"type": "tick"}\n{"type": "dance", "tick": 1}\n')
    with pytest.raises(CheckpointError, match=r"events.jsonl:2: type"):
        read_events(log)
    log.write_text('{"type": "move", "agent": "Ann", "to": "b", "insights": ["x"]}\n')
    with pytest.raises(CheckpointError, match=r"events.jsonl:1: insights: Extra inputs"):
        read_events(log)  # a field its kind does not have
