"""The sandbox end to end on the real embedded model and embedder, on a chroma store on disk:
two agents, three ticks, then an interview and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindstream.agents.generative import Minds
from mindstream.memory import MemoryKind
from mindstream.sim import SimConfig
from mindstream.sim.runner import RunParts, resume_run, start_run, summarize
from tests.plain_build import plain_parts
from tests.sim.conftest import scenario

pytestmark = pytest.mark.real_model


def test_two_agents_on_the_real_model(real_chat_model, real_embedder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    minds = Minds(real_chat_model, real_chat_model)
    town = scenario(start="2023-02-14 16:00")
    parts = RunParts(minds=minds, build=plain_parts(real_embedder), sim=SimConfig(reflect=False))
    engine = start_run(town, tmp_path / "run", parts)
    engine.run(3)
    ann = engine.agents["Ann Lee"]
    assert ann.summary and "Ann Lee" in ann.summary
    assert len(ann.plan.day()) >= 2  # the model's plan, or the persona-less fallback
    assert all(a.location for a in engine.agents.values())
    kinds = {r.kind for r in engine.stream.records("Ann Lee")}
    assert MemoryKind.PLAN in kinds
    # Every area here has one room: the model is asked for an area only where the plan names
    # none ("go home", "the cafe"), so place questions may be none at all.
    assert minds.requests["importance"] > 0
    summary = summarize(engine, "local:smollm2-135m")
    answers = [a.answer for a in summary.interviews]
    assert len(answers) == 4 and sum(bool(a) for a in answers) >= 3
    report = Path(summary.report or "").read_text()
    assert "## Ann Lee" in report and (tmp_path / "run" / "timeline.png").stat().st_size > 0
    saved = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert saved["ticks"] == 3
    engine.stream.close()
    again = RunParts(
        minds=Minds(real_chat_model, real_chat_model), build=plain_parts(real_embedder)
    )
    resumed, dropped = resume_run(tmp_path / "run", again)
    assert resumed.tick == 3 and dropped == 0
    assert len(resumed.stream.records("Bob Ray")) == len(engine.stream.records("Bob Ray"))
