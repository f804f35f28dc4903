"""`mindstream eval poignancy`: does importance separate what matters from what does not?

Two labelled sets written by hand (never trained on): a town's memories in three bands
(`tests/data/town_poignancy.jsonl`: sightings and chores low; facts about people middle; a
fire, an invitation, a candidacy, a death, a break-up high) and everyday life, mundane against
poignant (`tests/data/poignancy.jsonl`). Each rater's 1-10 ratings are summarised per band
(quartiles), by how often a high memory outranks a low one (AUC) and by rank correlation with
the bands. The raters: the embedded model's own 1-10 rating (expected value over the digits,
what towns used), the poignancy adapter (shipped or given), and the town's rating now: their
mean, the model's own stretched between anchor chores and life events.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mindstream.lab.experiments.report import table, write_section

if TYPE_CHECKING:
    from mindstream.compose import Parts

Rater = Callable[[Sequence[str]], list[float]]
BANDS = {"low": 1, "mid": 2, "high": 3, "mundane": 1, "poignant": 3}


def load_labelled(path: Path) -> list[tuple[str, str]]:
    """(band, memory) of each line; a line without them is named in the error."""
    items = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        band = row.get("band") or row.get("group")
        if band not in BANDS or not row.get("memory"):
            raise ValueError(f"{path}:{n}: band: expected one of {', '.join(BANDS)}")
        items.append((band, row["memory"]))
    return items


def summarise(items: Sequence[tuple[str, str]], ratings: Sequence[float]) -> dict[str, Any]:
    """Quartiles per band, AUC of the top band over the bottom, Spearman with the bands."""
    import numpy as np
    from scipy.stats import spearmanr

    by_band: dict[str, list[float]] = {}
    for (band, _), r in zip(items, ratings, strict=True):
        by_band.setdefault(band, []).append(r)
    ranks = [BANDS[b] for b, _ in items]
    low = [r for (b, _), r in zip(items, ratings, strict=True) if BANDS[b] == 1]
    high = [r for (b, _), r in zip(items, ratings, strict=True) if BANDS[b] == 3]
    pairs = [(h > lo) + 0.5 * (h == lo) for h in high for lo in low]
    return {
        "quartiles": {
            b: [round(float(q), 2) for q in np.percentile(v, [25, 50, 75])]
            for b, v in by_band.items()
        },
        "range": [round(min(ratings), 2), round(max(ratings), 2)],
        "auc_high_over_low": round(sum(pairs) / len(pairs), 3),
        "spearman": round(float(spearmanr(ranks, ratings).statistic), 3),
    }


def run(
    parts: Parts, sets: Sequence[Path], adapter: Path | None, out: Path, command: str
) -> dict[str, Any]:
    raters = _raters(parts, adapter)
    result: dict[str, Any] = {"command": command, "sets": {}}
    for path in sets:
        items = load_labelled(path)
        texts = [memory for _, memory in items]
        rated = {name: rate(texts) for name, rate in raters.items()}
        result["sets"][path.name] = {
            "items": len(items),
            "raters": {name: summarise(items, r) for name, r in rated.items()},
            "ratings": [
                {"band": b, "memory": m, **{n: round(r[k], 2) for n, r in rated.items()}}
                for k, (b, m) in enumerate(items)
            ],
        }
    write_section("poignancy", _markdown(result), result, out)
    return result


def _raters(parts: Parts, adapter: Path | None) -> dict[str, Rater]:
    from mindstream.lm import rate_importance
    from mindstream.lm.backends.loading import cached_smollm2_dir
    from mindstream.lm.judges.poignancy import (
        ADAPTER,
        AnchoredImportance,
        importance,
        load_adapter_poignancy,
    )

    local = parts.config.model.local
    base = cached_smollm2_dir(local.cache_dir)
    judge = load_adapter_poignancy(base, adapter or ADAPTER, threads=local.threads)
    scorer = parts.models.scorer

    def own(texts: Sequence[str]) -> list[float]:
        return rate_importance(scorer, texts)

    return {
        "model's own 1-10": own,
        "poignancy adapter": lambda texts: [importance(p) for p in judge.poignant_batch(texts)],
        "town's rating (both, anchored)": AnchoredImportance(own, judge),
    }


def _markdown(result: dict[str, Any]) -> str:
    lines = [
        "## Importance that separates (poignancy, 1-10)",
        "",
        "Labelled sets written by hand, never trained on. Quartiles (25/50/75) per band; AUC: how "
        "often a high memory is rated above a low one; Spearman: rank correlation with the bands.",
    ]
    for name, found in result["sets"].items():
        raters = found["raters"]
        bands = list(next(iter(raters.values()))["quartiles"])
        rows = [
            [
                rater,
                *("/".join(f"{q:.1f}" for q in s["quartiles"][b]) for b in bands),
                f"{s['range'][0]:.1f}-{s['range'][1]:.1f}",
                f"{s['auc_high_over_low']:.3f}",
                f"{s['spearman']:.3f}",
            ]
            for rater, s in raters.items()
        ]
        header = ["rater", *bands, "range", "AUC", "Spearman"]
        lines += ["", f"`{name}` ({found['items']} memories):", "", table(header, rows)]
    return "\n".join(lines)
