"""Talk that carries news from memory: what may be told, to whom, once, with its source."""

from __future__ import annotations

from datetime import datetime, timedelta

from mindstream.agents.generative import GenerativeAgent, Minds, converse
from mindstream.agents.generative.agent import AgentState
from mindstream.agents.generative.config import AgentConfig, DialogueConfig
from mindstream.agents.generative.news import (
    NEWS_QUERY,
    OPENINGS,
    News,
    addressed_right,
    carries,
    choose_news,
    events_to_come,
    has_event_for,
    in_first_person,
    remember_telling,
)
from mindstream.agents.generative.persona import Persona
from mindstream.agents.generative.text import clock_mention
from mindstream.lm import DecisionParseError
from mindstream.lm.fakes import FakeScorer, HashEmbeddings, ScriptedChatModel
from mindstream.memory import InMemoryStore, MemoryKind, MemoryStream

MOMENT, TICK = datetime(2023, 2, 14, 15, 30), timedelta(minutes=10)
PARTY = "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe at 5 pm."
NAMES = ("Isabella Rodriguez", "Maria Lopez", "Klaus Mueller")


def _town(
    replies: dict[str, str] | None = None, config: AgentConfig | None = None
) -> tuple[dict[str, GenerativeAgent], Minds, MemoryStream]:
    minds = Minds(ScriptedChatModel(rules=replies or {}, default="Nice weather."), FakeScorer())
    stream = MemoryStream(InMemoryStore(), HashEmbeddings(), rater=minds.rate_importance)
    people = {
        n: GenerativeAgent(Persona(name=n, age=30, home="Town: house"), stream, config)
        for n in NAMES
    }
    return people, minds, stream


def _heard(stream: MemoryStream, owner: str) -> list[str]:
    return [
        m.text
        for m in stream.recent(50, owner=owner, kinds=[MemoryKind.DIALOGUE])
        if "told_by" in m.metadata
    ]


def test_news_is_passed_on_with_its_source_and_never_told_back() -> None:
    town, minds, stream = _town()
    isabella, maria, klaus = (town[n] for n in NAMES)
    stream.add_many([isabella.memory(PARTY, MOMENT, seed=True)])
    memories, talks = converse([(isabella, maria)], minds, MOMENT, 1, TICK, town=NAMES)
    stream.add_many(memories)
    assert talks[0].told == [("Isabella Rodriguez", PARTY)]
    assert _heard(stream, "Maria Lopez") == [f"Isabella Rodriguez told Maria Lopez: {PARTY}"]
    # Maria tells Klaus what she heard; nothing about Isabella's own plans goes back to her
    later = MOMENT + timedelta(hours=1)
    memories, talks = converse([(maria, klaus)], minds, later, 7, TICK, town=NAMES)
    stream.add_many(memories)
    assert _heard(stream, "Klaus Mueller") == [f"Maria Lopez told Klaus Mueller: {PARTY}"]
    assert choose_news(maria, isabella, later) is None


def test_the_same_news_is_not_told_twice_to_one_listener() -> None:
    town, minds, stream = _town()
    isabella, maria, klaus = (town[n] for n in NAMES)
    stream.add_many([isabella.memory(PARTY, MOMENT, seed=True)])
    stream.add_many(converse([(isabella, maria)], minds, MOMENT, 1, TICK, town=NAMES)[0])
    assert choose_news(isabella, maria, MOMENT + timedelta(hours=2)) is None
    assert choose_news(isabella, klaus, MOMENT + timedelta(hours=2)) is not None
    # and a resumed run remembers whom it told
    copy = GenerativeAgent(isabella.persona, stream)
    copy.set_state(AgentState.model_validate(isabella.get_state().model_dump()))
    assert choose_news(copy, maria, MOMENT + timedelta(hours=2)) is None


def test_private_thoughts_sightings_and_idle_things_are_not_news() -> None:
    town, _, stream = _town()
    isabella, maria = town["Isabella Rodriguez"], town["Maria Lopez"]
    stream.add_many(
        [
            isabella.hear("ask Maria Lopez to come to the party", MOMENT, 0),
            isabella.memory("Klaus Mueller is reading", MOMENT),
            isabella.memory("Hobbs Cafe: kitchen: stove is idle", MOMENT, subject="stove"),
            isabella.memory("Maria Lopez is a student.", MOMENT, seed=True),
            isabella.memory("Isabella Rodriguez is friends with Maria.", MOMENT, seed=True),
            isabella.memory(f"{isabella.name}'s plan for today: work", MOMENT, "plan"),
        ]
    )
    assert choose_news(isabella, maria, MOMENT) is None
    stream.add_many(
        [isabella.memory("Hobbs Cafe: kitchen: stove is burning", MOMENT, subject="stove")]
    )
    news = choose_news(isabella, maria, MOMENT)
    assert news is not None and news.content == "Hobbs Cafe: kitchen: stove is burning"


def test_a_line_that_leaves_the_news_out_says_it_too() -> None:
    town, minds, stream = _town({"starts a conversation": "Hi Klaus, lovely day!"})
    isabella, maria = town["Isabella Rodriguez"], town["Maria Lopez"]
    stream.add_many([isabella.memory(PARTY, MOMENT, seed=True)])
    _, talks = converse([(isabella, maria)], minds, MOMENT, 1, TICK, town=NAMES)
    _, line = talks[0].lines[0]
    # addressed to the one present, and the party said in Isabella's own voice
    assert line.startswith("Hi Maria, lovely day! ")
    assert "I am planning a Valentine's Day party at Hobbs Cafe at 5 pm." in line
    assert minds.requests["dialogue news"] == 1


def test_a_line_that_carries_the_news_is_kept_as_written() -> None:
    written = "Come to my Valentine's Day party at Hobbs Cafe, 5 pm, I'm planning it!"
    town, minds, stream = _town({"starts a conversation": written})
    isabella, maria = town["Isabella Rodriguez"], town["Maria Lopez"]
    stream.add_many([isabella.memory(PARTY, MOMENT, seed=True)])
    _, talks = converse([(isabella, maria)], minds, MOMENT, 1, TICK, town=NAMES)
    assert talks[0].lines[0] == ("Isabella Rodriguez", written)
    assert minds.requests["dialogue news"] == 0


def test_without_news_talk_tells_nothing() -> None:
    quiet = AgentConfig(dialogue=DialogueConfig(news=False))
    town, minds, stream = _town(config=quiet)
    isabella, maria = town["Isabella Rodriguez"], town["Maria Lopez"]
    stream.add_many([isabella.memory(PARTY, MOMENT, seed=True)])
    memories, talks = converse([(isabella, maria)], minds, MOMENT, 1, TICK, town=NAMES)
    assert talks[0].told == [] and not [m for m in memories if "told_by" in m.metadata]


def test_carries_first_person_and_names_addressed() -> None:
    news = News("Isabella Rodriguez", "Maria Lopez", PARTY)
    assert carries("There's a Valentine's Day party at Hobbs Cafe at 5 pm!", news)
    assert not carries("Hi Maria, lovely day!", news)
    isabella = GenerativeAgent(Persona(name="Isabella Rodriguez", age=34, home="A: b"),
                               MemoryStream(InMemoryStore(), HashEmbeddings()))  # fmt: skip
    assert in_first_person("Isabella Rodriguez wants to invite everyone", isabella) == (
        "I want to invite everyone"
    )
    assert in_first_person("Isabella studies art", isabella) == "I study art"
    often = "Isabella Rodriguez often drinks tea and is friends with Sam"
    assert in_first_person(often, isabella) == "I often drink tea and am friends with Sam"
    teaches = "Isabella Rodriguez teaches art and likes to discuss politics with her customers"
    assert in_first_person(teaches, isabella) == (
        "I teach art and likes to discuss politics with my customers"
    )
    assert in_first_person(PARTY, isabella).startswith("I am planning")
    hailey = GenerativeAgent(Persona(name="Hailey Johnson", age=30, home="A: b"), isabella.stream)
    town = ["Rajiv Patel", "Hailey Johnson", "Maria Lopez"]
    assert addressed_right("So glad to see you, Rajiv.", hailey, town) == (
        "So glad to see you, Hailey."
    )
    assert addressed_right("Hello Rajiv Patel! How are you?", hailey, town) == (
        "Hello Hailey! How are you?"
    )
    assert addressed_right("I saw Maria, Rajiv and Sam.", hailey, town) == (
        "I saw Maria, Rajiv and Sam."
    )


def test_only_a_model_that_writes_news_is_shown_it() -> None:
    for writes in (False, True):
        config = AgentConfig(dialogue=DialogueConfig(writes_news=writes))
        town, minds, stream = _town(config=config)
        isabella, maria = town["Isabella Rodriguez"], town["Maria Lopez"]
        stream.add_many([isabella.memory(PARTY, MOMENT, seed=True)])
        converse([(isabella, maria)], minds, MOMENT, 1, TICK, town=NAMES)
        model = minds.model
        assert isinstance(model, ScriptedChatModel)
        hint = f"Isabella Rodriguez wants to tell Maria Lopez: {PARTY}"
        assert (hint in model.prompts[0]) is writes


def test_a_line_looping_on_the_speakers_name_is_cleaned() -> None:
    town, minds, _ = _town({"starts a conversation": "Isabella Rodriguez: Isabella: Hi there!"})
    _, talks = converse(
        [(town["Isabella Rodriguez"], town["Maria Lopez"])], minds, MOMENT, 1, TICK, town=NAMES
    )
    assert talks[0].lines[0] == ("Isabella Rodriguez", "Hi there!")


class _NamesNoOption(FakeScorer):
    """A chat-only model that never names an option."""

    def choose_batch(self, requests):  # type: ignore[no-untyped-def]
        raise DecisionParseError("an option letter", ["Isabella Rodriguez is friends with"])

    loglik_batch = choose_batch  # type: ignore[assignment]


def test_a_model_that_names_no_option_still_tells_the_news_after_the_first_opening() -> None:
    town, _, stream = _town()
    minds = Minds(ScriptedChatModel(default="Nice weather."), _NamesNoOption())
    isabella, maria = town["Isabella Rodriguez"], town["Maria Lopez"]
    stream.add_many([isabella.memory(PARTY, MOMENT, seed=True)])
    _, talks = converse([(isabella, maria)], minds, MOMENT, 1, TICK, town=NAMES)
    assert talks[0].lines[0][1] == "Nice weather. " + OPENINGS[0] + in_first_person(PARTY, isabella)
    assert talks[0].told == [("Isabella Rodriguez", PARTY)]


def test_an_event_later_today_is_told_first_and_yesterdays_is_not_one() -> None:
    """Isabella told "I want to invite everyone to the party" (no time, nothing to plan for)
    before the party at 5 pm; read on the 15th, the party on the 14th is not to come."""
    wish = "Isabella Rodriguez wants to invite everyone she meets to the party."
    dated = "Isabella Rodriguez is planning a party on February 14th from 5pm to 7pm."

    def isabella_and_maria() -> tuple[GenerativeAgent, GenerativeAgent]:
        town, _, stream = _town()
        isabella, maria = town["Isabella Rodriguez"], town["Maria Lopez"]
        earlier = MOMENT - timedelta(hours=8)
        stream.add_many(
            [
                isabella.memory(dated, earlier, importance=1, seed=True),
                isabella.memory(wish, MOMENT, importance=10, seed=True),
            ]
        )
        return isabella, maria

    isabella, maria = isabella_and_maria()
    query = NEWS_QUERY.format(speaker=isabella.name, listener=maria.name)
    assert isabella.recall(query, MOMENT, 1)[0].text == wish  # retrieval alone tells the wish
    isabella, maria = isabella_and_maria()  # (a recall marks what it read as just accessed)
    news = choose_news(isabella, maria, MOMENT)
    assert news is not None and news.content == dated
    events = events_to_come(isabella, MOMENT)
    assert has_event_for(isabella, maria, events)  # a reason to go and talk to her
    remember_telling(news, isabella)
    assert not has_event_for(isabella, maria, events)
    assert clock_mention(dated, MOMENT) == MOMENT.replace(hour=17, minute=0)
    assert clock_mention(dated, MOMENT + timedelta(days=1)) is None
    assert clock_mention("the party from 5 to 7 pm", MOMENT) == MOMENT.replace(hour=17, minute=0)
