"""Scenario files: the built-in one loads; invalid ones are refused naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mindstream.sim import ScenarioError, World, load_scenario
from mindstream.sim.errors import UnknownPlaceError
from tests.sim.conftest import scenario


def test_smallville_has_five_agents_and_both_stories() -> None:
    town = load_scenario("smallville")
    assert len(town.agents) >= 5
    seeds = " ".join(m for a in town.agents for m in a.memories)
    assert "Valentine's Day party at Hobbs Cafe" in seeds
    assert "running for mayor" in seeds


def _write(tmp_path: Path, **changes: object) -> Path:
    raw = scenario().model_dump(mode="json")
    raw.update(changes)
    path = tmp_path / "town.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def _with_agent_field(tmp_path: Path, index: int, field: str, value: str | None) -> Path:
    """The test scenario with one agent's field set (or removed, for None)."""
    agents = scenario().model_dump(mode="json")["agents"]
    if value is None:
        del agents[index][field]
    else:
        agents[index][field] = value
    return _write(tmp_path, agents=agents)


def test_unknown_place_is_named(tmp_path: Path) -> None:
    path = _with_agent_field(tmp_path, 1, "location", "Moon base: crater")
    with pytest.raises(ScenarioError, match=r"^town.yaml: agents.1.location: unknown area 'Moon"):
        load_scenario(path)


def test_agent_in_no_place_is_refused(tmp_path: Path) -> None:
    path = _with_agent_field(tmp_path, 0, "home", None)
    with pytest.raises(ScenarioError, match=r"^town.yaml: agents.0.home: Field required"):
        load_scenario(path)


def test_agent_placed_on_an_area_not_a_room_is_refused(tmp_path: Path) -> None:
    path = _with_agent_field(tmp_path, 0, "location", "Cafe")
    with pytest.raises(ScenarioError, match=r"agents.0.location: 'Cafe' is not a room"):
        load_scenario(path)


def test_bad_time_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path, start="half past never")
    with pytest.raises(ScenarioError, match=r"^town.yaml: start: .*half past never"):
        load_scenario(path)


def test_event_before_the_start_and_unknown_object_are_named(tmp_path: Path) -> None:
    early = [{"at": "2020-01-01 00:00", "place": "Cafe: room: stove", "state": "burning"}]
    with pytest.raises(ScenarioError, match=r"events.0.at: .* is before the start"):
        load_scenario(_write(tmp_path, events=early))
    missing = [{"at": "2023-02-14 10:00", "place": "Cafe: room: piano", "state": "played"}]
    with pytest.raises(ScenarioError, match=r"events.0.place: 'Cafe: room' has no object 'piano'"):
        load_scenario(_write(tmp_path, events=missing))


def test_a_duplicate_agent_is_named_at_its_second_place(tmp_path: Path) -> None:
    agents = scenario().model_dump(mode="json")["agents"]
    path = _write(tmp_path, agents=[*agents, agents[0]])
    late = len(agents)
    with pytest.raises(ScenarioError, match=rf"agents.{late}.name: duplicate .* \(also agents.0\)"):
        load_scenario(path)


@pytest.mark.parametrize(
    ("routine", "message"),
    [
        (["25:99 xm: wake up"], r"item 0: '25:99 xm' is not a time of day"),
        (["8:00 am: wake up", "9:00 xm: eat"], r"item 1: '9:00 xm' is not a time of day"),
        (["11:00 am: work", "9:00 am: eat"], r"item 1: '9:00 am' comes before the item above"),
    ],
)
def test_a_routine_time_that_is_no_time_of_day_is_named(
    tmp_path: Path, routine: list[str], message: str
) -> None:
    agents = scenario().model_dump(mode="json")["agents"]
    agents[1]["routine"] = routine
    with pytest.raises(ScenarioError, match=rf"^town.yaml: agents.1.routine: {message}"):
        load_scenario(_write(tmp_path, agents=agents))


def test_missing_file_and_bad_yaml(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario(tmp_path / "nope.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("world: [unclosed")
    with pytest.raises(ScenarioError, match=r"broken\.yaml: not valid YAML"):
        load_scenario(broken)


def test_world_paths_and_states() -> None:
    world = World({"Cafe": {"kitchen": {"stove": "idle"}, "room": {"table": "idle"}}})
    assert world.room_path("Cafe: kitchen: stove") == "Cafe: kitchen"
    world.set_state("Cafe: kitchen: stove", "burning")
    assert world.visible("Cafe: room") == [("Cafe: kitchen: stove", "burning")]
    assert world.changed() == {"Cafe: kitchen: stove": "burning"}
    with pytest.raises(UnknownPlaceError, match="has no object 'oven'"):
        world.set_state("Cafe: kitchen: oven", "on")


def test_an_impossible_date_names_the_file_and_field(tmp_path: Path) -> None:
    path = _write(tmp_path, start="2023-02-14 09:00")
    path.write_text(path.read_text().replace("start: 2023-02-14 09:00", "start: 2023-02-30 09:00"))
    with pytest.raises(ScenarioError, match=r"^town.yaml: start: .*day value is outside"):
        load_scenario(path)


def test_a_town_without_routines_keeps_everything_else() -> None:
    town = load_scenario("smallville25")
    free = town.unscripted()
    assert all(a.routine for a in town.agents) and not any(a.routine for a in free.agents)
    assert free.name == "smallville25-unscripted"
    assert [a.name for a in free.agents] == [a.name for a in town.agents]
    assert free.world == town.world and free.events == town.events
