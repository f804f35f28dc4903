"""Questions a run's own log decides: the true answer among false ones taken from the same
world, answered under a condition, and the paired test between conditions."""

from __future__ import annotations

from pathlib import Path

from mindstream.lab.believability.log_quiz import log_questions, quiz_under
from mindstream.lab.experiments.log_quiz import mcnemar
from mindstream.lm.fakes import HashEmbeddings
from mindstream.sim import SimConfig
from mindstream.sim.config import Condition
from mindstream.sim.runner import RunParts, start_run
from tests.plain_build import plain_parts
from tests.sim.conftest import scenario, scripted_minds

WORLD = {
    "Cafe": {"room": {"stove": "idle"}},
    "Ann's house": {"bedroom": {"bed": "idle"}},
    "Bob's house": {"bedroom": {"bed": "idle"}},
    "Park": {"lawn": {"bench": "idle"}},
    "Library": {"hall": {"desk": "idle"}},
}


def test_the_log_decides_the_answer_and_the_false_ones_come_from_the_world(tmp_path: Path) -> None:
    parts = RunParts(
        minds=scripted_minds(0.9), build=plain_parts(HashEmbeddings()), sim=SimConfig(reflect=False)
    )
    engine = start_run(scenario(world=WORLD), tmp_path / "run", parts)
    engine.run(7)  # past 10:00
    events = list(engine.folder.events())  # type: ignore[union-attr]
    areas = list(WORLD)
    questions = log_questions(events, ["Ann Lee", "Bob Ray"], areas, hours=1, seed=0)
    where = [q for q in questions if q.kind == "where"]
    assert [q.agent for q in where] == ["Ann Lee", "Bob Ray"]
    ticks = {e.time[11:16]: e for e in events if e.type == "tick" and e.agents}
    for q in where:
        hour = q.text.removeprefix("Where were you at ").removesuffix(" today?")
        truth = ticks[hour].agents[q.agent].place.split(":")[0]  # type: ignore[union-attr]
        assert q.options[q.answer] == f"I was at {truth}."
        assert len(set(q.options)) == 4 and all(o[9:-1] in areas for o in q.options)
    # they talked, but a town of two has no three strangers to offer: no 'who' question
    assert not [q for q in questions if q.kind == "who"]
    right = quiz_under(Condition(), engine.agents, where, engine.minds, engine.clock.now())
    assert len(right) == 2 and engine.minds.requests["log quiz"] == 2


def test_mcnemar_counts_the_questions_one_condition_alone_got_right() -> None:
    full = [True] * 12 + [False] * 4
    other = [False] * 12 + [False] * 3 + [True]
    found = mcnemar(full, other)
    assert (found["only_full"], found["only_other"]) == (12, 1)
    assert found["p"] < 0.01  # 12 of 13 discordant questions by chance: p = 0.0034
    assert mcnemar([True, False], [True, False])["p"] == 1.0
