"""The report's account of a run: each injected event with who saw it and who reacted,
whispers, and the day's counts, taken from the typed log."""

from __future__ import annotations

from pathlib import Path

from mindstream.lm.fakes import HashEmbeddings
from mindstream.sim import SimConfig
from mindstream.sim.happenings import happenings
from mindstream.sim.runner import RunParts, start_run, summarize
from tests.plain_build import plain_parts
from tests.sim.conftest import scenario, scripted_minds


def test_an_event_its_witnesses_their_reactions_and_a_whisper_are_counted(tmp_path: Path) -> None:
    parts = RunParts(
        minds=scripted_minds(0.9), build=plain_parts(HashEmbeddings()), sim=SimConfig(reflect=False)
    )
    engine = start_run(scenario(), tmp_path / "run", parts)
    engine.run(2)  # past the first conversation and its cooldown
    room = engine.agents["Ann Lee"].location
    thing = f"{room}: {next(iter(engine.world.objects(*room.split(': '))))}"
    engine.inject(thing, "burning")
    engine.whisper("Bob Ray", "You want to run for mayor.")
    engine.run(2)
    found = happenings(engine.folder.events())  # type: ignore[union-attr]
    assert found.plans == {"model": 3}  # both agents' days, and Bob's again after the whisper
    (fire,) = found.events
    assert fire.place == thing and fire.state == "burning"
    assert fire.saw and set(fire.reacted) == set(fire.saw)  # P(react) 0.9 for everyone
    assert [(w.agent, w.text) for w in found.whispers] == [
        ("Bob Ray", "You want to run for mayor.")
    ]
    assert found.conversations >= 1 and found.lines >= 2
    assert found.told == 2  # each told the other one thing at their first talk
    assert found.fixed == [f"{thing} is idle"]  # the first to react put it right
    summary = summarize(engine, "scripted", interviews=False)
    assert summary.report is not None
    text = Path(summary.report).read_text()
    assert "## What happened" in text
    assert f"| {thing} is burning | Ann Lee (0.90), Bob Ray (0.90) | Ann Lee, Bob Ray |" in text
    assert f"news told: 2). Reactions: 2 (put right: {thing} is idle)." in text
    assert "You want to run for mayor." in text


def test_reflections_are_counted_by_day_and_agent() -> None:
    from mindstream.sim.events import Reflected

    events = [
        Reflected(time="2023-02-14T09:00:00+00:00", agent="Ann Lee", insights=["a"]),
        Reflected(time="2023-02-14T21:00:00+00:00", agent="Ann Lee", insights=["b", "c"]),
        Reflected(time="2023-02-15T08:00:00+00:00", agent="Bob Ray", insights=["d"]),
    ]
    found = happenings(events)
    assert found.reflections == 3 and found.insights == 4
    assert found.reflected == {"2023-02-14": {"Ann Lee": 2}, "2023-02-15": {"Bob Ray": 1}}
