"""A long-running personal assistant: one memory stream shared by many users, each user the
owner of their own memories (never another's), kept for months.

Every answer comes with the memories it used, and is stored with them as its evidence, so a
user can see why it said what it said and correct it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel

from mindstream.agents.assistant.config import AssistantConfig
from mindstream.agents.assistant.messages import Message, as_messages
from mindstream.agents.assistant.prompting import answer_prompt
from mindstream.agents.assistant.replies import (
    Correction,
    ReflectionBusy,
    Reply,
    RequestReused,
    UsedMemory,
)
from mindstream.agents.assistant.serialised import Serialised
from mindstream.lm import complete_batch
from mindstream.memory import (
    MemoryKind,
    MemoryNotFoundError,
    MemoryRecord,
    MemoryStateError,
    MemoryStatus,
    MemoryStream,
    ScoredMemory,
    new_memory,
)
from mindstream.memory.statements import is_question
from mindstream.memory.stream import REQUEST_KEY

DEFAULT_SESSION = "default"
RECALLED = (MemoryKind.OBSERVATION, MemoryKind.DIALOGUE, MemoryKind.FACT, MemoryKind.CORRECTION)
RECALLED_WITH_REFLECTIONS = (*RECALLED, MemoryKind.REFLECTION)


class Assistant:
    """chat, remember, correct, search, export and delete, per user, on one stream.

    Calls are serialised by the stream's lock, never held across the model's generation or
    the change judge (which runs in the stream's background worker), so one user's slow answer
    or reflection does not hold up another's search. `reflector` builds the reflection on a
    stream whose every call takes that lock (it is given that view, not the stream itself).
    """

    def __init__(
        self,
        stream: MemoryStream,
        model: BaseChatModel,
        config: AssistantConfig | None = None,
        reflector: Callable[[MemoryStream], Callable[..., Any]] | None = None,
    ) -> None:
        self.stream = stream
        self.model = model
        self.config = config or AssistantConfig()
        self.lock = stream.lock  # the stream's own: its detection worker takes it too
        serialised: Any = Serialised(stream, self.lock)
        self._reflect = reflector(serialised) if reflector else None
        self._reflecting: dict[str, threading.Lock] = {}

    # ---- talking -------------------------------------------------------------------------
    def chat(
        self,
        user: str,
        message: str | Sequence[Any],
        session: str = DEFAULT_SESSION,
        request: str | None = None,
    ) -> Reply:
        """Answer from what is true now (superseded memories are shown only as what a current
        one replaced), with the recent turns of this chat session. The user's turn is stored
        in the session: a statement is a memory like any other (and may supersede an earlier
        one); a question and the answer are kept for history and provenance but never
        recalled as facts. A retry with the same `request` key gets the first answer back
        (without the memories' scores), and nothing is stored twice. Given a chat (a list of
        messages), the earlier messages are remembered first and the last, the user's, is
        answered."""
        if not isinstance(message, str):
            message = self._remember_all_but_the_question(user, message)
        with self.lock:
            if (replay := self._replayed_chat(user, message, request)) is not None:
                return replay
            found = self._recall(user, message, self.config.k, replaced=self.config.recall_replaced)
            shown = self.config.replaced_shown
            replaced = {m.record.id: self.stream.replaced_by(m.record, shown) for m in found}
            history = [r.text for r in self.turns(user, session, self.config.history)]
        prompt = answer_prompt(message, found, history, replaced)
        answer = complete_batch(
            self.model, [prompt], "assistant", max_tokens=self.config.max_tokens
        )[0]
        answer = answer or "(no answer)"
        with self.lock:
            if (replay := self._replayed_chat(user, message, request)) is not None:
                return replay  # a retry that overtook this one stored it meanwhile
            question = is_question(message)
            asked = self.stream.add(
                f"User: {message}",
                owner=user,
                kind=MemoryKind.DIALOGUE,
                recall=not question,
                metadata={"role": "user", "session": session, **_of(request)},
            )
            said = self.stream.add(
                f"Assistant: {answer}",
                owner=user,
                kind=MemoryKind.DIALOGUE,
                importance=self.config.answer_importance,
                evidence=tuple(m.record.id for m in found),
                recall=False,
                metadata={"role": "assistant", "session": session, **_of(request)},
            )
        return Reply(
            answer=answer,
            memories=[UsedMemory.of(m) for m in found],
            message_id=asked.id,
            answer_id=said.id,
        )

    def _remember_all_but_the_question(self, user: str, messages: Sequence[Any]) -> str:
        turns = as_messages(messages)
        if turns[-1].role != "user":
            raise ValueError(f"messages[{len(turns) - 1}].role: the last must be the user's")
        if len(turns) > 1:
            self.remember_chat(user, [m.model_dump() for m in turns[:-1]])
        return turns[-1].content

    def _replayed_chat(self, user: str, message: str, request: str | None) -> Reply | None:
        if request is None or not (done := self.stream.written_by(user, request)):
            return None
        asked, said = done[0], done[-1]
        if asked.text != f"User: {message}" or len(done) != 2:
            raise RequestReused(
                f"Idempotency-Key {request!r} was used for another request; use a new key"
            )
        answer = said.text.removeprefix("Assistant: ")
        return Reply(answer=answer, memories=[], message_id=asked.id, answer_id=said.id)

    def turns(self, user: str, session: str, last: int | None = None) -> list[MemoryRecord]:
        """The session's chat turns, oldest first (the `last` ones); turns from before
        sessions existed belong to the default session."""
        with self.lock:
            dialogue = self.stream.records(user)
        chosen = [
            r
            for r in dialogue
            if r.kind is MemoryKind.DIALOGUE
            and r.status is MemoryStatus.ACTIVE
            and r.metadata.get("session", DEFAULT_SESSION) == session
        ]
        chosen.sort(key=lambda r: r.created_at)
        if last is None:
            return chosen
        return chosen[-last:] if last > 0 else []

    def sessions(self, user: str) -> dict[str, int]:
        """Each chat session of the user and how many turns it holds."""
        counts: dict[str, int] = {}
        for record in self.memories(user, kind=MemoryKind.DIALOGUE.value, status="active"):
            name = str(record.metadata.get("session", DEFAULT_SESSION))
            counts[name] = counts.get(name, 0) + 1
        return counts

    def _recall(
        self, user: str, query: str, k: int, history: bool = False, replaced: bool = False
    ) -> list[ScoredMemory]:
        """What is true now; `history` adds every inactive memory, `replaced` the superseded
        ones after what replaced them (chat, so "what was my job before?" finds it)."""
        if not self.stream.count(user):
            return []
        return self.stream.retrieve(
            query,
            k,
            owner=user,
            kinds=RECALLED_WITH_REFLECTIONS,
            include_inactive=history,
            with_replaced=replaced,
        )

    # ---- memories ------------------------------------------------------------------------
    def remember(
        self,
        user: str,
        text: str | Sequence[Any],
        importance: float | None = None,
        kind: str = "fact",
        request: str | None = None,
    ) -> MemoryRecord:
        """Store one memory; with `request` (an idempotency key) a retry of the same write
        returns what the first attempt stored and stores nothing again. A chat (a list of
        role/content messages) is stored turn by turn (`remember_chat`): the last is returned."""
        if not isinstance(text, str):
            return self.remember_chat(user, text, request=request)[-1]
        return self.remember_many(user, [(text, importance, kind)], request)[0]

    def remember_chat(
        self, user: str, messages: Sequence[Any], request: str | None = None
    ) -> list[MemoryRecord]:
        """A chat's messages as dialogue memories, in order: the user's statements recalled,
        their questions and the assistant's turns kept for history only."""
        turns = as_messages(messages)
        with self.lock:
            texts = [_turn_text(m) for m in turns]
            done = self._replayed(user, request, texts)
            if done is not None:
                return done
            news = [
                new_memory(
                    text=text,
                    owner=user,
                    kind=MemoryKind.DIALOGUE,
                    recall=m.role == "user" and not is_question(m.content),
                    metadata={"role": m.role, **_of(request)},
                )
                for m, text in zip(turns, texts, strict=True)
            ]
            return self.stream.add_many(news)

    def remember_many(
        self,
        user: str,
        items: Sequence[tuple[str, float | None, str]],
        request: str | None = None,
    ) -> list[MemoryRecord]:
        """Several memories (text, importance, kind) in one embedding and judge batch."""
        with self.lock:
            done = self._replayed(user, request, [text for text, _, _ in items])
            if done is not None:
                return done
            news = [
                new_memory(
                    text=text, owner=user, kind=kind, importance=importance, metadata=_of(request)
                )
                for text, importance, kind in items
            ]
            return self.stream.add_many(news)

    def _replayed(
        self, user: str, request: str | None, texts: Sequence[str]
    ) -> list[MemoryRecord] | None:
        """What a retried write stored the first time (None: this is the first time)."""
        if request is None:
            return None
        done = self.stream.written_by(user, request)
        if not done:
            return None
        if [r.text for r in done] != list(texts):
            raise RequestReused(
                f"Idempotency-Key {request!r} was used for another request; use a new key"
            )
        return [self.stream.get(r.id) for r in done]

    def import_export(self, user: str, exported: dict[str, Any]) -> list[MemoryRecord]:
        """An export's memories into this user's empty account (this user's backup, or
        another account's copied here: ids taken on this store are issued anew); every link
        must stay inside the export."""
        from mindstream.memory.transfer import importable

        memories = exported.get("memories")
        if not isinstance(memories, list):
            raise ValueError("memories: an export holds a list of memories")
        records = [importable(m, user) for m in memories]
        with self.lock:
            if self.stream.count(user):
                raise MemoryStateError(
                    f"this account holds {self.stream.count(user)} memories: import into an "
                    "empty account (delete its memories first)"
                )
            return self.stream.import_records(records)

    def search(
        self, user: str, query: str, k: int = 10, history: bool = False
    ) -> list[ScoredMemory]:
        """What is true now, and what it replaced as history after it (a relevant superseded
        memory brings its replacement in: nothing true is hidden by a wrong supersede); with
        `history`, forgotten memories too (each with its status and provenance)."""
        with self.lock:
            return self._recall(user, query, k, history, replaced=self.config.recall_replaced)

    def memory(self, user: str, memory_id: str) -> MemoryRecord:
        """A memory of this user; another user's id is as unknown as a made-up one."""
        with self.lock:
            record = self.stream.get(memory_id)
        if record.owner != user:
            raise MemoryNotFoundError(f"no memory with id {memory_id!r}")
        return record

    def memories(
        self, user: str, kind: str | None = None, status: str | None = None
    ) -> list[MemoryRecord]:
        with self.lock:
            records = self.stream.records(user)
        return [
            r
            for r in records
            if (kind is None or r.kind.value == kind)
            and (status is None or r.status.value == status)
        ]

    def correct(
        self, user: str, correction: Correction, request: str | None = None
    ) -> MemoryRecord:
        """Apply a correction; what is stored (the correction, or the superseding memory).

        "actually" supersedes the memory's newest version (a forgotten one is refused:
        `MemoryStateError`; a retry with the same `request` key returns the first
        replacement); "wrong" forgets it and keeps one note citing it (asked twice, the same
        note), a note never recalled as a fact; "forget" forgets it."""
        wrong = self.memory(user, correction.memory_id)
        with self.lock:
            if correction.action == "actually":
                if not correction.text or not correction.text.strip():
                    raise ValueError("text: an 'actually' correction needs the corrected fact")
                done = self._replayed(user, request, [correction.text])
                if done is not None:
                    return done[0]
                replacement = new_memory(
                    text=correction.text,
                    owner=user,
                    kind=MemoryKind.CORRECTION,
                    metadata=_of(request),
                )
                return self.stream.supersede(wrong.id, replacement)
            self.stream.forget(wrong.id)
            if correction.action == "forget":
                return self.stream.get(wrong.id)
            noted = self.stream.dependents_of(wrong.id)
            earlier = [r for r in noted if r.metadata.get("wrong") == wrong.id]
            if earlier:
                return earlier[0]
            return self.stream.add(
                "The user said a memory is wrong (cited as evidence).",
                owner=user,
                kind=MemoryKind.CORRECTION,
                evidence=(wrong.id,),
                recall=False,
                metadata={"wrong": wrong.id},
            )

    def restore(self, user: str, memory_id: str) -> MemoryRecord:
        """Undo a supersede (a wrong automatic one, say); the replacement stays."""
        self.memory(user, memory_id)
        with self.lock:
            return self.stream.restore(memory_id)

    def forget(self, user: str, memory_id: str) -> MemoryRecord:
        return self.correct(user, Correction(action="forget", memory_id=memory_id))

    def supersede(
        self, user: str, memory_id: str, text: str, request: str | None = None
    ) -> MemoryRecord:
        correction = Correction(action="actually", memory_id=memory_id, text=text)
        return self.correct(user, correction, request)

    # ---- reflection, export, deletion ----------------------------------------------------
    def reflect(self, user: str, force: bool = False) -> Any:
        """Reflect on the user's memories without holding the lock across the model (below
        the threshold only with `force`); one reflection per user at a time (a second raises
        `ReflectionBusy`)."""
        if self._reflect is None:
            raise ValueError("this assistant has no reflector")
        with self.lock:
            gate = self._reflecting.setdefault(user, threading.Lock())
        if not gate.acquire(blocking=False):
            raise ReflectionBusy(f"a reflection for {user!r} is already running")
        try:
            return self._reflect(user, force=force) if force else self._reflect(user)
        finally:
            gate.release()

    def reflections(self, user: str) -> list[dict[str, Any]]:
        with self.lock:
            return [
                {
                    **_exported(r),
                    "evidence_texts": [
                        e.text for e in self.stream.evidence_of(r.id)[: len(r.evidence)]
                    ],
                }
                for r in self.stream.records(user)
                if r.kind is MemoryKind.REFLECTION and r.status is MemoryStatus.ACTIVE
            ]

    def export(self, user: str) -> dict[str, Any]:
        """Every memory of the user with its provenance (what it cites, what cites it)."""
        with self.lock:
            records = self.stream.records(user)
            cited_by = {r.id: [d.id for d in self.stream.dependents_of(r.id)] for r in records}
        return {
            "user": user,
            "memories": [{**_exported(r), "cited_by": cited_by[r.id]} for r in records],
        }

    def delete_user(self, user: str) -> int:
        """Remove the user's memories from the store and the index, reflections included."""
        with self.lock:
            self._reflecting.pop(user, None)
            self.stream.flush()
            return self.stream.drop_owner(user)


def _turn_text(message: Message) -> str:
    return f"{'User' if message.role == 'user' else message.role.title()}: {message.content}"


def _of(request: str | None) -> dict[str, str]:
    """The metadata that marks a memory as stored by the write with this idempotency key."""
    return {} if request is None else {REQUEST_KEY: request}


def _exported(record: MemoryRecord) -> dict[str, Any]:
    return record.model_dump(mode="json")
