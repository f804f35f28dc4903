"""What kind of thing a memory's text says, by rule: a question, small talk, a line of a list.

Change detection asks these before any model does: a question or a greeting states nothing
that could replace a fact, and two like items of a list ("locker 14 code 2291", "locker 15
code 8812") never replace each other unless the later one says it changes something.
"""

from __future__ import annotations

import re


# A question without its question mark, as chat writes it: "what is my number", "do u
# remember"; not "had to put bandit down", "when i was young ...", "how splendid".
def _words(listed: str) -> frozenset[str]:
    return frozenset(listed.split())


_WH = _words("what where when who whom whose which why how")
_WH_IS = _words("whats what's wheres where's whos who's hows how's whens when's")
_AUX = _words(
    "is are am was were do does did can could will would should shall may might have has had "
    "isn't aren't don't doesn't didn't can't won't wouldn't shouldn't haven't hasn't wasn't "
    "weren't couldn't"
)
# who or what an auxiliary asks about: "do you", "is it", "did my ..."
_ASKED = _words(
    "i you u ya he she it we they there this that these those my your ur our his her their "
    "the a an any anyone anybody someone somebody anything something everyone"
)
_SUBJECT = _words("i you u he she we they")  # "when i was young": a statement
_OPENERS = _words("ok okay k so well hey hi hiya hello yo oh ah btw q quick question also idk")
_LONGEST_UNMARKED = 14
_ASIDES = _words("q quick question also idk btw um erm well anyway random to glad meet hear")
_SENTENCE = re.compile(r".+?(?:[.?!]+(?=\s|$)|$)")  # "at 3.30?", "Dr. Patel" stay whole
_NAME_WORD = re.compile(r"[A-Za-z0-9']+")
_HAVE = _words("have has had")
_NOTE_THIS = re.compile(
    r"\b(make a note|keep a note|note (down|that|this|my)|(write|jot) (it |this |that )?down|"
    r"save (this|that|my)|remember that \w+ \w+ \w+)",
    re.IGNORECASE,
)
# A tag that only asks for sympathy, after a statement: "... doesn't give him a shower, you
# know?". Not "..., right?" or "..., isn't it?": those may check a fact the user is unsure of.
_SYMPATHY_TAG = re.compile(
    r"\w.{12,},\s*(you know|ya know|y'?know|know what i mean|if that makes sense)\s*\?+$",
    re.IGNORECASE,
)
_ABBREVIATION = re.compile(r"\b(Dr|Mr|Mrs|Ms|St|Prof|Mt|vs|etc|e\.g|i\.e|a\.m|p\.m)\.", re.I)
# A transcript's speaker: one to three capitalised words ("Caroline", "Dr. Ruiz") and a colon,
# not a note's label ("Note:", "Remember:").
_SPEAKER = re.compile(r"^\s*((?:[A-Z][a-zA-Z.'’-]*\s?){1,3}):\s+(?=\S)")
_LABELS = frozenset(
    (  # noqa: SIM905 (a word list reads best as words)
        "note notes remember reminder todo to-do update ps fyi edit btw re nb"
    ).split()
)
_WORD = re.compile(r"[a-z0-9']+")
_SMALL_TALK = frozenset(
    (  # noqa: SIM905 (a word list reads best as words)
        "hi hey hello hiya yo morning evening night thanks thank thx ty cheers ok okay k kk "
        "cool great nice lol lmao haha hahaha yes yeah yep yup no nope nah sure bye goodbye "
        "cya later good awesome perfect wow omg oh ah hmm right alright you u so much lot "
        "very again that's sounds see amazing np welcome"
    ).split()
)
_MARKS_A_CHANGE = re.compile(
    r"\b(now|no longer|not anymore|any ?more|changed?|changing|new|instead|actually|updated?|"
    r"moved|switched|replaced|from now|used to|turned|no more|stopped|quit|became)\b",
    re.IGNORECASE,
)
_IDENTIFIER = re.compile(r"[#£$€]?\b[\w-]*\d[\w:./-]*\b")


_PLAN = re.compile(
    r"\b(thinking (about|of)|thinkin|might|maybe|planning|plan to|going to|gonna|hoping|hope to|"
    r"want to|wanna|would like|considering|looking (at|into)|applied|applying|waiting (for|on)|"
    r"talking about|if i|once i|about to|next (week|month|year)|coming up|comin up|soon)\b",
    re.IGNORECASE,
)
_UNDOES = re.compile(
    r"\b(not|no longer|never|didn'?t|won'?t|cancel\w*|fell through|decided against|instead|"
    r"actually|moved|changed|reschedul\w*|postponed|switched|scrap(?:ped|ping|s)?|turned|"
    r"anymore|no more|now)\b",
    re.IGNORECASE,
)


def plan_came_true(earlier: str, later: str) -> bool:
    """The earlier statement is a plan or an expectation ("thinking about selling the truck",
    "a room is coming up at Banksia") and the later tells it happening without undoing
    anything ("sold the truck yesterday"): the plan is not made false by coming true."""
    return bool(_PLAN.search(without_speaker(earlier))) and not _UNDOES.search(
        without_speaker(later)
    )


def is_question(text: str) -> bool:
    """'Where do I live?', 'ok q. what is my number' are; 'I moved to York.', 'had to put
    bandit down' and 'What should I pack? One suitcase and a carry-on.' are not: a turn that
    also states something is kept for what it states (it is recalled)."""
    body = _ABBREVIATION.sub(r"\1", without_speaker(text).strip().lstrip("-*• ").strip())
    sentences = [s.strip() for s in _SENTENCE.findall(body) if s.strip(" .?!")]
    asked = [_asks(s) for s in sentences]
    return any(asked) and all(a or _says_nothing(s) for s, a in zip(sentences, asked, strict=True))


def _asks(sentence: str) -> bool:
    if _NOTE_THIS.search(sentence):
        return False  # "can you remember that my locker is 14": a fact to keep
    if sentence.endswith("?"):
        return not _SYMPATHY_TAG.search(sentence.replace("’", "'"))
    words = _WORD.findall(sentence.lower().replace("’", "'"))
    while words and words[0] in _OPENERS:
        words = words[1:]  # "ok so what is my pin", "quick question: where do i live"
    if sentence.endswith((".", "!")) or not 2 <= len(words) <= _LONGEST_UNMARKED:
        return False  # a long run of words without a question mark tells something
    first, after = words[0], words[1:4]
    if first in _WH_IS or (first in _WH and after[0] == "about"):
        return True
    if first in _WH:
        return after[0] not in _SUBJECT and any(w in _AUX or _contracted(w) for w in after)
    if first in _HAVE:
        return after[0] in _SUBJECT or after[0] in ("my", "your", "anyone", "anybody")
    return first in _AUX and after[0] in _ASKED


def _contracted(word: str) -> bool:
    return word.endswith(("'s", "'re"))  # "what time's the flight"


def without_speaker(text: str) -> str:
    """'Caroline: I moved.' -> 'I moved.' (a transcript's speaker label, not content)."""
    speaker = speaker_of(text)
    return text if speaker is None else _SPEAKER.sub("", text, count=1)


def speaker_of(text: str) -> str | None:
    m = _SPEAKER.match(text)
    if m is None or m.group(1).strip().lower() in _LABELS:
        return None
    return m.group(1).strip()


def _says_nothing(sentence: str) -> bool:
    """'ok q.', 'ty.', 'lol', 'Thanks, Mel!': nothing in it is a fact."""
    words = _NAME_WORD.findall(sentence)
    light = [w.lower() in _SMALL_TALK or w.lower() in _ASIDES for w in words]
    named = [w[0].isupper() and len(words) <= 3 for w in words]  # "Hey Caroline!"
    return all(a or b for a, b in zip(light, named, strict=True)) and (any(light) or not words)


def is_small_talk(text: str) -> bool:
    """A greeting, a thank-you or a reaction: nothing in it can be out of date."""
    words = _WORD.findall(without_speaker(text).lower())
    return not words or all(w in _SMALL_TALK for w in words)


def shape(text: str) -> str:
    """The text with its numbers and codes blanked: like items of a list share a shape."""
    return " ".join(_IDENTIFIER.sub("#", without_speaker(text).lower()).split())


def like_items(earlier: str, later: str) -> bool:
    """Two lines of one list ("note 4: the parcel code is P004", "note 5: ... P005"; "note:
    parcel to Vienna (order #1052) tracking 0034...", "note: parcel to Lyon (order #1070) ..."):
    the same shape, or the same opening words, with at least two numbers or codes each and
    none shared (the item's key and its value differ; one alone is a value moving on, "pepper
    is 3" / "pepper is 4"), and the later does not say that something changed."""
    first, second = without_speaker(earlier), without_speaker(later)
    if _MARKS_A_CHANGE.search(second):
        return False
    ids_first = _IDENTIFIER.findall(first.lower())
    ids_second = _IDENTIFIER.findall(second.lower())
    if shape(first) == shape(second) and first != second:
        return sum(a != b for a, b in zip(ids_first, ids_second, strict=False)) >= 2
    opening = _opening(first)
    return (
        opening is not None
        and opening == _opening(second)
        and min(len(ids_first), len(ids_second)) >= 2
        and not set(ids_first) & set(ids_second)
    )


def _opening(text: str) -> tuple[str, ...] | None:
    """A list line's first three words ("note: parcel to"), when it has that many."""
    words = _WORD.findall(text.lower())
    return tuple(words[:3]) if len(words) >= 3 else None
