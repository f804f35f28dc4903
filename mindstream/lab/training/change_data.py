"""Training data for the change judge (`mindstream train change-judge`): pairs of a user's
statements, each labelled as one of three relations of the later to the earlier.

    0 other        another question: another item of a list, another person's fact, a
                   different topic that shares words
    1 same slot    the same question about the same person or thing, and the earlier stays
                   true: a restatement, a detail, a temporary state, a plan, an addition
    2 replaces     the same question, and the earlier is no longer true

Where the pairs come from, hardest first:

- labelled conversations (`data/truth/train`): every statement meets its nearest earlier
  statements that are still true, as it would in a stream; the labelled change links are the
  replacements, restatements the same slot, every other neighbour "other" (hard negatives
  mined from near neighbours: same speaker, like shapes, lists, other people's facts);
- hand-written pairs (`data/change_pairs.jsonl`), typed by why they do or do not replace;
- the slot catalogue's templates (`data/judge_slots.yaml`), including a town's observations.

Some pairs are shown with the speaker's name before both statements, as transcripts and towns
store them.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from mindstream.lab.experiments.jsonl import read_jsonl
from mindstream.lab.experiments.openbookqa import DataError
from mindstream.lab.experiments.truth_data import Conversation, Turn
from mindstream.lab.training.judge_data import Pair, load_catalogue, replacement_pairs
from mindstream.memory.statements import is_question, is_small_talk

HAND = Path(__file__).parent / "data" / "change_pairs.jsonl"
OTHER, SAME_SLOT, REPLACES = 0, 1, 2
LABELS = ("other", "same slot", "replaces")
_HAND_SAME_SLOT = {"restates", "detail", "temporary", "plan", "past", "addition"}
_TEMPLATE_SAME_SLOT = {"repeat", "compatible", "additive"}
NAMES = frozenset({"Caroline", "Sam", "Isabella", "Raj"})

Embed = Callable[[list[str]], np.ndarray]


class Example(BaseModel):
    model_config = ConfigDict(frozen=True)

    earlier: str
    later: str
    label: int
    source: str


class HandPair(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    earlier: str
    later: str
    label: Literal["replaces", "keeps"]
    type: str


def statements(conversation: Conversation) -> list[Turn]:
    """The user's turns that state something (not questions, not small talk)."""
    return [
        t
        for t in conversation.turns
        if t.by_user and not is_question(t.text) and not is_small_talk(t.text)
    ]


def mined(
    conversation: Conversation, embed: Embed, neighbours: int = 8, min_similarity: float = 0.1
) -> list[Example]:
    """Each statement against its nearest earlier statements still true at that point (the
    labels say which went out of date), plus every labelled change and restatement."""
    said = statements(conversation)
    if not said:
        return []
    vectors = embed([t.text for t in said])
    replaced = {(link.old, link.new) for link in conversation.changes}
    restated = {(link.old, link.new) for link in conversation.restates}
    retired: set[str] = set()
    out: dict[tuple[str, str], Example] = {}
    for j, new in enumerate(said):
        active = [i for i in range(j) if said[i].dia_id not in retired]
        if active:
            cosines = vectors[active] @ vectors[j]
            order = np.argsort(-cosines)[:neighbours]
            for n in order.tolist():
                if cosines[n] >= min_similarity:
                    old = said[active[n]]
                    out[(old.dia_id, new.dia_id)] = _example(old, new, replaced, restated)
        for old_id, new_id in replaced | restated:
            if new_id == new.dia_id and (old := _turn(said, old_id)) is not None:
                out[(old_id, new_id)] = _example(old, new, replaced, restated)
        retired |= {old for old, new_id in replaced if new_id == new.dia_id}
    return list(out.values())


def _turn(said: Sequence[Turn], dia_id: str) -> Turn | None:
    return next((t for t in said if t.dia_id == dia_id), None)


def _example(
    old: Turn, new: Turn, replaced: set[tuple[str, str]], restated: set[tuple[str, str]]
) -> Example:
    key = (old.dia_id, new.dia_id)
    label = REPLACES if key in replaced else SAME_SLOT if key in restated else OTHER
    return Example(earlier=old.text, later=new.text, label=label, source="conversation")


def hand_pairs(path: Path = HAND) -> list[Example]:
    """The hand-written pairs; a malformed line is refused naming the file, line and field."""
    out = []
    for pair in read_jsonl(path, HandPair):
        if pair.label == "replaces":
            label = REPLACES
        else:
            label = SAME_SLOT if pair.type in _HAND_SAME_SLOT else OTHER
        out.append(Example(earlier=pair.earlier, later=pair.later, label=label, source="hand"))
    if not out:
        raise DataError(f"{path}: holds no pairs")
    return out


def template_pairs(count: int, seed: int) -> list[Example]:
    """Pairs from the slot catalogue (every slot), a fifth of them a town's observations."""
    catalogue = load_catalogue()
    slots = list(catalogue.slots)
    per_slot = max(1, round(count * 0.8 / len(slots)))
    pairs = replacement_pairs(catalogue, slots, per_slot, round(count * 0.2), seed)
    return [_from_template(p) for p in pairs]


def _from_template(pair: Pair) -> Example:
    if pair.replaces:
        label = REPLACES
    elif pair.source in _TEMPLATE_SAME_SLOT or pair.source == "town activity":
        label = SAME_SLOT
    else:
        label = OTHER
    earlier, later = pair.earlier.removeprefix("User: "), pair.later.removeprefix("User: ")
    return Example(earlier=earlier, later=later, label=label, source=f"template {pair.source}")


def with_names(
    examples: Sequence[Example], names: Sequence[str], share: float, seed: int
) -> list[Example]:
    """A `share` of the examples with one speaker's name before both statements."""
    rng = random.Random(seed)
    out = []
    for e in examples:
        if rng.random() < share:
            name = rng.choice(names)
            e = e.model_copy(
                update={"earlier": f"{name}: {e.earlier}", "later": f"{name}: {e.later}"}
            )
        out.append(e)
    return out


def build(
    conversations: Sequence[Conversation],
    embed: Embed,
    *,
    templates: int = 3000,
    named_share: float = 0.3,
    seed: int = 0,
    hand: Path | None = HAND,
    oversample: int = 6,
    hand_repeat: int = 3,
    counterfactual: Callable[[Conversation], list[Example]] | None = None,
    counterfactual_repeat: int = 2,
) -> list[Example]:
    """Every source, shuffled. The conversations' few replacements and restatements are
    repeated `oversample` times, their `counterfactual` negatives (`counterfactual.py`)
    `counterfactual_repeat` times and the hand-written pairs `hand_repeat` times (else a few
    hundred typed hard cases drown among twenty thousand mined ones), and the written pairs
    are shown in chat style half the time, so that neither the style nor the source tells
    the label."""
    rng = random.Random(seed)
    mined_pairs = [e for c in conversations for e in mined(c, embed)]
    examples = [e for e in mined_pairs for _ in range(oversample if e.label != OTHER else 1)]
    if counterfactual is not None:
        made = [e for c in conversations for e in counterfactual(c)]
        examples += [e for e in made for _ in range(counterfactual_repeat)]
    written = [
        p for p in (hand_pairs(hand) if hand is not None else []) for _ in range(hand_repeat)
    ]
    written += template_pairs(templates, seed) if templates else []
    examples += [chat_style(e, rng) if rng.random() < 0.5 else e for e in written]
    names = sorted({c.user for c in conversations} | NAMES)
    examples = with_names(examples, names, named_share, seed)
    rng.shuffle(examples)
    return examples


def styled(examples: Sequence[Example], *, seed: int, named_share: float = 0.3) -> list[Example]:
    """Written pairs as `build` shows them: half in chat style, some with a speaker's name."""
    rng = random.Random(seed)
    chatty = [chat_style(e, rng) if rng.random() < 0.5 else e for e in examples]
    return with_names(chatty, sorted(NAMES), named_share, seed)


def chat_style(example: Example, rng: random.Random) -> Example:
    """Both statements lower case, without the final full stop, a typo now and then."""

    def styled(text: str) -> str:
        text = text.lower().rstrip(".")
        if len(text) > 12 and rng.random() < 0.2:
            i = rng.randrange(1, len(text) - 2)
            text = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
        return text

    return example.model_copy(
        update={"earlier": styled(example.earlier), "later": styled(example.later)}
    )


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def chat_sentences(conversations: Sequence[Conversation]) -> list[str]:
    """Sentences of the users' turns (3 to 14 words): the other things people say in the same
    breath as a fact."""
    out = []
    for conversation in conversations:
        for turn in conversation.turns:
            if turn.by_user:
                out += [s for s in _SENTENCE_END.split(turn.text) if 3 <= len(s.split()) <= 14]
    return out


def with_context(
    examples: Sequence[Example], sentences: Sequence[str], *, share: float, seed: int
) -> list[Example]:
    """A `share` of the pairs with another sentence of chat before or after one statement or
    both: people seldom tell a fact alone ("darlene's after me about the chickens. she's got
    17 laying hens"), and a judge trained on bare statements missed the update that followed
    (P 0.02, against 0.96 for the bare pair). Every label gets the same share, so the extra
    sentence never tells the label."""
    rng = random.Random(seed)

    def padded(text: str) -> str:
        extra = rng.choice(sentences).rstrip()
        extra = extra if extra.endswith((".", "!", "?")) else extra + "."
        return f"{extra} {text}" if rng.random() < 0.6 else f"{text.rstrip('.')}. {extra}"

    out = []
    for e in examples:
        if sentences and rng.random() < share:
            side = rng.random()
            earlier = padded(e.earlier) if side < 0.7 else e.earlier
            later = padded(e.later) if side >= 0.5 else e.later
            e = e.model_copy(update={"earlier": earlier, "later": later})
        out.append(e)
    return out


def write(examples: Sequence[Example], path: Path) -> None:
    path.write_text("".join(json.dumps(e.model_dump()) + "\n" for e in examples))
