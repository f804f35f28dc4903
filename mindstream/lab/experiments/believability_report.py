"""The believability section of docs/results: TrueSkill table, significance, grounding, a PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mindstream.lab.experiments.report import table, write_section

PAPER = {  # Park et al. 2023, figure 8: TrueSkill μ (σ) of the five conditions
    "full": "29.89 (0.72)",
    "no_reflection": "26.88 (0.69)",
    "no_reflection_planning": "25.64 (0.68)",
    "persona_baseline": "22.95 (0.69) (crowdworkers)",
    "fully_ablated": "21.21 (0.70)",
}


def write(result: dict[str, Any], out: Path, name: str) -> Path:
    png = out / f"{name}.png"
    _plot(result, png)
    return write_section(name, _markdown(result, png.name), result, out)


def _markdown(r: dict[str, Any], png: str) -> str:
    order = sorted(r["trueskill"], key=lambda c: -r["trueskill"][c][0])
    rows = []
    for c in order:
        mu, sigma = r["trueskill"][c]
        low, high = r["intervals"][c]
        g = r["grounding"][c]
        rows.append(
            [
                r["conditions"][c],
                f"{mu:.2f} ± {sigma:.2f}",
                f"[{low:.2f}, {high:.2f}]",
                f"{r['mean_place'][c] + 1:.2f}",
                f"{g['grounded']:.0%}",
                f"{g['invented_names']:.0%}",
                _cost(r, c),
                PAPER.get(c, ""),
            ]
        )
    header = [
        "condition",
        "TrueSkill μ ± σ",
        "μ 95% bootstrap",
        "mean place",
        "uses own memories",
        "names unknown to its world",
        "answering: wall / model calls",
        "paper μ (σ)",
    ]
    sig = r["significance"]
    dunn = "; ".join(
        f"{d['a']} vs {d['b']}: z = {d['z']:.2f}, Holm p = {d['p_holm']:.3g}" for d in sig["dunn"]
    )
    judged = ", ".join(
        f"{k.removeprefix('judging ')}: {v:.0f} s"
        for k, v in r["seconds"].items()
        if k.startswith("judging")
    )
    per_agent = r["questions"] // max(r["agents"], 1)
    sampled = (
        f", {r['per_category']} of each category's five drawn per agent (seeded)"
        if r.get("per_category")
        else ""
    )
    examples = "\n".join(
        f"- {e['agent']} ({e['category']}): *{e['question']}*\n"
        + "\n".join(f"  - {r['conditions'][c]}: {a!r}" for c, a in e["answers"].items())
        for e in r["examples"]
    )
    return f"""## Believability ablations, judged by `{r["judge"]}`

{r["agents"]} agents of `{r["run"]}` interviewed with {per_agent} questions each{sampled}
(self-knowledge, memory, plans, reactions, reflections) under every condition, answering with
`{r["model"]}`. Every pair of conditions' answers to a question was judged in both orders
through the judge's scorer; each question's ranking (sum of soft wins) fed TrueSkill. Judging
took {judged}.

{table(header, rows)}

Kruskal-Wallis over the places: H = {sig["kruskal_h"]:.2f}, p = {sig["kruskal_p"]:.3g}. Dunn's
post-hoc test (Holm-Bonferroni): {dunn or "not run (no variation)"}.

"Uses own memories": the answer shares two or more content words with what the agent
remembered during the run (not its persona). "Names unknown to its world": the answer names a
person or place that no agent, place, object or memory of the town mentions.

![TrueSkill by condition]({png})

Examples:
{examples}
"""


def _cost(r: dict[str, Any], condition: str) -> str:
    key = "answers " + condition
    return f"{r['seconds'].get(key, 0):.0f} s / {r['calls'].get(key, 0)}"


def _plot(r: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = sorted(r["trueskill"], key=lambda c: -r["trueskill"][c][0])
    mus = [r["trueskill"][c][0] for c in order]
    figure, axes = plt.subplots(figsize=(7, 3.2))
    axes.barh(range(len(order)), mus, color="#6a8caf")
    # The interval is drawn as it is: TrueSkill's μ depends on the order of the rankings, so
    # the μ of all of them can fall outside the interval of resampled ones.
    for row, condition in enumerate(order):
        low, high = r["intervals"][condition]
        axes.plot([low, high], [row, row], color="black", marker="|", markersize=10)
    axes.set_yticks(range(len(order)), [r["conditions"][c] for c in order])
    axes.invert_yaxis()
    axes.set_xlabel(f"TrueSkill μ (95% bootstrap), judge {r['judge'].rsplit('/', 1)[-1][-40:]}")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
