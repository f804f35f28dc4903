"""Each component's knobs are a section of the agent's configuration; a run folder written by
an earlier version (one flat section) still reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from mindstream.agents.generative.config import AgentConfig


def test_a_run_folders_config_of_the_flat_version_reads_into_the_sections() -> None:
    from mindstream.config import load_config

    old = Path(__file__).parents[1] / "data" / "town-run" / "config.yaml"
    assert "max_turns: 6" in old.read_text() and "react_threshold: 0.5" in old.read_text()
    agent = load_config(old, environ={}).sim.agent
    assert agent.dialogue.max_turns == 6 and agent.reacting.threshold == 0.5
    assert agent.planning.steps == (5, 8) and agent.planning.tokens["plan"] == 96
    assert agent.reacting.tokens == 16 and agent.dialogue.interview_tokens == 60


def test_an_unknown_key_is_still_refused() -> None:
    with pytest.raises(ValidationError, match="max_turn"):
        AgentConfig.model_validate({"max_turn": 6})
    with pytest.raises(ValidationError, match=r"dialogue\.max_turns"):
        AgentConfig.model_validate({"max_turns": 1})  # moved, then checked (at least 2)
