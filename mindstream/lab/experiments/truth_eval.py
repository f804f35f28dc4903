"""`mindstream eval truth`: knowing what is true now, measured on streams.

Each labelled conversation is remembered turn by turn at its session times, as the assistant
remembers a chat (the user's turns are recalled; the assistant's own are kept for history,
never recalled), once without change detection and once with it. Then:

- supersede precision: automatic supersedes whose old turn had really gone out of date by
  then (and, stricter, whose new turn is the labelled replacement or follows it);
- supersede recall: outdated turns superseded by the end;
- still-true facts retired: must-stay turns superseded;
- current first: for each question about a changed fact, the current turn in the top 10 of
  what the assistant recalls and above every outdated one (the baseline beside it);
- evidence recall@10 over every question, with and without detection;
- memories/s of remembering with and without detection;
- every automatic decision, with its probability and rule.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import Progress

from mindstream.lab.experiments.report import table, write_section
from mindstream.lab.experiments.truth_data import Conversation, Turn
from mindstream.memory import (
    InMemoryStore,
    ManualClock,
    MemoryKind,
    MemoryRecord,
    MemoryStatus,
    MemoryStream,
    StreamConfig,
    new_memory,
)
from mindstream.memory.statements import is_question

if TYPE_CHECKING:
    from mindstream.compose import Parts

K = 10
RECALLED = (MemoryKind.OBSERVATION, MemoryKind.DIALOGUE, MemoryKind.FACT, MemoryKind.CORRECTION)
ALONE = "pair judge alone"  # shown when the policy has the chat model confirm
CONDITIONS = ("no detection", ALONE, "detection")


def run(
    conversations: Sequence[Conversation],
    out: Path | None,
    parts: Parts,
    *,
    named: bool = False,
    command: str = "mindstream eval truth",
    section: str = "truth",
) -> dict[str, Any]:
    """Every conversation under each condition; the summary and the decisions."""
    policies = _policies(parts.config.assistant.stream)
    per: list[dict[str, Any]] = []
    with Progress() as progress:
        for conversation in conversations:
            row: dict[str, Any] = {"conversation": conversation.sample_id}
            for name, config in policies.items():

                def build(config: StreamConfig = config) -> MemoryStream:
                    return parts.stream(store=InMemoryStore(), policy=config, clock=ManualClock())

                row[name] = measure(conversation, build, named=named, progress=progress)
            per.append(row)
    result = summarise(per, named=named, command=command)
    if out is not None:
        write_section(section, markdown(result), result, out)
    return result


def _policies(policy: StreamConfig) -> dict[str, StreamConfig]:
    """No detection, detection as configured, and the pair judge without the chat model's
    confirmation when the policy asks for it (to show what the second opinion does)."""
    out = {"no detection": policy.with_changes(enabled=False)}
    if policy.changes.confirm_from is not None:
        out[ALONE] = policy.with_changes(enabled=True, confirm_from=None)
    out["detection"] = policy.with_changes(enabled=True)
    return out


def remember(stream: MemoryStream, owner: str, turn: Turn, named: bool) -> MemoryRecord:
    """A turn as the assistant keeps it: the user's statements recalled, questions and the
    assistant's own turns kept for history only."""
    text = f"{turn.speaker}: {turn.text}" if named else turn.text
    recalled = turn.by_user and not is_question(turn.text)
    clock = stream.clock
    if isinstance(clock, ManualClock):
        clock.set(turn.at)
    item = new_memory(
        text=text,
        owner=owner,
        kind=MemoryKind.DIALOGUE,
        importance=5.0,
        created_at=turn.at,
        metadata={
            "dia_id": turn.dia_id,
            "role": "user" if turn.by_user else "assistant",
            "recall": recalled,
        },
    )
    return stream.add_many([item])[0]


def measure(
    conversation: Conversation,
    build: Callable[[], MemoryStream],
    *,
    named: bool,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """One conversation under one stream: ingest turn by turn, then score."""
    stream = build()
    owner = conversation.sample_id
    task = progress.add_task(owner, total=len(conversation.turns)) if progress else None
    started = time.perf_counter()
    for turn in conversation.turns:
        remember(stream, owner, turn, named)
        if progress is not None and task is not None:
            progress.advance(task)
    settle = getattr(stream, "settle", None)
    if callable(settle):
        settle()
    seconds = time.perf_counter() - started
    if progress is not None and task is not None:
        progress.remove_task(task)
    records = stream.records(owner)
    tally = score(conversation, records)
    tally["questions"] = ask(conversation, stream)
    tally["seconds"] = seconds
    tally["memories"] = len(conversation.turns)
    return tally


def _turn_of(record: MemoryRecord) -> str:
    return str(record.metadata.get("dia_id", ""))


def score(conversation: Conversation, records: Sequence[MemoryRecord]) -> dict[str, Any]:
    """What the automatic supersedes got right and wrong, against the labels."""
    by_turn = {_turn_of(r): r for r in records}
    by_id = {r.id: r for r in records}
    at = {t.dia_id: t.at for t in conversation.turns}
    text = {t.dia_id: t.text for t in conversation.turns}
    outdated = conversation.outdated_at()
    follows = _follows(conversation)
    decisions = []
    for record in records:
        if record.status is not MemoryStatus.SUPERSEDED:
            continue
        new = by_id.get(record.replaced_by or "")
        if new is None:
            continue
        old_turn, new_turn = _turn_of(record), _turn_of(new)
        really = old_turn in outdated and outdated[old_turn] <= at[new_turn]
        decisions.append(
            {
                "old": old_turn,
                "new": new_turn,
                "old_text": text[old_turn],
                "new_text": text[new_turn],
                "how": record.provenance.how,
                "p": record.provenance.probability,
                "right": really,
                "link_right": new_turn in follows.get(old_turn, set()),
            }
        )
    superseded = {d["old"] for d in decisions}
    linked = {d["old"] for d in decisions if d["link_right"]}
    return {
        "decisions": decisions,
        "supersedes": len(decisions),
        "right": sum(d["right"] for d in decisions),
        "link_right": sum(d["link_right"] for d in decisions),
        "outdated": len(outdated),
        "outdated_superseded": len(superseded & set(outdated)),
        "outdated_linked": len(linked & set(outdated)),
        "stays": len(conversation.stays),
        "stays_retired": sorted(s for s in conversation.stays if s in superseded),
        "true_retired": sorted(
            d["old"] for d in decisions if not d["right"] and d["old"] in by_turn
        ),
    }


def _follows(conversation: Conversation) -> dict[str, set[str]]:
    """old turn -> every turn that replaces it, directly or down its chain of changes (and
    restatements of a replacement)."""
    nexts: dict[str, set[str]] = {}
    for link in [*conversation.changes, *conversation.restates]:
        nexts.setdefault(link.old, set()).add(link.new)
    changed = {link.old for link in conversation.changes}
    out: dict[str, set[str]] = {}
    for old in changed:
        seen: set[str] = set()
        todo = [n for link in conversation.changes if link.old == old for n in [link.new]]
        while todo:
            turn = todo.pop()
            if turn not in seen:
                seen.add(turn)
                todo += list(nexts.get(turn, ()))
        out[old] = seen
    return out


def ask(conversation: Conversation, stream: MemoryStream) -> list[dict[str, Any]]:
    """Each question's top K as the assistant recalls them (superseded memories as history
    after what replaced them): evidence found, and current-first for changed facts."""
    owner = conversation.sample_id
    now = conversation.turns[-1].at + timedelta(days=1)
    rows = []
    for question in conversation.questions:
        found = stream.retrieve(
            question.question,
            K,
            owner=owner,
            now=now,
            kinds=RECALLED,
            with_replaced=True,
            touch=False,
        )
        ranked = [_turn_of(m.record) for m in found]
        position = {turn: n for n, turn in enumerate(ranked)}
        current = min((position[e] for e in question.evidence if e in position), default=None)
        stale = min((position[e] for e in question.outdated if e in position), default=None)
        rows.append(
            {
                "question": question.question,
                "changed": bool(question.outdated),
                "evidence_found": len(set(question.evidence) & set(ranked))
                / len(question.evidence),
                "current_first": current is not None and (stale is None or current < stale),
            }
        )
    return rows


def summarise(per: list[dict[str, Any]], *, named: bool, command: str) -> dict[str, Any]:
    conditions = {}
    for name in (c for c in CONDITIONS if c in per[0]):
        rows = [p[name] for p in per]
        questions = [q for r in rows for q in r["questions"]]
        changed = [q for q in questions if q["changed"]]
        supersedes = sum(r["supersedes"] for r in rows)
        outdated = sum(r["outdated"] for r in rows)
        stays = sum(r["stays"] for r in rows)
        conditions[name] = {
            "supersedes": supersedes,
            "precision": _ratio(sum(r["right"] for r in rows), supersedes),
            "link_precision": _ratio(sum(r["link_right"] for r in rows), supersedes),
            "recall": _ratio(sum(r["outdated_superseded"] for r in rows), outdated),
            "link_recall": _ratio(sum(r["outdated_linked"] for r in rows), outdated),
            "outdated": outdated,
            "stays": stays,
            "stays_retired": sum(len(r["stays_retired"]) for r in rows),
            "stays_retired_rate": _ratio(sum(len(r["stays_retired"]) for r in rows), stays),
            "true_retired": sum(len(r["true_retired"]) for r in rows),
            "current_first": _ratio(sum(q["current_first"] for q in changed), len(changed)),
            "changed_questions": len(changed),
            "recall_at_10": _ratio(sum(q["evidence_found"] for q in questions), len(questions)),
            "questions": len(questions),
            "memories_per_s": _ratio(
                sum(r["memories"] for r in rows), sum(r["seconds"] for r in rows)
            ),
        }
    return {
        "command": command,
        "named": named,
        "conversations": [p["conversation"] for p in per],
        "conditions": conditions,
        "per_conversation": per,
    }


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 4) if b else None


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def markdown(result: dict[str, Any]) -> str:
    n = result["conditions"]["no detection"]
    names = ", ".join(result["conversations"])
    speaker = " (each turn carries its speaker's name)" if result["named"] else ""

    shown = [c for c in CONDITIONS if c in result["conditions"]]

    def row(label: str, show: Callable[[dict[str, Any]], str]) -> list[str]:
        return [label] + [show(result["conditions"][c]) for c in shown]

    rows = [
        row("automatic supersedes", lambda c: str(c["supersedes"])),
        row("precision (old turn really out of date)", lambda c: _pct(c["precision"])),
        row("precision (labelled replacement)", lambda c: _pct(c["link_precision"])),
        row("recall (outdated turns superseded)", lambda c: _pct(c["recall"])),
        row("must-stay facts retired", lambda c: f"{c['stays_retired']}/{c['stays']}"),
        row("any still-true turn retired", lambda c: str(c["true_retired"])),
        row("current first (changed-fact questions)", lambda c: _pct(c["current_first"])),
        row("evidence recall@10 (all questions)", lambda c: _pct(c["recall_at_10"])),
        row("memories/s", lambda c: f"{c['memories_per_s']:.1f}"),
    ]
    wrong = [
        [x["conversation"], dec["old_text"][:70], dec["new_text"][:70], dec["p"]]
        for x in result["per_conversation"]
        for dec in x["detection"]["decisions"]
        if not dec["right"]
    ]
    out = [
        f"## Knowing what is true now, on streams{speaker}\n",
        f"Conversations: {names}; {n['outdated']} outdated turns, {n['stays']} must-stay facts, "
        f"{n['changed_questions']} questions about changed facts.\n",
        table(["", *shown], rows),
    ]
    if wrong:
        out += ["\nWrong supersedes (old still true):\n", table(["", "old", "new", "P"], wrong)]
    return "\n".join(out) + "\n"
