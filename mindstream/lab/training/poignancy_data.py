"""Training data for the poignancy question (`mindstream train judge poignant`): is a memory
an important event in someone's life? The paper's scale anchors it: brushing teeth is a 1, a
break-up an 8 to 10. The embedded model's own 1-10 rating is flat on a town's memories
(3.7-5.4 over 199 of them; a burning stove 4.4, below "John Lin is a pharmacist" 5.1), so
the town rates through an adapter trained here: P(yes) maps onto 1-10.

Built from templates: life events, emergencies, invitations and news say yes; what an agent
sees people and things doing, its own plans, chores and small talk say no. Whatever is in
`HELD_OUT_*` never reaches training and draws the curve; no state with "burn" or "flood" in
it is built (as for `reacts`), so a town's fire tests words the adapter never saw. The
labelled sets that measure it (`eval poignancy`) are written by hand, not from these lists.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from mindstream.lab.training.adapter import Labelled
from mindstream.lab.training.react_data import ACTIVITIES, EVERYDAY, NAMES, OBJECTS, PLACES, URGENT
from mindstream.lm.judges.poignancy import poignant_prompt

LIFE_EVENTS = (
    "was diagnosed with a serious illness", "lost the job at the factory", "got engaged to {b}",
    "is getting married to {b} next month", "had a baby girl this morning", "died last night",
    "was badly hurt in a car accident", "broke up with {b} after six years",
    "had a huge fight with {b} and they stopped speaking", "won the town election",
    "was accepted to a university far away", "was fired for being late",
    "is moving to another country",
    "had the house broken into and robbed", "fell down the stairs and broke a leg",
    "found out {b} has been lying for years", "was told the shop will close for good",
    "lost all savings in a bad investment", "is announcing a run for town council",
    "adopted a child", "was rushed to hospital", "got the dream job at last",
    "heard that an old friend passed away", "was promoted to head of the department",
)  # fmt: skip
INVITATIONS = (
    "{a} invited {b} to a birthday party at {place} on Saturday at 7 pm",
    "{a} is organizing a town meeting at {place} on Friday at 6 pm",
    "{a} asked {b} to come to the concert at {place} tonight",
    "{a} told {b}: {c} is running for mayor",
    "{a} told {b}: {c} is getting married in June",
    "{a} is throwing a farewell party at {place} on Sunday afternoon",
    "{a} asked {b} to help organize the charity fair at {place}",
)  # fmt: skip
CHORES = (
    "brushed teeth before bed", "made a cup of tea", "tied the shoelaces", "checked the time",
    "washed the dishes", "put on a coat", "closed the window", "took the bus", "ate a sandwich",
    "watered the plants", "made the bed", "locked the front door", "turned off the lights",
    "opened the mail", "sharpened a pencil", "wiped the table",
)  # fmt: skip
SMALL_TALK = (
    "{a} talked with {b} at {place}. {a}: Hi, how are you? {b}: Fine, thanks.",
    "{a} talked with {b} at {place}. {a}: Nice weather today. {b}: Yes, it is lovely.",
    "{a} said good morning to {b}",
    "{a} waved at {b} across the room",
)  # fmt: skip
HELD_OUT_LIFE_EVENTS = (
    "was told the cancer is back", "got divorced", "won a scholarship to study abroad",
    "lost the family home to the bank", "became a grandmother", "was arrested at work",
)  # fmt: skip
HELD_OUT_CHORES = (
    "combed the hair", "refilled the stapler", "hung up a towel", "poured a glass of water",
    "put the kettle on", "rinsed a mug",
)  # fmt: skip
HELD_OUT_URGENT = ("bursting with water", "sparking wildly", "sending up smoke", "gushing water")
HELD_OUT_EVERYDAY = ("being used", "polished", "half full", "still", "being tidied")


def poignancy_examples(count: int, seed: int, held_out: bool = False) -> list[Labelled]:
    """`count` memories, half poignant; from the held-out events, chores and states if asked."""
    rng = random.Random(seed)
    yes, no = _makers(rng, held_out)
    out = []
    for n in range(count):
        label = n % 2 == 0
        source, make = rng.choice(yes if label else no)
        out.append(Labelled(prompt=poignant_prompt(make()), label=label, source=source))
    rng.shuffle(out)
    return out


Maker = tuple[str, Callable[[], str]]


def _makers(rng: random.Random, held_out: bool) -> tuple[list[Maker], list[Maker]]:
    """(poignant, mundane) kinds of memory, each a name for the curve and a maker."""
    events = HELD_OUT_LIFE_EVENTS if held_out else LIFE_EVENTS
    chores = HELD_OUT_CHORES if held_out else CHORES
    urgent = HELD_OUT_URGENT if held_out else URGENT
    everyday = HELD_OUT_EVERYDAY if held_out else EVERYDAY

    def people() -> dict[str, str]:
        a, b, c = rng.sample(NAMES, 3)
        return {"a": a, "b": b, "c": c, "place": rng.choice(PLACES).split(":")[0]}

    def sight(states: tuple[str, ...]) -> str:
        return f"{rng.choice(PLACES)}: {rng.choice(OBJECTS)} is {rng.choice(states)}"

    def event() -> str:
        who = people()
        return f"{who['a']} " + rng.choice(events).format(**who)

    yes: list[Maker] = [
        ("poignant: life event", event),
        ("poignant: emergency", lambda: sight(urgent)),
        ("poignant: invitation or news", lambda: rng.choice(INVITATIONS).format(**people())),
    ]
    no: list[Maker] = [
        ("mundane: someone's activity", lambda: f"{rng.choice(NAMES)} is {rng.choice(ACTIVITIES)}"),
        ("mundane: an everyday state", lambda: sight(everyday)),
        ("mundane: a chore", lambda: f"{rng.choice(NAMES)} {rng.choice(chores)}"),
        ("mundane: small talk", lambda: rng.choice(SMALL_TALK).format(**people())),
        ("mundane: own plan", lambda: _plan(rng)),
    ]
    if held_out:  # the curve's items: training's kinds with the held-out words only
        yes, no = yes[:2], [no[1], no[2]]
    return yes, no


def _plan(rng: random.Random) -> str:
    first, then = rng.sample(ACTIVITIES, 2)
    return f"{rng.choice(NAMES)}'s plan for today: {first}, then {then}"
