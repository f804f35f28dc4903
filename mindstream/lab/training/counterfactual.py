"""Counterfactual negatives for the change judge: each labelled change, rewritten so that it no
longer replaces anything, paired with the statement it replaced.

The judge's costliest mistakes in a stream are pairs of the same shape about different things:
"her boy mason is 14" retired by "kaylee told the class she's seven now", "metformin 500
twice a day" by "the 10mg donepezil hasn't worked out", a user's own fact by someone else's.
Mined neighbours hold few such pairs, and the oversampled replacements teach the shape, so the
judge learns "an age statement replaces an age statement". Two rewrites of each replacement
show it the same shape with the thing or the person changed:

- **another thing**: the names the two statements share (words MiniLM's vocabulary does not
  hold whole, or written with a capital inside a sentence: a person, a drug, a place, a
  brand) become other names of the same conversation ("she bumped the metformin up" -> "she
  bumped the lisinopril up"), where names are all they share: "long runs are on saturdays
  now" with only the park swapped would still replace;
- **another person**: the later statement's first person becomes a third person ("we moved
  to york" -> "they moved to york"), as a friend's news told by the user; only where both
  statements have a first-person subject.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from mindstream.lab.experiments.truth_data import Conversation, Turn
from mindstream.lab.training.change_data import OTHER, Example, statements

_WORD = re.compile(r"[a-z][a-z'-]{2,}")
_COMMON_WORDS = """the and for that this with have has had was were are but not you your they
    them their she her his him its our out all got get just now new old last next one two three
    day days week weeks month months year years time back went going gonna been being about like
    from what when where which who will would could should can cant dont didnt im ive its thats
    theres there here then than also still even very really much more most some any into over
    after before again only well yeah yes okay thing things said says told make made take took
    come came good great little lot lots bit today tomorrow yesterday morning night tonight
    monday tuesday wednesday thursday friday saturday sunday mum dad"""
_COMMON = frozenset(_COMMON_WORDS.split())
_PERSON = (
    (r"\bi'm\b", "he's"),
    (r"\bi am\b", "he is"),
    (r"\bi've\b", "he's"),
    (r"\bi'll\b", "he'll"),
    (r"\bi'd\b", "he'd"),
    (r"(?<![\w-])i(?![\w'-])", "he"),
    (r"\bmy\b", "his"),
    (r"\bme\b", "him"),
    (r"\bmine\b", "his"),
    (r"\bmyself\b", "himself"),
    (r"\bourselves\b", "themselves"),
    (r"\bwe're\b", "they're"),
    (r"\bwe've\b", "they've"),
    (r"\bwe\b", "they"),
    (r"\bour\b", "their"),
    (r"\bus\b", "them"),
)
_SUBJECT = re.compile(r"\b(i|i'm|i've|i'll|i'd|we|we're|we've)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[.!?;:]+\s*")
_CAPITALISED = re.compile(r"(?<=[a-z,;] )([A-Z][a-z'-]{2,})")
InVocabulary = Callable[[str], bool]


def minilm_vocabulary() -> InVocabulary:
    """Whether MiniLM's word pieces hold a word whole (common words do, most names do not)."""
    from mindstream.lm.backends.loading import minilm_model_dir

    words = set((minilm_model_dir() / "vocab.txt").read_text().split())
    return words.__contains__


def counterfactuals(
    conversation: Conversation, in_vocabulary: InVocabulary, seed: int = 0
) -> list[Example]:
    """For each labelled change: the replacement about another thing and about another
    person, each labelled `other` against the statement it replaced."""
    said = statements(conversation)
    by_id = {t.dia_id: t for t in said}
    names = _names(said, in_vocabulary)
    rng = random.Random(f"{seed}-{conversation.sample_id}")
    out = []
    for link in conversation.changes:
        old, new = by_id.get(link.old), by_id.get(link.new)
        if old is None or new is None:
            continue
        thing = another_thing(old.text, new.text, names, rng)
        if thing is not None:
            out.append(Example(earlier=old.text, later=thing, label=OTHER, source="swap thing"))
        person = another_person(old.text, new.text)
        if person is not None:
            out.append(Example(earlier=old.text, later=person, label=OTHER, source="swap person"))
    return out


def _words(text: str) -> set[str]:
    return {w.strip("'-") for w in _WORD.findall(text.lower())} - _COMMON


def _names(said: Sequence[Turn], in_vocabulary: InVocabulary) -> set[str]:
    """The conversation's words that name something: out of MiniLM's vocabulary, or written
    with a capital inside a sentence."""
    words = {w for t in said for w in _words(t.text)}
    capitalised = {w.lower() for t in said for w in _CAPITALISED.findall(t.text)}
    return {
        w
        for w in words
        if len(w) >= 4 and w.isalpha() and (not in_vocabulary(w) or w in capitalised)
    }


def another_thing(
    earlier: str,
    later: str,
    names: set[str],
    rng: random.Random,
) -> str | None:
    """`later` with each name it shares with `earlier` swapped for another name of the
    conversation (one neither uses); None unless names are all the two share (a shared common
    word, "dip" in "I dip Copenhagen" / "no dip in 34 days", would keep it a replacement)."""
    shared = _words(earlier) & _words(later)
    pool = sorted(names - _words(earlier) - _words(later))
    if not shared or not shared <= names or len(pool) < len(shared):
        return None
    swapped = later
    for name, other in zip(sorted(shared), rng.sample(pool, len(shared)), strict=True):
        swapped = re.sub(rf"\b{re.escape(name)}\b", other, swapped, flags=re.IGNORECASE)
    return swapped if swapped != later else None


def another_person(earlier: str, later: str) -> str | None:
    """`later` told of someone else: its first person as a third person; None unless both
    statements open a clause with a first-person subject (in "the thinkpad died, I'm on my
    phone" the change is the thinkpad's, whoever is on the phone)."""
    if not (_opens_with_me(earlier) and _opens_with_me(later)):
        return None
    text = later
    for pattern, third in _PERSON:
        text = re.sub(pattern, third, text, flags=re.IGNORECASE)
    return text if text != later else None


def _opens_with_me(text: str, within: int = 3) -> bool:
    """Whether one of the first two clauses has a first-person subject in its first words."""
    clauses = [c for c in _CLAUSE.split(text) if c.strip()][:2]
    return any(_SUBJECT.search(" ".join(c.split()[:within])) for c in clauses)
