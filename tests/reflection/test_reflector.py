"""The Reflector on a scripted model: trigger, trees of cited insights, stale re-derivation."""

from __future__ import annotations

import pytest

from mindstream.lm.fakes import HashEmbeddings, ScriptedChatModel
from mindstream.memory import InMemoryStore, ManualClock, MemoryKind, MemoryStatus, MemoryStream
from mindstream.reflection import ReflectionConfig, ReflectionResult, Reflector

QUESTIONS = "1. What is Klaus dedicated to?\n2. How does Klaus feel about Maria?"


def _stream() -> MemoryStream:
    def rater(texts):  # type: ignore[no-untyped-def]
        return [6.0] * len(texts)

    return MemoryStream(InMemoryStore(), HashEmbeddings(), clock=ManualClock(), rater=rater)


def _seed(stream: MemoryStream) -> list[str]:
    texts = [
        "Klaus writes his research paper on gentrification",
        "Klaus reads about gentrification at the library",
        "Klaus had dinner with Maria at the cafe",
        "Maria told Klaus she likes his research paper",
    ]
    return [stream.add(t, owner="klaus", importance=10).id for t in texts]


def _model(insights: str | list[str]) -> ScriptedChatModel:
    return ScriptedChatModel(
        rules={"high-level questions": QUESTIONS, "high-level insights": insights}
    )


def test_trigger_fires_on_summed_importance() -> None:
    stream = _stream()
    reflector = Reflector(stream, _model(""), ReflectionConfig(threshold=35))
    stream.add("a", owner="klaus", importance=5)
    assert not reflector.should_reflect("klaus")
    assert reflector.reflect("klaus").questions == []
    _seed(stream)
    assert reflector.importance_since_last("klaus") == 45
    assert reflector.should_reflect("klaus")


def test_insights_cite_retrieved_memories_and_build_trees() -> None:
    stream = _stream()
    _seed(stream)
    config = ReflectionConfig(evidence_k=4, min_evidence_similarity=None)
    first = Reflector(
        stream,
        _model("1. Klaus is devoted to research on gentrification (because of 1, 2)"),
        config,
    )
    result = first.reflect("klaus", force=True)
    assert result.questions == ["What is Klaus dedicated to?", "How does Klaus feel about Maria?"]
    insight = result.insights[0]
    assert insight.record.kind is MemoryKind.REFLECTION and insight.record.metadata["depth"] == 1
    assert set(insight.record.evidence) == {e.id for e in insight.evidence}
    for cited in insight.evidence:
        assert stream.get(cited.id).owner == "klaus"
    # The duplicate from the second question is dropped, not stored twice.
    assert len(result.insights) == 1 and any("duplicate" in d for d in result.dropped)
    assert reflector_depths(stream) == [1]
    # A second round may cite the first insight: depth 2.
    second = Reflector(
        stream, _model("1. Klaus lives for his work on housing (because of 1, 2, 3, 4, 5)"), config
    )
    deeper = second.reflect("klaus", force=True).insights
    assert deeper and deeper[0].record.metadata["depth"] == 2


def reflector_depths(stream: MemoryStream) -> list[int]:
    return [
        int(r.metadata["depth"]) for r in stream.records("klaus") if r.kind is MemoryKind.REFLECTION
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "I do not know.",
        "1. Klaus is devoted (because of 42, 99)",
        "1. (because of 1)",
        "1. Klaus is devoted to research",
    ],
)
def test_malformed_insights_never_crash_or_invent_evidence(reply: str) -> None:
    stream = _stream()
    _seed(stream)
    result = Reflector(stream, _model(reply)).reflect("klaus", force=True)
    assert result.insights == []
    assert [r for r in stream.records("klaus") if r.kind is MemoryKind.REFLECTION] == []


def test_no_questions_means_no_reflection() -> None:
    stream = _stream()
    _seed(stream)
    model = ScriptedChatModel(rules={"high-level questions": "Sure! Here you go."})
    result = Reflector(stream, model).reflect("klaus", force=True)
    assert result.questions == [] and result.insights == [] and result.dropped


def test_a_fruitless_attempt_waits_for_new_importance_like_a_reflection() -> None:
    stream = _stream()
    _seed(stream)
    model = ScriptedChatModel(rules={"high-level questions": "Sure! Here you go."})
    reflector = Reflector(stream, model, ReflectionConfig(threshold=35))
    assert reflector.reflect("klaus").dropped  # tried, and nothing came of it
    asked = len(model.prompts)
    assert not reflector.should_reflect("klaus")
    assert reflector.reflect("klaus").dropped == [] and len(model.prompts) == asked
    _seed(stream)
    assert reflector.should_reflect("klaus")


def test_the_prompts_example_insight_under_another_name_is_dropped() -> None:
    stream = _stream()
    for text in ["Hailey paints a mural at the cafe", "Hailey sells a painting to Maria"]:
        stream.add(text, owner="hailey", importance=10)
    copy = "1. Hailey is dedicated to her research on gentrification (because of 1, 2)"
    own = "2. Hailey earns a living from her paintings (because of 1, 2)"
    config = ReflectionConfig(min_evidence_similarity=None)
    model = ScriptedChatModel(
        rules={
            "high-level questions": "1. What is Klaus dedicated to?\n2. What does Hailey make?",
            "high-level insights": f"{copy}\n{own}",
        }
    )
    result = Reflector(stream, model, config).reflect("hailey", force=True)
    assert result.questions == ["What does Hailey make?"]  # not the example's Klaus
    assert [i.record.text for i in result.insights] == ["Hailey earns a living from her paintings"]
    assert any(d.startswith("the prompt's example") for d in result.dropped)


def test_an_insight_that_only_repeats_a_memory_is_dropped() -> None:
    stream = _stream()
    for text in ["I walked the dog along the river", "I fed the dog at seven"]:
        stream.add(text, owner="maya", importance=10)
    copied = "1. Maya walked the dog along the river (because of 1)"
    new = "2. Maya cares for her dog every day (because of 1, 2)"
    model = ScriptedChatModel(
        rules={
            "high-level questions": "1. How does Maya care for her dog?",
            "high-level insights": f"{copied}\n{new}",
        }
    )
    config = ReflectionConfig(min_evidence_similarity=None)
    result = Reflector(stream, model, config).reflect("maya", force=True)
    assert [i.record.text for i in result.insights] == ["Maya cares for her dog every day"]
    assert any(d.startswith("a copy of a memory") for d in result.dropped)


def test_citations_that_do_not_support_the_insight_are_removed() -> None:
    stream = _stream()
    _seed(stream)
    reply = "1. Klaus is devoted to research on gentrification (because of 1, 2, 3, 4)"
    result = Reflector(stream, _model(reply), ReflectionConfig(evidence_k=4)).reflect(
        "klaus", force=True
    )
    cited = {e.text for e in result.insights[0].evidence}
    assert "Klaus had dinner with Maria at the cafe" not in cited
    assert any("gentrification" in text for text in cited)


def test_forgetting_evidence_marks_stale_and_rederive_replaces() -> None:
    stream = _stream()
    ids = _seed(stream)
    config = ReflectionConfig(evidence_k=4, min_evidence_similarity=None)
    model = _model(
        [
            "1. Klaus is devoted to research on gentrification (because of 1, 2)",
            "nothing useful",  # the second question's reply
            "1. Klaus studies gentrification in the library (because of 1)",
        ]
    )
    reflector = Reflector(stream, model, config)
    original = reflector.reflect("klaus", force=True).insights[0].record
    forgotten = next(e for e in original.evidence if e in ids)
    stream.forget(forgotten)
    assert [r.id for r in stream.stale("klaus")] == [original.id]
    result = reflector.rederive("klaus")
    assert result.replaced == [original.id]
    replacement = result.insights[0].record
    assert forgotten not in replacement.evidence
    old = stream.get(original.id)
    assert old.status is MemoryStatus.SUPERSEDED and old.replaced_by == replacement.id
    assert stream.stale("klaus") == []


def test_rederiving_the_same_insight_from_remaining_evidence_keeps_it() -> None:
    stream = _stream()
    _seed(stream)
    config = ReflectionConfig(evidence_k=4, min_evidence_similarity=None)
    same = "1. Klaus is devoted to research on gentrification (because of 1, 2)"
    reflector = Reflector(stream, _model(same), config)
    original = reflector.reflect("klaus", force=True).insights[0].record
    stream.forget(original.evidence[0])
    result = reflector.rederive("klaus")
    assert [i.record.text for i in result.insights] == [original.text]
    assert stream.get(original.id).status is MemoryStatus.SUPERSEDED


def test_an_uncited_insight_rests_on_the_memories_like_it() -> None:
    """The 135M model cites in its first line or two, then stops: in a 25-agent day, 18 of
    26 reflection attempts stored nothing, mostly for want of a citation."""
    stream = _stream()
    _seed(stream)
    reply = "1. Klaus works on his gentrification research paper at the library"
    result = Reflector(stream, _model(reply), ReflectionConfig(evidence_k=4)).reflect(
        "klaus", force=True
    )
    assert [i.record.text for i in result.insights] == [reply[3:]]
    evidence = {e.text for e in result.insights[0].evidence}
    assert {
        "Klaus writes his research paper on gentrification",
        "Klaus reads about gentrification at the library",
    } <= evidence
    assert "Klaus had dinner with Maria at the cafe" not in evidence
    assert set(result.insights[0].record.evidence) == {e.id for e in result.insights[0].evidence}


def test_an_uncited_insight_like_only_one_wording_is_dropped() -> None:
    stream = _stream()
    for text in ["Klaus writes his research paper on gentrification"] * 2 + ["Klaus ate lunch"]:
        stream.add(text, owner="klaus", importance=10)
    reply = "1. Klaus is writing his research paper on gentrification every day"
    result = Reflector(stream, _model(reply)).reflect("klaus", force=True)
    assert result.insights == []
    assert any(d.startswith("no memory it was given supports it") for d in result.dropped)


def test_an_insight_with_the_same_words_as_another_is_a_duplicate() -> None:
    stream = _stream()
    _seed(stream)
    reply = (
        "1. Klaus cares about gentrification research (because of 1, 2)\n"
        "2. Klaus cares about research on gentrification (because of 1, 2)"
    )
    config = ReflectionConfig(evidence_k=4, min_evidence_similarity=None)
    result = Reflector(stream, _model(reply), config).reflect("klaus", force=True)
    assert [i.record.text for i in result.insights] == ["Klaus cares about gentrification research"]


def _reflect_named(
    owner: str, memories: list[str], question: str, reply: str, config: ReflectionConfig
) -> ReflectionResult:
    """`owner` with `memories` reflects once: the model asks `question` and answers `reply`."""
    stream = _stream()
    for text in memories:
        stream.add(text, owner=owner, importance=10)
    model = ScriptedChatModel(
        rules={"high-level questions": question, "high-level insights": reply}
    )
    return Reflector(stream, model, config).reflect(owner, force=True)


def test_memories_about_someone_else_do_not_support_an_insight_about_them() -> None:
    """Abigail's memory that she is a digital artist is no evidence that Hailey is one (an
    insight stored in a 25-agent day with the names left in the comparison)."""
    memories = [
        "Abigail Chen is a digital artist making an animated short film",
        "Abigail Chen is a digital artist who draws every day",
    ]
    reply = (
        "1. Hailey Johnson is a digital artist making an animated short film\n"
        "2. Abigail Chen is a digital artist who makes animated short films"
    )
    question = "1. What does Abigail make?"
    result = _reflect_named("Abigail Chen", memories, question, reply, ReflectionConfig())
    assert [i.record.text for i in result.insights] == [
        "Abigail Chen is a digital artist who makes animated short films"
    ]


def test_memories_naming_only_some_of_an_insights_people_do_not_support_a_tie() -> None:
    memories = ["Jane Moreno is married to Tom", "Yuriko Yamamoto is Adam Smith's neighbour"]
    reply = "1. Tom Moreno is a close friend of Adam Smith's (because of 1, 2)"
    config = ReflectionConfig(min_evidence_similarity=0.0)  # alike enough: the names decide
    result = _reflect_named("Jane Moreno", memories, "1. Who are Tom's friends?", reply, config)
    assert result.insights == []
    assert any(d.startswith("no memory it was given supports it") for d in result.dropped)


def test_a_memory_about_someone_else_is_no_evidence_about_the_owner() -> None:
    memories = [
        "Wolfgang Schulz is a student at Oak Hill College",
        "Ayesha Khan is a student at Oak Hill College",
        "I had lunch at Oak Hill College",
    ]
    reply = "1. Klaus Mueller is a student at Oak Hill College"
    config = ReflectionConfig(min_evidence_similarity=0.0)
    result = _reflect_named("Klaus Mueller", memories, "1. What does Klaus do?", reply, config)
    assert result.insights == []


def test_the_owners_full_name_in_an_insight_is_named_by_its_own_memories() -> None:
    """Klaus's memories say "Klaus wrote ...", the insight "Klaus Mueller is ...": his week's
    insight was dropped as unsupported when "Mueller" was looked for in his memories."""
    stream = _stream()
    _seed(stream)
    reply = "1. Klaus Mueller works on his gentrification research paper at the library"
    result = Reflector(stream, _model(reply), ReflectionConfig(evidence_k=4)).reflect(
        "klaus", force=True
    )
    assert [i.record.text for i in result.insights] == [reply[3:]]


def test_an_owner_named_by_first_name_is_not_supported_by_someone_elses_memories() -> None:
    """On vLLM, Klaus stored "Klaus writes a book on moral sentiments" from Adam Smith's
    memories: "Klaus" as a sentence's first word was not counted as a name to look for."""
    memories = [
        "Adam Smith is writing a book on moral sentiments",
        "Adam Smith writes a chapter on moral sentiments daily",
    ]
    reply = "1. Klaus writes a book on moral sentiments"
    config = ReflectionConfig(min_evidence_similarity=0.0)
    result = _reflect_named("Klaus Mueller", memories, "1. What does Klaus write?", reply, config)
    assert result.insights == []
