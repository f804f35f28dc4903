"""`mindstream eval teachme*`: TeachMe's measurements (registered on the `eval` group when
`cli_eval` imports this module)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mindstream.cli_support import clean_errors, configured, console
from mindstream.lab.cli_eval_options import (
    DocsOption,
    OutOption,
    QuestionsOption,
    TrainOption,
    app,
    results_dir,
)
from mindstream.lab.experiments.openbookqa import DEFAULT_DATA

if TYPE_CHECKING:
    from mindstream.compose import Parts


@app.command("teachme-retrieval")
@clean_errors
@configured
def teachme_retrieval(
    parts: Parts,
    data: QuestionsOption = DEFAULT_DATA / "dev_complete.jsonl",
    train: TrainOption = DEFAULT_DATA / "train_complete.jsonl",
    limit: Annotated[int | None, typer.Option(help="Only the first N questions.")] = None,
    out: OutOption = None,
    docs: DocsOption = False,
) -> None:
    """TeachMe Table A1: recall of the gold fact by how memory is indexed (F, Q, Q+F, ...)."""
    from mindstream.lab.experiments.teachme_retrieval import run

    destination = results_dir(out, docs, "teachme-retrieval")
    console.print(run(data, train, limit, parts, destination)["recall_percent"])


@app.command()
@clean_errors
@configured
def teachme(
    parts: Parts,
    data: QuestionsOption = DEFAULT_DATA / "dev_complete.jsonl",
    train: TrainOption = DEFAULT_DATA / "train_complete.jsonl",
    limit: Annotated[int | None, typer.Option(help="Only the first N hidden questions.")] = None,
    train_limit: Annotated[
        int | None, typer.Option(help="Train questions the teacher goes through.")
    ] = 500,
    curve_limit: Annotated[
        int, typer.Option(help="Hidden questions scored at each curve point.")
    ] = 100,
    orderings: Annotated[int, typer.Option(help="Orderings of the train questions.")] = 3,
    seed: Annotated[int, typer.Option(help="Seed of the first ordering.")] = 0,
    work: Annotated[Path, typer.Option(help="Where partial results are kept (resumable).")] = Path(
        "runs/teachme"
    ),
    out: OutOption = None,
    docs: DocsOption = False,
    upper_bound: Annotated[
        bool,
        typer.Option(help="Also answer with every train fact in memory (the longest step)."),
    ] = True,
) -> None:
    """TeachMe's simulated teacher: direct QA, before/after teaching, upper bound, curve."""
    from mindstream.lab.experiments.teachme import Lab, run

    lab = Lab.of(parts)
    result = run(
        data,
        train,
        limit,
        train_limit,
        curve_limit,
        orderings,
        seed,
        work,
        lab,
        results_dir(out, docs, "teachme"),
        upper_bound,
    )
    console.print({k: result.get(k) for k in ("direct", "before", "after", "upper_bound")})


@app.command("teachme-scoring")
@clean_errors
@configured
def teachme_scoring(
    parts: Parts,
    data: QuestionsOption = DEFAULT_DATA / "train_complete.jsonl",
    train: TrainOption = DEFAULT_DATA / "train_complete.jsonl",
    memory: Annotated[
        str, typer.Option(help="train: every core fact of --train; book: openbook.txt beside it")
    ] = "train",
    limit: Annotated[int, typer.Option(help="How many questions.")] = 500,
    offset: Annotated[
        int, typer.Option(help="First question used (4457: the slice the verifier never saw).")
    ] = 4457,
    out: OutOption = None,
    docs: DocsOption = False,
) -> None:
    """Can the model use a fact? The gold-fact oracle, answer rules and the premise gate grid."""
    from mindstream.lab.experiments.teachme import Lab
    from mindstream.lab.experiments.teachme_scoring import run

    result = run(
        data,
        train,
        Lab.of(parts),
        results_dir(out, docs, "teachme-scoring"),
        limit,
        offset,
        memory,
    )
    console.print(result["accuracy"], result["best_thresholds"])


@app.command("teachme-contrast")
@clean_errors
@configured
def teachme_contrast(
    parts: Parts,
    data: Annotated[
        Path,
        typer.Option(
            "--data", help="Contrast pairs (jsonl: question, choices, negative_fact, ruled_out)."
        ),
    ] = Path(__file__).parent / "experiments" / "data" / "contrast_pairs.jsonl",
    out: OutOption = None,
    docs: DocsOption = False,
) -> None:
    """Taught negations: with "X does not Y" taught, is Y avoided? (nothing / own / all taught)"""
    from mindstream.lab.experiments.teachme import Lab
    from mindstream.lab.experiments.teachme_contrast import run

    result = run(Lab.of(parts), results_dir(out, docs, "teachme-contrast"), data)
    console.print(result["away_from_y"])


@app.command("teachme-transfer")
@clean_errors
@configured
def teachme_transfer(
    parts: Parts,
    data: Annotated[
        Path,
        typer.Option(
            "--data",
            help="Transfer items (jsonl: taught_question, taught_choices, negative_fact, "
            "fresh: [{question, choices, answer, ruled_out}]).",
        ),
    ] = Path(__file__).parent / "experiments" / "data" / "teachme_transfer.jsonl",
    out: OutOption = None,
    docs: DocsOption = False,
) -> None:
    """Teaching transfer: a negative fact about a category taught, fresh questions about an
    instance of it answered (right, and the ruled-out choice avoided)."""
    from mindstream.lab.experiments.teachme import Lab
    from mindstream.lab.experiments.teachme_transfer import run

    result = run(Lab.of(parts), results_dir(out, docs, "teachme-transfer"), data)
    console.print(
        f"right {result['right']}, avoided {result['away_from_ruled_out']} of {result['questions']}"
    )


@app.command("teachme-vetoes")
@clean_errors
@configured
def teachme_vetoes(
    parts: Parts,
    train: TrainOption = DEFAULT_DATA / "train_complete.jsonl",
    limit: Annotated[int, typer.Option(help="held-out train questions used (of 500)")] = 500,
    out: OutOption = None,
    docs: DocsOption = False,
) -> None:
    """Where TeachMe's veto and premise-block thresholds come from: on train questions neither
    adapter saw, how often a taught negated fact rules out (or is kept from proving) the choice
    it denies, and how often another one, for each floor and margin of the rule."""
    from mindstream.lab.experiments.teachme_vetoes import run

    command = f"mindstream eval teachme-vetoes --train {train} --limit {limit}"
    result = run(parts, train, results_dir(out, docs, "teachme-vetoes"), limit, command)
    best = result["best"]
    console.print(
        f"best: floor {best['floor']}, margin {best['margin']}: "
        f"{best['denied_ruled_out']:.1%} ruled out, {best['wrong_per_fact']:.3f} wrong per fact"
    )
    block = result["best_block"]
    console.print(
        f"premise blocks: floor {block['floor']}, margin {block['margin']}: "
        f"{block['denied_blocked']:.1%} blocked, right blocked {block['right_blocked']:.1%}"
    )
    negation = result["best_negation"]
    console.print(
        f"with the negation check: margin {negation['negation_margin']}: "
        f"{negation['denied_blocked']:.1%} blocked, right blocked {negation['right_blocked']:.1%}"
    )
    other, topic = result["other_topics"], result["best_on_topic"]
    console.print(
        f"another topic's denial vetoes a choice for {other['vetoing']:.1%} of "
        f"{other['denials']} questions; with the on-topic floor {topic['on_topic']}: "
        f"{topic['other_topics_vetoed']:.1%}, own denials ruled out {topic['denied_ruled_out']:.1%}"
    )
