"""`mindstream eval ...`: reproduce the measurements; each writes a section of docs/results.md."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mindstream.cli_support import clean_errors, configured, console
from mindstream.lab import cli_eval_teachme  # noqa: F401  (registers the teachme commands)
from mindstream.lab.cli_eval_options import (
    DEFAULT_SECTIONS,
    DataOption,
    DocsOption,
    OutOption,
    app,
    results_dir,
)
from mindstream.lab.experiments.openbookqa import DEFAULT_DATA

if TYPE_CHECKING:
    from mindstream.compose import Parts


@app.command("refeed-retrieval")
@clean_errors
@configured
def refeed_retrieval(
    parts: Parts,
    data: DataOption = DEFAULT_DATA,
    split: Annotated[str, typer.Option(help="train or dev.")] = "dev",
    limit: Annotated[int | None, typer.Option(help="Only the first N questions.")] = None,
    samples: Annotated[int, typer.Option(help="Sampled answers per question.")] = 4,
    work: Annotated[
        Path, typer.Option(help="Where generated answers are cached (resumable).")
    ] = Path("runs/refeed"),
) -> None:
    """ReFeed retrieval feedback on OpenBookQA: recall@1/5/10 of the gold fact."""
    from mindstream.lab.experiments.refeed_retrieval import run

    result = run(data, split, limit, samples, work, parts)
    console.print(result["recall"])


@app.command("self-refine")
@clean_errors
@configured
def self_refine(
    parts: Parts,
    data: DataOption = DEFAULT_DATA,
    items: Annotated[int, typer.Option(help="How many concept sets.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed for drawing the concept sets.")] = 0,
) -> None:
    """Self-Refine on one-sentence constrained generation: concept coverage at y0..y3."""
    from mindstream.lab.experiments.self_refine_concepts import run

    result = run(data, items, seed, parts=parts)
    console.print(result["results"])


@app.command()
@clean_errors
@configured
def reflection(parts: Parts) -> None:
    """Reflection on a scripted week of 63 observations: questions, insights, evidence."""
    from mindstream.lab.experiments.reflection_week import run

    result = run(parts=parts)
    console.print(result["insights"])


@app.command("long-memory")
@clean_errors
@configured
def long_memory(
    parts: Parts,
    data: Annotated[
        Path,
        typer.Option(
            help="Long conversations as JSON: [{sample_id, conversation: {speaker_a, speaker_b, "
            "session_N: [{speaker, dia_id, text}], session_N_date_time}, qa: [{question, answer, "
            "evidence: [D<session>:<turn>], category, outdated}]}]. `outdated` (optional) lists "
            "the turns that stated an earlier value of a fact that changed: such a question is "
            "right when a current turn ranks in the top 10 above every outdated one. "
            "tests/data/long_memory.json is mindstream's own. Or a `.chat` file or a folder of "
            "them (mindstream/lab/experiments/data/truth/{train,dev,heldout}: heldout is never "
            "tuned on), read as the assistant keeps a chat: the user's statements recalled, "
            "questions and the assistant's turns kept for history only; recall is reported per "
            "category (changed, stays, and the file's multi-hop and temporal questions)."
        ),
    ],
    out: OutOption = None,
    docs: DocsOption = False,
    importance: Annotated[
        float | None,
        typer.Option(help="Give every turn this importance instead of rating it with the model."),
    ] = None,
    answer: Annotated[
        bool, typer.Option(help="Also answer every question with the model; score token F1.")
    ] = False,
) -> None:
    """Evidence recall@5/10/25 on long conversations: relevance only, the Park default and the
    assistant's policy; changed facts; ingestion and query speed."""
    from mindstream.lab.experiments.long_memory_eval import run

    if importance is not None and not 1 <= importance <= 10:
        raise ValueError(f"--importance must be between 1 and 10 (got {importance:g})")
    result = run(data, results_dir(out, docs, "long-memory"), parts, importance, answer)
    for name, policy in result["policies"].items():
        recall = policy["recall"]["all"]
        console.print(
            f"{name}: R@10 {recall[10]:.2f}, changed facts right "
            f"{policy['changed_right']}/{policy['changed_total']}"
        )


@app.command("changed-facts")
@clean_errors
@configured
def changed_facts(
    parts: Parts,
    data: Annotated[
        list[Path] | None,
        typer.Option(
            help="Items (jsonl: id, kind changed|compatible, type, earlier, later, question; "
            "see mindstream/lab/experiments/changed_facts_data.py). Repeatable. Default: the "
            "packaged templated and hand-written sets."
        ),
    ] = None,
    out: OutOption = None,
    docs: DocsOption = False,
) -> None:
    """Is what is true now retrieved first? Current-statement-first rate on changed facts,
    false-supersede rate on compatible pairs (assistant policy without and with the relation
    judge), and the judge's calibration (table, JSON, PNG)."""
    from mindstream.lab.experiments.changed_facts import DEFAULT_DATA, run

    files = data or DEFAULT_DATA
    destination = results_dir(out, docs, "changed-facts")
    command = "mindstream eval changed-facts" + "".join(f" --data {f}" for f in data or [])
    result = run(files, destination, parts, command)
    for name, r in result["policies"].items():
        console.print(
            f"{name}: current first {r['current_first']:.1%} of {r['changed']}, "
            f"compatible wrongly superseded {r['false_supersede']:.1%} of {r['compatible']}"
        )
    console.print(
        f"judge: AUC {result['calibration']['auc']:.3f}, ECE "
        f"{result['calibration']['ece']:.3f}; written to {destination}"
    )


@app.command()
@clean_errors
@configured
def believability(
    parts: Parts,
    run_dir: Annotated[Path, typer.Argument(help="A finished run folder of `mindstream sim run`.")],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Where the section and the resumable state go (default runs/believability)."
        ),
    ] = None,
    docs: DocsOption = False,
    judge_model: Annotated[
        str | None,
        typer.Option(help="Model spec of the judge (default: the interviewee's, --model)."),
    ] = None,
    judge_base_url: Annotated[
        str | None, typer.Option(help="The judge's server, for an openai: judge.")
    ] = None,
    judge_scorer: Annotated[
        str | None, typer.Option(help="How the judge is asked (auto, systemone, logprobs, ...).")
    ] = None,
) -> None:
    """Interview RUN_DIR's agents under the ablation conditions (believability.conditions),
    judge every pair of answers in both orders, rate the conditions with TrueSkill."""
    from mindstream.lab.experiments.believability import run

    if not (run_dir / "checkpoint.json").is_file():
        raise FileNotFoundError(f"{run_dir}: not a run folder (no checkpoint.json)")
    changes = {
        "model.spec": judge_model,
        "model.served.base_url": judge_base_url,
        "model.scorer": judge_scorer,
    }
    judge = parts.rebuilt({k: v for k, v in changes.items() if v is not None})
    result = run(run_dir, results_dir(out, docs, "believability"), parts, judge)
    for name, (mu, sigma) in sorted(result["trueskill"].items(), key=lambda item: -item[1][0]):
        console.print(f"{result['conditions'][name]}: μ {mu:.2f} ± {sigma:.2f}")


@app.command("log-quiz")
@clean_errors
@configured
def log_quiz(
    parts: Parts,
    run_dir: Annotated[Path, typer.Argument(help="A finished run folder of `mindstream sim run`.")],
    hours: Annotated[
        int, typer.Option(help="'where were you at HH:00' questions per agent", min=1)
    ] = 2,
    out: OutOption = None,
    docs: DocsOption = False,
) -> None:
    """Believability against the run's own log: where each agent was at drawn hours and whom
    it talked to, answered under each ablation condition by choosing among the true answer
    and three false ones (accuracy, intervals, exact McNemar against the full architecture)."""
    from mindstream.lab.experiments.log_quiz import run

    if not (run_dir / "checkpoint.json").is_file():
        raise FileNotFoundError(f"{run_dir}: not a run folder (no checkpoint.json)")
    command = f"mindstream eval log-quiz {run_dir} --hours {hours}"
    result = run(run_dir, results_dir(out, docs, "log-quiz"), parts, hours, command)
    for name, label in result["conditions"].items():
        acc = result["accuracy"][name]
        console.print(f"{label}: {acc['right']}/{result['questions']} ({acc['share']:.1%})")


@app.command("poignancy")
@clean_errors
@configured
def poignancy(
    parts: Parts,
    labelled: Annotated[
        list[Path] | None,
        typer.Option(
            help="JSON lines of {band: low|mid|high (or group: mundane|poignant), memory}; "
            "default: tests/data/town_poignancy.jsonl and tests/data/poignancy.jsonl"
        ),
    ] = None,
    adapter: Annotated[
        Path | None,
        typer.Option(help="a trained poignancy adapter folder (default: the shipped one)"),
    ] = None,
    out: OutOption = None,
    docs: DocsOption = False,
) -> None:
    """Whether importance separates: the embedded model's own 1-10 rating and the poignancy
    adapter on labelled memories written by hand (quartiles per band, AUC, Spearman)."""
    from mindstream.lab.experiments.poignancy_eval import run
    from mindstream.lab.paths import TEST_DATA

    sets = labelled or [TEST_DATA / "town_poignancy.jsonl", TEST_DATA / "poignancy.jsonl"]
    for path in sets:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such labelled set")
    command = "mindstream eval poignancy" + (f" --adapter {adapter}" if adapter else "")
    result = run(parts, sets, adapter, results_dir(out, docs, "poignancy"), command)
    for name, found in result["sets"].items():
        for rater, s in found["raters"].items():
            console.print(
                f"{name}: {rater}: AUC {s['auc_high_over_low']:.3f}, "
                f"Spearman {s['spearman']:.3f}, range {s['range'][0]:.1f}-{s['range'][1]:.1f}"
            )


@app.command("town-day")
@clean_errors
def town_day(
    run_dir: Annotated[Path, typer.Argument(help="A finished run folder of `mindstream sim run`.")],
    compare: Annotated[
        Path | None,
        typer.Option(help="Another finished run of the same scenario to show beside it."),
    ] = None,
    section: Annotated[
        str,
        typer.Option(help="the results section's name (one per published day)", min=1),
    ] = "town_day",
    out: OutOption = None,
    docs: DocsOption = False,
) -> None:
    """A finished town run's cost, counts and the paper's measures as a results section."""
    from mindstream.lab.experiments.town_day import run

    for folder in (run_dir, *([compare] if compare else [])):
        if not (folder / "summary.json").is_file():
            raise FileNotFoundError(
                f"{folder}: no summary.json (run `mindstream sim run` to the end)"
            )
    if not re.fullmatch(r"[a-z0-9_]+", section):
        raise ValueError(f"section: lower-case letters, digits and _ only, got {section!r}")
    command = f"mindstream eval town-day {run_dir}" + (f" --compare {compare}" if compare else "")
    command += f" --section {section}" if section != "town_day" else ""
    destination = results_dir(out, docs, "town-day")
    result = run(run_dir, destination, compare, command, section)
    if docs:  # the published figures: bench/results keeps the same JSON beside the benches
        bench = DEFAULT_SECTIONS.parents[1] / "bench" / "results" / f"{section}.json"
        shutil.copyfile(destination / f"{section}.json", bench)
    day = result["day"]
    console.print(
        f"{day['agents']} agents, {day['sim_hours']:.1f} sim-hours, {day['wall_seconds']:.0f} s, "
        f"{day['requests']} requests; written to {destination}"
    )


@app.command()
@clean_errors
def report() -> None:
    """Rebuild docs/results.md from the sections in docs/results/."""
    from mindstream.lab.experiments.report import build_report

    console.print(f"written: {build_report()}")


@app.command("truth")
@clean_errors
@configured
def truth(
    parts: Parts,
    data: Annotated[
        list[Path] | None,
        typer.Option(
            help="Labelled conversations: LoCoMo-style JSON with `changes` [{old, new}], "
            "`restates` and `stays` (turn ids), a `.chat` file or a folder of them "
            "(mindstream/lab/experiments/data/truth/README.md). Repeatable. Default: the "
            "shipped held-out part (never tuned on)."
        ),
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(help="A shipped part instead of --data: train, dev or heldout."),
    ] = None,
    named: Annotated[
        bool,
        typer.Option(
            "--speaker-names",
            help="Store each turn as 'Name: text', as a transcript or a town's observations do.",
        ),
    ] = False,
    out: OutOption = None,
    docs: DocsOption = False,
) -> None:
    """Knowing what is true now, on streams: each conversation remembered turn by turn with
    and without change detection; supersede precision and recall, still-true facts retired,
    current-first on changed facts, evidence recall@10, memories/s, every decision."""
    from mindstream.lab.experiments import truth_data
    from mindstream.lab.experiments.truth_eval import run

    if data and split:
        raise ValueError("give --data or --split, not both")
    conversations = (
        [c for path in data for c in truth_data.load(path)]
        if data
        else truth_data.split(split or "heldout")
    )
    name = "truth_named" if named else "truth"
    command = "mindstream eval truth" + "".join(f" --data {f}" for f in data or [])
    command += f" --split {split}" if split else ""
    command += " --speaker-names" if named else ""
    result = run(
        conversations,
        results_dir(out, docs, name),
        parts,
        named=named,
        command=command,
        section=name,
    )
    for condition, c in result["conditions"].items():
        console.print(
            f"{condition}: {c['supersedes']} supersedes, precision {c['precision']}, "
            f"recall {c['recall']}, must-stay retired {c['stays_retired']}/{c['stays']}, "
            f"current first {c['current_first']}, R@10 {c['recall_at_10']}, "
            f"{c['memories_per_s']:.1f} memories/s"
        )
