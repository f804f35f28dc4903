"""Pairs where a number is the fact: a count, an age, a weight, a dose, days a week, a date.

The change judge missed most updates of this kind on the dev streams ("17 laying hens" then
"coyote got 3 hens. down to 14": P 0.02; "he's 87" then "Dad is officially 88": 0.39), while
it already keeps most like items of a list apart. People tell such updates as a new value
("we're at 22 mamas now"), as a step from the old one ("lost 9 pounds"), as a birthday
("turned 13 on thursday") or as a correction ("friday 7th not thurs"). What must not
supersede looks the same: the same value again, another item's count, another person's age,
a count of what happened once (a game, a market day, this year's batch). Every pair is
written from these lists, none taken from a conversation we evaluate on.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from mindstream.lab.training.change_data import OTHER, REPLACES, SAME_SLOT, Example

SOURCE = "state update"

_HERDS = ["hens", "goats", "ewes", "cows", "pigs", "ducks", "alpacas", "bee hives", "horses"]
_THINGS = [
    "nest boxes",
    "raised beds",
    "chairs round the table",
    "bikes in the shed",
    "tomato plants",
    "apple trees",
    "fish in the pond",
    "plants on the balcony",
]
_PETS = ["Biscuit", "Mango", "Pepper", "Rolo", "Juniper", "Tilly", "Ziggy", "Bramble", "Otis"]
_KINDS = ["dog", "cat", "rabbit", "tortoise", "parrot", "lab", "collie", "terrier"]
_PEOPLE = ["Nan", "Grandad", "Dad", "Mum", "Auntie Jo", "my uncle Pete", "Gran", "Grandpa Lou"]
_KIDS = ["Ava", "Noah", "Kaylee", "Tyler", "Ruby", "Finn", "Maisie", "Leo", "Isla", "Jack"]
_DRUGS = ["metformin", "sertraline", "amlodipine", "levothyroxine", "ramipril", "donepezil"]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_APPTS = [
    "the dentist",
    "my eye test",
    "the physio",
    "the mot",
    "parents evening",
    "my scan",
    "the vet",
    "the boiler service",
    "the hearing test",
]
_MONTHS = ["jan", "feb", "march", "april", "may", "june", "july", "sept", "oct", "nov"]


@dataclass(frozen=True)
class Slot:
    """One kind of numeric fact: how it is first said, how a new value is told, and how
    it is said again unchanged."""

    first: Callable[[random.Random, dict[str, str], int], str]
    moved: Callable[[random.Random, dict[str, str], int, int], str]
    again: Callable[[random.Random, dict[str, str], int], str]
    fill: Callable[[random.Random], dict[str, str]]
    start: tuple[int, int]
    step: tuple[int, int]
    scale: int = 1  # doses come in fives


def _pick(rng: random.Random, options: list[str]) -> str:
    return rng.choice(options)


def _herd_moved(rng: random.Random, f: dict[str, str], old: int, new: int) -> str:
    h, d = f["herd"], abs(new - old)
    if new < old:
        return _pick(
            rng,
            [
                f"bad news, a fox got in and took {d} {h}. down to {new}",
                f"sold {d} of the {h} at the market, so we're at {new} now",
                f"lost {d} {h} over the cold snap, {new} left",
                f"we've only got {new} {h} now after the sale",
            ],
        )
    return _pick(
        rng,
        [
            f"bought {d} more {h} saturday, so that's {new} now",
            f"{d} new {h} arrived today! up to {new}",
            f"we're up to {new} {h} now",
            f"two of them had babies, so we've got {new} {h} now",
        ],
    )


def _age_moved(rng: random.Random, f: dict[str, str], old: int, new: int) -> str:
    who = f["who"]
    return _pick(
        rng,
        [
            f"{who} turned {new} on {_pick(rng, _DAYS)}, we had cake",
            f"it's {who}'s birthday today, {new} already!",
            f"{who} is officially {new}! party was last weekend",
            f"happy birthday to {who}, {new} today",
        ],
    )


def _weight_moved(rng: random.Random, f: dict[str, str], old: int, new: int) -> str:
    d = abs(new - old)
    word = "down" if new < old else "up"
    return _pick(
        rng,
        [
            f"weighed myself this morning, {new} {f['unit']}. {word} {d}",
            f"{word} to {new} {f['unit']} at the clinic today",
            f"the scales say {new} {f['unit']} now",
        ],
    )


def _dose_moved(rng: random.Random, f: dict[str, str], old: int, new: int) -> str:
    return _pick(
        rng,
        [
            f"gp changed the {f['drug']} to {new}mg twice a day",
            f"so they've put the {f['drug']} {'up' if new > old else 'down'} to {new}mg",
            f"i'm on {new}mg of {f['drug']} from this week",
        ],
    )


def _days_moved(rng: random.Random, f: dict[str, str], old: int, new: int) -> str:
    return _pick(
        rng,
        [
            f"i've dropped to {new} day{'s' * (new > 1)} a week at {f['work']}"
            if new < old
            else f"they've asked me to do {new} days a week at {f['work']} from next month",
            f"it's {new} days a week now at {f['work']}",
            f"from this week i'm on {new} days at {f['work']}",
        ],
    )


def _date_moved(rng: random.Random, f: dict[str, str], old: int, new: int) -> str:
    a, m = f["appt"], f["month"]
    return _pick(
        rng,
        [
            f"wait no, {a} is the {_nth(new)} not the {_nth(old)}",
            f"{a} rang, they've moved me to {new} {m}, same time",
            f"checked the letter again, {a} is {m} {new}",
        ],
    )


def _nth(day: int) -> str:
    last = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{last}"


def _price_moved(rng: random.Random, f: dict[str, str], old: int, new: int) -> str:
    return _pick(
        rng,
        [
            f"landlord's put the rent up to {new} a month",
            f"rent is {new} now, they put it up in the new contract",
            f"good news, we got the rent down to {new}",
        ],
    )


_SLOTS = [
    Slot(
        first=lambda r, f, n: _pick(
            r,
            [
                f"we've got {n} {f['herd']}",
                f"{f['owner']} keeps {n} {f['herd']}, spoiled rotten",
                f"{n} {f['herd']} on the place now",
            ],
        ),
        moved=_herd_moved,
        again=lambda r, f, n: f"the {n} {f['herd']} are doing fine in the cold",
        fill=lambda r: {"herd": _pick(r, _HERDS + _THINGS), "owner": _pick(r, ["she", "my wife"])},
        start=(4, 40),
        step=(1, 6),
    ),
    Slot(
        first=lambda r, f, n: _pick(
            r,
            [
                f"{f['who']} is {n}",
                f"{f['who']}'s {n} and still going strong",
                f"our {f['kind']} {f['who']} is {n} years old",
            ],
        ),
        moved=_age_moved,
        again=lambda r, f, n: f"{f['who']} is {n} so we take it slow on walks",
        fill=lambda r: {"who": _pick(r, _PETS + _KIDS + _PEOPLE), "kind": _pick(r, _KINDS)},
        start=(2, 90),
        step=(1, 1),
    ),
    Slot(
        first=lambda r, f, n: _pick(
            r,
            [
                f"i weigh {n} {f['unit']} at the moment",
                f"the nurse said {n} {f['unit']}, she wants it lower",
            ],
        ),
        moved=_weight_moved,
        again=lambda r, f, n: f"still {n} {f['unit']}, no change this week",
        fill=lambda r: {"unit": _pick(r, ["kg", "pounds", "lbs"])},
        start=(60, 250),
        step=(2, 12),
    ),
    Slot(
        first=lambda r, f, n: f"i'm on {f['drug']} {n}mg in the morning",
        moved=_dose_moved,
        again=lambda r, f, n: f"remember to pick up the {f['drug']} {n}mg on friday",
        fill=lambda r: {"drug": _pick(r, _DRUGS)},
        start=(1, 100),
        step=(1, 100),
        scale=5,
    ),
    Slot(
        first=lambda r, f, n: f"i do {n} days a week at {f['work']}",
        moved=_days_moved,
        again=lambda r, f, n: f"{f['work']} is fine, {n} days a week suits me",
        fill=lambda r: {"work": _pick(r, ["the library", "the shop", "the surgery", "the cafe"])},
        start=(2, 5),
        step=(1, 2),
    ),
    Slot(
        first=lambda r, f, n: f"{f['appt']} is {f['month']} {n}, first thing",
        moved=_date_moved,
        again=lambda r, f, n: f"don't let me forget {f['appt']}, {f['month']} {n}",
        fill=lambda r: {"appt": _pick(r, _APPTS), "month": _pick(r, _MONTHS)},
        start=(3, 24),
        step=(1, 5),
    ),
    Slot(
        first=lambda r, f, n: f"our rent is {n} a month which is a lot",
        moved=_price_moved,
        again=lambda r, f, n: f"paid the {n} rent today, ouch",
        fill=lambda r: {},
        start=(400, 1400),
        step=(20, 150),
    ),
]


def _keeps(rng: random.Random, slot: Slot, f: dict[str, str], n: int) -> list[Example]:
    """What looks like an update of this slot and is not: the same value, another item of
    the same shape, a count of a one-off."""
    other_fill = slot.fill(rng)
    out = [
        Example(
            earlier=slot.first(rng, f, n),
            later=slot.again(rng, f, n),
            label=SAME_SLOT,
            source=SOURCE,
        )
    ]
    if other_fill != f:
        m = n + rng.randint(*slot.step)
        out.append(
            Example(
                earlier=slot.first(rng, f, n),
                later=slot.moved(rng, other_fill, n, m),
                label=OTHER,
                source=SOURCE,
            )
        )
    k = rng.randint(2, 30)
    one_off = _pick(
        rng,
        [
            f"sold {k} jars of honey at the fair today",
            f"{_pick(rng, _KIDS)} scored {k % 5 + 1} goals on saturday",
            f"made {k} mince pies for the church sale",
            f"we did {k} km on the bikes sunday",
            f"got {k} eggs this week",
            f"picked {k} kilos of apples today",
        ],
    )
    out.append(Example(earlier=slot.first(rng, f, n), later=one_off, label=OTHER, source=SOURCE))
    return out


def state_pairs(count: int, seed: int = 0) -> list[Example]:
    """`count` slot draws, each giving one update and its look-alikes that must not
    supersede (about three keeps to one update)."""
    rng = random.Random(seed)
    out: list[Example] = []
    for _ in range(count):
        slot = rng.choice(_SLOTS)
        f = slot.fill(rng)
        n = rng.randint(*slot.start)
        m = max(1, n + rng.choice([-1, 1]) * rng.randint(*slot.step))
        n, m = n * slot.scale, m * slot.scale
        if slot is _SLOTS[1]:
            m = n + 1  # ages only go up
        out.append(
            Example(
                earlier=slot.first(rng, f, n),
                later=slot.moved(rng, f, n, m),
                label=REPLACES,
                source=SOURCE,
            )
        )
        out += _keeps(rng, slot, f, n)
    return out
