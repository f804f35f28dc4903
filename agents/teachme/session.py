"""The TeachMe dialog tree: after each answer the user agrees, corrects or teaches, and the
reasoner answers again. Everything taught is a memory in the user's namespace, with provenance
(which question, which action, when)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from mindstream.agents.teachme.language import negate, normal_form
from mindstream.agents.teachme.reasoner import Answer, Premise, TeachableReasoner
from mindstream.memory import MemoryKind, MemoryRecord, NewMemory, new_memory

TAUGHT_IMPORTANCE = 8.0  # what a user takes the trouble to teach matters
_CHOICE = re.compile(r"\(([A-Ha-h])\)\s*")


class NoAnswerError(ValueError):
    """An action needs a current answer (ask a question first)."""


def split_choices(text: str) -> tuple[str, list[str]]:
    """'Can a magnet attract a penny? (A) yes (B) no' -> ('Can a magnet ...?', ['yes', 'no'])."""
    parts = _CHOICE.split(text)
    stem = parts[0].strip()
    choices = [c.strip() for c in parts[2::2] if c.strip()]
    return stem, choices


class TeachMeSession:
    """Holds the current question and answer; every action returns the new answer."""

    def __init__(self, reasoner: TeachableReasoner) -> None:
        self.reasoner = reasoner
        self.question: str | None = None
        self.choices: list[str] = []
        self.answer: Answer | None = None

    def ask(self, question: str, choices: Sequence[str] | None = None) -> Answer:
        if choices is None:
            question, choices = split_choices(question)
        if not question.strip():
            raise ValueError("the question is empty")
        if len(choices) < 2:
            raise ValueError(
                "give at least two choices: 'QUESTION (A) first choice (B) second choice'"
            )
        self.question, self.choices = question, list(choices)
        return self._reanswer()

    # ---- the user's moves --------------------------------------------------------------
    def agree(self) -> Answer:
        """Store the proof's premises and conclusion, so the same question gets the same answer."""
        answer = self._current()
        if answer.proof is not None:
            for premise in answer.proof.premises:
                if premise.memory_id is None:
                    self._teach(premise.text, "agree")
            self._teach(answer.proof.hypothesis, "agree")
        return self._reanswer()

    def premise_false(self, number: int) -> Answer:
        """Premise `number` (1-based) is false: store its negation (superseding a taught one)."""
        premise = self._premise(number)
        negation = negate(premise.text)
        if premise.memory_id is not None:
            self.reasoner.stream.supersede(
                premise.memory_id, self._memory(negation, "premise false", MemoryKind.CORRECTION)
            )
        else:
            self._teach(negation, "premise false", MemoryKind.CORRECTION)
        return self._reanswer()

    def add_fact(self, text: str) -> Answer:
        """A fact is missing: store it (only with a question to re-answer)."""
        self._current()
        self._teach(text, "missing fact")
        return self._reanswer()

    def fact_true(self, text: str) -> Answer:
        """A fact the model disbelieved is true: store it, so it is believed from now on."""
        self._current()
        self._teach(text, "fact is true")
        return self._reanswer()

    def bad_reasoning(self) -> Answer:
        """The premises do not lead to the conclusion: block this step for good."""
        answer = self._current()
        if answer.proof is None:
            raise NoAnswerError("there is no reasoning to block")
        proof = answer.proof
        premises = [p.text for p in proof.premises]
        because = " and ".join(premises) or "nothing"
        text = f"Bad reasoning: {because} does not show that {proof.hypothesis}"
        self._teach(
            text,
            "bad reasoning",
            MemoryKind.CORRECTION,
            blocked_hypothesis=proof.hypothesis,
            blocked_premises=json.dumps(premises),
        )
        return self._reanswer()

    def use_fact(self, number: int) -> Answer:
        """Pick one of the considered facts (1-based): it becomes the proof's premise, and the
        answer's `note` says how the proof changed, or why it could not."""
        answer = self._current()
        if not 1 <= number <= len(answer.considered):
            raise ValueError(
                f"pick one of the {len(answer.considered)} considered facts by its number"
            )
        fact = self._teach(answer.considered[number - 1].text, "picked fact")
        assert self.question is not None
        forced = self.reasoner.answer(self.question, self.choices or None, force=fact.id)
        self.answer = forced.model_copy(update={"note": _forced_note(answer, forced, fact)})
        return self.answer

    def forget(self, memory_id: str) -> Answer:
        self.reasoner.stream.forget(memory_id)
        return self._reanswer()

    def forget_all(self) -> Answer:
        self.reasoner.stream.forget_all(self.reasoner.user)
        return self._reanswer()

    def taught(self) -> list[MemoryRecord]:
        return [
            r
            for r in self.reasoner.stream.records(self.reasoner.user)
            if r.status.value == "active"
        ]

    # ---- helpers -----------------------------------------------------------------------
    def _reanswer(self) -> Answer:
        if self.question is None:
            raise NoAnswerError("ask a question first")
        self.answer = self.reasoner.answer(self.question, self.choices or None)
        return self.answer

    def _current(self) -> Answer:
        if self.answer is None:
            raise NoAnswerError("ask a question first")
        return self.answer

    def _premise(self, number: int) -> Premise:
        proof = self._current().proof
        premises = proof.premises if proof else []
        if not 1 <= number <= len(premises):
            raise ValueError(f"the proof has {len(premises)} premise(s); pick 1..{len(premises)}")
        return premises[number - 1]

    def _memory(
        self, text: str, action: str, kind: MemoryKind = MemoryKind.FACT, **extra: str
    ) -> NewMemory:
        if not text.strip():
            raise ValueError("the fact is empty")
        metadata = {"question": self.question or "", "action": action, **extra}
        return new_memory(
            text=text.strip(),
            owner=self.reasoner.user,
            kind=kind,
            importance=TAUGHT_IMPORTANCE,
            metadata=metadata,
        )

    def _teach(
        self, text: str, action: str, kind: MemoryKind = MemoryKind.FACT, **extra: str
    ) -> MemoryRecord:
        """Store a taught memory, unless the same text is already taught (then that one)."""
        memory = self._memory(text, action, kind, **extra)
        for record in self.taught():
            if normal_form(record.text) == normal_form(memory.text) and record.kind is kind:
                return record
        return self.reasoner.stream.add_many([memory])[0]


def _forced_note(before: Answer, after: Answer, fact: MemoryRecord) -> str:
    """What picking `fact` did to the proof, in one line."""
    premise = after.proof.premises[0].memory_id if after.proof and after.proof.premises else None
    if premise != fact.id:
        vetoed = [v for v in after.vetoes if v.memory_id == fact.id]
        if vetoed:
            because = f"it rules out {', '.join(after.choices[v.choice_index] for v in vetoed)}"
        else:
            because = "every proof from it is blocked or ruled out"
        return f"Not used: {because}; the answer stays as it was."
    was = before.proof.premises[0].memory_id if before.proof and before.proof.premises else None
    if was == fact.id and before.choice_index == after.choice_index:
        return "That fact was already the proof's premise; nothing changed."
    if before.choice_index == after.choice_index:
        return "The proof now rests on that fact; the answer is the same."
    return f"The proof now rests on that fact, and the answer changed to {after.choice!r}."
