"""`mindstream eval log-quiz RUN_DIR`: believability against the run's own log.

Each agent of a finished run is asked where it was at hours drawn from its log and whom it
talked to, under each ablation condition, and answers by choosing among the true answer and
three false ones. Per condition: accuracy with a bootstrap interval; between the full
architecture and each other condition, an exact McNemar test on the questions one got right
and the other wrong. Chance is 25%.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import track

from mindstream.lab.believability.log_quiz import CHOICES, LogQuestion, log_questions, quiz_under
from mindstream.lab.experiments.report import table, write_section

if TYPE_CHECKING:
    from mindstream.compose import Parts

RESAMPLES = 1000


def run(run_dir: Path, out: Path, parts: Parts, hours: int, command: str) -> dict[str, Any]:
    from mindstream.sim.runner import resume_run, saved_config

    engine, _ = resume_run(run_dir, parts.under(saved_config(run_dir)).run_parts(keep_config=False))
    config = parts.config.believability
    folder = engine.folder
    assert folder is not None
    questions = log_questions(
        list(folder.events()), list(engine.agents), list(engine.scenario.world), hours, config.seed
    )
    right: dict[str, list[bool]] = {}
    for name, condition in track(list(config.chosen().items()), description="conditions"):
        right[name] = quiz_under(
            condition, engine.agents, questions, engine.minds, engine.clock.now()
        )
    result = {
        "command": command,
        "run": str(run_dir),
        "agents": len(engine.agents),
        "questions": len(questions),
        "by_kind": {k: sum(q.kind == k for q in questions) for k in ("where", "who")},
        "chance": 1 / CHOICES,
        "conditions": {n: c.label or n for n, c in config.chosen().items()},
        "accuracy": {n: _accuracy(r, questions, config.seed) for n, r in right.items()},
        "against_full": {n: mcnemar(right["full"], r) for n, r in right.items() if n != "full"}
        if "full" in right
        else {},
    }
    write_section("log_quiz", _markdown(result), result, out)
    return result


def _accuracy(right: list[bool], questions: list[LogQuestion], seed: int) -> dict[str, Any]:
    draw = random.Random(seed)
    n = len(right)
    means = sorted(sum(right[draw.randrange(n)] for _ in range(n)) / n for _ in range(RESAMPLES))
    return {
        "right": sum(right),
        "share": sum(right) / n if n else 0.0,
        "interval": [means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]],
        "by_kind": {
            kind: sum(r for r, q in zip(right, questions, strict=True) if q.kind == kind)
            for kind in ("where", "who")
        },
    }


def mcnemar(first: list[bool], second: list[bool]) -> dict[str, float]:
    """Exact McNemar: of the questions exactly one of the two got right, how lopsided; the
    two-sided p of the first winning that many of them by chance."""
    from scipy.stats import binomtest

    only_first = sum(a and not b for a, b in zip(first, second, strict=True))
    only_second = sum(b and not a for a, b in zip(first, second, strict=True))
    split = only_first + only_second
    p = binomtest(only_first, split, 0.5).pvalue if split else 1.0
    return {"only_full": only_first, "only_other": only_second, "p": float(p)}


def _markdown(result: dict[str, Any]) -> str:
    rows = []
    for name, label in result["conditions"].items():
        acc = result["accuracy"][name]
        test = result["against_full"].get(name)
        low, high = acc["interval"]
        rows.append(
            [
                label,
                f"{acc['right']}/{result['questions']}",
                f"{acc['share']:.1%} ({low:.1%}-{high:.1%})",
                acc["by_kind"]["where"],
                acc["by_kind"]["who"],
                "-" if test is None else f"{test['only_full']} / {test['only_other']}",
                "-" if test is None else f"{test['p']:.3g}",
            ]
        )
    header = ["condition", "right", "accuracy (95% interval)", "where", "who",
              "full only / this only", "p (exact McNemar)"]  # fmt: skip
    kinds = result["by_kind"]
    return "\n\n".join(
        [
            f"## Believability against the log ({result['agents']} agents)",
            f"{result['questions']} questions the run's log decides ({kinds['where']} 'where were "
            f"you at HH:00', {kinds['who']} 'who did you talk to'), each answered by choosing "
            f"among the true answer and {CHOICES - 1} false ones; chance "
            f"{result['chance']:.0%}.",
            table(header, rows),
        ]
    )
