"""The personal assistant on scripted parts: answers cite the memories they used, users never
see each other's memories, corrections supersede with provenance, export and deletion."""

from __future__ import annotations

import threading

import pytest

from mindstream.agents.assistant import Assistant, AssistantConfig, Correction, ReflectionBusy
from mindstream.agents.assistant.config import long_horizon
from mindstream.agents.assistant.prompting import answer_prompt
from mindstream.lm.fakes import FakeJudge, HashEmbeddings, ScriptedChatModel
from mindstream.memory import (
    InMemoryStore,
    ManualClock,
    MemoryKind,
    MemoryNotFoundError,
    MemoryStateError,
    MemoryStatus,
    MemoryStream,
)
from mindstream.memory.records import ChangePolicy


@pytest.fixture
def assistant() -> Assistant:
    config = AssistantConfig()
    stream = MemoryStream(
        InMemoryStore(),
        HashEmbeddings(),
        clock=ManualClock(),
        rater=lambda texts: [4.0] * len(texts),
        config=config.stream,
    )
    model = ScriptedChatModel(rules={"Where": "You live in Lisbon."}, default="Noted.")
    return Assistant(
        stream, model, config, reflector=lambda stream: lambda user: f"reflected {user}"
    )


def test_an_answer_uses_and_cites_the_users_memories(assistant: Assistant) -> None:
    lisbon = assistant.remember("maya", "I live in Lisbon now", importance=6)
    assistant.remember("leo", "I live in Porto", importance=6)
    reply = assistant.chat("maya", "Where do I live?")
    assert reply.answer == "You live in Lisbon."
    assert [m.id for m in reply.memories] == [lisbon.id]  # not Leo's
    said = assistant.memory("maya", reply.answer_id)
    assert said.kind is MemoryKind.DIALOGUE and said.evidence == (lisbon.id,)
    asked = assistant.memory("maya", reply.message_id)
    assert asked.text == "User: Where do I live?" and asked.importance == 4.0  # rated
    prompt = assistant.model.prompts[-1]  # type: ignore[attr-defined]
    assert "I live in Lisbon now" in prompt and "Porto" not in prompt


def test_users_never_reach_each_others_memories(assistant: Assistant) -> None:
    secret = assistant.remember("leo", "my bank pin is 1234")
    with pytest.raises(MemoryNotFoundError):
        assistant.memory("maya", secret.id)
    with pytest.raises(MemoryNotFoundError):
        assistant.forget("maya", secret.id)
    assert assistant.search("maya", "bank pin") == []
    assert assistant.export("maya")["memories"] == []
    assert assistant.memory("leo", secret.id).status is MemoryStatus.ACTIVE


def test_corrections_supersede_forget_and_note(assistant: Assistant) -> None:
    porto = assistant.remember("maya", "I live in Porto")
    lisbon = assistant.correct(
        "maya", Correction(action="actually", memory_id=porto.id, text="I live in Lisbon")
    )
    assert assistant.memory("maya", porto.id).status is MemoryStatus.SUPERSEDED
    assert assistant.memory("maya", porto.id).replaced_by == lisbon.id
    found = assistant.search("maya", "where do I live")
    assert [m.record.id for m in found] == [lisbon.id, porto.id]  # the truth, then history
    assert found[1].record.status is MemoryStatus.SUPERSEDED
    cat = assistant.remember("maya", "I have a cat")
    note = assistant.correct("maya", Correction(action="wrong", memory_id=cat.id))
    assert note.kind is MemoryKind.CORRECTION and note.evidence == (cat.id,)
    assert assistant.memory("maya", cat.id).status is MemoryStatus.FORGOTTEN
    gone = assistant.forget("maya", lisbon.id)
    assert gone.status is MemoryStatus.FORGOTTEN
    with pytest.raises(ValueError, match="needs the corrected fact"):
        assistant.correct("maya", Correction(action="actually", memory_id=cat.id, text=" "))


def test_export_has_provenance_and_delete_leaves_nothing(assistant: Assistant) -> None:
    fact = assistant.remember("maya", "I live in Lisbon")
    reply = assistant.chat("maya", "Where do I live?")
    exported = {m["id"]: m for m in assistant.export("maya")["memories"]}
    assert exported[fact.id]["cited_by"] == [reply.answer_id]
    assert exported[reply.answer_id]["evidence"] == [fact.id]
    assistant.remember("leo", "I live in Porto")
    assert assistant.delete_user("maya") == 3
    assert assistant.export("maya")["memories"] == [] and assistant.search("maya", "Lisbon") == []
    assert [r.text for r in assistant.stream.records()] == ["I live in Porto"]
    assert assistant.reflect("leo") == "reflected leo"


def _judging_assistant() -> Assistant:
    """An assistant whose judge says a statement naming another city replaces one naming a city."""
    cities = ("Porto", "Lisbon")

    def moved(earlier: str, later: str) -> float:
        named = [c for c in cities if c in earlier], [c for c in cities if c in later]
        return 0.97 if all(named) and named[0] != named[1] else 0.1

    policy = ChangePolicy(enabled=True, min_similarity=-1.0)  # hash embeddings are far apart
    config = AssistantConfig(stream=long_horizon().model_copy(update={"changes": policy}))
    stream = MemoryStream(
        InMemoryStore(),
        HashEmbeddings(),
        clock=ManualClock(),
        rater=lambda texts: [4.0] * len(texts),
        config=config.stream,
        judge=FakeJudge(replaces=moved),
    )
    model = ScriptedChatModel(rules={}, default="Noted.")
    return Assistant(stream, model, config)


def test_a_change_told_in_chat_supersedes_and_the_answer_sees_what_it_replaced() -> None:
    assistant = _judging_assistant()
    porto = assistant.remember("maya", "I live in Porto")
    told = assistant.chat("maya", "We moved to Lisbon last week, the flat is lovely.")
    old = assistant.memory("maya", porto.id)
    assert old.status is MemoryStatus.SUPERSEDED
    assert old.replaced_by == told.message_id
    assistant.chat("maya", "Where do I live?")
    prompt = assistant.model.prompts[-1]  # type: ignore[attr-defined]
    assert "We moved to Lisbon" in prompt
    assert "(before that, no longer true:" in prompt and "I live in Porto" in prompt
    history = assistant.search("maya", "where did I live", history=True)
    assert porto.id in {m.record.id for m in history}
    found = [m.record.id for m in assistant.search("maya", "where did I live")]
    assert found.index(told.message_id) < found.index(porto.id)  # history after the truth
    restored = assistant.restore("maya", porto.id)
    assert restored.status is MemoryStatus.ACTIVE


def test_a_recalled_old_memory_is_marked_no_longer_true_and_shown_once() -> None:
    assistant = _judging_assistant()
    porto = assistant.remember("maya", "I live in Porto")
    moved_on = assistant.remember("maya", "We moved to Lisbon last week, the flat is lovely.")
    assert assistant.memory("maya", porto.id).status is MemoryStatus.SUPERSEDED
    found = assistant.stream.retrieve("Porto", 8, owner="maya", with_replaced=True)
    old = next(m for m in found if m.record.id == porto.id)
    alone = answer_prompt("Where did I live?", [old])
    assert "I live in Porto (no longer true)" in alone
    both = answer_prompt("Where did I live?", found, replaced={moved_on.id: [old.record]})
    assert both.count("I live in Porto") == 1 and "(before that, no longer true:" in both


def test_questions_and_answers_are_kept_but_never_recalled_as_facts(assistant: Assistant) -> None:
    lisbon = assistant.remember("maya", "I live in Lisbon now")
    first = assistant.chat("maya", "Where do I live?")
    second = assistant.chat("maya", "where do I live")
    found = [m.record.id for m in assistant.search("maya", "Where do I live?")]
    assert found == [lisbon.id]
    for reply in (first, second):
        assert assistant.memory("maya", reply.message_id).recalled is False
        assert assistant.memory("maya", reply.answer_id).recalled is False
    said = assistant.chat("maya", "I started a new job at the bakery.")
    assert said.message_id in [m.record.id for m in assistant.search("maya", "job bakery")]
    assert "User: Where do I live?" in assistant.model.prompts[-1]  # type: ignore[attr-defined]


def test_wrong_twice_is_one_note_and_the_note_is_never_recalled(assistant: Assistant) -> None:
    cat = assistant.remember("maya", "I have a cat called Tom")
    first = assistant.correct("maya", Correction(action="wrong", memory_id=cat.id))
    second = assistant.correct("maya", Correction(action="wrong", memory_id=cat.id))
    assert first.id == second.id and first.evidence == (cat.id,)
    assert "Tom" not in first.text
    notes = [r for r in assistant.memories("maya") if r.kind is MemoryKind.CORRECTION]
    assert len(notes) == 1
    assert assistant.search("maya", "cat Tom wrong") == []


def test_superseding_a_forgotten_memory_is_refused_and_a_chain_keeps_one_active(
    assistant: Assistant,
) -> None:
    first = assistant.remember("maya", "My number is 0111")
    second = assistant.supersede("maya", first.id, "My number is 0222")
    third = assistant.supersede("maya", first.id, "My number is 0333")
    statuses = {r.id: r.status for r in assistant.memories("maya")}
    assert statuses == {
        first.id: MemoryStatus.SUPERSEDED,
        second.id: MemoryStatus.SUPERSEDED,
        third.id: MemoryStatus.ACTIVE,
    }
    assistant.forget("maya", third.id)
    with pytest.raises(MemoryStateError, match="stays forgotten"):
        assistant.supersede("maya", third.id, "My number is 0444")
    with pytest.raises(MemoryNotFoundError):
        assistant.restore("leo", first.id)


def test_a_reflection_thinking_holds_up_no_other_user_and_runs_once_per_user() -> None:
    """The reflector stops mid-way as a model call would; others search and write meanwhile,
    and the reflector's own stream calls still take the lock (it reads through the view)."""
    config = AssistantConfig()
    stream = MemoryStream(
        InMemoryStore(), HashEmbeddings(), clock=ManualClock(), config=config.stream
    )
    thinking, go_on = threading.Event(), threading.Event()

    def reflector(view: MemoryStream):  # type: ignore[no-untyped-def]
        def reflect(user: str) -> int:
            seen = view.count(user)
            thinking.set()
            assert go_on.wait(10), "never released"
            view.add("an insight", owner=user, kind=MemoryKind.REFLECTION, importance=5)
            return seen

        return reflect

    assistant = Assistant(stream, ScriptedChatModel(default="ok"), config, reflector=reflector)
    assistant.remember("maya", "I like tea", importance=3)
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(assistant.reflect("maya")))
    worker.start()
    assert thinking.wait(10)
    with pytest.raises(ReflectionBusy):
        assistant.reflect("maya")
    leo = assistant.remember(
        "leo", "I live in Porto", importance=3
    )  # would wait forever on a held lock
    assert [m.record.id for m in assistant.search("leo", "Porto")] == [leo.id]
    go_on.set()
    worker.join(10)
    assert result == [1]
    assert [r.text for r in assistant.memories("maya", kind="reflection")] == ["an insight"]


def test_chat_sessions_keep_their_turns_apart(assistant: Assistant) -> None:
    assistant.remember("maya", "I live in Lisbon now", importance=6)
    assistant.chat("maya", "Remember the red kite?", session="trip")
    assistant.chat("maya", "Where do I live?", session="work")
    prompt = assistant.model.prompts[-1]  # type: ignore[attr-defined]
    assert "red kite" not in prompt  # another session's turn
    assert [t.text for t in assistant.turns("maya", "trip")] == [
        "User: Remember the red kite?",
        "Assistant: Noted.",
    ]
    assert assistant.sessions("maya") == {"trip": 2, "work": 2}
    assistant.chat("maya", "And the kite's colour?", session="trip")
    assert "red kite" in assistant.model.prompts[-1]  # type: ignore[attr-defined]


def test_a_write_being_judged_holds_up_no_other_request() -> None:
    """The judge runs in the stream's background worker, after the write is acknowledged (as
    the model would take a while): the writer and another user search and write meanwhile,
    and the judged write still supersedes once the worker is done."""
    judging, go_on = threading.Event(), threading.Event()

    def slow_move(earlier: str, later: str) -> float:
        if "York" in later:
            judging.set()
            assert go_on.wait(10), "never released"
        return 0.97 if "Leeds" in earlier and "York" in later else 0.0

    config = AssistantConfig()
    changes = config.stream.changes.model_copy(update={"min_similarity": -1.0})
    assert changes.background  # the assistant's policy judges off the write path
    stream = MemoryStream(
        InMemoryStore(),
        HashEmbeddings(),
        clock=ManualClock(),
        config=config.stream.model_copy(update={"changes": changes}),
        judge=FakeJudge(replaces=slow_move),
    )
    assistant = Assistant(stream, ScriptedChatModel(default="ok"), config)
    leeds = assistant.remember("maya", "I live in Leeds", importance=5)
    york = assistant.remember("maya", "Moved to York", 5)  # returns before it is judged
    assert judging.wait(10)
    assert york.provenance.detection == "pending"
    assert york.id in {m.record.id for m in assistant.search("maya", "York")}
    porto = assistant.remember("leo", "I live in Porto", importance=5)  # would wait on the lock
    assert [m.record.id for m in assistant.search("leo", "Porto")] == [porto.id]
    go_on.set()
    assert stream.settle(10)
    assert assistant.memory("maya", leeds.id).status is MemoryStatus.SUPERSEDED
