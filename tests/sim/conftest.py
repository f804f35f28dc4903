"""Scripted minds and a two-agent scenario for the sandbox's unit tests."""

from __future__ import annotations

from typing import Any

from mindstream.agents.generative import Minds
from mindstream.lm.fakes import FakeScorer, ScriptedChatModel
from mindstream.sim import Scenario, parse_scenario

# Replies chosen by a substring of the prompt; stateless, so a resumed run hears the same.
REPLIES = {
    "In one sentence": "is a friendly neighbour.",
    "plan for the rest of today": (
        "have coffee\n2) 11:00 am: read the paper\n3) 12:00 pm: tidy up\n"
        "4) 1:00 pm: eat lunch\n5) 2:00 pm: go for a walk"
    ),
    "hour-long": "drink coffee\n2) chat with friends",
    "steps of 5 to 15": "pour coffee (10 minutes)\n2) sit at the table (15 minutes)",
    "what does": "put out the fire",
    "starts a conversation": "Hi! Are you coming to the party tonight?",
    "Dialogue so far": "Yes, I will be there. See you, bye!",
    "interviewer asks": "I know about the party at the cafe.",
}


def scripted_minds(yes: float = 0.9, fail_after: int | None = None, batched: bool = True) -> Minds:
    """React to everything with P(yes) = `yes`; raise on the n-th react decision if asked."""
    calls = {"react": 0}

    def p_yes(prompt: str) -> float:
        if "Observation:" in prompt:
            calls["react"] += 1
            if fail_after is not None and calls["react"] > fail_after:
                raise RuntimeError("killed mid-tick")
        return yes

    model = ScriptedChatModel(rules=dict(REPLIES), default="")
    return Minds(model, FakeScorer(rating=lambda _: 5.0, yes=p_yes), batched=batched)


def scenario(**changes: Any) -> Scenario:
    raw: dict[str, Any] = {
        "name": "two friends",
        "start": "2023-02-14 09:00",
        "world": {
            "Cafe": {"room": {"stove": "idle", "table": "idle"}},
            "Ann's house": {"bedroom": {"bed": "idle"}},
            "Bob's house": {"bedroom": {"bed": "idle"}},
        },
        "agents": [
            {
                "name": "Ann Lee",
                "age": 30,
                "traits": ["kind"],
                "home": "Ann's house: bedroom",
                "location": "Cafe: room",
                "memories": ["Ann Lee is hosting a party at the cafe tonight."],
            },
            {
                "name": "Bob Ray",
                "age": 40,
                "traits": ["curious"],
                "home": "Bob's house: bedroom",
                "location": "Cafe: room",
                "memories": ["Bob Ray likes coffee."],
            },
        ],
        "topics": {"party": ["party"]},
        "gatherings": [
            {
                "topic": "party",
                "area": "Cafe",
                "start": "2023-02-14 09:00",
                "end": "2023-02-14 11:00",
            }
        ],
    }
    raw.update(changes)
    return parse_scenario(raw, "test.yaml")
