"""A day's report: knowledge hour by hour (the diffusion curves, plotted), where everyone was,
each agent's ticks as spans, whether agents were where their activity said, and reflections
with the memories they cite; a scenario's own reflection threshold."""

from __future__ import annotations

from pathlib import Path

from mindstream.lm.fakes import HashEmbeddings
from mindstream.reflection import ReflectionConfig
from mindstream.sim import SimConfig
from mindstream.sim.runner import RunParts, start_run, summarize
from tests.plain_build import plain_parts
from tests.sim.conftest import scenario, scripted_minds

INSIGHTS = {
    "salient high-level questions": "1. What does Ann care about?",
    "high-level insights": "1. Ann Lee cares about her party (because of 1)",
}


def _day(tmp_path: Path, ticks: int, **changes: object) -> tuple[str, dict]:  # type: ignore[type-arg]
    minds = scripted_minds()
    minds.model.rules.update(INSIGHTS)  # type: ignore[attr-defined]
    parts = RunParts(
        minds=minds,
        build=plain_parts(HashEmbeddings()),
        sim=SimConfig(reflect=True),
        reflection=ReflectionConfig(threshold=10_000, min_evidence_similarity=None),  # the
        # scenario's own threshold must win; hashed embeddings cannot tell support
    )
    engine = start_run(scenario(**changes), tmp_path / "run", parts)
    engine.run(ticks)
    summary = summarize(engine, "scripted", interviews=False)
    assert summary.report is not None
    return Path(summary.report).read_text(), summary.metrics


def test_knowledge_is_measured_at_the_start_each_hour_and_the_end(tmp_path: Path) -> None:
    text, metrics = _day(tmp_path, 13, reflection_threshold=5)  # 09:00 to 11:00
    times = [point["time"][11:] for point in metrics["hourly"]]
    assert times == ["09:00", "10:00", "11:00"]
    party = [point["shares"]["party"] for point in metrics["hourly"]]
    assert party[0] == 0.5 and party[-1] == 1.0  # Ann's seed; Bob hears of it in a talk
    assert metrics["diffusion"]["end"]["party"]["share"] == party[-1]
    assert (tmp_path / "run" / "diffusion.png").stat().st_size > 10_000
    assert "![diffusion over the run](diffusion.png)" in text
    assert "## Where everyone was, hour by hour\n\n| agent | 09:00 | 10:00 | 11:00 |" in text


def test_an_agents_ticks_are_spans_and_reflections_cite_their_evidence(tmp_path: Path) -> None:
    text, _ = _day(tmp_path, 13, reflection_threshold=5)
    ann = text[text.index("## Ann Lee") : text.index("## Bob Ray")]
    spans = [
        line for line in ann.splitlines() if line.startswith("| 09:") or line.startswith("| 1")
    ]
    assert len(spans) < 13 and any("-" in line.split("|")[1] for line in spans)
    assert "**Reflections**, with the memories each cites" in ann
    assert "| Ann Lee cares about her party | " in ann  # its evidence in the next column


def test_without_the_scenarios_threshold_the_configured_one_holds(tmp_path: Path) -> None:
    text, _ = _day(tmp_path, 3)
    assert "Reflections: 0" in text and "**Reflections**" not in text


def test_places_kept_counts_ticks_whose_activity_names_a_place(tmp_path: Path) -> None:
    text, _ = _day(tmp_path, 3)
    assert "Places: at " in text and "of the agents' ticks the activity named a place" in text


def test_a_finished_day_becomes_a_results_section_with_its_counts(tmp_path: Path) -> None:
    from mindstream.lab.experiments.town_day import run

    _day(tmp_path, 13, reflection_threshold=5)
    out = tmp_path / "section"
    result = run(tmp_path / "run", out, None, "mindstream eval town-day RUN")
    text = (out / "town_day.md").read_text()
    assert "## A town day: two friends, 2 agents" in text
    assert f"| {result['day']['requests']} |" in text
    assert "Day plans: 2 written by the model" in text and "Reflections: " in text
    assert "| knows of the party | 50% | 100% |" in text
    assert (out / "town_day_diffusion.png").is_file()
    assert (out.parent / "results.md").is_file()  # the sections beside it, assembled


def test_a_shorter_run_beside_the_day_is_set_against_the_days_same_span(tmp_path: Path) -> None:
    from mindstream.lab.experiments.town_day import run

    _day(tmp_path / "day", 13, reflection_threshold=5)
    _day(tmp_path / "first", 3)
    out = tmp_path / "section"
    result = run(tmp_path / "day" / "run", out, tmp_path / "first" / "run", "eval town-day")
    span = result["day"]["same_span"]
    assert span["ticks"] == 3 and 0 < span["wall_seconds"] < result["day"]["wall_seconds"]
    assert (
        "The same first 0.5 sim-hours (3 ticks) of the day took"
        in (out / "town_day.md").read_text()
    )


def test_a_day_published_under_its_own_section_name_keeps_the_others(tmp_path: Path) -> None:
    from mindstream.lab.experiments.town_day import run

    _day(tmp_path, 3)
    out = tmp_path / "section"
    run(tmp_path / "run", out, None, "eval town-day")
    run(tmp_path / "run", out, None, "eval town-day --section free", "town_day_free")
    assert (out / "town_day.md").is_file() and (out / "town_day_free.md").is_file()
    assert "(town_day_free_diffusion.png)" in (out / "town_day_free.md").read_text()
    assert (out / "town_day_free_timeline.png").is_file()
