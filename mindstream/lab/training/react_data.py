"""Training data for the reaction question (`mindstream train judge reacts`): does what an
agent just saw need it to stop and deal with it? Built from templates: an object in a room
in a state that is an emergency (on fire, leaking, sparking...) says yes, an everyday state
(in use, being cleaned, switched on...) says no, whatever the agent is doing.

Objects and states in `HELD_OUT_*` never reach training and measure the curve; no state with
"burn" or "flood" in it is ever built, so a town's fire and flood test the adapter on words it
was not trained on.
"""

from __future__ import annotations

import random

from mindstream.lab.training.adapter import Labelled
from mindstream.lm.judges.relation import reacts_prompt

NAMES = (
    "Ana Ruiz", "Ben Okafor", "Chen Wei", "Dara Kelly", "Eli Novak", "Fatima Zahra", "Gus Berg",
    "Hana Sato", "Ivan Petrov", "Jade Moore", "Kofi Mensah", "Lena Vogel", "Marco Rossi",
    "Nia Brown", "Omar Haddad", "Priya Nair", "Quinn Lee", "Rosa Diaz", "Sam Reed", "Tomas Lind",
)  # fmt: skip
ACTIVITIES = (
    "reading a book", "cooking dinner", "serving customers", "painting a picture",
    "studying for an exam", "drinking coffee", "working at the counter", "chatting with a friend",
    "walking in the park", "writing an essay", "cleaning the kitchen", "playing the piano",
    "stacking shelves", "having lunch", "watching television", "taking a nap",
    "doing the laundry", "grading papers", "fixing a bicycle", "planning the week",
)  # fmt: skip
PLACES = (
    "Hobbs Cafe: kitchen", "Hobbs Cafe: cafe", "the library: reading room", "Johnson Park: park",
    "the pharmacy: store", "Oak Hill College: classroom", "the Moore house: kitchen",
    "the Lin house: bathroom", "the dorm: common room", "the pub: bar", "the studio: workshop",
    "the supply store: shop", "the Reed house: garden", "the office: main room",
)  # fmt: skip
OBJECTS = (
    "stove", "oven", "kettle", "sink", "fridge", "washing machine", "dishwasher", "toilet",
    "bathtub", "heater", "lamp", "computer", "printer", "television", "piano", "coffee machine",
    "cash register", "shelves", "bookshelf", "desk", "bed", "sofa", "window", "door", "fountain",
    "bench", "pond", "tree", "car", "fireplace", "microwave", "toaster", "aquarium", "ceiling",
)  # fmt: skip
URGENT = (
    "on fire", "smoking", "giving off black smoke", "leaking water everywhere", "overflowing",
    "spraying water across the floor", "broken and sparking", "shattered", "collapsing",
    "making a loud alarm sound", "tipping over", "covered in flames", "letting out gas",
    "dripping water from the ceiling", "cracked and leaking", "in flames", "full of smoke",
    "pouring water onto the floor", "crackling with sparks", "falling apart",
)  # fmt: skip
EVERYDAY = (
    "idle", "in use", "being cleaned", "switched on", "switched off", "open", "closed", "tidy",
    "dusty", "occupied", "playing soft music", "warm", "freshly painted", "full", "empty",
    "quiet", "neatly arranged", "humming quietly", "turned down low", "clean",
    "shining in the sun", "being used by a customer", "ready to use", "a little untidy",
)  # fmt: skip
HELD_OUT_OBJECTS = ("blackboard", "bar counter", "reading table", "pharmacy counter", "boiler")
HELD_OUT_URGENT = ("bursting with water", "sparking wildly", "sending up smoke", "gushing water")
HELD_OUT_EVERYDAY = ("being used", "polished", "half full", "still", "being tidied")


def reaction_examples(count: int, seed: int, held_out: bool = False) -> list[Labelled]:
    """`count` examples, half emergencies; from the held-out objects and states if asked."""
    rng = random.Random(seed)
    objects = HELD_OUT_OBJECTS if held_out else OBJECTS
    urgent = HELD_OUT_URGENT if held_out else URGENT
    everyday = HELD_OUT_EVERYDAY if held_out else EVERYDAY
    out = []
    for n in range(count):
        label = n % 2 == 0
        state = rng.choice(urgent if label else everyday)
        sight = f"{rng.choice(PLACES)}: {rng.choice(objects)} is {state}"
        prompt = reacts_prompt(rng.choice(NAMES), rng.choice(ACTIVITIES), sight)
        kind = "emergency" if label else "everyday"
        out.append(Labelled(prompt=prompt, label=label, source=f"reacts: {kind}"))
    rng.shuffle(out)
    return out
