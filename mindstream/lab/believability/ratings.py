"""From pairwise preferences to rankings, TrueSkill ratings with bootstrap intervals, and the
paper's significance tests (Kruskal-Wallis, then Dunn's post-hoc test with Holm-Bonferroni).

A ranking orders the conditions' answers to one question of one agent: each condition scores
the sum of its chances to be preferred over every other (a Borda count of soft wins).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

Ranking = dict[str, int]  # condition -> place (0 is best; ties share a place)


def ranking(conditions: Sequence[str], wins: Mapping[tuple[str, str], float]) -> Ranking:
    """Places from P(a preferred over b) for every pair (either order given)."""
    score = dict.fromkeys(conditions, 0.0)
    for a, b in combinations(conditions, 2):
        p = wins[(a, b)] if (a, b) in wins else 1.0 - wins[(b, a)]
        score[a] += p
        score[b] += 1.0 - p
    ordered = sorted(set(round(v, 9) for v in score.values()), reverse=True)
    return {c: ordered.index(round(score[c], 9)) for c in conditions}


def trueskill(
    rankings: Sequence[Ranking], conditions: Sequence[str], seed: int = 0
) -> dict[str, tuple[float, float]]:
    """TrueSkill μ and σ of each condition after every ranking, as free-for-all games (in a
    seeded random order: TrueSkill is an online rating)."""
    import trueskill as ts

    env = ts.TrueSkill(draw_probability=0.1)
    ratings = {c: env.create_rating() for c in conditions}
    games = list(rankings)
    random.Random(seed).shuffle(games)
    for game in games:
        groups = env.rate([(ratings[c],) for c in conditions], ranks=[game[c] for c in conditions])
        ratings = {c: group[0] for c, group in zip(conditions, groups, strict=True)}
    return {c: (float(r.mu), float(r.sigma)) for c, r in ratings.items()}


def bootstrap(
    rankings: Sequence[Ranking], conditions: Sequence[str], resamples: int, seed: int = 0
) -> dict[str, tuple[float, float]]:
    """95% intervals of each condition's μ over rankings resampled with replacement."""
    rng = random.Random(seed)
    draws: dict[str, list[float]] = {c: [] for c in conditions}
    for n in range(resamples):
        sample = [rankings[rng.randrange(len(rankings))] for _ in rankings]
        for c, (mu, _) in trueskill(sample, conditions, seed + n + 1).items():
            draws[c].append(mu)
    return {
        c: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))) for c, v in draws.items()
    }


def significance(rankings: Sequence[Ranking], conditions: Sequence[str]) -> dict[str, object]:
    """Kruskal-Wallis over the places each condition got, and Dunn's pairwise z-tests on the
    pooled ranks with Holm-Bonferroni adjusted p-values."""
    from scipy.stats import kruskal, norm, rankdata

    groups = {c: [r[c] for r in rankings] for c in conditions}
    if len({v for g in groups.values() for v in g}) < 2:
        return {"kruskal_h": 0.0, "kruskal_p": 1.0, "dunn": []}
    h, p = kruskal(*groups.values())
    pooled = np.concatenate([groups[c] for c in conditions]).astype(float)
    ranks = rankdata(pooled)
    n_total, start, mean_rank = len(pooled), 0, {}
    for c in conditions:
        mean_rank[c] = float(ranks[start : start + len(groups[c])].mean())
        start += len(groups[c])
    pairs: list[dict[str, Any]] = []
    for a, b in combinations(conditions, 2):
        se = math.sqrt(n_total * (n_total + 1) / 12 * (1 / len(groups[a]) + 1 / len(groups[b])))
        z = (mean_rank[a] - mean_rank[b]) / se
        pairs.append({"a": a, "b": b, "z": z, "p": float(2 * norm.sf(abs(z)))})
    for entry, adjusted in zip(pairs, _holm([e["p"] for e in pairs]), strict=True):
        entry["p_holm"] = adjusted
    return {"kruskal_h": float(h), "kruskal_p": float(p), "dunn": pairs}


def _holm(p_values: Sequence[float]) -> list[float]:
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for position, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - position) * p_values[i]))
        adjusted[i] = running
    return adjusted
