"""The personal assistant on scripted parts: answers cite the memories they used, users never
see each other's memories, corrections supersede with provenance, export and deletion."""

from __future__ import annotations

import pytest

from agents.assistant import Assistant, AssistantConfig, Correction
from lm.fakes import HashEmbeddings, ScriptedChatModel
from memory import (
    InMemoryStore,
    ManualClock,
    MemoryKind,
    MemoryNotFoundError,
    MemoryStatus,
    MemoryStream,
)


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
    return Assistant(stream, model, config, reflect=lambda user: f"reflected {user}")


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
    assert assistant.memory("maya", porto.id).metadata["superseded_by"] == lisbon.id
    assert [m.record.id for m in assistant.search("maya", "where do I live")] == [lisbon.id]
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
