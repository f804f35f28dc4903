"""Training data for the relation judge, built from templates and the training splits only.

- Replacements (`replaces`): pairs of statements about one kind of personal fact from the slot
  catalogue (`data/judge_slots.yaml`): a change (explicit, implicit, partial) or a plain new
  value replaces; someone else's fact, a visit, a plan, an elaboration, a repeat, a second pet
  or language, or a different topic does not. Town observations: an object's or a person's new
  state replaces the old one; another object's or person's does not.
- Contradictions (`contradicts`): OpenBookQA train facts against the right choice's hypothesis
  (supported, so no) and negated (yes), a negated fact against the hypothesis (yes), a fact
  joined to one wrong choice's denial against that choice (yes) and the others (no), a wrong
  choice's denial alone against that choice (yes) and the others (no), an unrelated fact (no),
  and, with `trap_share`, another question's denial that names a choice's word but nothing of
  the question (no);
  EntailmentBank train proof steps against their conclusion (no) and its negation (yes).

Slots named in `heldout` are kept out of training and measure the curve.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mindstream.agents.teachme.language import negate, rule_hypothesis
from mindstream.lab.experiments.openbookqa import DataError, Question
from mindstream.lab.training.adapter import Labelled
from mindstream.lab.training.verifier_data import entailmentbank_examples
from mindstream.lm.judges.relation import contradicts_prompt, replaces_prompt

CATALOGUE = Path(__file__).parent / "data" / "judge_slots.yaml"
FILLERS = ("Quick update: ", "Oh, and ", "Anyway, ", "btw ", "So, ", "News: ", "Guess what? ")
TAILS = (" It's been a busy week.", " Anyway, how are you?", " Long day today.", " Ha.")


class Slot(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    values: list[str] = Field(min_length=2)
    state: list[str] = Field(min_length=1)
    change: list[str] = Field(default_factory=list)
    keep: list[str] = Field(default_factory=list)
    additive: bool = False


class Subject(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: str
    values: list[str] = Field(min_length=2)
    state: list[str] = Field(min_length=1)


class People(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    names: list[str] = Field(min_length=2)
    places: list[str] = Field(min_length=2)
    activities: list[str] = Field(min_length=2)
    state: list[str]
    activity: list[str]


class Catalogue(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    slots: dict[str, Slot]
    states: list[Subject]
    people: People


class Pair(BaseModel):
    """(earlier, later) and whether the later makes the earlier out of date."""

    model_config = ConfigDict(frozen=True)

    earlier: str
    later: str
    replaces: bool
    source: str
    slot: str = ""


def load_catalogue(path: Path = CATALOGUE) -> Catalogue:
    try:
        return Catalogue.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise DataError(f"{path}: not found") from None
    except (yaml.YAMLError, ValidationError) as error:
        raise DataError(f"{path}: not a slot catalogue ({str(error).splitlines()[0]})") from None


def _fill(template: str, rng: random.Random, **values: str) -> str:
    text = template.format(**values)
    return text[:1].upper() + text[1:]


def _two(values: Sequence[str], rng: random.Random) -> tuple[str, str]:
    old, new = rng.sample(list(values), 2)
    return old, new


def slot_pairs(name: str, slot: Slot, other: Sequence[Slot], rng: random.Random) -> Pair:
    """One pair about `slot`: a replacement or a compatible statement, about half each."""
    old, new = _two(slot.values, rng)
    earlier = _fill(rng.choice(slot.state), rng, v=old, old=old, new=new)
    roll = rng.random()
    if slot.additive:
        pool = slot.change + slot.state
        later = _fill(rng.choice(pool), rng, v=new, old=old, new=new)
        return Pair(earlier=earlier, later=later, replaces=False, source="additive", slot=name)
    if roll < 0.32 and slot.change:
        later = _fill(rng.choice(slot.change), rng, v=new, old=old, new=new)
        return Pair(earlier=earlier, later=later, replaces=True, source="change", slot=name)
    if roll < 0.47:
        later = _fill(rng.choice(slot.state), rng, v=new, old=old, new=new)
        return Pair(earlier=earlier, later=later, replaces=True, source="new value", slot=name)
    if roll < 0.78 and slot.keep:
        later = _fill(rng.choice(slot.keep), rng, v=new, old=old, new=new)
        return Pair(earlier=earlier, later=later, replaces=False, source="compatible", slot=name)
    if roll < 0.88:
        later = _fill(rng.choice(slot.state), rng, v=old, old=old, new=new)
        return Pair(earlier=earlier, later=later, replaces=False, source="repeat", slot=name)
    topic = rng.choice(list(other))
    a, b = _two(topic.values, rng)
    later = _fill(rng.choice(topic.change or topic.state), rng, v=b, old=a, new=b)
    return Pair(earlier=earlier, later=later, replaces=False, source="other topic", slot=name)


def town_pair(catalogue: Catalogue, rng: random.Random) -> Pair:
    """An observation of the town: a new state of the same thing replaces; others do not."""
    if rng.random() < 0.5:
        first, second = rng.sample(catalogue.states, 2)
        one = rng.choice(catalogue.states)
        old, new = _two(one.values, rng)
        earlier = _fill(rng.choice(one.state), rng, s=one.subject, v=old)
        kind = rng.random()
        if kind < 0.5:
            later = _fill(rng.choice(one.state), rng, s=one.subject, v=new)
            return Pair(earlier=earlier, later=later, replaces=True, source="town state")
        other = first if first is not one else second
        value = rng.choice(other.values)
        later = _fill(rng.choice(other.state), rng, s=other.subject, v=value)
        return Pair(earlier=earlier, later=later, replaces=False, source="town other object")
    people = catalogue.people
    name, someone = _two(people.names, rng)
    old, new = _two(people.places, rng)
    earlier = _fill(rng.choice(people.state), rng, n=name, p=old)
    kind = rng.random()
    if kind < 0.5:
        later = _fill(rng.choice(people.state), rng, n=name, p=new)
        return Pair(earlier=earlier, later=later, replaces=True, source="town person")
    if kind < 0.8:
        later = _fill(rng.choice(people.state), rng, n=someone, p=new)
        return Pair(earlier=earlier, later=later, replaces=False, source="town other person")
    later = _fill(rng.choice(people.activity), rng, n=name, a=rng.choice(people.activities))
    return Pair(earlier=earlier, later=later, replaces=False, source="town activity")


def _lower_first(text: str) -> str:
    """'Sold the car' -> 'sold the car'; 'I moved' and "I'm" keep their capital."""
    if text[:2] in ("I ", "I'") or text[:1] == "{":
        return text
    return text[:1].lower() + text[1:]


def decorate(pair: Pair, rng: random.Random) -> Pair:
    """Chat-like variation: a speaker prefix, a filler, a tail, lower case, no full stop."""
    earlier, later = pair.earlier, pair.later
    if rng.random() < 0.2:
        later = rng.choice(FILLERS) + _lower_first(later)
    if rng.random() < 0.12:
        earlier += rng.choice(TAILS)
    if rng.random() < 0.12:
        later += rng.choice(TAILS)
    if rng.random() < 0.1:
        later = _lower_first(later).rstrip(".")
    if rng.random() < 0.15:
        earlier, later = f"User: {earlier}", f"User: {later}"
    return pair.model_copy(update={"earlier": earlier, "later": later})


def replacement_pairs(
    catalogue: Catalogue, slots: Sequence[str], per_slot: int, town: int, seed: int
) -> list[Pair]:
    rng = random.Random(seed)
    chosen = {n: catalogue.slots[n] for n in slots}
    others = list(chosen.values())
    pairs = []
    for name, slot in chosen.items():
        rest = [s for s in others if s is not slot]
        pairs += [decorate(slot_pairs(name, slot, rest, rng), rng) for _ in range(per_slot)]
    pairs += [decorate(town_pair(catalogue, rng), rng) for _ in range(town)]
    return list({(p.earlier, p.later): p for p in pairs}.values())  # no repeated pair


def contradiction_examples(
    questions: Sequence[Question],
    bank: Path | None,
    seed: int,
    bank_share: float,
    trap_share: float = 0.0,
) -> list[Labelled]:
    """`trap_share`: the share of questions whose extra "no" pair is a word trap
    (`WordTraps`) rather than a supported or unrelated fact; 0 builds the shipped adapter's
    data exactly."""
    rng = random.Random(seed)
    facts = sorted({q.fact for q in questions})
    extra = _Extra(facts, WordTraps(facts) if trap_share > 0 else None, trap_share)
    out = list(_openbookqa_contradictions(questions, extra, rng))
    if bank is not None:
        steps = [e for e in entailmentbank_examples(bank, seed) if e.source == "entailmentbank"]
        rng.shuffle(steps)
        for step in steps[: round(len(steps) * bank_share)]:
            fact = " ".join(p.strip().rstrip(".") + "." for p in step.premises)
            out.append(_contradiction(fact, step.hypothesis, False, "entailmentbank"))
            negated = negate(step.hypothesis)
            out.append(_contradiction(fact, negated, True, "entailmentbank negated"))
    return out


def _openbookqa_contradictions(
    questions: Sequence[Question], extra: _Extra, rng: random.Random
) -> Iterator[Labelled]:
    """Per question, one ranked group (exactly one claim shown false) of one of four kinds:
    the negated fact against every choice's claim (it denies only the right one); the fact
    against every choice's negated claim (it shows only the right one's negation false); the
    fact (or the right choice's own claim) joined to the denial of one wrong choice, in one
    sentence or two (`compound`), against every claim: it denies that choice and still
    supports the right one; or a wrong choice's denial alone ("The sun is not responsible
    for children growing up and getting old"), so that a denial is read for what it is about
    and not for which choice is true. A negation alone must not read as a contradiction, nor a
    fact that also says what it supports. Then one supported, unrelated or word-trap pair
    (`WordTraps`)."""
    for number, q in enumerate(questions, start=1):
        claims = [rule_hypothesis(q.stem, c) for c in q.choices]
        right = claims[q.answer_index]
        denied, fact, source = q.answer_index, q.fact, "openbookqa negated claim"
        wrong = [i for i in range(len(claims)) if i != q.answer_index]
        kind = rng.random()
        if kind < 0.3:
            fact, source = negate(q.fact), "openbookqa negated fact"
        elif kind < 0.55 or not wrong:
            claims = [negate(c) for c in claims]
        elif kind < 0.8:
            denied = rng.choice(wrong)
            affirmed = q.fact if rng.random() < 0.6 else right
            fact = compound(affirmed, negate(claims[denied]), rng)
            source = "openbookqa fact and a denied choice"
        else:
            denied = rng.choice(wrong)
            fact, source = negate(claims[denied]), "openbookqa a wrong choice denied"
        for i, claim in enumerate(claims):
            label = i == denied
            yield _contradiction(
                fact, claim, label, source + ("" if label else ", other choice"), number
            )
        yield extra.pair(q, right, rng)


TRAP_SOURCE = "openbookqa another topic's denial"


class _Extra:
    """Each question's one extra "no" pair: its fact against the right claim (supported, 60%)
    or an unrelated fact; a word trap replaces either for the top `trap_share` of the draw
    (unrelated ones first)."""

    def __init__(self, facts: Sequence[str], traps: WordTraps | None, trap_share: float) -> None:
        self.facts, self.traps, self.trap_share = facts, traps, trap_share

    def pair(self, q: Question, right: str, rng: random.Random) -> Labelled:
        kind = rng.random()
        if self.traps is not None and kind >= 1 - self.trap_share:
            trap = self.traps.denial_for(q, rng)
            if trap is not None:
                return _contradiction(trap[1], trap[0], False, TRAP_SOURCE)
        if kind < 0.6:
            return _contradiction(q.fact, right, False, "openbookqa supported")
        return _contradiction(rng.choice(self.facts), right, False, "openbookqa unrelated")


def trap_examples(questions: Sequence[Question], seed: int) -> list[Labelled]:
    """One word trap per question that has one (all "no"): the held-out measure of how often
    another topic's denial reads as a contradiction."""
    rng = random.Random(seed)
    traps = WordTraps(sorted({q.fact for q in questions}))
    found = (traps.denial_for(q, rng) for q in questions)
    return [_contradiction(t[1], t[0], False, TRAP_SOURCE) for t in found if t is not None]


_COMMON = (
    "what which when where with that this than then they them their there these those from "
    "into most more many much some have been were will would could should does made make "
    "used uses because about over under only also very each other such"
)
_STOP = frozenset(_COMMON.split())


def content_words(text: str) -> set[str]:
    """Words of four letters or more, minus common ones, crudely stemmed (a final s)."""
    words = (w.rstrip("s") for w in re.findall(r"[a-z]{4,}", text.lower()))
    return {w for w in words if w not in _STOP}


class WordTraps:
    """Another question's negated core fact that names a choice's word and nothing of the
    question or its fact ("A magnet does not attract copper" against "Which material conducts
    electricity?: a copper wire"): a denial about another topic that shows nothing false here,
    though it shares a noun with a claim and says "not"."""

    def __init__(self, facts: Sequence[str]) -> None:
        self.facts = list(facts)
        self.words = [content_words(f) for f in self.facts]
        self.by_word: dict[str, list[int]] = {}
        for n, words in enumerate(self.words):
            for w in words:
                self.by_word.setdefault(w, []).append(n)

    def denial_for(self, q: Question, rng: random.Random) -> tuple[str, str] | None:
        """(a choice's claim, a trap denial for it), or None where no fact fits."""
        topic = content_words(q.stem) | content_words(q.fact)
        order = list(range(len(q.choices)))
        rng.shuffle(order)
        for i in order:
            named = content_words(q.choices[i]) - content_words(q.stem)
            found = {
                n
                for w in named
                for n in self.by_word.get(w, [])
                if not self.words[n] & (topic - named) and self.facts[n] != q.fact
            }
            if found:
                fact = self.facts[rng.choice(sorted(found))]
                return rule_hypothesis(q.stem, q.choices[i]), negate(fact)
        return None


def compound(affirmed: str, denial: str, rng: random.Random) -> str:
    """One statement that affirms one thing and denies another, as people write it: two
    sentences, one joined by "and" or "but", or the denial first ("Sound travels fastest
    through solids like steel and cannot travel through empty space"). The judge must find
    the denial's scope, not the choice named anywhere near a "not"."""
    yes, no = affirmed.strip().rstrip("."), denial.strip().rstrip(".")
    form = rng.randrange(4)
    if form == 0:
        return f"{yes}. {no}."
    if form == 1:
        return f"{yes} and {_lower_first(no)}."
    if form == 2:
        return f"{yes}, but {_lower_first(no)}."
    return f"{no}, but {_lower_first(yes)}."


def _contradiction(fact: str, claim: str, label: bool, source: str, group: int = 0) -> Labelled:
    return Labelled(prompt=contradicts_prompt(fact, claim), label=label, source=source, group=group)


def labelled_pairs(pairs: Sequence[Pair]) -> list[Labelled]:
    return [
        Labelled(
            prompt=replaces_prompt(p.earlier, p.later),
            label=p.replaces,
            source=f"replaces: {p.source}",
        )
        for p in pairs
    ]
