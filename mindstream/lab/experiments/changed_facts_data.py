"""The changed-facts evaluation set: items from `data/changed_facts_templates.yaml` (written
apart from the judge's training catalogue) plus the hand-written `changed_facts_hand.jsonl`.

    python -m mindstream.lab.experiments.changed_facts_data   # rewrites data/changed_facts.jsonl

Format (one JSON object per line; `mindstream eval changed-facts --data FILE` reads any file
of it): `id`; `kind` "changed" (the later statement replaces the earlier) or "compatible" (it
must not); `type` (explicit, implicit, partial / someone_else, temporary, plan, detail,
addition, past); `earlier`, `later`; `question` asking for what is true now.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

DATA = Path(__file__).parent / "data"
TEMPLATES = DATA / "changed_facts_templates.yaml"
HAND = DATA / "changed_facts_hand.jsonl"
GENERATED = DATA / "changed_facts.jsonl"
CHANGED_TYPES = ("explicit", "implicit", "partial")
COMPATIBLE_TYPES = ("someone_else", "temporary", "plan", "detail", "addition")


class Item(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    kind: Literal["changed", "compatible"]
    type: str = ""
    earlier: str = Field(min_length=1)
    later: str = Field(min_length=1)
    question: str = Field(min_length=1)


class SlotTemplates(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str
    values: list[str] = Field(min_length=2)
    state: list[str] = Field(min_length=1)
    additive: bool = False
    explicit: list[str] = Field(default_factory=list)
    implicit: list[str] = Field(default_factory=list)
    partial: list[str] = Field(default_factory=list)
    someone_else: list[str] = Field(default_factory=list)
    temporary: list[str] = Field(default_factory=list)
    plan: list[str] = Field(default_factory=list)
    detail: list[str] = Field(default_factory=list)
    addition: list[str] = Field(default_factory=list)


class Templates(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    slots: dict[str, SlotTemplates]
    distractors: list[str] = Field(min_length=3)


def load_templates(path: Path = TEMPLATES) -> Templates:
    return Templates.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def generate(templates: Templates, per_type: int = 4, seed: int = 7) -> list[Item]:
    """`per_type` items for every (slot, type) the templates have."""
    rng = random.Random(seed)
    items = []
    for name, slot in templates.slots.items():
        for kind, types in (("changed", CHANGED_TYPES), ("compatible", COMPATIBLE_TYPES)):
            for type_ in types:
                forms = getattr(slot, type_)
                for n in range(per_type if forms else 0):
                    old, new = rng.sample(slot.values, 2)
                    earlier = rng.choice(slot.state).format(v=old, old=old, new=new)
                    later = rng.choice(forms).format(v=new, old=old, new=new)
                    items.append(
                        Item(
                            id=f"{name}-{type_}-{n + 1}",
                            kind=kind,
                            type=type_,
                            earlier=earlier,
                            later=later,
                            question=slot.question,
                        )
                    )
    return items


def write(items: list[Item], path: Path = GENERATED) -> None:
    path.write_text("".join(json.dumps(i.model_dump()) + "\n" for i in items))


if __name__ == "__main__":
    made = generate(load_templates())
    write(made)
    print(f"{len(made)} items in {GENERATED}")
