"""Cleaning a small model's free text (first line, no repeated sentences, bounded length), and
writing the prompts' small pieces (a clock time, a bullet list)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_END = re.compile(r"(?<=,)\s+")


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def sentences(text: str, limit: int = 2, max_words: int = 40, said: Sequence[str] = ()) -> str:
    """Up to `limit` sentences of the first line with nothing said twice: a small model loops,
    repeating sentences and clauses, and is often cut off in the middle of a repeat. `said`:
    clauses said before (`clauses` of earlier lines), left out too."""
    said = list(said)
    kept: list[str] = []
    for sentence in _SENTENCE_END.split(first_line(text)):
        fresh = []
        for clause in _CLAUSE_END.split(sentence.strip()):
            words = plain(clause)
            if re.search("[a-z]", words) and not _repeats(words, said):
                said.append(words)
                fresh.append(clause)
        if fresh:
            kept.append(_joined(fresh, sentence.strip()))
        if len(kept) == limit:
            break
    return " ".join(" ".join(kept).split()[:max_words])


def clauses(text: str) -> list[str]:
    """The clauses of a text as plain words: what `sentences` compares."""
    return [plain(c) for s in _SENTENCE_END.split(text) for c in _CLAUSE_END.split(s.strip())]


def _repeats(words: str, said: Sequence[str]) -> bool:
    """Said before, or the start of something said before cut off mid-word ("... you're
    celeb"); a word or two that merely begins an earlier clause ("I", "yes") is not."""
    return any(
        earlier == words
        or earlier.startswith(words + " ")
        or (words.count(" ") >= 2 and earlier.startswith(words))
        for earlier in said
    )


def _joined(parts: list[str], sentence: str) -> str:
    joined = " ".join(parts).rstrip(",")
    end = sentence[-1]
    return joined + end if end in ".!?" and not joined.endswith(end) else joined


def plain(text: str) -> str:
    """Lower-case words only: what two lines are compared by."""
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


def activity(text: str, max_words: int = 12) -> str:
    """A short activity phrase: the first clause of the first line, lower-case start, without
    the narration a small model wraps it in ("he plans to ...", "... from 7:00 am to"). Empty
    when what is left is not an activity but a description, a name or a fragment ("she is
    feeling a mix of pride", "a regular at the pub", "Tom Moreno", "raj"): a day of 25
    agents showed such lines in 15% of its awake, not-talking agent-ticks."""
    clause = re.split(r"[.;!?]", first_line(text), maxsplit=1)[0].strip(" ,:-\"'")
    clause = _NARRATION.sub("", clause)
    clause = _TRAILING_TIME.sub("", clause).strip(" ,:-\"'")
    while (cut := _DANGLING.sub("", clause)) != clause:  # "watch a film in the"
        clause = cut
    phrase = " ".join(clause.split()[:max_words])
    if not phrase or _NOT_AN_ACTIVITY.search(phrase) or _only_names(phrase):
        return ""
    if len(re.findall("[a-z]", phrase.lower())) < 3:
        return ""
    return phrase[:1].lower() + phrase[1:]


# "He plans to", "she will", "I'm going to": the model narrating instead of listing; "you
# should", "remember to": an inner voice's instruction (its deed is what follows).
_NARRATION = re.compile(
    r"^(?:(?:he|she|they|i|we)\s+(?:plans?|wants?|intends?|will|would like|is going|"
    r"are going|am going)\s+(?:to\s+)?|i'm going to\s+|(?:then|next|later|now),?\s+|"
    r"(?:you\s+(?:should|must|need to|have to|ought to)|remember to|make sure to|"
    r"don'?t forget to|try to)\s+)",
    re.IGNORECASE,
)
# "... from 7:00 am to", "... from 1:00", "... from": a time range the step already has.
_TRAILING_TIME = re.compile(
    r"\s+(?:(?:from|between|until|till|to|at)\s+\d.*|(?:from|to|until|at|between))$",
    re.IGNORECASE,
)
# A phrase cut off by the token limit ends in a small word.
_DANGLING = re.compile(
    r"\s+(?:in|at|on|the|a|an|for|with|of|to|and|from|by|his|her|their)$", re.IGNORECASE
)
_NOT_AN_ACTIVITY = re.compile(
    r"^(?:\d|to \d"  # a time or a list number
    r"|(?:he|she|they|it|i|we|his|her|their|my)\b"  # a description of the agent
    r"|(?:a|an|the)\b"  # a noun phrase ("a regular at The Rose and Crown Pub")
    r"|\S+(?: \S+)?'s\b"  # a possessive ("husband's campaign", "Jennifer Moore's dream")
    r"|\S+ \S+ (?:is|was|has)\b)"  # "Maria Lopez is a drinker of coffee"
    r"|\d{1,2}:\d{2}"  # a time left in it ("Hobbes Cafe: 12:00 pm to 1:00 pm")
    r"|\(age\b",  # the prompt's header ("eDIY Lin (age: 19)")
    re.IGNORECASE,
)


def _only_names(phrase: str) -> bool:
    """Two or more words, each capitalised ("Tom Moreno", "Hobbs Cafe"): a name, not a deed."""
    words = phrase.split()
    return len(words) >= 2 and all(w[:1].isupper() for w in words if w not in _SMALL_WORDS)


_SMALL_WORDS = {"and", "of", "the", "at", "in", "on", "&"}


def progressive(phrase: str) -> str:
    """What someone is doing, said as "X is ...": "go to class" -> "going to class", "ask
    John for his vote" -> "asking John for his vote"; a phrase that does not start with a
    known verb stays as it is ("idle", "breakfast at home")."""
    first, _, rest = phrase.partition(" ")
    verb = first.lower()
    if verb.endswith("ing") or verb not in _VERBS:
        return phrase
    if verb in _IRREGULAR:
        doing = _IRREGULAR[verb]
    elif verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        doing = verb[:-1] + "ing"
    elif verb in _DOUBLES:
        doing = verb + verb[-1] + "ing"
    else:
        doing = verb + "ing"
    return f"{doing} {rest}".strip()


_VERBS = frozenset(
    (  # noqa: SIM905 (a word list reads best as words)
        "go have eat make cook ask talk work read write paint walk run sleep watch take visit "
        "meet buy shop play study teach prepare clean open close check call help attend "
        "practice drive leave return get wake shower brush dress plan finish start sell serve "
        "water feed chat rest relax listen sing draw browse exercise jog swim bake wash sit "
        "stay head spend catch pick grab review research discuss organise organize invite "
        "tell share greet look think answer vote campaign brew set tidy host decorate put out "
        "extinguish turn fix repair order pay deliver bring send hang stop sweep mop lock "
        "unlock grade sketch write pour drink fill stock sort arrange gather collect carry "
        "move rehearse train film photograph edit type dance pray shave bathe iron fold knit "
        "sew plant dig mow rake print copy file count load unload pack unpack sip taste stir "
        "chop slice boil fry grill mix knead wipe scrub dust vacuum rinse dry greet welcome "
        "chat compose tune record practise hum whistle stretch lift climb ride cycle"
    ).split()
)
_IRREGULAR = {"lie": "lying", "die": "dying", "be": "being", "see": "seeing"}
_DOUBLES = {
    "run", "swim", "shop", "sit", "get", "put", "stop", "plan", "chat", "jog", "set", "stir",
    "chop", "dig", "mop", "grab",
}  # fmt: skip


def copies(phrase: str, source: str, run: int = 3) -> bool:
    """Whether `phrase` repeats `run` words in a row of `source` (all of it, if shorter): a
    small model asked for a plan lists its own prompt's description ("innate traits",
    "curious and ambitious", "eDIY Lin (age: 19)") as the hours of a day."""
    words, said = plain(phrase).split(), f" {plain(source)} "
    size = min(run, len(words))
    return size > 0 and any(
        f" {' '.join(words[n : n + size])} " in said for n in range(len(words) - size + 1)
    )


_CLOCK = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*(?:(am|pm)|(?:-|to)\s*\d{1,2}(?::\d{2})?\s*(am|pm))\b",
    re.IGNORECASE,
)
_MONTHS = [datetime(2000, m, 1).strftime("%B").lower() for m in range(1, 13)]
_DATE = re.compile(rf"\b({'|'.join(_MONTHS)})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", re.IGNORECASE)


def clock_mention(text: str, day: datetime) -> datetime | None:
    """The first clock time a text names on `day` ("5pm", "5:30 pm", "from 5 to 7 pm"); None
    when it names another date ("on February 14th" read on the 15th: yesterday's party)."""
    date = _DATE.search(text)
    named = date and (_MONTHS.index(date.group(1).lower()) + 1, int(date.group(2)))
    if named and named != (day.month, day.day):
        return None
    match = _CLOCK.search(text)
    if match is None:
        return None
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    suffix = (match.group(3) or match.group(4)).lower()
    if hour > 12 or minute > 59:
        return None
    hour = hour % 12 + (12 if suffix == "pm" else 0)
    return day.replace(hour=hour, minute=minute, second=0, microsecond=0)


def has_words(text: str) -> bool:
    """At least one real word (not only numbers, times and punctuation)."""
    return bool(re.search(r"[A-Za-z]{3,}", text))


def clock_time(moment: datetime) -> str:
    return moment.strftime("%I:%M %p").lstrip("0").lower()


def bullets(texts: Sequence[str]) -> str:
    return "\n".join(f"- {t}" for t in texts) or "- (nothing yet)"
