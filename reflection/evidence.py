"""Whether memories support an insight: they say something alike, and each names all the people
and places the insight names.

Sentence embeddings of short town memories are dominated by the names in them: with names left
in, "Tom Moreno is a retired philosopher" was as close to "Tom Moreno is married to Jane" as to
anything, and the 135M model's inventions passed as supported. So what is said is compared
without the names, and the names are checked on their own.
"""

from __future__ import annotations

import re
from itertools import pairwise

from mindstream.memory import MemoryRecord

_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z]*(?:'s)?")
_NOT_NAMES = frozenset(
    {"the", "a", "an", "i", "he", "she", "his", "her", "they", "their", "it", "its", "in"}
    | {"on", "at", "and", "but", "this", "that", "we", "our", "my", "mr", "mrs", "ms", "dr"}
)


def names(text: str) -> set[str]:
    """Capitalised words that are not sentence words ("The", "She"); the first word of the text
    only when the next one is capitalised too ("Tom Moreno is", not "Dedicated to")."""
    words = [w.removesuffix("'s") for w in _CAPITALISED.findall(text)]
    found = {w.lower() for w in words} - _NOT_NAMES
    first = text.split(maxsplit=2)
    if first and len(first) > 1 and not first[1][:1].isupper():
        found.discard(first[0].lower().strip(".,:;"))
    return found


def unnamed(text: str) -> str:
    """What the text says, without whom and where: capitalised words removed."""
    return " ".join(_CAPITALISED.sub(" ", text).split())


def owner_names(owner: str, text: str) -> set[str]:
    """The owner's name as `text` writes it: the owner's words and a capitalised word right
    after one ("Klaus Mueller is ..." for the owner "Klaus")."""
    own = {w.lower() for w in owner.split()}
    words = re.findall(r"[A-Za-z]+", text)
    for word, after in pairwise(words):
        if word.lower() in own and after[:1].isupper():
            own.add(after.lower())
    return own


def wanted_names(owner: set[str], text: str) -> set[str]:
    """Whom and where the insight names, the owner included when it is named: "Klaus writes a
    book on moral sentiments" names Klaus though its first word is not a name by `names`, and
    Adam Smith's memories are no evidence of it (an insight stored on vLLM before this)."""
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return names(text) | (owner & said)


def naming(memories: list[MemoryRecord], wanted: set[str], owner: set[str]) -> list[MemoryRecord]:
    """The memories that name everyone and everywhere the insight names (`wanted`). A memory
    naming only some of them is no evidence of a tie between them: "Tom is married to Jane"
    and "Yuriko is Adam Smith's neighbour" together passed "Tom Moreno is a close friend of
    Adam Smith's". The owner counts as named by a memory that names nobody else ("I walked
    the dog"), not by one about others ("Wolfgang is a student at Oak Hill College" is no
    evidence that Klaus is one)."""
    kept = []
    for record in memories:
        named = names(record.text)
        if not named - wanted:
            named |= owner
        if wanted <= named:
            kept.append(record)
    return kept


def distinct(records: list[MemoryRecord]) -> list[MemoryRecord]:
    """One memory per wording: the same sighting stored at two ticks is one piece of evidence."""
    kept: dict[str, MemoryRecord] = {}
    for record in records:
        kept.setdefault(" ".join(record.text.lower().split()), record)
    return list(kept.values())
