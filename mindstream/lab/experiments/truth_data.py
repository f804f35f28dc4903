"""Long conversations with labelled changes, for `mindstream eval truth` and the change judge's
training: which user turn a later one makes out of date, which it only restates, and which
facts must stay true to the end.

Two forms of one thing. The source is a `.chat` file written by hand (data/truth/README.md):

    ## session 2026-01-04 19:20
    U {home}: we're in leeds, the flat near hyde park corner
    U {home2 > home}: first night in the new house in york!!
    A: Congratulations on the move!

The evaluation reads LoCoMo-style JSON (a list of samples: `conversation` with dated sessions
of turns `D<session>:<turn>`, `qa`), with three more lists per sample: `changes` (`{"old":
id, "new": id}`), `restates` (same form) and `stays` (ids). `load` reads either form; a label
naming a turn the conversation does not have is refused in one line naming the file, the
conversation and the id.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from mindstream.lab.experiments.long_memory import SESSION_KEY, _date

DATA = Path(__file__).parent / "data" / "truth"
SPLITS = ("train", "dev", "heldout")
_SESSION = re.compile(r"^## session (\d{4}-\d{2}-\d{2} \d{2}:\d{2})\s*$")
_TURN = re.compile(r"^(U|A)(?:\s*\{([^}]*)\})?\s*:\s*(.+)$")
_QUESTION = re.compile(r"^Q(?: (multi-hop|temporal))?:(.*)$")
Category = Literal["multi-hop", "temporal"]
CATEGORIES = ("multi-hop", "temporal")
_LABEL = re.compile(r"^([A-Za-z0-9_-]+)\s*(?:([>=])\s*([A-Za-z0-9_,\s-]+?))?\s*(!)?\s*$")
_HEADER = re.compile(r"^(title|user|assistant|style):\s*(.+)$")


class TruthDataError(ValueError):
    """A conversation file that cannot be used; the message names the file and the place."""


class Turn(BaseModel):
    model_config = ConfigDict(frozen=True)

    dia_id: str
    speaker: str
    text: str
    at: datetime
    by_user: bool


class Link(BaseModel):
    model_config = ConfigDict(frozen=True)

    old: str
    new: str


class Question(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: str
    answer: str
    evidence: tuple[str, ...]
    outdated: tuple[str, ...] = ()
    category: Category | None = None


class Conversation(BaseModel):
    """One labelled conversation: turns in time order and what the labels say of them."""

    model_config = ConfigDict(frozen=True)

    sample_id: str
    user: str
    style: str = ""
    turns: tuple[Turn, ...]
    changes: tuple[Link, ...]
    restates: tuple[Link, ...] = ()
    stays: tuple[str, ...] = ()
    questions: tuple[Question, ...] = ()

    def outdated_at(self) -> dict[str, datetime]:
        """Each turn that goes out of date, and when (its first replacement's time)."""
        at = {t.dia_id: t.at for t in self.turns}
        out: dict[str, datetime] = {}
        for link in self.changes:
            out[link.old] = min(out.get(link.old, at[link.new]), at[link.new])
        return out


def load(path: Path) -> list[Conversation]:
    """A `.chat` file, a folder of them, or a LoCoMo-style JSON file."""
    if path.is_dir():
        files = sorted(path.rglob("*.chat"))
        if not files:
            raise TruthDataError(f"{path}: no .chat file in this folder")
        return [parse_chat(f) for f in files]
    if path.suffix == ".chat":
        return [parse_chat(path)]
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise TruthDataError(f"{path}: not readable JSON ({error})") from None
    if not isinstance(raw, list) or not raw:
        raise TruthDataError(f"{path}: expected a non-empty list of conversations")
    return [from_json(item, path, n) for n, item in enumerate(raw)]


def split(name: str) -> list[Conversation]:
    """The shipped conversations of one split: train, dev (tuned on) or heldout (never)."""
    if name not in SPLITS:
        raise TruthDataError(f"split: {name!r} is none of {', '.join(SPLITS)}")
    return load(DATA / name)


def from_json(item: Any, path: Path, n: int) -> Conversation:
    """One LoCoMo-style sample with change labels."""
    name = f"{path}: conversation {n}"
    if not isinstance(item, dict) or not isinstance(item.get("conversation"), dict):
        raise TruthDataError(f"{name}: no 'conversation' object")
    sample_id = str(item.get("sample_id") or n)
    name = f"{path}: conversation {sample_id!r}"
    conversation = item["conversation"]
    user = str(conversation.get("speaker_a") or "")
    turns = _json_turns(conversation, user, name)
    known = {t.dia_id for t in turns}

    def ids(values: Any, field: str) -> tuple[str, ...]:
        for value in values or []:
            if str(value) not in known:
                raise TruthDataError(f"{name}: {field} names unknown turn id {value!r}")
        return tuple(str(v) for v in values or [])

    def links(field: str) -> tuple[Link, ...]:
        return tuple(
            Link(old=ids([x.get("old")], field)[0], new=ids([x.get("new")], field)[0])
            for x in item.get(field) or []
        )

    questions = tuple(
        Question(
            question=str(q.get("question", "")),
            answer=str(q.get("answer", "")),
            evidence=ids(q.get("evidence"), "qa evidence"),
            outdated=ids(q.get("outdated"), "qa outdated"),
            category=q.get("category") if q.get("category") in CATEGORIES else None,
        )
        for q in item.get("qa") or []
    )
    return Conversation(
        sample_id=sample_id,
        user=user,
        style=str(item.get("style", "")),
        turns=tuple(turns),
        changes=links("changes"),
        restates=links("restates"),
        stays=ids(item.get("stays"), "stays"),
        questions=questions,
    )


def _json_turns(conversation: dict[str, Any], user: str, name: str) -> list[Turn]:
    sessions = sorted(int(m.group(1)) for key in conversation if (m := SESSION_KEY.match(key)))
    turns = []
    for session in sessions:
        start = _date(conversation.get(f"session_{session}_date_time"))
        if start is None:
            raise TruthDataError(f"{name}: session_{session}_date_time is not a date")
        for k, turn in enumerate(conversation[f"session_{session}"] or []):
            speaker = str(turn.get("speaker", ""))
            turns.append(
                Turn(
                    dia_id=str(turn.get("dia_id") or f"D{session}:{k + 1}"),
                    speaker=speaker,
                    text=str(turn.get("text", "")),
                    at=start + timedelta(seconds=30 * k),
                    by_user=speaker == user,
                )
            )
    return turns


def parse_chat(path: Path) -> Conversation:
    """A `.chat` source file (see data/truth/README.md)."""
    reader = _ChatReader(path)
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        reader.line(raw.rstrip(), f"{path}:{n}")
    return reader.conversation()


class _ChatReader:
    """The state of reading one `.chat` file, line by line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: dict[str, str] = {}
        self.sessions: list[tuple[datetime, list[Turn]]] = []
        self.keys: dict[str, str] = {}
        self.changes: list[Link] = []
        self.restates: list[Link] = []
        self.stays: list[str] = []
        self.questions: list[Question] = []
        self.asking = False

    def line(self, line: str, where: str) -> None:
        if not line.strip() or line.startswith("# "):
            return
        if line.strip() == "## questions":
            self.asking = True
        elif self.asking:
            self._question(line, where)
        elif m := _SESSION.match(line):
            self._session(datetime.fromisoformat(m.group(1)).replace(tzinfo=UTC), where)
        elif m := _TURN.match(line):
            self._turn(m.group(1) == "U", m.group(2), m.group(3).strip(), where)
        elif (m := _HEADER.match(line)) and not self.sessions:
            self.header[m.group(1)] = m.group(2).strip()
        else:
            raise TruthDataError(f"{where}: not a turn, session, question or header line")

    def _session(self, when: datetime, where: str) -> None:
        if self.sessions and when <= self.sessions[-1][0]:
            raise TruthDataError(f"{where}: sessions must be in time order")
        self.sessions.append((when, []))

    def _turn(self, by_user: bool, label: str | None, text: str, where: str) -> None:
        if not self.sessions:
            raise TruthDataError(f"{where}: a turn before the first '## session'")
        start, turns = self.sessions[-1]
        dia_id = f"D{len(self.sessions)}:{len(turns) + 1}"
        speaker = self.header.get("user" if by_user else "assistant", "User")
        at = start + timedelta(seconds=30 * len(turns))
        turns.append(Turn(dia_id=dia_id, speaker=speaker, text=text, at=at, by_user=by_user))
        if label is not None:
            self._label(label, dia_id, by_user, where)

    def _label(self, label: str, dia_id: str, by_user: bool, where: str) -> None:
        m = _LABEL.match(label.strip())
        if not by_user or m is None:
            raise TruthDataError(f"{where}: bad label {{{label}}} (user turns only)")
        key, op, targets, must_stay = m.groups()
        if key in self.keys:
            raise TruthDataError(f"{where}: key {key!r} used twice")
        for target in [t.strip() for t in (targets or "").split(",") if t.strip()]:
            if target not in self.keys:
                raise TruthDataError(f"{where}: {op} {target!r}: no earlier turn has that key")
            link = Link(old=self.keys[target], new=dia_id)
            (self.changes if op == ">" else self.restates).append(link)
        self.keys[key] = dia_id
        if must_stay:
            self.stays.append(dia_id)

    def _question(self, line: str, where: str) -> None:
        m = _QUESTION.match(line)
        parts = [p.strip() for p in (m.group(2) if m else "").split("|")]
        if m is None or len(parts) not in (3, 4) or not all(parts[:3]):
            raise TruthDataError(
                f"{where}: 'Q: question | answer | evidence | outdated' "
                f"(or 'Q multi-hop:' / 'Q temporal:')"
            )
        keys = [[k.strip() for k in p.split(",") if k.strip()] for p in parts[2:]]
        for key in [k for group in keys for k in group]:
            if key not in self.keys:
                raise TruthDataError(f"{where}: unknown key {key!r}")
        evidence, outdated = keys[0], keys[1] if len(keys) > 1 else []
        self.questions.append(
            Question(
                question=parts[0],
                answer=parts[1],
                evidence=tuple(self.keys[k] for k in evidence),
                outdated=tuple(self.keys[k] for k in outdated),
                category=m.group(1),
            )
        )

    def conversation(self) -> Conversation:
        for field in ("title", "user", "assistant", "style"):
            if field not in self.header:
                raise TruthDataError(f"{self.path}: header '{field}:' is missing")
        retired = {link.old for link in self.changes}
        if wrong := [s for s in self.stays if s in retired]:
            raise TruthDataError(f"{self.path}: {wrong[0]} is must-stay (!) but is replaced")
        return Conversation(
            sample_id=self.path.stem,
            user=self.header["user"],
            style=self.header["style"],
            turns=tuple(t for _, turns in self.sessions for t in turns),
            changes=tuple(self.changes),
            restates=tuple(self.restates),
            stays=tuple(self.stays),
            questions=tuple(self.questions),
        )


def to_json(conversation: Conversation) -> dict[str, Any]:
    """The LoCoMo-style sample `from_json` reads back."""
    sessions: dict[str, list[Turn]] = {}
    for turn in conversation.turns:
        sessions.setdefault(turn.dia_id.split(":")[0][1:], []).append(turn)
    body: dict[str, Any] = {"speaker_a": conversation.user, "speaker_b": "Assistant"}
    for number, turns in sessions.items():
        first = turns[0].at
        body[f"session_{number}_date_time"] = f"{first:%Y-%m-%d %H:%M}"
        body[f"session_{number}"] = [
            {"speaker": t.speaker if t.by_user else "Assistant", "dia_id": t.dia_id, "text": t.text}
            for t in turns
        ]
    return {
        "sample_id": conversation.sample_id,
        "style": conversation.style,
        "conversation": body,
        "changes": [link.model_dump() for link in conversation.changes],
        "restates": [link.model_dump() for link in conversation.restates],
        "stays": list(conversation.stays),
        "qa": [q.model_dump(mode="json") for q in conversation.questions],
    }
