"""(question, evidence turn) pairs for the dialogue retriever, with hard negatives: turns of the
same conversation that the stock embedder puts near the question but that do not answer it.

Three sources, all read where they lie (nothing is copied into the repository):
- the train split of mindstream's own labelled chats (`data/truth`): each question and the turns
  its answer cites (turns it names as outdated are never negatives);
- FriendsQA (Yang and Choi 2019; Apache-2.0, emorynlp/FriendsQA, `dat/friendsqa_*.json`):
  TV-scene dialogue, the utterance holding each answer span;
- OpenBookQA train (TeachMe's own retrieval: question and choices against the core facts),
  so the one embedder keeps serving TeachMe;
- Molweni (Li et al. 2020; Apache-2.0, HIT-SCIR/Molweni, `MRC(withDiscourse)/*.json`): Ubuntu
  chat, the turn holding each answer's character offset.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from mindstream.lab.experiments.truth_data import Conversation, Turn
from mindstream.memory.statements import is_question

Embed = Callable[[Sequence[str]], np.ndarray]
NEGATIVES = 5  # hard negatives kept per pair
_DETOKENISE = (
    (" n't", "n't"),
    (" 's", "'s"),
    (" 're", "'re"),
    (" 'm", "'m"),
    (" 've", "'ve"),
    (" 'll", "'ll"),
    (" 'd", "'d"),
)


class RetrieverDataError(ValueError):
    """A data file that cannot be used; the message names the file and the field."""


class Pair(BaseModel):
    model_config = ConfigDict(frozen=True)

    query: str
    positive: str
    negatives: tuple[str, ...]
    source: str


class Dialogue(BaseModel):
    """One conversation's recallable turns and its questions (turn indexes of the answers)."""

    model_config = ConfigDict(frozen=True)

    turns: tuple[str, ...]
    questions: tuple[tuple[str, tuple[int, ...], tuple[int, ...]], ...]  # query, answers, skip


def mined(dialogues: Sequence[Dialogue], embed: Embed, source: str) -> list[Pair]:
    """One pair per (question, answering turn); negatives: the nearest other turns."""
    pairs: list[Pair] = []
    for dialogue in dialogues:
        if not dialogue.questions:
            continue
        turns = embed(list(dialogue.turns))
        queries = embed([q for q, _, _ in dialogue.questions])
        for (query, answers, skip), similarity in zip(
            dialogue.questions, queries @ turns.T, strict=True
        ):
            barred = set(answers) | set(skip)
            order = [int(i) for i in np.argsort(-similarity, kind="stable")]
            negatives = tuple(dialogue.turns[i] for i in order if i not in barred)[:NEGATIVES]
            pairs += [
                Pair(query=query, positive=dialogue.turns[a], negatives=negatives, source=source)
                for a in answers
            ]
    return pairs


def recalled_turns(conversation: Conversation) -> list[Turn]:
    """The user's statements: what the assistant recalls (its own turns and the user's
    questions are kept for history only)."""
    return [t for t in conversation.turns if t.by_user and not is_question(t.text)]


def from_chats(conversations: Sequence[Conversation]) -> list[Dialogue]:
    """The user's statements (what the assistant recalls) and the questions citing them."""
    dialogues = []
    for conversation in conversations:
        said = recalled_turns(conversation)
        row = {t.dia_id: n for n, t in enumerate(said)}
        questions = tuple(
            (
                q.question,
                tuple(row[e] for e in q.evidence if e in row),
                tuple(row[o] for o in q.outdated if o in row),
            )
            for q in conversation.questions
            if any(e in row for e in q.evidence)
        )
        dialogues.append(Dialogue(turns=tuple(t.text for t in said), questions=questions))
    return dialogues


def from_openbookqa(path: Path, limit: int | None = None, seed: int = 0) -> list[Dialogue]:
    """TeachMe's retrieval: a question with its choices (as TeachMe asks) against the core
    facts of every train question, the right one its own (the embedder serves both uses)."""
    from mindstream.lab.experiments.openbookqa import load_questions

    questions = load_questions(path, flag="--openbookqa")
    facts = sorted({q.fact for q in questions})
    row = {fact: n for n, fact in enumerate(facts)}
    chosen = random.Random(seed).sample(questions, min(limit or len(questions), len(questions)))
    asked = tuple((" ".join([q.stem, *q.choices]), (row[q.fact],), ()) for q in chosen)
    return [Dialogue(turns=tuple(facts), questions=asked)]


def from_friendsqa(path: Path) -> list[Dialogue]:
    """Each scene's utterances as "Speaker: text" and each question's answering utterances."""
    raw = _json(path)
    dialogues = []
    for n, scene in enumerate(_field(raw, "data", path, list)):
        for paragraph in _field(scene, "paragraphs", path, list, f"data[{n}]"):
            said = _field(paragraph, "utterances:", path, list, f"data[{n}].paragraphs")
            turns = tuple(_friends_turn(u) for u in said)
            questions = []
            for qa in paragraph.get("qas") or []:
                answers = {a.get("utterance_id") for a in qa.get("answers") or []}
                rows = tuple(sorted(a for a in answers if isinstance(a, int) and a < len(turns)))
                if rows and qa.get("question"):
                    questions.append((detokenise(str(qa["question"])), rows, ()))
            dialogues.append(Dialogue(turns=turns, questions=tuple(questions)))
    return _nonempty(dialogues, path)


def _friends_turn(utterance: dict[str, Any]) -> str:
    speaker = " and ".join(utterance.get("speakers") or ["Someone"])
    return f"{speaker}: {detokenise(str(utterance.get('utterance') or ''))}"


def from_molweni(path: Path) -> list[Dialogue]:
    """Each chat's turns, and the turn in which each answer starts."""
    raw = _json(path)
    data = _field(raw, "data", path, dict)
    dialogues = []
    for n, chat in enumerate(_field(data, "dialogues", path, list, "data")):
        edus = _field(chat, "edus", path, list, f"data.dialogues[{n}]")
        context = str(chat.get("context") or "")
        starts, cursor = [], 0
        for edu in edus:
            spoken = f"{edu.get('speaker', '')}: {edu.get('text', '')}".lower()
            found = context.find(spoken, cursor)
            starts.append(found if found >= 0 else cursor)
            cursor = max(cursor, found + len(spoken)) if found >= 0 else cursor
        turns = tuple(f"{e.get('speaker', '')}: {detokenise(str(e.get('text', '')))}" for e in edus)
        questions = []
        for qa in chat.get("qas") or []:
            if qa.get("is_impossible") or not qa.get("answers"):
                continue
            at = int(qa["answers"][0].get("answer_start", -1))
            row = max((i for i, s in enumerate(starts) if s <= at), default=None)
            if row is not None and at >= 0:
                questions.append((detokenise(str(qa["question"])), (row,), ()))
        dialogues.append(Dialogue(turns=turns, questions=tuple(questions)))
    return _nonempty(dialogues, path)


def detokenise(text: str) -> str:
    """Undo PTB-style tokenisation ("do n't ." -> "don't.") so pairs read like chat."""
    for spaced, joined in _DETOKENISE:
        text = text.replace(spaced, joined)
    return re.sub(r" ([.,!?;:])", r"\1", text).strip()


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RetrieverDataError(f"{path}: not readable JSON ({error})") from None


def _field(item: Any, key: str, path: Path, kind: type, where: str = "top level") -> Any:
    value = item.get(key) if isinstance(item, dict) else None
    if not isinstance(value, kind):
        raise RetrieverDataError(f"{path}: {where}: field {key!r} missing or not a {kind.__name__}")
    return value


def _nonempty(dialogues: list[Dialogue], path: Path) -> list[Dialogue]:
    if not any(d.questions for d in dialogues):
        raise RetrieverDataError(f"{path}: no question with an answering turn")
    return dialogues


def write(pairs: Sequence[Pair], path: Path) -> None:
    path.write_text("".join(p.model_dump_json() + "\n" for p in pairs), encoding="utf-8")
