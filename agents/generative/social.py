"""Dialogue and interviews, for many agents at once."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from pydantic import BaseModel

from mindstream.agents.generative.agent import GenerativeAgent
from mindstream.agents.generative.minds import Minds
from mindstream.agents.generative.news import (
    OPENINGS,
    News,
    addressed_right,
    carries,
    choose_news,
    phrased,
    remember_telling,
    told_memory,
)
from mindstream.agents.generative.prompts import (
    DIALOGUE_LINE,
    INTERVIEW,
    NEWS_HINT,
    SPEAKER_PREFILL,
)
from mindstream.agents.generative.text import (
    bullets,
    clauses,
    clock_time,
    first_line,
    has_words,
    sentences,
)
from mindstream.lm import DecisionParseError
from mindstream.memory import NewMemory

FAREWELLS = ("bye", "see you", "talk later", "take care", "have a good")
_NEXT_TURN = re.compile(r"(?<=[.!?,]\s)[A-Z][\w'-]*(?: [A-Z][\w'-]*)?:")
# What a line says, not how: "[smiling warmly]", "(raises hand)", a list dash.
_STAGE_DIRECTION = re.compile(r"\[[^\]]*\]|\([^)]*\)|^\s*[-*]\s+")
RETRY_TEMPERATURE = 0.8  # a line asked again after the greedy one said nothing new


class Conversation(BaseModel):
    """Two agents and the lines they said, in order; `told`: (teller, news) a line carried."""

    first: str
    second: str
    place: str
    lines: list[tuple[str, str]] = []
    told: list[tuple[str, str]] = []
    ended_by: str = "limit"


@dataclass(frozen=True)
class _Turn:
    """A talk about to get its next line: who speaks to whom, and the news to bring up."""

    speaker: GenerativeAgent
    listener: GenerativeAgent
    talk: Conversation
    news: News | None


def converse(
    pairs: Sequence[tuple[GenerativeAgent, GenerativeAgent]],
    minds: Minds,
    moment: datetime,
    tick: int,
    step: timedelta,
    town: Sequence[str] = (),
) -> tuple[list[NewMemory], list[Conversation]]:
    """Turn by turn, every open conversation's next line in one batch; both remember it. Each
    speaker's first line brings up news from its memory (`news`); `town`: everyone's names, so
    a line addressing someone absent is addressed to the listener."""
    talks = [Conversation(first=a.name, second=b.name, place=a.location) for a, b in pairs]
    news = [(choose_news(a, b, moment), choose_news(b, a, moment)) for a, b in pairs]
    open_talks = list(range(len(pairs)))
    max_turns = max((a.config.dialogue.max_turns for a, _ in pairs), default=0)
    for turn in range(max_turns):
        if not open_talks:
            break
        turns = [
            _Turn(
                pairs[i][turn % 2],
                pairs[i][(turn + 1) % 2],
                talks[i],
                news[i][turn] if turn < 2 else None,
            )
            for i in open_talks
        ]
        lines = _next_lines(turns, turn, minds, moment, tick, town)
        still_open = []
        for i, here, (line, told) in zip(open_talks, turns, lines, strict=True):
            speaker = here.speaker
            if line is None:
                talks[i].ended_by = "nothing new to say"
                continue
            talks[i].lines.append((speaker.name, line))
            if told is not None:
                talks[i].told.append((told.teller, told.content))
            if turn > 0 and any(word in line.lower() for word in FAREWELLS):
                talks[i].ended_by = "farewell"
                continue
            if turn + 1 < speaker.config.dialogue.max_turns:
                still_open.append(i)
        open_talks = still_open
    return _remember(pairs, talks, moment, tick, step), talks


def _next_lines(
    turns: Sequence[_Turn],
    turn: int,
    minds: Minds,
    moment: datetime,
    tick: int,
    town: Sequence[str],
) -> list[tuple[str | None, News | None]]:
    """Each conversation's next line (None where the speaker has nothing new to say) and the
    news it carried. A small model's greedy reply often repeats the last line: such a reply is
    asked again once, sampled (seeded by tick and turn, so a resumed run says the same), before
    the talk ends. A line that leaves out the news the speaker meant to tell says it too, in
    the phrasing of it the model scores highest."""
    prompts = [_line_prompt(t, turn, moment) for t in turns]
    tokens = turns[0].speaker.config.dialogue.tokens
    replies = minds.generate(list(prompts), "dialogue", tokens)
    lines = [_new_line(r, t, town) for r, t in zip(replies, turns, strict=True)]
    stale = [n for n, line in enumerate(lines) if line is None]
    if stale:
        again = minds.generate(
            [prompts[n] for n in stale],
            "dialogue",
            tokens,
            temperature=RETRY_TEMPERATURE,
            seed=tick * 100 + turn,
        )
        for n, reply in zip(stale, again, strict=True):
            lines[n] = _new_line(reply, turns[n], town)
    return _with_news(turns, prompts, lines, minds)


def _with_news(
    turns: Sequence[_Turn],
    prompts: Sequence[tuple[str, str]],
    lines: list[str | None],
    minds: Minds,
) -> list[tuple[str | None, News | None]]:
    missing = [
        n
        for n, t in enumerate(turns)
        if t.news is not None and (lines[n] is None or not carries(lines[n] or "", t.news))
    ]
    requests: list[tuple[str, Sequence[str]]] = [("\n".join(prompts[n]), OPENINGS) for n in missing]
    try:
        openings = [c.option for c in minds.choose(requests, "dialogue news")]
    except DecisionParseError:  # a chat-only model that names no option: the first opening
        openings = [OPENINGS[0]] * len(missing)
    for n, opening in zip(missing, openings, strict=True):
        news = turns[n].news
        assert news is not None
        lines[n] = _told_in(lines[n], phrased(news, turns[n].speaker, opening))
    return [(line, t.news) for line, t in zip(lines, turns, strict=True)]


def _told_in(line: str | None, news: str) -> str:
    """A line with the news said too: after what the model wrote, before a farewell."""
    if not line:
        return news
    if any(word in line.lower() for word in FAREWELLS):
        return f"{news} {line}"
    return f"{line} {news}"


def _new_line(reply: str, turn: _Turn, town: Sequence[str]) -> str | None:
    """The reply without what was said before in the talk; None if nothing is left."""
    said = [c for _, text in turn.talk.lines for c in clauses(text)]
    line = _clean_line(reply, turn.speaker, turn.listener, said)
    return addressed_right(line, turn.listener, town) or None


def _remember(
    pairs: Sequence[tuple[GenerativeAgent, GenerativeAgent]],
    talks: Sequence[Conversation],
    moment: datetime,
    tick: int,
    step: timedelta,
) -> list[NewMemory]:
    """Both remember the whole talk, and are busy for the tick."""
    memories: list[NewMemory] = []
    for (a, b), talk in zip(pairs, talks, strict=True):
        transcript = " ".join(f"{name}: {text}" for name, text in talk.lines)
        for me, other in ((a, b), (b, a)):
            me.chatted[other.name] = moment
            me.busy_until = moment + step
            if talk.lines:
                memories.append(
                    me.memory(
                        f"{me.name} talked with {other.name} at {talk.place}. {transcript}",
                        moment,
                        "dialogue",
                        partner=other.name,
                        tick=tick,
                    )
                )
        for teller, content in talk.told:
            speaker, listener = (a, b) if teller == a.name else (b, a)
            news = News(teller=teller, listener=listener.name, content=content)
            remember_telling(news, speaker)
            memories.append(told_memory(news, listener, moment, tick))
    return memories


def _line_prompt(here: _Turn, turn: int, moment: datetime) -> tuple[str, str]:
    speaker, listener, talk = here.speaker, here.listener, here.talk
    last = talk.lines[-1][1] if talk.lines else ""
    context = speaker.context(
        f"What is {speaker.name}'s relationship with {listener.name}? {last}", moment
    )
    dialogue = "".join(f"{name}: {text}\n" for name, text in talk.lines)
    opening = (
        f"{speaker.name} sees {listener.name}, who is {listener.status(moment)}, "
        "and starts a conversation.\n"
        if not talk.lines
        else "Dialogue so far:\n"
    )
    request = DIALOGUE_LINE.format(
        summary=speaker.description(),
        time=clock_time(moment),
        name=speaker.name,
        place=speaker.location,
        partner=listener.name,
        context=bullets(context),
        opening=opening,
        dialogue=dialogue,
        news=NEWS_HINT.format(name=speaker.name, partner=listener.name, news=here.news.content)
        if here.news is not None and speaker.config.dialogue.writes_news
        else "",
    )
    return request, SPEAKER_PREFILL.format(name=speaker.name)


def _clean_line(
    reply: str, speaker: GenerativeAgent, listener: GenerativeAgent, said: Sequence[str] = ()
) -> str:
    line = _STAGE_DIRECTION.sub("", first_line(reply))
    prefixes = (f"{speaker.name}:", f"{speaker.persona.first_name}:")
    while line.startswith(prefixes):  # a small model may loop on the prefill ("Maria: Maria:")
        line = next(line.removeprefix(p) for p in prefixes if line.startswith(p)).strip()
    if line.startswith((f"{listener.name}:", f"{listener.persona.first_name}:")):
        return ""  # the model wrote the other side's line
    # ... or went on to write someone's next turn within this one ("... Sam Moore: ...")
    turn = _NEXT_TURN.search(line)
    line = sentences(line[: turn.start()] if turn else line, said=said).strip("\"' ")
    return line if has_words(line) else ""


def interview(
    questions: Sequence[tuple[GenerativeAgent, str]], minds: Minds, moment: datetime
) -> list[str]:
    """Answers in character, grounded in each agent's retrieved memories."""
    prompts: list[str | tuple[str, str]] = [
        (
            INTERVIEW.format(
                summary=a.description(),
                name=a.name,
                question=q,
                context=bullets(a.context(q, moment, 8)),
            ),
            SPEAKER_PREFILL.format(name=a.name),
        )
        for a, q in questions
    ]
    if not prompts:
        return []
    replies = minds.generate(prompts, "interview", questions[0][0].config.dialogue.interview_tokens)
    return [sentences(r, limit=3, max_words=60) for r in replies]
