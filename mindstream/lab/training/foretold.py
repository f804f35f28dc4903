"""Pairs where the earlier statement foretells what the later one tells happening.

On the dev and held-out streams most wrong supersedes were of this kind: "Farid is looking at
flats in Braunstone" then "Farid moved out on Saturday to his flat in Braunstone" (P 0.95),
"isa turns 13 on feb 9" then "isa is officially 13" (0.92), "What car should I buy for about
11,000?" then "New car! 2019 Toyota Corolla hybrid". A plan, an offer, a booking or a forecast
is not made false by coming true: both stay true (the same question, still true). The
hand-written pairs held the other direction only (a state, then a plan for it). What does
change looks alike and is drawn beside them: a current value told with its forecast ("Yusuf
is 10, he'll be 11 on 19 November") is replaced when the day comes, and a plan for one thing
says nothing about another thing happening. Every pair is written from these lists, none
taken from a conversation we evaluate on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mindstream.lab.training.change_data import OTHER, REPLACES, SAME_SLOT, Example

SOURCE = "foretold"

_NAMES = ["Karim", "my sister", "my brother", "Mum", "my son", "my daughter", "Jess", "Tom"]
_PLACES = ["Aston", "Clifton", "Hyde Park", "Gorgie", "Ruzafa", "Avondale", "Didsbury"]
_CARS = ["corolla", "yaris", "golf", "octavia", "civic", "tacoma", "niro", "focus"]
_FIRMS = ["the council", "Boots", "the hospital", "Bytefold", "Tesco", "a bigger firm", "ETH"]
_JOBS = ["practice nurse", "junior dev", "site manager", "pharmacy tech", "receptionist"]
_THINGS = ["the truck", "the ford", "the old sofa", "the piano", "my bike", "the caravan"]
_GADGETS = ["a new laptop", "a standing desk", "a dishwasher", "an e-bike", "a coffee machine"]
_KIDS = ["Cian", "Daan", "Omar", "Priya", "Ruby", "Noah", "Maisie"]
_EVENTS = ["the sleepover", "the party", "the wedding", "the car boot sale", "the open day"]
_MONTHS = ["january", "feb", "march", "april", "may", "june", "sept", "october", "nov", "dec"]
_OLD_CARS = ["fiesta", "astra", "micra", "prius", "clio"]  # never one of _CARS: a state it replaces
_OLD_FIRMS = ["Greggs", "Asda", "the call centre", "Pret", "the warehouse"]
_OLD_PLACES = ["Moseley", "Leith", "Marchmont", "Logan Square", "Far Cotton"]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


@dataclass(frozen=True)
class Story:
    """One thing that can be foretold and then happen: how it is foretold, how it is told
    happening, and (for another draw of the fill) how something else happens."""

    foretold: tuple[str, ...]
    happened: tuple[str, ...]
    fill: dict[str, list[str]]
    entity: str | None = None  # the fill that names what it is about: another one, another thing
    before: tuple[str, ...] = ()  # the state its happening replaces (the plan is not that state)


_STORIES = [
    Story(
        (
            "{who} is looking at flats in {place}, one bedroom is like {n}00 a month",
            "{who} says he found a flat in {place}, signs next week",
            "{who} is hoping to get a place in {place} soon",
        ),
        (
            "{who} moved out on saturday to the flat in {place}",
            "{who} got the keys to the {place} flat!! moved in yesterday",
            "we helped {who} carry boxes into the new place in {place} today",
        ),
        {"who": _NAMES, "place": _PLACES, "n": ["6", "7", "8", "9"], "old": _OLD_PLACES},
        "who",
        (
            "{who} is staying with us till he finds a place, sleeps on the sofa",
            "{who} still lives in the old flat in {old}",
        ),
    ),
    Story(
        (
            "what car should i get for about {n},000? thinking a {car}",
            "looking at second hand {car}s, 2019ish. good idea?",
            "might get a {car} when the old one dies, they hold their value",
        ),
        (
            "new car!! picked up the {car} yesterday, grey, 40k miles",
            "went and bought the {car} in the end, drove it home saturday",
            "the {car} is on the drive, finance is {n}0 a month",
        ),
        {"car": _CARS, "n": ["9", "11", "14", "18"], "old": _OLD_CARS},
        None,
        ("i drive a {old}, 2009, 160k on it", "my car's an old {old}, the clutch is going"),
    ),
    Story(
        (
            "going for an interview for a {job} job at {firm} on {day}",
            "applied for {job} at {firm}, fingers crossed",
            "{firm} offered me the {job} job, starts in {month}",
        ),
        (
            "first week as {job} at {firm} done!",
            "got it!! i'm officially a {job} at {firm} now",
            "started at {firm} on {day}, the other {job}s are lovely",
        ),
        {"job": _JOBS, "firm": _FIRMS, "day": _DAYS, "month": _MONTHS, "old": _OLD_FIRMS},
        "firm",
        ("i work at {old} on the tills, four years now", "still at {old}, same shifts"),
    ),
    Story(
        (
            "thinking about selling {thing}, i keep throwing money at it",
            "might put {thing} on marketplace this weekend",
            "{thing} is going on ebay next week, no space for it",
        ),
        (
            "well i did it, sold {thing} to a neighbour for {n}00",
            "{thing} went on saturday, a bloke came with a van",
            "sold {thing}! {n}00 quid, not bad",
        ),
        {"thing": _THINGS, "n": ["2", "4", "6", "9"]},
        "thing",
        ("we've still got {thing}, it just sits there", "{thing} is ancient but it runs"),
    ),
    Story(
        (
            "also thinking about {gadget}, any thoughts?",
            "saving up for {gadget}, maybe in {month}",
            "{gadget} or wait for the sales?",
        ),
        (
            "{gadget} arrived today, already love it",
            "caved and ordered {gadget}, it came on {day}",
            "got {gadget} in the end, best money i've spent",
        ),
        {"gadget": _GADGETS, "month": _MONTHS, "day": _DAYS},
        "gadget",
    ),
    Story(
        (
            "{kid} turns {n} on {month} {d}, wants {event} with all her mates",
            "{kid} will be {n} on the {d}th of {month} and has asked for a bike",
            "{kid}'s birthday is {month} {d}, {n} already!!",
        ),
        (
            "{kid} is officially {n} as of {day}!! {event} happened, zero sleep",
            "{kid} turned {n} last {day}, we had a family dinner",
            "{event} for {kid}'s {n}th went fine, she loved it",
        ),
        {
            "kid": _KIDS,
            "n": [str(k) for k in range(4, 17)],
            "month": _MONTHS,
            "d": [str(k) for k in range(2, 28)],
            "day": _DAYS,
            "event": _EVENTS,
        },
    ),
    Story(
        ("a letter from the landlord: rent goes to {n}.50 a week from {d} {month}",),
        ("first week with the new rent, {n}.50 went out monday like the letter said",),
        {
            "n": [str(k) for k in range(90, 250)],
            "m": [str(k) for k in range(60, 90)],
            "d": [str(k) for k in range(1, 28)],
            "month": _MONTHS,
        },
        None,
        ("rent is {m}.50 a week, it goes out every monday",),
    ),
    Story(
        ("heads up, the rent is going up to {n}0 a month from the 1st",),
        ("first month of the new rent went out, {n}0, ouch",),
        {"n": [str(k) for k in range(50, 190)], "m": [str(k) for k in range(20, 50)]},
        None,
        ("our rent is {m}0 a month which is a lot",),
    ),
    Story(
        (
            "{who} will move into the house in {place} when we go",
            "{who} are hoping to move to {place} in the spring",
        ),
        (
            "{who} moved into the house in {place} yesterday",
            "{who} are in {place} now, the move went fine",
        ),
        {
            "who": ["hamish and tash", "my parents", "the kids", "jo and sam"],
            "place": _PLACES,
            "old": _OLD_PLACES,
        },
        "who",
        ("{who} live in {old}, been there years",),
    ),
    Story(
        (
            "booked the {what} for {day} at 10",
            "the {what} is on {day} first thing, don't let me forget",
        ),
        (
            "{what} done on {day}, all fine, next one in a year",
            "went to the {what} {day}, nothing to worry about",
        ),
        {"what": ["dentist", "eye test", "smear test", "mot", "boiler service"], "day": _DAYS},
        "what",
    ),
]

# A current value told with its forecast: the day it comes, the current value is out of date.
_AGE_NOW = (
    "{kid} is {m}, turns {n} on {month} {d}",
    "{kid}'s {m} now and turns {n} the end of {month}",
)
_AGE_CAME = ("{kid} is {n} now! the party was saturday", "{kid} turned {n} on {day}")


def _filled(rng: random.Random, story: Story) -> dict[str, str]:
    return {key: rng.choice(values) for key, values in story.fill.items()}


def _age_pair(rng: random.Random) -> Example:
    n = rng.randint(4, 16)
    fill = {
        "kid": rng.choice(_KIDS),
        "m": str(n - 1),
        "n": str(n),
        "month": rng.choice(_MONTHS),
        "d": str(rng.randint(2, 27)),
        "day": rng.choice(_DAYS),
    }
    return Example(
        earlier=rng.choice(_AGE_NOW).format(**fill),
        later=rng.choice(_AGE_CAME).format(**fill),
        label=REPLACES,
        source=SOURCE,
    )


def foretold_pairs(count: int, seed: int = 0) -> list[Example]:
    """`count` draws, each a foretelling and its coming true (both stay true), the same
    foretelling against another thing happening (another question: half of them the same kind
    of thing with another fill), the same happening against the state it ends (replaced: so
    the judge learns the plan apart from the state, not the happening), and now and then a
    current value told with its forecast, then replaced."""
    rng = random.Random(seed)
    out: list[Example] = []
    for _ in range(count):
        story = rng.choice(_STORIES)
        fill = _filled(rng, story)
        earlier = rng.choice(story.foretold).format(**fill)
        later = rng.choice(story.happened).format(**fill)
        out.append(Example(earlier=earlier, later=later, label=SAME_SLOT, source=SOURCE))
        if story.before and rng.random() < 0.6:  # the same happening against the state it ends
            state = rng.choice(story.before).format(**fill)
            out.append(Example(earlier=state, later=later, label=REPLACES, source=SOURCE))
        same_kind = story.entity is not None and rng.random() < 0.5
        other = story if same_kind else rng.choice([s for s in _STORIES if s is not story])
        other_fill = _filled(rng, other)
        if same_kind and other_fill[str(story.entity)] == fill[str(story.entity)]:
            continue
        elsewhere = rng.choice(other.happened).format(**other_fill)
        out.append(Example(earlier=earlier, later=elsewhere, label=OTHER, source=SOURCE))
        if rng.random() < 0.25:
            out.append(_age_pair(rng))
    return out
