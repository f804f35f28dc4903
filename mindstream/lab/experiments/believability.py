"""`mindstream eval believability RUN_DIR`: interview a finished town's agents under each
ablation condition, judge every pair of conditions' answers through any scorer, and rate the
conditions with TrueSkill (Generative Agents, section 6). Resumable: answers and judgments are
kept in the output folder as they are made."""

from __future__ import annotations

import json
import re
import time
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import Progress

from mindstream.lab.believability import require_statistics
from mindstream.lab.believability.interviews import Question, answer_under, questions_for
from mindstream.lab.believability.judge import grounded, invented_names, preferences, vocabulary
from mindstream.lab.believability.ratings import bootstrap, ranking, significance, trueskill
from mindstream.lab.experiments.believability_report import write

if TYPE_CHECKING:
    from mindstream.compose import Parts
    from mindstream.sim import Engine

CHUNK = 16  # judgments per scoring batch (each is two prompts)


class State:
    """Answers and judgments made so far, saved after every batch."""

    def __init__(self, path: Path) -> None:
        self.path = path
        data = json.loads(path.read_text()) if path.is_file() else {}
        self.answers: dict[str, dict[str, str]] = data.get("answers", {})
        self.judged: dict[str, float] = data.get("judged", {})
        self.seconds: dict[str, float] = data.get("seconds", {})
        self.calls: dict[str, int] = data.get("calls", {})

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "answers": self.answers,
            "judged": self.judged,
            "seconds": self.seconds,
            "calls": self.calls,
        }
        self.path.write_text(json.dumps(data, indent=1))


def run(run_dir: Path, out: Path, parts: Parts, judge: Parts) -> dict[str, Any]:
    from mindstream.sim.runner import resume_run, saved_config

    require_statistics()

    config = parts.config.believability
    conditions = config.chosen()
    engine, _ = resume_run(run_dir, parts.under(saved_config(run_dir)).run_parts(keep_config=False))
    questions = questions_for(engine.scenario, config.per_category, config.seed)
    state = State(out / "believability-state.json")
    judge_name = judge.config.model.spec
    with Progress() as progress:
        _answer(engine, conditions, questions, state, progress)
        _judge(engine, list(conditions), questions, state, judge, progress)
    rankings = [
        ranking(list(conditions), _wins(state, judge_name, q, list(conditions))) for q in questions
    ]
    result = {
        "command": _command(run_dir, judge_name, parts.config.model.spec),
        "run": str(run_dir),
        "agents": len(engine.agents),
        "questions": len(questions),
        "per_category": config.per_category,
        "model": parts.config.model.spec,
        "judge": judge_name,
        "conditions": {n: c.label or n for n, c in conditions.items()},
        "trueskill": trueskill(rankings, list(conditions), config.seed),
        "intervals": bootstrap(rankings, list(conditions), config.bootstrap, config.seed),
        "significance": significance(rankings, list(conditions)),
        "mean_place": {c: sum(r[c] for r in rankings) / len(rankings) for c in conditions},
        "grounding": _grounding(engine, conditions, questions, state),
        "seconds": dict(state.seconds),
        "calls": dict(state.calls),
        "examples": _examples(questions, state, list(conditions)),
    }
    write(result, out, _slug(judge_name, parts.config.model.spec))
    return result


def _command(run_dir: Path, judge: str, model: str) -> str:
    command = f"mindstream eval believability {run_dir}"
    return command if judge == model else f"{command} --judge-model {judge} --judge-base-url URL"


def _key(question: Question) -> str:
    return f"{question.agent}|{question.number}"


def _answer(
    engine: Engine,
    conditions: dict[str, Any],
    questions: list[Question],
    state: State,
    progress: Progress,
) -> None:
    task = progress.add_task("interviews", total=len(conditions) * len(questions))
    for name, condition in conditions.items():
        done = state.answers.setdefault(name, {})
        todo = [q for q in questions if _key(q) not in done]
        progress.advance(task, len(questions) - len(todo))
        if not todo:
            continue
        start, calls = time.perf_counter(), sum(engine.minds.requests.values())
        answers = answer_under(condition, engine.agents, todo, engine.minds, engine.clock.now())
        done.update({_key(q): a for q, a in zip(todo, answers, strict=True)})
        state.seconds[f"answers {name}"] = round(time.perf_counter() - start, 1)
        state.calls[f"answers {name}"] = sum(engine.minds.requests.values()) - calls
        state.save()
        progress.advance(task, len(todo))


def _judge(
    engine: Engine,
    conditions: list[str],
    questions: list[Question],
    state: State,
    judge: Parts,
    progress: Progress,
) -> None:
    name = judge.config.model.spec
    pending = [
        (q, a, b)
        for q in questions
        for a, b in combinations(conditions, 2)
        if f"{name}|{_key(q)}|{a}|{b}" not in state.judged
    ]
    task = progress.add_task(f"judging ({name})", total=len(pending))
    if not pending:
        return
    scorer = judge.scorer_for("judge")
    start = time.perf_counter()
    for first in range(0, len(pending), CHUNK):
        chunk = pending[first : first + CHUNK]
        items = [
            (
                _persona(engine, q.agent),
                q.text,
                state.answers[a][_key(q)],
                state.answers[b][_key(q)],
            )
            for q, a, b in chunk
        ]
        for (q, a, b), p in zip(chunk, preferences(scorer, items), strict=True):
            state.judged[f"{name}|{_key(q)}|{a}|{b}"] = p
        state.seconds[f"judging {name}"] = round(
            state.seconds.get(f"judging {name}", 0.0) + time.perf_counter() - start, 1
        )
        state.calls[f"judging {name}"] = state.calls.get(f"judging {name}", 0) + 2 * len(chunk)
        start = time.perf_counter()
        state.save()
        progress.advance(task, len(chunk))


def _persona(engine: Engine, agent: str) -> str:
    person = engine.agents[agent]
    return person.header() + "\n" + " ".join(person.persona.memories)


def _wins(
    state: State, judge: str, question: Question, conditions: list[str]
) -> dict[tuple[str, str], float]:
    return {
        (a, b): state.judged[f"{judge}|{_key(question)}|{a}|{b}"]
        for a, b in combinations(conditions, 2)
    }


def _grounding(
    engine: Engine, conditions: dict[str, Any], questions: list[Question], state: State
) -> dict[str, dict[str, float]]:
    """Per condition: the share of answers that use the agent's own memories of the run, and
    the share naming someone or somewhere its world does not have."""
    world = vocabulary(
        [engine.scenario.model_dump_json()] + [r.text for r in engine.stream.records()]
    )
    lived = {
        a: [r.text for r in engine.stream.records(a) if not r.metadata.get("seed")]
        for a in engine.agents
    }
    said = _lines_said(engine)
    out = {}
    for name in conditions:
        answers = [(q, state.answers[name][_key(q)]) for q in questions]
        mine = [grounded(a, lived[q.agent], said=said.get(q.agent, [])) for q, a in answers]
        out[name] = {
            "grounded": sum(mine) / len(answers),
            "invented_names": sum(bool(invented_names(a, world)) for _, a in answers)
            / len(answers),
            "empty": sum(not a.strip() for _, a in answers) / len(answers),
        }
    return out


def _lines_said(engine: Engine) -> dict[str, list[str]]:
    """Every line each agent said in the run's conversations."""
    from mindstream.agents.generative.events import Talked

    said: dict[str, list[str]] = {}
    for event in engine.folder.events() if engine.folder is not None else []:
        if isinstance(event, Talked):
            for speaker, line in event.lines:
                said.setdefault(speaker, []).append(line)
    return said


def _examples(
    questions: list[Question], state: State, conditions: list[str]
) -> list[dict[str, Any]]:
    firsts = {q.category: q for q in reversed(questions)}  # each category's first question
    picked = sorted(firsts.values(), key=questions.index)
    return [
        {
            "agent": q.agent,
            "category": q.category,
            "question": q.text,
            "answers": {c: state.answers[c][_key(q)] for c in conditions},
        }
        for q in picked
    ]


def _slug(judge: str, model: str) -> str:
    if judge == model:
        return "believability"
    return "believability_judged_by_" + re.sub(
        r"[^a-z0-9]+", "_", judge.lower().split("/")[-1]
    ).strip("_")
