"""Each component's own configuration, gathered in the agent's `AgentConfig`; the defaults suit
the embedded 135M model. A configuration file of an earlier version (one flat section of
knobs, one `tokens` map) still reads: its keys are moved into the sections."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mindstream.agents.generative.components import Cognition


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PlanningConfig(_Section):
    """Summaries, day plans, their decomposition, and where each step happens."""

    summary_refresh_hours: float = Field(24.0, gt=0)
    steps: tuple[int, int] = Field(
        (5, 8), description="a written day plan's steps: at least (else it is chosen), at most"
    )
    day_end_hour: int = Field(22, ge=1, le=24)
    action_minutes: tuple[int, int] = (5, 15)
    tokens: dict[str, int] = Field(
        default_factory=lambda: {"summary": 32, "plan": 96, "hourly": 64, "actions": 64},
        description="new tokens per generation: summary, plan, hourly, actions",
    )


class ReactingConfig(_Section):
    """Whether an agent stops for what it sees, and what it does then."""

    threshold: float = Field(
        0.5, ge=0.0, le=1.0, description="P(yes) above which an agent stops for a person"
    )
    # Chosen on the reaction adapter's held-out built observations (objects and states it never
    # trained on): balanced accuracy 0.963 at 0.25, against 0.893 for P >= 0.5 alone.
    margin: float = Field(
        0.25,
        ge=0.0,
        le=1.0,
        description="an object's new state is reacted to when the reaction judge's P is this "
        "much above its P for the same object idle",
    )
    minutes: int = Field(30, ge=5, description="how long a reaction takes")
    tokens: int = Field(16, ge=1, description="new tokens of the reaction's description")


class DialogueConfig(_Section):
    """Conversations, and interviews (answers in character)."""

    cooldown_minutes: int = Field(60, ge=0, description="before the same pair talks again")
    max_turns: int = Field(6, ge=2, description="dialogue lines in one conversation")
    tokens: int = Field(40, ge=1, description="new tokens per line")
    interview_tokens: int = Field(60, ge=1, description="new tokens per interview answer")
    news: bool = Field(
        True, description="a speaker's first line tells something it knows (news from memory)"
    )
    news_candidates: int = Field(
        10, ge=1, description="memories retrieved for the listener to find something to tell"
    )
    writes_news: bool = Field(
        False,
        description="the model writes the line from the news (a capable model); off: it writes "
        "its own line and the news is said in a phrasing it chooses (the embedded 135M model "
        "loops on the speaker's name when shown the news)",
    )


class AgentConfig(_Section):
    """Knobs of the agent's mind, one section per component."""

    context_k: int = Field(6, ge=1, description="memories retrieved for a prompt")
    planning: PlanningConfig = Field(default_factory=PlanningConfig)
    reacting: ReactingConfig = Field(default_factory=ReactingConfig)
    dialogue: DialogueConfig = Field(default_factory=DialogueConfig)
    cognition: Cognition = Field(
        default_factory=Cognition, description="the components that are on (for ablations)"
    )

    @model_validator(mode="before")
    @classmethod
    def _earlier_flat_keys(cls, data: Any) -> Any:
        """Read an earlier version's flat keys (a run folder's config.yaml) into sections."""
        if not isinstance(data, dict) or not (_FLAT.keys() | {"tokens"}) & data.keys():
            return data
        data = dict(data)
        sections: dict[str, dict[str, Any]] = {
            name: dict(data.get(name) or {}) for name in ("planning", "reacting", "dialogue")
        }
        for old, (section, new) in _FLAT.items():
            if old in data:
                sections[section][new] = data.pop(old)
        for component, count in (data.pop("tokens", None) or {}).items():
            section, key = _TOKENS.get(component, ("planning", None))
            if key is None:
                sections[section].setdefault("tokens", {})[component] = count
            else:
                sections[section][key] = count
        return {**data, **{name: values for name, values in sections.items() if values}}


_FLAT = {
    "summary_refresh_hours": ("planning", "summary_refresh_hours"),
    "plan_steps": ("planning", "steps"),
    "day_end_hour": ("planning", "day_end_hour"),
    "action_minutes": ("planning", "action_minutes"),
    "react_threshold": ("reacting", "threshold"),
    "react_margin": ("reacting", "margin"),
    "reaction_minutes": ("reacting", "minutes"),
    "chat_cooldown_minutes": ("dialogue", "cooldown_minutes"),
    "max_turns": ("dialogue", "max_turns"),
}
_TOKENS = {
    "reaction": ("reacting", "tokens"),
    "dialogue": ("dialogue", "tokens"),
    "interview": ("dialogue", "interview_tokens"),
}
