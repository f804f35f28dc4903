"""The TeachMe page's backend: each user (API key) teaches their own reasoner, whose
corrections live under their name in the service's `teachme` store; one teaching session per
browser tab (an id the page makes)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from mindstream.service.schemas import MemoryOut, no_control

if TYPE_CHECKING:
    from mindstream.agents.teachme import Answer, TeachMeSession
    from mindstream.compose import Parts
    from mindstream.memory import MemoryStore, MemoryStream

_SESSIONS = 64  # the oldest tab's session is dropped beyond this


Line = Annotated[str, Field(min_length=1, max_length=2000), AfterValidator(no_control)]


class AskIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session: str = Field(min_length=1, max_length=64)
    question: Line
    choices: list[Line] = Field(default_factory=list, max_length=8)


class MoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session: str = Field(min_length=1, max_length=64)
    action: Literal["premise_false", "add_fact", "agree"]
    number: int | None = Field(None, ge=1, le=20)
    text: Line | None = None


class PremiseOut(BaseModel):
    number: int
    text: str
    taught: bool = Field(description="from memory (a person taught it), not written by the model")


class AnswerOut(BaseModel):
    question: str
    choices: list[str]
    choice: str | None
    mode: str
    hypothesis: str | None
    premises: list[PremiseOut]
    verifier: float | None = Field(None, description="the verifier's P(premises entail it)")
    ruled_out: list[str] = Field(
        default_factory=list, description="choices a taught fact shows false"
    )
    ruled_out_by: list[str] = Field(
        default_factory=list, description="the taught fact that ruled out each of ruled_out"
    )
    note: str | None = Field(None, description="what picking a fact did to the proof")


def answer_out(answer: Answer) -> AnswerOut:
    proof = answer.proof
    premises = proof.premises if proof else []
    return AnswerOut(
        question=answer.question,
        choices=answer.choices,
        choice=answer.choice,
        mode=answer.mode,
        hypothesis=proof.hypothesis if proof else None,
        premises=[
            PremiseOut(number=n, text=p.text, taught=p.memory_id is not None)
            for n, p in enumerate(premises, start=1)
        ],
        verifier=proof.entailment if proof else None,
        ruled_out=[answer.choices[v.choice_index] for v in answer.vetoes],
        ruled_out_by=[v.fact for v in answer.vetoes],
        note=answer.note,
    )


class TeachDesk:
    """Sessions by id over one reasoner; the model loads on the first question."""

    def __init__(self, parts: Parts, folder: Path, store: MemoryStore | None = None) -> None:
        self.parts = parts
        self.folder = folder
        self._store = store  # a chroma server's collection when replicas share one
        self._stream: MemoryStream | None = None
        self._sessions: OrderedDict[tuple[str, str], TeachMeSession] = OrderedDict()
        self._lock = threading.Lock()  # one model, one answer at a time

    def ask(self, user: str, body: AskIn) -> AnswerOut:
        with self._lock:
            session = self._session(user, body.session)
            return answer_out(session.ask(body.question, body.choices or None))

    def move(self, user: str, body: MoveIn) -> AnswerOut:
        with self._lock:
            session = self._session(user, body.session)
            if body.action == "premise_false":
                if body.number is None:
                    raise ValueError("number: say which premise is false")
                return answer_out(session.premise_false(body.number))
            if body.action == "add_fact":
                if not (body.text or "").strip():
                    raise ValueError("text: the fact is empty")
                return answer_out(session.add_fact(body.text or ""))
            return answer_out(session.agree())

    def taught(self, user: str) -> list[MemoryOut]:
        """Everything this user taught, newest first, superseded corrections included (their
        status says so; metadata holds the action and the question: the provenance)."""
        records = self.stream().records(user)
        return [MemoryOut.of(r) for r in sorted(records, key=lambda r: r.created_at, reverse=True)]

    def stream(self) -> MemoryStream:
        if self._stream is None:
            self._stream = self.parts.stream(self.folder, store=self._store)
        return self._stream

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()

    def forget_user(self, user: str) -> int:
        """A deleted user's sessions and taught facts; how many facts."""
        with self._lock:
            for key in [k for k in self._sessions if k[0] == user]:
                del self._sessions[key]
            if self._stream is None and self._store is None and not self.folder.is_dir():
                return 0
            stream = self.stream()
            stream.flush()
            return stream.drop_owner(user)

    def _session(self, user: str, tab: str) -> TeachMeSession:
        from mindstream.agents.teachme import TeachMeSession

        key = (user, tab)
        if key not in self._sessions:
            reasoner = self.parts.reasoner(self.stream(), user=user)
            self._sessions[key] = TeachMeSession(reasoner)
            while len(self._sessions) > _SESSIONS:
                self._sessions.popitem(last=False)
        self._sessions.move_to_end(key)
        return self._sessions[key]
