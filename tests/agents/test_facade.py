"""The mem0-shaped facade and chats given as messages, on fakes: the calls a mem0 user makes,
their result shapes, history of an updated memory, and bad messages refused in one line."""

from __future__ import annotations

import pytest

from mindstream.agents.assistant import Assistant
from mindstream.facade import Memory
from mindstream.lm.fakes import HashEmbeddings, ScriptedChatModel
from mindstream.memory import InMemoryStore, ManualClock, MemoryNotFoundError, MemoryStream


@pytest.fixture
def memory() -> Memory:
    stream = MemoryStream(
        InMemoryStore(), HashEmbeddings(), clock=ManualClock(), rater=lambda t: [5.0] * len(t)
    )
    return Memory(Assistant(stream, ScriptedChatModel(default="ok")))


def test_add_search_get_all_update_history_delete_as_mem0_users_call_them(memory: Memory) -> None:
    chat = [
        {"role": "user", "content": "I live in Leeds"},
        {"role": "assistant", "content": "Noted!"},
        {"role": "user", "content": "where is the nearest gym?"},
    ]
    added = memory.add(chat, user_id="maya")["results"]
    assert [a["event"] for a in added] == ["ADD"] * 3 and added[0][
        "memory"
    ] == "User: I live in Leeds"
    found = memory.search("Leeds", user_id="maya", limit=3)["results"]
    assert [f["memory"] for f in found] == [
        "User: I live in Leeds"
    ]  # turns kept for history aren't recalled
    assert {"id", "memory", "score", "metadata", "created_at", "user_id"} <= set(found[0])
    leeds = found[0]["id"]
    newer = memory.update(leeds, "I live in York")["id"]
    assert [h["event"] for h in memory.history(leeds)] == ["ADD", "UPDATE"]
    assert memory.history(newer)[-1]["memory"] == "I live in York"
    everything = [m["memory"] for m in memory.get_all(user_id="maya")["results"]]
    assert "I live in York" in everything and "User: I live in Leeds" not in everything
    memory.delete(newer)
    assert memory.get(newer)["metadata"]["status"] == "forgotten"
    assert memory.history(newer)[-1]["event"] == "DELETE"
    memory.add("I keep bees", user_id="leo")
    memory.delete_all(user_id="maya")
    assert memory.get_all(user_id="maya")["results"] == []
    memory.reset()
    assert memory.get_all(user_id="leo")["results"] == []


def test_an_unknown_id_is_the_typed_not_found_error(memory: Memory) -> None:
    with pytest.raises(MemoryNotFoundError):
        memory.get("nope")
    with pytest.raises(ValueError, match="filters: 'colour' is not a filter"):
        memory.search("x", user_id="maya", filters={"colour": "red"})


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ([{"role": "robot", "content": "hi"}], r"messages\[0\].role: 'robot' is none of"),
        ([{"role": "user"}], r"messages\[0\].content: missing or not text"),
        ([], "messages: the list is empty"),
    ],
)
def test_bad_messages_are_refused_in_one_line(memory: Memory, messages: list, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError, match=message):
        memory.add(messages, user_id="maya")


def test_chat_takes_a_list_of_messages_and_answers_the_last(memory: Memory) -> None:
    assistant = memory.assistant
    reply = assistant.chat(
        "maya",
        [
            {"role": "user", "content": "I live in Leeds"},
            {"role": "user", "content": "where do I live?"},
        ],
    )
    assert reply.answer == "ok"
    texts = [r.text for r in assistant.memories("maya")]
    assert texts[0] == "User: I live in Leeds" and "User: where do I live?" in texts
    with pytest.raises(ValueError, match="the last must be the user's"):
        assistant.chat("maya", [{"role": "assistant", "content": "hello"}])
