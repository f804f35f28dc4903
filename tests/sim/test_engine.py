"""The engine with scripted minds: meeting, talking, remembering, reacting, resuming."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import InMemoryStore, MemoryKind, MemoryStream
from mindstream.sim import Engine, Scenario, SimConfig
from mindstream.sim.runner import RunParts, resume_run, start_run
from tests.plain_build import plain_parts
from tests.sim.conftest import scenario, scripted_minds

CONFIG = SimConfig(reflect=False)


def _engine(yes: float = 0.9) -> Engine:
    minds = scripted_minds(yes)
    stream = MemoryStream(
        InMemoryStore(), HashEmbeddings(), rater=minds.rate_importance, config=CONFIG.stream
    )
    return Engine(scenario(), stream, minds, CONFIG)


def _party_at_five() -> Scenario:
    """The two friends in the cafe, Ann hosting a party there at 5 pm today."""
    agents = [
        {**a.model_dump(include={"name", "age", "traits", "home", "memories"}),
         "location": "Cafe: room"}
        for a in scenario().agents
    ]  # fmt: skip
    agents[0]["memories"] = ["Ann Lee is hosting a party at Cafe at 5 pm today."]
    return scenario(agents=agents)


def test_two_agents_in_one_room_meet_talk_and_both_remember() -> None:
    engine = _engine()
    events = engine.step()
    talks = [e for e in events if e.type == "conversation"]
    assert len(talks) == 1
    lines = talks[0].lines or []
    assert [speaker for speaker, _ in lines] == [talks[0].first, talks[0].second]
    assert talks[0].ended_by == "farewell"
    for name, other in (("Ann Lee", "Bob Ray"), ("Bob Ray", "Ann Lee")):
        dialogue = engine.stream.recent(10, owner=name, kinds=[MemoryKind.DIALOGUE])
        talk = [m for m in dialogue if "told_by" not in m.metadata]
        assert len(talk) == 1
        assert talk[0].metadata["partner"] == other
        assert "party tonight" in talk[0].text
        # each told the other one thing it knew, and the other remembers who told it
        (heard,) = [m for m in dialogue if "told_by" in m.metadata]
        assert heard.metadata["told_by"] == other
        assert heard.text.startswith(f"{other} told {name}: ")
    bob_heard = engine.stream.recent(10, owner="Bob Ray", kinds=[MemoryKind.DIALOGUE])
    assert any(m.metadata.get("news") == "Ann Lee is hosting a party at the cafe tonight."
               for m in bob_heard)  # fmt: skip
    # both are busy talking for this tick, then free; the cooldown stops an immediate re-talk
    second = engine.step()
    assert not [e for e in second if e.type == "conversation"]


def test_no_reaction_below_the_threshold() -> None:
    engine = _engine(yes=0.1)
    events = engine.step()
    assert not [e for e in events if e.type == "conversation"]
    assert [e for e in events if e.type == "react?"]


def test_nobody_stops_for_someone_asleep_and_a_sleeper_stops_for_nothing() -> None:
    from mindstream.agents.generative.plan import DAY, Plan, PlanStep

    probe = _engine()
    probe.step()  # where Ann goes first, and Bob with her
    engine = _engine()
    now, place = engine.clock.now(), probe.agents["Ann Lee"].location
    ann, bob = engine.agents["Ann Lee"], engine.agents["Bob Ray"]
    sleep = PlanStep(start=now, minutes=600, activity="sleep", level=DAY, place=place)
    bob.plan, bob.plan_date = Plan(steps=[sleep]), now.date().isoformat()
    events = engine.step()
    assert engine.world.area_of(bob.location) == engine.world.area_of(ann.location)
    assert not [e for e in events if e.type in ("react?", "conversation")]


def test_news_of_a_party_at_a_time_makes_the_listener_plan_again_though_no_line_says_when() -> None:
    """The small model's line carries the news but drops its time: the news decides whether
    the talk was an invitation."""
    from mindstream.agents.generative import Minds
    from mindstream.lm.fakes import FakeScorer, ScriptedChatModel
    from tests.sim.conftest import REPLIES

    opening = "I'm hosting a party at Cafe today, are you coming?"
    rules = {**REPLIES, "starts a conversation": opening}
    minds = Minds(
        ScriptedChatModel(rules=rules), FakeScorer(rating=lambda _: 5.0, yes=lambda _: 0.9)
    )
    stream = MemoryStream(
        InMemoryStore(), HashEmbeddings(), rater=minds.rate_importance, config=CONFIG.stream
    )
    engine = Engine(_party_at_five(), stream, minds, CONFIG)
    events = engine.step()
    (talk,) = [e for e in events if e.type == "conversation"]
    assert not any("5 pm" in line for _, line in talk.lines or [])
    assert [a.plan_date for a in engine.agents.values()] == ["2023-02-14", None]


def test_plans_are_decomposed_into_short_actions_with_places() -> None:
    engine = _engine(yes=0.0)
    engine.step()
    ann = engine.agents["Ann Lee"]
    levels = {step.level for step in ann.plan.steps}
    assert levels == {0, 1, 2}
    day = ann.plan.day()
    assert 5 <= len(day) - 1 <= 8  # plus the night's sleep
    action = ann.plan.current(engine.clock.now() - engine.clock.step)
    assert action is not None and action.level == 2 and 5 <= action.minutes <= 15
    assert action.place is not None and ann.location == action.place
    plans = engine.stream.recent(5, owner="Ann Lee", kinds=[MemoryKind.PLAN])
    assert plans and "plan for Tuesday February 14" in plans[0].text


def test_an_injected_event_is_perceived_and_changes_the_plan() -> None:
    engine = _engine()
    engine.step()
    engine.step()  # past the conversation and its cooldown
    ann = engine.agents["Ann Lee"]
    room = ann.location
    thing = f"{room}: {next(iter(engine.world.objects(*room.split(': '))))}"
    engine.inject(thing, "burning")
    events = engine.step()
    moment = engine.clock.now() - engine.clock.step
    witnesses = [
        a
        for a in engine.agents.values()
        if engine.world.area_of(a.location) == engine.world.area_of(room)
    ]
    assert ann in witnesses
    reactions = [e for e in events if e.type == "react"]
    assert {r.agent for r in reactions} == {a.name for a in witnesses}
    for agent in witnesses:
        seen = [m.text for m in engine.stream.records(agent.name)]  # superseded ones too
        assert f"{thing} is burning" in seen
        current = agent.plan.current(moment)
        assert current is not None and current.activity == "put out the fire on the bed"
    # the deed puts the thing right: the world changes once, and the one who did it remembers
    # the bed as it left it (its memory of the fire superseded by the object's new state)
    assert engine.world.state(thing) == "idle"
    (fixer,) = [r.agent for r in reactions if r.changed == f"{thing} is idle"]
    left = engine.stream.recent(20, owner=fixer)
    assert f"{thing} is idle" in [m.text for m in left]
    assert f"{thing} is burning" not in [m.text for m in left if m.status.value == "active"]


def test_the_most_important_new_sight_is_reacted_to_first() -> None:
    """A fire and a friend free to talk, seen in the same tick: the fire, rated more
    important, is what Ann stops for (before, the first person seen always came first)."""
    from mindstream.agents.generative import Minds
    from mindstream.agents.generative.config import AgentConfig, DialogueConfig
    from mindstream.lm.fakes import FakeScorer, ScriptedChatModel
    from tests.sim.conftest import REPLIES

    rating = lambda prompt: 9.0 if "burning" in prompt else 2.0  # noqa: E731
    minds = Minds(
        ScriptedChatModel(rules=dict(REPLIES)), FakeScorer(rating=rating, yes=lambda _: 0.9)
    )
    config = SimConfig(
        reflect=False, agent=AgentConfig(dialogue=DialogueConfig(cooldown_minutes=0))
    )
    stream = MemoryStream(
        InMemoryStore(), HashEmbeddings(), rater=minds.rate_importance, config=config.stream
    )
    engine = Engine(scenario(), stream, minds, config)
    engine.step()  # they meet and talk; free again next tick, with no cooldown
    ann, bob = engine.agents["Ann Lee"], engine.agents["Bob Ray"]
    room = ann.location
    engine.inject(f"{room}: {next(iter(engine.world.objects(*room.split(': '))))}", "burning")
    events = engine.step()
    assert ann.location == room and engine.world.area_of(bob.location) == engine.world.area_of(room)
    assert "Ann Lee" in {e.agent for e in events if e.type == "react"}
    assert not [e for e in events if e.type == "conversation"]


class _Alarmed:
    """A reaction judge that stops for anything burning, and keeps what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str, str]] = []

    def reacts_batch(self, sights: list[tuple[str, str, str]]) -> list[float]:
        self.asked += sights
        return [0.9 if "burning" in observation else 0.1 for _, _, observation in sights]


def test_an_objects_new_state_goes_to_the_reaction_judge_and_people_to_the_model() -> None:
    engine = _engine(yes=0.0)  # the model itself would react to nothing
    judge = _Alarmed()
    engine.minds.reactions = judge
    engine.step()
    engine.step()
    assert not judge.asked  # only people in sight: the model's own yes/no, no conversation
    room = engine.agents["Ann Lee"].location
    thing = f"{room}: {next(iter(engine.world.objects(*room.split(': '))))}"
    engine.inject(thing, "burning")
    events = engine.step()
    # each witness is asked about the fire and, as its baseline, the same object idle
    assert {o for _, _, o in judge.asked} == {f"{thing} is burning", f"{thing} is idle"}
    assert {e.agent for e in events if e.type == "react"} == {n for n, _, _ in judge.asked}
    decisions = [e for e in events if e.type == "react?"]
    assert decisions and all((e.p_yes, e.baseline) == (0.9, 0.1) for e in decisions)
    assert not [e for e in events if e.type == "conversation"]


def test_inner_voice_is_remembered_and_triggers_a_new_day_plan() -> None:
    engine = _engine(yes=0.0)
    engine.step()
    engine.whisper("Bob Ray", "You want to run for mayor.")
    events = engine.step()
    assert any(e.type == "plan" and e.agent == "Bob Ray" for e in events)
    texts = [m.text for m in engine.stream.recent(30, owner="Bob Ray")]
    assert "You want to run for mayor." in texts


def test_a_whisper_is_highly_important_and_the_new_plan_is_asked_with_it() -> None:
    engine = _engine(yes=0.0)
    engine.step()
    bob = engine.agents["Bob Ray"]
    yesterday = bob.yesterday
    engine.whisper("Bob Ray", "You want to run for mayor.")
    model = engine.minds.model
    asked = len(model.prompts)  # type: ignore[attr-defined]
    engine.step()
    plans = [p for p in model.prompts[asked:] if "Write Bob Ray's plan" in p]  # type: ignore[attr-defined]
    assert len(plans) == 1 and "Bob Ray's inner voice: You want to run for mayor." in plans[0]
    voice = next(m for m in engine.stream.records("Bob Ray") if m.metadata.get("inner_voice"))
    assert voice.importance == 9.0
    assert (
        bob.intentions == [] and bob.yesterday == yesterday
    )  # a re-plan of today is not yesterday
    restored = _engine(yes=0.0)
    state = engine.get_state()
    waiting = state.agents["Bob Ray"].model_copy(update={"intentions": ["Call the mayor."]})
    restored.set_state(state.model_copy(update={"agents": {**state.agents, "Bob Ray": waiting}}))
    assert restored.agents["Bob Ray"].intentions == ["Call the mayor."]


def _final_state(folder: Path) -> tuple[dict[str, object], list[tuple[str, str, str, str]]]:
    engine, _ = resume_run(folder, _parts())
    state = engine.get_state().model_dump(mode="json")
    memories = [
        (r.owner, r.kind.value, r.text, r.created_at.isoformat())
        for r in engine.stream.records()
        if r.status.value == "active"
    ]
    return {k: state[k] for k in ("tick", "now", "world", "agents", "pending")}, memories


def _parts(**options: int) -> RunParts:
    return RunParts(
        minds=scripted_minds(**options), build=plain_parts(HashEmbeddings()), sim=CONFIG
    )


def _one_area() -> Scenario:
    """Both agents always in sight of each other, so every tick has decisions to interrupt."""
    base = scenario()
    return scenario(
        world={"Cafe": {"room": {"stove": "idle"}, "back": {"sofa": "idle"}}},
        agents=[
            {**a.model_dump(mode="json"), "home": "Cafe: back", "location": "Cafe: room"}
            for a in base.agents
        ],
    )


def test_a_killed_run_resumes_to_the_same_final_state(tmp_path: Path) -> None:
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    engine = start_run(_one_area(), whole, _parts())
    engine.inject("Cafe: room: stove", "burning", at=engine.clock.now() + engine.clock.step * 3)
    engine.run(6)

    engine = start_run(_one_area(), broken, _parts(fail_after=3))
    engine.inject("Cafe: room: stove", "burning", at=engine.clock.now() + engine.clock.step * 3)
    with pytest.raises(RuntimeError, match="killed mid-tick"):
        engine.run(6)
    assert engine.folder is not None
    interrupted_at = engine.folder.load().tick
    assert 0 < interrupted_at < 6
    resumed, dropped = resume_run(broken, _parts())
    assert dropped > 0  # the interrupted tick had written memories
    resumed.run(6 - resumed.tick)

    assert _final_state(broken) == _final_state(whole)
    assert _log_without_timing(broken) == _log_without_timing(whole)


def _log_without_timing(run: Path) -> list[dict[str, object]]:
    """The event log, each tick's wall time left out (it is the machine's, not the run's)."""
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    return [{k: v for k, v in e.items() if k != "wall_seconds"} for e in events]


def test_a_run_folder_is_not_overwritten(tmp_path: Path) -> None:
    from mindstream.sim import CheckpointError

    start_run(scenario(), tmp_path / "run", _parts())
    with pytest.raises(CheckpointError, match="--resume"):
        start_run(scenario(), tmp_path / "run", _parts())


def test_every_component_is_counted() -> None:
    engine = _engine()
    engine.step()
    usage = engine.minds.ledger.as_dict()
    for component in ("summary", "plan", "actions", "dialogue"):
        assert usage[component]["completion_tokens"] > 0, component
        assert engine.minds.requests[component] > 0
    assert engine.minds.requests["react"] == 2


def test_run_time_adds_up_over_resumed_segments(tmp_path: Path) -> None:
    first = start_run(scenario(), tmp_path / "run", _parts())
    first.run(2)
    spent = first.wall_seconds
    assert spent > 0
    resumed, _ = resume_run(tmp_path / "run", _parts())
    assert resumed.wall_seconds == spent
    resumed.run(1)
    assert resumed.wall_seconds > spent


def test_reflection_in_the_sim_is_counted_in_the_run_ledger(tmp_path: Path) -> None:
    from mindstream.reflection import ReflectionConfig

    minds = scripted_minds()
    minds.model.rules.update(  # type: ignore[attr-defined]
        {
            "salient high-level questions": "1. What does Ann care about?",
            "high-level insights": "1. Ann Lee cares about her party (because of 1)",
        }
    )
    parts = RunParts(
        minds=minds, build=plain_parts(HashEmbeddings()), reflection=ReflectionConfig(threshold=5)
    )
    engine = start_run(scenario(), tmp_path / "run", parts)
    engine.step()
    assert minds.ledger.usage()["reflection"].calls >= 2  # questions, then insights
    assert minds.requests["reflection"] >= 2


def test_an_objects_new_state_supersedes_what_an_agent_saw_of_it() -> None:
    """The town's policy: an observation of an object's state replaces the earlier one of the
    same object (by subject, no judge), so the agent recalls the stove as it is now; its
    observations of people are untouched."""
    from mindstream.memory import MemoryStatus
    from mindstream.sim.config import town_stream

    minds = scripted_minds(0.0)
    stream = MemoryStream(
        InMemoryStore(), HashEmbeddings(), rater=minds.rate_importance, config=town_stream()
    )
    engine = Engine(_one_area(), stream, minds, CONFIG)
    stove = "Cafe: room: stove"
    engine.inject(stove, "heating soup")  # idle objects are not seen
    engine.step()
    seen = [r for r in stream.records("Ann Lee") if r.subject == stove]
    assert [r.text for r in seen] == [f"{stove} is heating soup"]
    engine.inject(stove, "burning")
    engine.step()
    about = {r.text: r for r in stream.records("Ann Lee") if r.subject == stove}
    old, new = about[f"{stove} is heating soup"], about[f"{stove} is burning"]
    assert old.status is MemoryStatus.SUPERSEDED and old.replaced_by == new.id
    assert old.provenance.how == "subject"
    recalled = [m.record.text for m in stream.retrieve("the stove", 10, owner="Ann Lee")]
    assert f"{stove} is burning" in recalled and f"{stove} is heating soup" not in recalled
    people = [r for r in stream.records("Ann Lee") if r.text.startswith("Bob Ray is")]
    assert people and all(r.status is MemoryStatus.ACTIVE for r in people)


def test_over_a_served_model_each_agent_plans_on_its_own_thread_to_the_same_plans() -> None:
    """`Minds.concurrent` (a served model): every agent's summary, plan, decomposition and
    place go out from its own thread, none waiting for another agent's phase; the plans,
    places and request counts are those of the batched run."""
    runs = {}
    for concurrent in (False, True):
        minds = scripted_minds(yes=0.0)
        minds.concurrent = concurrent
        threads: set[str] = set()
        generate = minds.generate
        both = threading.Event()  # the first agent waits for the second: concurrent, not fast

        def spy(prompts, component, max_tokens, generate=generate, threads=threads, both=both):  # type: ignore[no-untyped-def]
            threads.add(threading.current_thread().name)
            if len([t for t in threads if t.startswith("mindstream-agent")]) >= 2:
                both.set()
            if threading.current_thread().name.startswith("mindstream-agent"):
                both.wait(timeout=5)
            return generate(prompts, component, max_tokens)

        minds.generate = spy  # type: ignore[method-assign]
        stream = MemoryStream(InMemoryStore(), HashEmbeddings(), rater=minds.rate_importance)
        engine = Engine(scenario(), stream, minds, CONFIG)
        engine.step()
        plans = {n: [s.describe() for s in a.plan.steps] for n, a in engine.agents.items()}
        places = {n: a.location for n, a in engine.agents.items()}
        runs[concurrent] = (plans, places, dict(minds.requests), threads)
    assert runs[True][:3] == runs[False][:3]
    assert len([t for t in runs[True][3] if t.startswith("mindstream-agent")]) == 2
    assert not [t for t in runs[False][3] if t.startswith("mindstream-agent")]


def test_an_invitation_in_a_talk_makes_the_one_invited_plan_the_day_again() -> None:
    """Not the host, who said it (it re-planned after every talk)."""
    minds = scripted_minds()
    minds.model.rules["starts a conversation"] = "Come to my party at the Cafe at 5 pm!"  # type: ignore[attr-defined]
    stream = MemoryStream(InMemoryStore(), HashEmbeddings(), rater=minds.rate_importance)
    engine = Engine(scenario(), stream, minds, CONFIG)
    assert [e.type for e in engine.step()].count("conversation") == 1  # 09:00
    again = [e for e in engine.step() if e.type == "plan"]  # 09:10
    assert [p.agent for p in again] == ["Bob Ray"]


def test_a_talk_without_a_time_and_place_changes_no_plan() -> None:
    engine = _engine()
    engine.step()
    assert not [e for e in engine.step() if e.type == "plan"]


def test_a_short_action_list_is_followed_by_the_hours_activity_not_asked_again() -> None:
    engine = _engine()
    engine.run(6)  # 09:00-09:50: one hour-long step each, listed as 10 + 15 minutes
    assert engine.minds.requests["actions"] == 2  # once per agent, not once a tick
    steps = engine.agents["Ann Lee"].plan.steps
    rest = [s for s in steps if s.level == 2 and s.describe().startswith("09:25-10:00")]
    assert rest and rest[0].activity == "drink coffee"  # the hour's own activity


def test_an_agent_remembers_what_it_is_doing_once_per_change_and_never_reacts_to_it() -> None:
    engine = _engine(yes=0.0)
    ann = engine.agents["Ann Lee"]
    doing = []
    for _ in range(4):
        events = engine.step()
        moment = engine.clock.now() - engine.clock.step
        doing.append(f"Ann Lee is {ann.status(moment)}")
        own_sights = [e for e in events if e.type == "react?" and e.agent == "Ann Lee"]
        assert not [e for e in own_sights if e.to.startswith("Ann Lee is")]
    own = [m.text for m in engine.stream.records("Ann Lee") if m.text.startswith("Ann Lee is ")]
    seed = "Ann Lee is hosting a party at the cafe tonight."
    assert [t for t in own if t != seed] == list(dict.fromkeys(doing))  # each change once


def test_one_whose_plan_has_the_visit_or_who_weighed_it_does_not_plan_again() -> None:
    import random
    from datetime import timedelta

    from mindstream.agents.generative.loop import Scene
    from mindstream.agents.generative.plan import DAY, Plan, PlanStep
    from mindstream.agents.generative.steps import _replan_if_invited

    engine = _engine()
    now = engine.clock.now()
    scene = Scene(now, 1, timedelta(minutes=10), engine.agents, engine.world, engine.minds,
                  random.Random(0))  # fmt: skip
    bob = engine.agents["Bob Ray"]
    five = now.replace(hour=17)
    for activity, replans in (("go to Cafe", False), ("read at home", True)):
        bob.plan = Plan(steps=[PlanStep(start=five, minutes=120, activity=activity, level=DAY)])
        bob.plan_date = "2023-02-14"
        _replan_if_invited(bob, ["Come to my party at the Cafe at 5 pm!"], scene)
        assert (bob.plan_date is None) is replans
    # told again after planning around it (and choosing to read): no new plan, and a resumed
    # run remembers it
    bob.plan_date = "2023-02-14"
    bob.set_state(bob.get_state())
    _replan_if_invited(bob, ["Ann says: the party at the Cafe at 5 pm!"], scene)
    assert bob.plan_date == "2023-02-14"


def test_with_nothing_new_in_sight_one_with_an_event_to_tell_weighs_someone_unmet() -> None:
    """Isabella, inviting, never spoke to the people in her cafe once their first sights
    were old: only new sights were weighed."""
    import random
    from datetime import timedelta

    from mindstream.agents.generative.loop import Scene
    from mindstream.agents.generative.steps import Reacting

    minds = scripted_minds(0.1)
    stream = MemoryStream(
        InMemoryStore(), HashEmbeddings(), rater=minds.rate_importance, config=CONFIG.stream
    )
    engine = Engine(_party_at_five(), stream, minds, CONFIG)
    engine.step()  # they see each other and do not talk
    now = engine.clock.now()
    scene = Scene(now, 2, timedelta(minutes=10), engine.agents, engine.world, engine.minds,
                  random.Random(0))  # fmt: skip
    ann, bob = engine.agents["Ann Lee"], engine.agents["Bob Ray"]
    assert engine.world.area_of(ann.location) == engine.world.area_of(bob.location)
    scene.fresh = {}  # nothing new
    asked = Reacting().run(list(engine.agents.values()), scene).events
    assert [(e.agent, e.to.split(" is ")[0]) for e in asked] == [("Ann Lee", "Bob Ray")]
    ann.chatted["Bob Ray"] = now - timedelta(hours=2)  # they talked this morning
    assert not Reacting().run(list(engine.agents.values()), scene).events


def test_a_resumed_run_remembers_whose_reflection_came_to_nothing(tmp_path: Path) -> None:
    first = start_run(scenario(), tmp_path / "run", _parts())
    assert first.reflector is not None
    first.reflector.resume_fruitless({"Ann Lee": "memory-at-the-attempt"})
    first.run(1)
    resumed, _ = resume_run(tmp_path / "run", _parts())
    assert resumed.reflector is not None
    assert resumed.reflector.fruitless() == {"Ann Lee": "memory-at-the-attempt"}
