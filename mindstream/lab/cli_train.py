"""`mindstream train`: the embedded model's adapters, reproducible from the training splits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from mindstream.cli_support import clean_errors
from mindstream.lab.paths import SHARED_DATA

app = typer.Typer(
    help="Train the embedded model's adapters (train splits and built data only; dev is never "
    "read). The shipped adapters live in mindstream/lm/adapters/; a run writes elsewhere "
    "unless --out points there and --overwrite is given."
)

SHARED = SHARED_DATA
RUNS = Path("runs") / "adapters"

OpenBookQA = Annotated[
    Path, typer.Option(help="OpenBookQA train_complete.jsonl, or the folder holding it")
]
Overwrite = Annotated[
    bool, typer.Option(help="replace an adapter already in --out (the shipped one included)")
]
Threads = Annotated[int, typer.Option(help="torch threads")]
StartFrom = Annotated[
    Path | None,
    typer.Option(
        help="go on training this adapter folder (e.g. mindstream/lm/adapters/judge/contradicts) "
        "on the new examples, rather than a fresh LoRA: minutes, not an hour"
    ),
]
LearningRate = Annotated[float, typer.Option(help="peak learning rate (one-cycle)", min=1e-7)]
DistilFrom = Annotated[
    Path | None,
    typer.Option(
        help="a trained model's folder (the same kind) whose outputs the new one also learns"
    ),
]
Distil = Annotated[
    float, typer.Option(help="weight of the teacher's outputs in the loss", min=0, max=1)
]
Precision = Annotated[
    str, typer.Option(help="auto (time both here, keep the faster), float32 or bfloat16")
]


@app.command()
@clean_errors
def verifier(
    openbookqa: OpenBookQA = SHARED / "openbookqa",
    entailmentbank: Annotated[
        Path, typer.Option(help="EntailmentBank train.angles.jsonl (task_2 has distractors)")
    ] = SHARED / "entailmentbank" / "task_2" / "train.angles.jsonl",
    out: Annotated[Path, typer.Option(help="where the adapter goes")] = RUNS / "verifier",
    overwrite: Overwrite = False,
    epochs: Annotated[
        float, typer.Option(help="passes over the examples (may be fractional)")
    ] = 1.0,
    top_layers: Annotated[int, typer.Option(help="LoRA on the last N of 30 layers")] = 16,
    threads: Threads = 2,
    limit: Annotated[
        int | None, typer.Option(help="OpenBookQA train questions used (a quick trial)")
    ] = None,
    curve_questions: Annotated[
        int, typer.Option(help="held-out questions scored at each curve point")
    ] = 200,
    negated_share: Annotated[
        float,
        typer.Option(
            min=0, max=1, help="share of questions whose negated fact is also taught as no"
        ),
    ] = 0.25,
) -> None:
    """Fine-tune the entailment verifier (LoRA on SmolLM2-135M) and print its curve.

    The held-out curve is the gold-fact oracle on the last 500 OpenBookQA train questions,
    which training never sees; TeachMe's thresholds are measured there too.
    """
    from mindstream.lab.training.run import run_training

    run_training(
        openbookqa,
        entailmentbank,
        out,
        epochs,
        top_layers,
        threads,
        limit,
        curve_questions,
        overwrite,
        negated_share,
    )


@app.command()
@clean_errors
def judge(
    task: Annotated[
        str,
        typer.Argument(
            help="replaces (is an earlier statement out of date?), contradicts (does a fact "
            "show a claim false?), reacts (must an agent stop for what it saw?) or poignant "
            "(is a memory an important event in someone's life?)"
        ),
    ],
    openbookqa: OpenBookQA = SHARED / "openbookqa",
    entailmentbank: Annotated[
        Path | None, typer.Option(help="EntailmentBank train.angles.jsonl (contradicts)")
    ] = SHARED / "entailmentbank" / "task_2" / "train.angles.jsonl",
    catalogue: Annotated[
        Path | None, typer.Option(help="slot catalogue YAML (replaces; default: the packaged one)")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="where the adapter goes (default: runs/adapters/judge/TASK)")
    ] = None,
    overwrite: Overwrite = False,
    epochs: Annotated[
        float | None,
        typer.Option(help="passes over the examples (default: 2 for replaces, 1 for contradicts)"),
    ] = None,
    per_slot: Annotated[int, typer.Option(help="built pairs per personal-fact slot")] = 220,
    chats: Annotated[
        int,
        typer.Option(
            help="replaces: kept pairs mined from the train conversations (with every "
            "replacement there), as change detection meets them; 0 for built pairs only",
            min=0,
        ),
    ] = 0,
    contradiction_questions: Annotated[
        int, typer.Option(help="OpenBookQA train questions turned into contradictions")
    ] = 3000,
    trap_share: Annotated[
        float,
        typer.Option(
            help="contradicts: share of questions whose extra no-pair is another topic's "
            "denial naming a choice's word (0 to 1; 0 built the first shipped adapter)",
            min=0.0,
            max=1.0,
        ),
    ] = 0.0,
    entailmentbank_share: Annotated[
        float, typer.Option(help="contradicts: share of EntailmentBank steps used", min=0, max=1)
    ] = 0.5,
    start_from: StartFrom = None,
    learning_rate: LearningRate = 3e-4,
    precision: Precision = "auto",
    threads: Threads = 2,
) -> None:
    """Fine-tune one question of the relation judge (LoRA on SmolLM2-135M): `replaces`, does
    a later statement make an earlier one out of date (built personal-fact pairs), or
    `contradicts`, does a fact show a claim false (OpenBookQA / EntailmentBank train), or
    `reacts`, must an agent stop for what it just saw (built emergencies and everyday states), or
    `poignant`, is a memory an important event in someone's life (built life events,
    emergencies and invitations against sightings, chores and small talk; the town's importance).

    The shipped adapters are in mindstream/lm/adapters/judge/ (one folder per task); each curve is
    measured on slots, questions, or objects and states its training never sees.
    """
    from mindstream.lab.training.judge import JudgeTraining
    from mindstream.lab.training.judge_data import CATALOGUE
    from mindstream.lab.training.run import run_judge_training

    if task not in ("replaces", "contradicts", "reacts", "poignant"):
        raise ValueError(f"task: expected replaces, contradicts, reacts or poignant, got {task!r}")
    settings = JudgeTraining(
        task=task,
        epochs=epochs if epochs is not None else (2.0 if task == "replaces" else 1.0),
        per_slot=per_slot,
        chats=chats,
        contradiction_questions=contradiction_questions,
        trap_share=trap_share,
        entailmentbank_share=entailmentbank_share,
        start_from=start_from,
        learning_rate=learning_rate,
        precision=precision,
    )
    run_judge_training(
        openbookqa,
        entailmentbank,
        catalogue or CATALOGUE,
        out or RUNS / "judge" / task,
        settings,
        threads,
        overwrite,
    )


@app.command("change-judge")
@clean_errors
def change_judge(
    out: Annotated[Path, typer.Option(help="where the adapter goes")] = RUNS / "change_judge",
    overwrite: Overwrite = False,
    epochs: Annotated[
        float, typer.Option(help="passes over the examples (2: the shipped judge)", min=0.1)
    ] = 2.0,
    learning_rate: LearningRate = 4e-4,
    rank: Annotated[int, typer.Option(help="LoRA rank", min=1)] = 32,
    templates: Annotated[int, typer.Option(help="pairs from the slot catalogue", min=0)] = 3000,
    hand: Annotated[
        Path | None, typer.Option(help="hand-written pairs (jsonl: earlier, later, label, type)")
    ] = None,
    threads: Threads = 2,
    layers: Annotated[
        int | None,
        typer.Option(help="keep MiniLM's first N layers: a cheaper judge per write", min=1, max=6),
    ] = None,
    distil_from: DistilFrom = None,
    distil: Distil = 0.5,
    state_updates: Annotated[
        int,
        typer.Option(help="draws of numeric state-update pairs (an update and its look-alikes)"),
    ] = 0,
    start_from: StartFrom = None,
    replay: Annotated[
        int, typer.Option(help="with --start-from: pairs of the full set per focus pair", min=0)
    ] = 3,
    state_seed: Annotated[int, typer.Option(help="seed of the state-update draws")] = 0,
    foretold: Annotated[
        int,
        typer.Option(
            help="draws of foretold pairs: a plan, offer or forecast, then it happening "
            "(both stay true), with look-alikes (with --start-from)",
            min=0,
        ),
    ] = 0,
    focus_hand: Annotated[
        bool, typer.Option(help="the hand-written pairs join the focus pairs (with --start-from)")
    ] = False,
    focus_chats: Annotated[
        list[Path] | None,
        typer.Option(
            help="labelled conversations (.chat file or folder) whose mined pairs join the "
            "focus pairs (with --start-from); repeatable"
        ),
    ] = None,
    context_share: Annotated[
        float,
        typer.Option(
            help="share of focus pairs shown with another sentence of chat beside a statement",
            min=0.0,
            max=1.0,
        ),
    ] = 0.0,
) -> None:
    """Fine-tune the change judge (LoRA on all-MiniLM-L6-v2, three-way: other / same slot /
    replaces) on pairs mined from the train conversations, hand-written pairs and templates;
    the dev conversations' pairs draw the curve and fit the temperature; the held-out
    conversations are never read. A cheaper judge: `--layers 3 --distil-from
    mindstream/lm/adapters/change_judge`. Going on from a shipped judge on numeric updates:
    `--start-from mindstream/lm/adapters/change_judge --state-updates 1500 --epochs 1`; with
    facts told among other chat: add `--focus-hand --context-share 0.6 --state-seed 7`."""
    from mindstream.lab.training.change_run import Focus, run_change_judge

    run_change_judge(
        out,
        overwrite=overwrite,
        epochs=epochs,
        learning_rate=learning_rate,
        rank=rank,
        templates=templates,
        hand=hand,
        threads=threads,
        layers=layers,
        distil_from=distil_from,
        distil=distil,
        focus=Focus(
            state_updates=state_updates,
            state_seed=state_seed,
            foretold=foretold,
            hand=focus_hand,
            context_share=context_share,
            chats=tuple(focus_chats or ()),
        ),
        start_from=start_from,
        replay=replay,
    )


@app.command("change-gate")
@clean_errors
def change_gate(
    out: Annotated[Path, typer.Option(help="where the gate goes")] = RUNS / "change_gate",
    overwrite: Overwrite = False,
    let_through: Annotated[
        float,
        typer.Option(help="share of the judges' likely train pairs (P >= 0.25) let through"),
    ] = 0.97,
    strength: Annotated[
        float, typer.Option(help="inverse L2 strength of the logistic regression", min=1e-4)
    ] = 0.3,
) -> None:
    """Fit the change gate: which near neighbours of a new memory the change judges read,
    decided from the two embeddings alone. The train conversations are replayed through the
    shipped judges (plain and with speaker names) to learn what they find likely; the dev
    conversations report what the gate keeps; the held-out ones are never read. Ship it by
    copying gate.json into mindstream/lm/adapters/change_gate/."""
    from mindstream.compose import Parts
    from mindstream.lab.training.change_gate import run_change_gate

    report = run_change_gate(
        out, Parts.load(), overwrite=overwrite, let_through=let_through, strength=strength
    )
    typer.echo(json.dumps({k: report[k] for k in ("threshold", "train", "dev")}, indent=1))


FriendsQA = Annotated[
    list[Path] | None,
    typer.Option(help="FriendsQA JSON to train on (emorynlp/FriendsQA dat/*.json); repeat"),
]
Molweni = Annotated[
    list[Path] | None,
    typer.Option(help="Molweni MRC JSON to train on (HIT-SCIR/Molweni); repeat"),
]
OpenBookQAPairs = Annotated[
    Path | None,
    typer.Option(help="OpenBookQA train_complete.jsonl: TeachMe's question-to-fact pairs"),
]
OpenBookQALimit = Annotated[
    int | None, typer.Option(help="OpenBookQA train questions used (a sample)", min=1)
]
CheckFriendsQA = Annotated[
    Path | None,
    typer.Option(help="a FriendsQA file measured before and after, never trained on"),
]


@app.command()
@clean_errors
def retriever(
    out: Annotated[Path, typer.Option(help="where the adapter goes")] = RUNS / "retriever",
    overwrite: Overwrite = False,
    friendsqa: FriendsQA = None,
    molweni: Molweni = None,
    openbookqa: OpenBookQAPairs = None,
    openbookqa_limit: OpenBookQALimit = 2000,
    check_friendsqa: CheckFriendsQA = None,
    check_openbookqa: Annotated[
        Path | None, typer.Option(help="OpenBookQA dev_complete.jsonl, measured before and after")
    ] = None,
    epochs: Annotated[float, typer.Option(help="passes over the pairs", min=0.1)] = 2.0,
    learning_rate: LearningRate = 3e-4,
    rank: Annotated[int, typer.Option(help="LoRA rank", min=1)] = 16,
    threads: Threads = 2,
) -> None:
    """Fine-tune the dialogue retriever (LoRA on all-MiniLM-L6-v2 as a bi-encoder) on
    (question, answering turn) pairs with mined hard negatives: the train chats and any public
    dialogue files given. The dev chats draw the curve; the held-out chats are never read."""
    from mindstream.lab.training.retriever import RetrieverTraining
    from mindstream.lab.training.retriever_run import run_retriever

    run_retriever(
        out,
        overwrite=overwrite,
        config=RetrieverTraining(epochs=epochs, learning_rate=learning_rate, rank=rank),
        friendsqa=friendsqa or [],
        molweni=molweni or [],
        openbookqa=openbookqa,
        openbookqa_limit=openbookqa_limit,
        check_friendsqa=check_friendsqa,
        check_openbookqa=check_openbookqa,
        threads=threads,
    )


@app.command()
@clean_errors
def reranker(
    out: Annotated[Path, typer.Option(help="where the adapter goes")] = RUNS / "reranker",
    overwrite: Overwrite = False,
    friendsqa: FriendsQA = None,
    molweni: Molweni = None,
    openbookqa: OpenBookQAPairs = None,
    openbookqa_limit: OpenBookQALimit = 2000,
    check_friendsqa: CheckFriendsQA = None,
    epochs: Annotated[float, typer.Option(help="passes over the pairs", min=0.1)] = 1.0,
    learning_rate: LearningRate = 3e-4,
    rank: Annotated[int, typer.Option(help="LoRA rank", min=1)] = 16,
    layers: Annotated[
        int, typer.Option(help="MiniLM's first N layers (of 6): fewer is faster", min=1, max=6)
    ] = 6,
    candidates: Annotated[
        int, typer.Option(help="the retriever's top N it re-scores (stream.rerank)", min=10)
    ] = 20,
    threads: Threads = 2,
    distil_from: DistilFrom = None,
    distil: Distil = 0.5,
) -> None:
    """Train the reranker: a cross-encoder started from the shipped dialogue retriever, on the
    retriever's (question, answering turn) pairs with negatives the tuned retriever ranks
    high. The dev chats draw the curve (recall@10 after re-scoring the top --candidates); the
    held-out chats are never read. The assistant uses it with `stream.rerank`. A cheaper one:
    `--layers 2 --distil-from mindstream/lm/adapters/reranker`."""
    from mindstream.lab.training.reranker import RerankerTraining
    from mindstream.lab.training.retriever_run import run_reranker

    run_reranker(
        out,
        overwrite=overwrite,
        config=RerankerTraining(
            epochs=epochs,
            learning_rate=learning_rate,
            rank=rank,
            layers=layers,
            candidates=candidates,
            distil=distil if distil_from else 0.0,
        ),
        friendsqa=friendsqa or [],
        molweni=molweni or [],
        openbookqa=openbookqa,
        openbookqa_limit=openbookqa_limit,
        check_friendsqa=check_friendsqa,
        threads=threads,
        distil_from=distil_from,
    )
