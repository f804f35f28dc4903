"""What to talk about, from memory (Park et al. 2023, section 7.1: information diffusion).

A small model's free lines carry no news ("I'm so glad you're here"), so a speaker's first line
in a talk is grounded in one thing it knows and has not yet told this listener: a seed fact, a
changed object it saw, or news it heard from someone else, whichever its memory ranks first for
the listener (recency x model-rated importance x relevance to what is happening in town). A
capable model writes the line with that news in view (`writes_news`); a line that does not
carry it says it too, in a short phrasing chosen by the model's scores. The listener remembers
what it was told and by whom ("Isabella Rodriguez told Maria Lopez: ..."), and may pass it on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from mindstream.agents.generative.agent import GenerativeAgent
from mindstream.agents.generative.text import clock_mention
from mindstream.memory import MemoryKind, MemoryRecord, NewMemory

IDLE = "idle"  # an object's state when nothing happens to it (the world's default)
NEWS_QUERY = "What could {speaker} tell {listener}: news, events, invitations, plans in town?"
OPENINGS = ("Guess what? ", "I wanted to tell you: ", "By the way, ")
CARRIED = 0.6  # share of the news' content words a line must say to carry it
_WORD = re.compile(r"[a-z0-9']+")


@dataclass(frozen=True)
class News:
    """One thing a speaker brings up: what it says (third person, as remembered)."""

    teller: str
    listener: str
    content: str


def choose_news(
    speaker: GenerativeAgent, listener: GenerativeAgent, moment: datetime
) -> News | None:
    """The tellable memory the speaker's retrieval ranks first for this listener, not yet told
    to them and not heard from them, an event later today first (Isabella told "I want to
    invite everyone to the party", which has no time, before the party at 5 pm, which the
    listener could plan for); None when there is nothing to tell."""
    config = speaker.config
    if not config.dialogue.news:
        return None
    query = NEWS_QUERY.format(speaker=speaker.name, listener=listener.name)
    told = set(speaker.told.get(listener.name, []))
    fresh = [
        content
        for record in speaker.recall(query, moment, config.dialogue.news_candidates)
        if (content := tellable(record, listener)) is not None and _key(content) not in told
    ]
    if not fresh:
        return None
    coming = [c for c in fresh if _to_come(c, moment)]
    return News(teller=speaker.name, listener=listener.name, content=(coming or fresh)[0])


def events_to_come(speaker: GenerativeAgent, moment: datetime) -> list[MemoryRecord]:
    """The speaker's latest memories of something later today (a party at 5 pm): reasons to
    go and talk to someone. Read without a retrieval (which would mark them as just accessed
    every tick), once per speaker for everyone it might talk to."""
    if not speaker.config.dialogue.news:
        return []
    latest = speaker.stream.recent(_EVENT_LOOK_BACK, owner=speaker.name)
    return [record for record in latest if _to_come(record.text, moment)]


def has_event_for(
    speaker: GenerativeAgent, listener: GenerativeAgent, events: Sequence[MemoryRecord]
) -> bool:
    """Whether one of the speaker's `events_to_come` is tellable to this listener and not yet
    told to them."""
    told = set(speaker.told.get(listener.name, []))
    return any(
        (content := tellable(record, listener)) is not None and _key(content) not in told
        for record in events
    )


def _to_come(text: str, moment: datetime) -> bool:
    """Whether `text` names a time later today."""
    at = clock_mention(text, moment)
    return at is not None and at > moment


_EVENT_LOOK_BACK = 300  # latest memories searched for an event to tell


def tellable(record: MemoryRecord, listener: GenerativeAgent) -> str | None:
    """What of a memory could be told to `listener`: a seed fact, news heard from someone other
    than the listener, or an object seen in a state other than idle. Not an inner voice (it is
    private), nor a sighting or plan, nor anything that names the listener."""
    meta = record.metadata
    if meta.get("inner_voice"):
        return None
    if meta.get("news"):
        content = None if meta.get("told_by") == listener.name else str(meta["news"])
    elif meta.get("seed"):
        content = record.text
    elif record.kind is MemoryKind.OBSERVATION and record.subject:
        content = None if record.text.endswith(f" is {IDLE}") else record.text
    else:
        content = None
    if content is None or re.search(rf"\b{re.escape(listener.persona.first_name)}\b", content):
        return None  # the listener knows what concerns itself
    return content


def carries(line: str, news: News) -> bool:
    """Whether a line says the news: most of its content words (names of the two aside)."""
    wanted = _content_words(news.content) - _content_words(f"{news.teller} {news.listener}")
    if not wanted:
        return True
    said = _content_words(line)
    return len(wanted & said) / len(wanted) >= CARRIED


def phrased(news: News, speaker: GenerativeAgent, opening: str) -> str:
    """The news in the speaker's voice after one of the `OPENINGS` (the model chooses it)."""
    return opening + in_first_person(news.content, speaker)


def in_first_person(content: str, speaker: GenerativeAgent) -> str:
    """ "Isabella Rodriguez is planning a party" said by Isabella: "I am planning a party"."""
    for name in (speaker.name, speaker.persona.first_name):
        if content.startswith(f"{name} "):
            words = content[len(name) + 1 :].split(" ")
            n = next((i for i, w in enumerate(words) if w not in _ADVERBS), len(words) - 1)
            words[n] = _first_person_verb(words[n])
            said = " ".join(["I", *words])
            for third, first in (("is", "am"), ("has", "have"), ("was", "was")):
                said = said.replace(f" and {third} ", f" and {first} ")
            return _POSSESSIVE.sub(" my", said)
    return content


_ADVERBS = frozenset({"often", "also", "usually", "always", "really", "still", "never", "now"})


_POSSESSIVE = re.compile(r" (?:his|her)(?= [a-z])")  # "tell his neighbours": "tell my ..."


def _first_person_verb(verb: str) -> str:
    irregular = {"is": "am", "has": "have", "was": "was", "does": "do", "goes": "go"}
    if verb in irregular:
        return irregular[verb]
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zes")):
        return verb[:-2]
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]
    return verb


def told_memory(news: News, listener: GenerativeAgent, moment: datetime, tick: int) -> NewMemory:
    """The listener's memory of what it was told, with its source."""
    return listener.memory(
        f"{news.teller} told {news.listener}: {news.content}",
        moment,
        MemoryKind.DIALOGUE,
        news=news.content,
        told_by=news.teller,
        partner=news.teller,
        tick=tick,
    )


def remember_telling(news: News, speaker: GenerativeAgent) -> None:
    """The speaker will not tell this listener the same thing again."""
    speaker.told.setdefault(news.listener, []).append(_key(news.content))


def _key(content: str) -> str:
    return " ".join(_WORD.findall(content.lower()))


def _content_words(text: str) -> set[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS_EN and len(w) > 2}


def addressed_right(line: str, listener: GenerativeAgent, town: Sequence[str]) -> str:
    """The line with anyone it addresses by name ("I'm so glad to see you, Rajiv") who is not
    the listener addressed as the listener: a small model borrows names from its prompt."""
    for name in town:
        first, _, last = name.partition(" ")
        if first == listener.persona.first_name:
            continue
        surname = rf"(?:\s+{re.escape(last)})?" if last else ""
        who = re.escape(first) + surname
        line = re.sub(
            rf"(,\s*){who}(?=\s*[.!?,]|\s*$)|({_GREETING}){who}\b",
            lambda m: (m.group(1) or m.group(2)) + listener.persona.first_name,
            line,
        )
    return line


_GREETING = r"\b(?i:hi|hello|hey|thanks|thank you|dear)\s+"
