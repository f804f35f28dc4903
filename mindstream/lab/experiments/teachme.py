"""TeachMe's simulated-teacher experiment on OpenBookQA (Dalvi Mishra et al. 2022, section 5).

A teacher goes through train questions; whenever the system answers wrong, it adds that
question's gold core fact to memory. The hidden split is then answered with no more teaching.
Progress is saved after every checkpoint (`--work`), so a killed run resumes.
"""

from __future__ import annotations

import json
import math
import random
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.progress import Progress

from mindstream.agents.teachme import TeachableReasoner, TeachMeConfig
from mindstream.lab.experiments.openbookqa import DEFAULT_DATA, Question, load_questions
from mindstream.lab.experiments.report import SECTIONS, table, write_section
from mindstream.lm import DEFAULT_MODEL_SPEC, MemoScorer, Scorer
from mindstream.lm.judges.relation import RelationJudge
from mindstream.lm.judges.verifier import MemoVerifier, Verifier
from mindstream.memory import InMemoryStore, MemoryStore, MemoryStream, StreamConfig, new_memory
from mindstream.memory.embedder import Embedder

if TYPE_CHECKING:
    from mindstream.compose import Parts

CURVE = tuple(range(10, 101, 10))  # % of the train questions seen


class Builder(Protocol):
    """What the lab builds its memories and reasoners with (`Parts` is one)."""

    def stream(self, *, store: MemoryStore, policy: StreamConfig) -> MemoryStream: ...

    def reasoner(
        self,
        stream: MemoryStream,
        *,
        scorer: Scorer,
        checkers: tuple[Verifier | None, RelationJudge | None],
        writes: bool,
        config: TeachMeConfig,
    ) -> TeachableReasoner: ...


class Lab:
    """One scorer and embedder; fresh memories on demand. The model is frozen, so each
    (context, answers) score is computed once and reused across curve points."""

    def __init__(
        self,
        build: Builder,
        scorer: Scorer,
        embedder: Embedder,
        spec: str = DEFAULT_MODEL_SPEC,
        config: TeachMeConfig | None = None,
        verifier: Verifier | None = None,
        judge: RelationJudge | None = None,
    ) -> None:
        self.build = build
        self.scorer = MemoScorer(scorer)
        self.embedder = embedder
        self.spec = spec
        self.config = config or TeachMeConfig(retrieve_k=5)
        self.verifier = None if verifier is None else MemoVerifier(verifier)
        self.judge = judge

    @classmethod
    def of(cls, parts: Parts) -> Lab:
        """The lab of a configuration: its scorer, embedder and TeachMe settings."""
        return cls(
            parts,
            parts.scorer_for("teachme"),
            parts.models.embedder,
            parts.config.model.spec,
            parts.config.teachme,
            *parts.teachme_checkers(parts.config.teachme),
        )

    def reasoner(self, facts: list[tuple[str, str]]) -> TeachableReasoner:
        """A reasoner taught `facts` (question id, fact), scoring only: no chat model, so
        hypotheses come by rule and premises are not written."""
        stream = self.build.stream(store=InMemoryStore(), policy=StreamConfig())
        stream.add_many(
            [
                new_memory(
                    text=fact, owner="user", kind="fact", importance=8.0, metadata={"question": qid}
                )
                for qid, fact in facts
            ]
        )
        checkers = (self.verifier, self.judge)
        return self.build.reasoner(
            stream, scorer=self.scorer, checkers=checkers, writes=False, config=self.config
        )

    def accuracy(
        self, reasoner: TeachableReasoner, questions: list[Question], direct: bool = False
    ) -> float:
        right = self.correct(reasoner, questions, direct)
        return sum(right) / len(right)

    def correct(
        self, reasoner: TeachableReasoner, questions: list[Question], direct: bool = False
    ) -> list[bool]:
        """Per question: answered right? (paired comparisons need the questions, not a rate)"""
        return [
            (
                reasoner.direct(q.stem, q.choices) if direct else reasoner.answer(q.stem, q.choices)
            ).choice_index
            == q.answer_index
            for q in questions
        ]


def teach(reasoner: TeachableReasoner, question: Question) -> bool:
    """Answer one train question; on a wrong answer add its core fact. True if it taught."""
    answer = reasoner.answer(question.stem, question.choices)
    if answer.choice_index == question.answer_index:
        return False
    reasoner.stream.add_many(
        [
            new_memory(
                text=question.fact,
                owner="user",
                kind="fact",
                importance=8.0,
                metadata={"question": question.id},
            )
        ]
    )
    return True


def _resumable(state_path: Path, settings: dict[str, Any]) -> dict[str, Any]:
    """The saved progress of a run with these settings; a run with other settings (a changed
    TeachMe config) starts over, so its numbers are never mixed with another's."""
    state: dict[str, Any] = json.loads(state_path.read_text()) if state_path.is_file() else {}
    if state and state.get("settings") != json.loads(json.dumps(settings)):
        print(f"{state_path}: saved with other settings; starting over")
        return {}
    return state


def run(
    data: Path = DEFAULT_DATA / "dev_complete.jsonl",
    train_file: Path = DEFAULT_DATA / "train_complete.jsonl",
    limit: int | None = None,
    train_limit: int | None = 500,
    curve_limit: int = 100,
    orderings: int = 3,
    seed: int = 0,
    work: Path = Path("runs/teachme"),
    lab: Lab | None = None,
    out: Path = SECTIONS,
    upper_bound: bool = True,
) -> dict[str, Any]:
    """`lab` holds the scorer (`Lab.of(parts)`); the section, JSON and plot go to `out`.
    `upper_bound`: also answer with every train fact in memory (the longest step)."""
    if lab is None:
        raise ValueError("the TeachMe experiment needs a lab (Lab.of(parts))")
    model = lab.spec
    started = time.perf_counter()
    hidden = load_questions(data, limit)
    train = load_questions(train_file, train_limit)
    split = data.stem
    tag = "" if model == DEFAULT_MODEL_SPEC else re.sub(r"[^\w.-]+", "_", model) + "-"
    state_path = work / f"{tag}state-{split}-{len(hidden)}-{len(train)}-{seed}.json"
    settings = {"model": model, "teachme": lab.config.model_dump()}
    state = _resumable(state_path, settings)
    if state and "seconds" not in state:
        state["untimed_start"] = True  # resumed from a run killed before it recorded its time
    state["settings"] = settings
    work.mkdir(parents=True, exist_ok=True)
    timed = float(state.get("seconds", 0))

    def save() -> None:
        """Progress and the time spent so far, so a killed run keeps both."""
        state["seconds"] = round(timed + time.perf_counter() - started, 1)
        state_path.write_text(json.dumps(state, indent=1))

    state["model"] = model
    curve_questions = hidden[:curve_limit]
    with Progress() as progress:
        if "direct" not in state:
            empty = lab.reasoner([])
            task = progress.add_task("direct QA and TeachMe before teaching", total=2)
            state["direct"] = lab.accuracy(empty, hidden, direct=True)
            progress.advance(task)
            state["before_right"] = lab.correct(empty, hidden)
            state["before"] = sum(state["before_right"]) / len(hidden)
            progress.advance(task)
            save()
        if "curve_before" not in state:  # the curve's 0% point, the same for every ordering
            state["curve_before"] = lab.accuracy(lab.reasoner([]), curve_questions)
            save()
        for order in range(orderings):
            key = f"ordering {order}"
            run_state = state.setdefault(key, {"position": 0, "taught": [], "curve": {}})
            sequence = list(train)
            random.Random(seed + order).shuffle(sequence)
            by_id = {q.id: q for q in sequence}
            reasoner = lab.reasoner([(i, by_id[i].fact) for i in run_state["taught"]])
            bar = progress.add_task(key, total=len(sequence), completed=run_state["position"])
            for percent in CURVE:
                stop = round(len(sequence) * percent / 100)
                if str(percent) in run_state["curve"]:
                    continue
                for question in sequence[run_state["position"] : stop]:
                    if teach(reasoner, question):
                        run_state["taught"].append(question.id)
                    run_state["position"] += 1
                    progress.advance(bar)
                run_state["curve"][str(percent)] = lab.accuracy(reasoner, curve_questions)
                save()
            if order == 0 and "after" not in state:
                state["after_right"] = lab.correct(reasoner, hidden)
                state["after"] = sum(state["after_right"]) / len(hidden)
                state["taught_facts"] = len(run_state["taught"])
                state["facts_taught"] = [by_id[i].fact for i in run_state["taught"]]
                save()
        # last: the longest single step (every train fact in memory), after the results
        if upper_bound and "upper_bound" not in state:
            task = progress.add_task("upper bound (all train facts)", total=1)
            every = list({q.fact: (q.id, q.fact) for q in load_questions(train_file)}.values())
            state["upper_bound"] = lab.accuracy(lab.reasoner(every), hidden)
            state["upper_bound_facts"] = len(every)
            progress.advance(task)
            save()
    state.setdefault("seconds", timed)
    command = (
        f"mindstream eval teachme --data {data} --train {train_file} --train-limit {train_limit} "
        f"--curve-limit {curve_limit} --orderings {orderings} --seed {seed}"
        + (f" --limit {limit}" if limit else "")
        + ("" if upper_bound else " --no-upper-bound")
        + ("" if model == DEFAULT_MODEL_SPEC else f" --model {model}")
    )
    return _report(state, command, split, len(hidden), len(train), curve_questions, orderings, out)


def _report(
    state: dict[str, Any],
    command: str,
    split: str,
    n_hidden: int,
    n_train: int,
    curve_questions: list[Question],
    orderings: int,
    out: Path,
) -> dict[str, Any]:
    curves = [
        [state["curve_before"], *(state[f"ordering {o}"]["curve"][str(p)] for p in CURVE)]
        for o in range(orderings)
    ]
    png = out / "teachme_curve.png"
    _plot(curves, state, png, len(curve_questions), n_hidden)
    data_out = {
        "command": command,
        **{k: v for k, v in state.items() if not k.startswith("ordering")},
        "curves": curves,
        "taught_per_ordering": [len(state[f"ordering {o}"]["taught"]) for o in range(orderings)],
        "curve_points_percent": [0, *CURVE],
        "hidden": n_hidden,
        "train_used": n_train,
    }
    rows = [
        ["direct QA (fast thinking)", f"{state['direct']:.1%}"],
        ["TeachMe, before teaching", f"{state['before']:.1%}"],
        [
            f"TeachMe, after teaching ({state['taught_facts']} facts, {n_train} train questions)",
            f"{state['after']:.1%}",
        ],
    ]
    if "upper_bound" in state:
        rows.append(
            [
                f"upper bound (all {state['upper_bound_facts']} train core facts in memory)",
                f"{state['upper_bound']:.1%}",
            ]
        )
    else:
        rows.append(["upper bound", "not run (--no-upper-bound): see teachme-scoring, gated"])
    curve_rows = [[f"{p}%", *(f"{c[i]:.1%}" for c in curves)] for i, p in enumerate((0, *CURVE))]
    curve_rows.append(
        ["facts taught", *(str(len(state[f"ordering {o}"]["taught"])) for o in range(orderings))]
    )
    untimed = (
        " (not counting the first, untimed part of the run, which was killed and resumed)"
        if state.get("untimed_start")
        else ""
    )
    se_all = _standard_error(state["before"], n_hidden)
    se_gain = _paired_standard_error(state.get("before_right"), state.get("after_right"))
    gain = 100 * (state["after"] - state["before"])
    se_curve = _standard_error(state["before"], len(curve_questions))
    markdown = f"""## TeachMe: learning from a simulated teacher (OpenBookQA {split})

The teacher went through {n_train} train questions (the paper used all 4957) and added a
question's gold core fact to memory whenever the answer was wrong; the {n_hidden} {split}
questions were then answered with no more teaching. The model {state["model"]} stays frozen
(the verifier adapter is fixed before the run): a taught fact found for a question (BM25 over
question + choices, r = 5) becomes a premise only through the gate (embedding similarity and the
verifier's entailment judgement), and the best proof is the verifier's most confident one; with no
fact through the gate the direct answer (mean log-likelihood) stands, so "before teaching"
equals direct QA. Paper (T5-11B Entailer, OpenBookQA test): 72.6% before, 77.0% after. Chance
is 25%. Wall time {state["seconds"]} s{untimed}.

{table(["system", "accuracy"], rows)}

After minus before: {gain:+.1f} points, paired standard error {se_gain:.1f} points (the same
{n_hidden} questions answered twice). The facts taught are listed in `teachme.json`.

Sampling error: one standard error of an accuracy near {state["before"]:.0%} is {se_all:.1f} points
on {n_hidden} questions and {se_curve:.1f} points on the {len(curve_questions)} curve questions;
differences smaller than about twice that are noise.

Learning curve: accuracy on the first {len(curve_questions)} {split} questions after the teacher has
seen x% of the {n_train} train questions, for {orderings} orderings (`teachme_curve.png`).

{table(["train seen", *(f"ordering {o}" for o in range(orderings))], curve_rows)}

![learning curve](results/teachme_curve.png)
"""
    write_section("teachme", markdown, data_out, out)
    return data_out


def _paired_standard_error(before: list[bool] | None, after: list[bool] | None) -> float:
    """Standard error (points) of after - before on the same questions."""
    if not before or not after:
        return float("nan")
    diffs = [int(a) - int(b) for a, b in zip(after, before, strict=True)]
    mean = sum(diffs) / len(diffs)
    variance = sum((d - mean) ** 2 for d in diffs) / max(len(diffs) - 1, 1)
    return 100 * math.sqrt(variance / len(diffs))


def _standard_error(accuracy: float, questions: int) -> float:
    """Binomial standard error, in percentage points."""
    return 100 * math.sqrt(accuracy * (1 - accuracy) / max(questions, 1))


def _plot(
    curves: list[list[float]], state: dict[str, Any], path: Path, n_curve: int, n_hidden: int
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 4))
    for n, curve in enumerate(curves):
        axis.plot(
            (0, *CURVE), [100 * c for c in curve], marker="o", alpha=0.7, label=f"ordering {n}"
        )
    axis.axhline(
        100 * state["direct"],
        linestyle="--",
        color="grey",
        label=f"direct QA ({n_hidden} questions)",
    )
    if "upper_bound" in state:
        axis.axhline(
            100 * state["upper_bound"],
            linestyle=":",
            color="black",
            label=f"upper bound ({n_hidden} questions)",
        )
    axis.set_xlabel("% of train questions seen by the teacher")
    axis.set_ylabel("accuracy (%)")
    axis.set_title(
        f"TeachMe with {state['model']}\nlearning curves on {n_curve} held-out questions",
        fontsize=10,
    )
    axis.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
