"""`mindstream eval changed-facts`: does the memory answer with what is true now?

Each item is lived through as a user would: the earlier statement, three everyday remarks on
the next three days, the later statement ten days after that, and the item's question a day
later, on the assistant's retrieval policy. For a changed fact the current statement must be
retrieved (top 10) above the old one (a superseded one is not retrieved at all); a compatible
pair must leave the earlier statement active. Policies: the assistant's policy without change
detection (what the code did before), the change judge's supersedes at its threshold, and
those plus near misses ranked above what they probably replaced. The judge's
calibration is read from its P(replaces) on every (earlier, later) pair.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel
from rich.progress import track

from mindstream.lab.experiments.changed_facts_data import GENERATED, HAND, Item, load_templates
from mindstream.lab.experiments.jsonl import read_jsonl
from mindstream.lab.experiments.openbookqa import DataError
from mindstream.lab.experiments.report import table, write_section
from mindstream.memory import InMemoryStore, ManualClock, MemoryStatus, StreamConfig, new_memory
from mindstream.memory.records import ChangePolicy

if TYPE_CHECKING:
    from mindstream.compose import Parts

K = 10
GAP_DAYS = 10
START = datetime(2026, 1, 5, 9, tzinfo=UTC)
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)


class Outcome(BaseModel):
    id: str
    kind: str
    type: str
    source: str
    current_rank: int | None  # 1-based rank of the later statement in the top K
    old_rank: int | None
    superseded: bool  # the earlier statement was superseded on write
    right: bool


def load_items(path: Path) -> list[Item]:
    """Items of one file; a bad line is one error naming the file, line and field."""
    if not path.is_file():
        raise DataError(f"{path}: not found (pass --data with a changed-facts jsonl file)")
    items = read_jsonl(path, Item)
    if not items:
        raise DataError(f"{path}: no items")
    return items


_JUDGED = "+ change judge supersedes"


def policies(assistant: StreamConfig) -> dict[str, StreamConfig]:
    """Before change detection, the judge's supersedes alone, and with its near misses ranked
    above what they probably replaced (`rank_above`, the assistant's default)."""
    changes = assistant.changes.model_copy(update={"enabled": True})
    alone = changes.model_copy(update={"rank_above": None})
    out = {
        "assistant policy, no change detection": assistant.model_copy(
            update={"changes": ChangePolicy(enabled=False)}
        ),
        _JUDGED: assistant.model_copy(update={"changes": alone}),
    }
    if changes.rank_above is not None:
        name = f"+ judge, and P >= {changes.rank_above} ranks above"
        out[name] = assistant.model_copy(update={"changes": changes})
    return out


def live_through(
    item: Item,
    distractors: list[str],
    vectors: dict[str, np.ndarray],
    policy: StreamConfig,
    parts: Parts,
) -> tuple[int | None, int | None, bool]:
    """(rank of the later statement, rank of the earlier, earlier superseded) for one item."""
    texts = [item.earlier, *distractors, item.later]
    days = [0, 1, 2, 3, 3 + GAP_DAYS]
    stream = parts.stream(
        store=InMemoryStore(), clock=ManualClock(START), policy=policy, embedder=_Fixed(vectors)
    )
    ids = []
    for text, day in zip(texts, days, strict=True):
        memory = new_memory(
            text=text, owner="u", kind="fact", importance=5.0, created_at=START + timedelta(day)
        )
        ids.append(stream.add_many([memory], vectors[text][None])[0].id)
    stream.settle()  # the assistant's policy judges in the background
    asked = START + timedelta(days=days[-1] + 1)
    found = stream.retrieve(item.question, K, owner="u", now=asked, touch=False)
    ranked = [m.record.id for m in found]
    rank = {memory_id: n + 1 for n, memory_id in enumerate(ranked)}
    superseded = stream.get(ids[0]).status is MemoryStatus.SUPERSEDED
    return rank.get(ids[-1]), rank.get(ids[0]), superseded


class _Fixed:
    """The embeddings computed up front, as the stream's embedder."""

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts])

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self.embed_array(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def judged(item: Item, current: int | None, old: int | None, superseded: bool) -> bool:
    if item.kind == "changed":
        return current is not None and (old is None or current < old)
    return not superseded


def run(data: list[Path], out: Path, parts: Parts, command: str) -> dict[str, Any]:
    started = time.perf_counter()
    items = [(item, path.stem) for path in data for item in load_items(path)]
    kinds = [item.kind for item, _ in items]
    if not kinds.count("changed") or not kinds.count("compatible"):
        names = ", ".join(str(path) for path in data)
        raise DataError(
            f"{names}: kind: needs both changed and compatible items (found "
            f"{kinds.count('changed')} changed, {kinds.count('compatible')} compatible)"
        )
    distractors = load_templates().distractors
    rng = random.Random(0)
    chosen = {item.id: rng.sample(distractors, 3) for item, _ in items}
    texts = sorted({t for item, _ in items for t in (item.earlier, item.later, item.question)})
    texts += sorted(set(distractors))
    vectors = dict(zip(texts, parts.models.embedder.embed_array(texts), strict=True))
    judge = parts.judge_for(policies(parts.config.assistant.stream)[_JUDGED])
    assert judge is not None
    outcomes: dict[str, list[Outcome]] = {}
    seconds: dict[str, float] = {}
    for name, policy in policies(parts.config.assistant.stream).items():
        tick = time.perf_counter()
        rows = []
        for item, source in track(items, description=name):
            current, old, superseded = live_through(item, chosen[item.id], vectors, policy, parts)
            right = judged(item, current, old, superseded)
            rows.append(
                Outcome(
                    **_ids(item, source),
                    current_rank=current,
                    old_rank=old,
                    superseded=superseded,
                    right=right,
                )
            )
        outcomes[name], seconds[name] = rows, round(time.perf_counter() - tick, 1)
    pairs = [(item.earlier, item.later) for item, _ in items]
    probabilities = judge.replaces_batch(pairs)
    labels = [item.kind == "changed" for item, _ in items]
    result = summarise(items, outcomes, probabilities, labels)
    result.update(
        command=command,
        model=parts.config.model.spec,
        data=[str(p) for p in data],
        seconds=round(time.perf_counter() - started, 1),
        seconds_per_policy=seconds,
    )
    name = (
        "changed_facts"
        if data == DEFAULT_DATA
        else "changed_facts_" + "_".join(p.stem for p in data)
    )
    write_section(name, _markdown(result), result, out)
    plot_calibration(result["calibration"]["bins"], out / f"{name}.png")
    return result


def _ids(item: Item, source: str) -> dict[str, str]:
    return {"id": item.id, "kind": item.kind, "type": item.type, "source": source}


def summarise(
    items: list[tuple[Item, str]],
    outcomes: dict[str, list[Outcome]],
    probabilities: list[float],
    labels: list[bool],
) -> dict[str, Any]:
    by_policy = {name: rates(rows) for name, rows in outcomes.items()}
    by_type = {
        name: _grouped(rows, lambda o: f"{o.kind}: {o.type}") for name, rows in outcomes.items()
    }
    return {
        "items": len(items),
        "policies": by_policy,
        "by_source": {name: _grouped(rows, lambda o: o.source) for name, rows in outcomes.items()},
        "by_type": by_type,
        "calibration": calibration(probabilities, labels),
        "outcomes": {name: [o.model_dump() for o in rows] for name, rows in outcomes.items()},
    }


def rates(rows: list[Outcome]) -> dict[str, Any]:
    changed = [o for o in rows if o.kind == "changed"]
    compatible = [o for o in rows if o.kind == "compatible"]
    return {
        "current_first": _share([o.right for o in changed]),
        "changed": len(changed),
        "old_superseded": _share([o.superseded for o in changed]),
        "false_supersede": _share([o.superseded for o in compatible]),
        "compatible": len(compatible),
        "compatible_earlier_first": _share([_earlier_first(o) for o in compatible]),
    }


def _earlier_first(o: Outcome) -> bool:
    """A compatible pair's earlier statement retrieved above the later one (or without it)."""
    return o.old_rank is not None and (o.current_rank is None or o.old_rank < o.current_rank)


def _grouped(rows: list[Outcome], key: Any) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Outcome]] = {}
    for o in rows:
        groups.setdefault(key(o), []).append(o)
    return {
        name: {"right": _share([o.right for o in g]), "n": len(g)} for name, g in groups.items()
    }


def _share(flags: list[bool]) -> float:
    return float(np.mean(flags)) if flags else float("nan")


def calibration(p: list[float], labels: list[bool]) -> dict[str, Any]:
    """Reliability in ten bins, expected calibration error, ROC AUC, and the pairwise
    trade-off at each threshold (changed pairs caught, compatible pairs wrongly caught)."""
    probs, truth = np.asarray(p), np.asarray(labels, dtype=bool)
    bins, ece = [], 0.0
    for low in np.arange(0.0, 1.0, 0.1):
        inside = (probs >= low) & ((probs < low + 0.1) | (low >= 0.9))
        if inside.any():
            mean, share = float(probs[inside].mean()), float(truth[inside].mean())
            ece += inside.sum() / len(probs) * abs(mean - share)
            bins.append(
                {
                    "low": round(float(low), 1),
                    "n": int(inside.sum()),
                    "mean_p": mean,
                    "changed_share": share,
                }
            )
    positive, negative = probs[truth], probs[~truth]
    auc = float(np.mean([(q > negative).mean() + 0.5 * (q == negative).mean() for q in positive]))
    sweep = {
        str(t): {
            "changed_caught": float((positive >= t).mean()),
            "compatible_caught": float((negative >= t).mean()),
        }
        for t in THRESHOLDS
    }
    return {"bins": bins, "ece": float(ece), "auc": auc, "thresholds": sweep}


def plot_calibration(bins: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(4.5, 4.5))
    axis.plot([0, 1], [0, 1], color="grey", ls="--", lw=1)
    axis.plot([b["mean_p"] for b in bins], [b["changed_share"] for b in bins], marker="o")
    for b in bins:
        axis.annotate(str(b["n"]), (b["mean_p"], b["changed_share"]), fontsize=7)
    axis.set_xlabel("judge's P(later replaces earlier)")
    axis.set_ylabel("share of pairs that are changes")
    axis.set_title("change judge calibration (changed facts)", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


COLUMNS = [
    "policy",
    "current first",
    "old superseded",
    "compatible superseded",
    "compatible earlier first",
]


def _markdown(result: dict[str, Any]) -> str:
    rows = [
        [
            name,
            f"{r['current_first']:.1%} of {r['changed']}",
            f"{r['old_superseded']:.1%}",
            f"{r['false_supersede']:.1%} of {r['compatible']}",
            f"{r['compatible_earlier_first']:.1%}",
        ]
        for name, r in result["policies"].items()
    ]
    names = list(result["policies"])
    sources = sorted({s for g in result["by_source"].values() for s in g})
    source_rows = [[s, *(_cell(result["by_source"][n].get(s)) for n in names)] for s in sources]
    types = sorted({t for g in result["by_type"].values() for t in g})
    type_rows = [[t, *(_cell(result["by_type"][n].get(t)) for n in names)] for t in types]
    cal = result["calibration"]
    sweep = [
        [t, f"{v['changed_caught']:.1%}", f"{v['compatible_caught']:.1%}"]
        for t, v in cal["thresholds"].items()
    ]
    return f"""## Changed facts: is what is true now retrieved first? ({result["model"]})

{result["items"]} items (`{"`, `".join(Path(d).name for d in result["data"])}`): each earlier
statement, three everyday remarks, the later statement {GAP_DAYS} days on, then the question.
A changed fact is right when its current statement is in the top {K} above the old one; a
compatible pair is right when the earlier statement was not superseded; the last column
says how often a compatible pair's earlier statement still ranks above the later one (the
cost of ranking near misses above). Wall time {result["seconds"]} s.

{table(COLUMNS, rows)}

Right, by source of the items:

{table(["source", *names], source_rows)}

Right, by type:

{table(["type", *names], type_rows)}

The judge's P(replaces) on the (earlier, later) pairs alone: ROC AUC {cal["auc"]:.3f}, expected
calibration error {cal["ece"]:.3f} (`changed_facts.png`). At each threshold, the share of
changed pairs it would catch and of compatible pairs it would wrongly catch:

{table(["threshold", "changed caught", "compatible caught"], sweep)}
"""


def _cell(group: dict[str, Any] | None) -> str:
    return "" if group is None else f"{group['right']:.0%} ({group['n']})"


DEFAULT_DATA = [GENERATED, HAND]
