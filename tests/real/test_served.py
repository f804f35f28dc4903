"""Every capability over HTTP against a real `transformers serve` of the embedded model.

Each test runs twice: with the decisions asked through the server's typed-decision endpoint
(`auto` probes and picks /v1/systemone), and chat-only (`generate`: labels parsed from replies).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

from mindstream.cli import app
from mindstream.compose import Parts
from mindstream.lm import rate_importance
from mindstream.memory import MemoryKind, MemoryStream
from mindstream.memory.records import ChangePolicy
from tests.conftest import DATA, two_town_ticks
from tests.fault_proxy import FaultProxy

pytestmark = pytest.mark.real_model

runner = CliRunner()
PATHS = ["auto", "generate"]


def _served(server, scorer: str, base_url: str | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    return ["--model", server.spec, "--base-url", base_url or server.base_url, "--scorer", scorer]


def _ok(args: list[str], **options: object):  # type: ignore[no-untyped-def]
    result = runner.invoke(app, args, **options)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def _two_ticks(out: Path, served: list[str]) -> list[str]:
    return [*two_town_ticks(out), *served]


def _poignancy() -> list[dict[str, str]]:
    return [json.loads(x) for x in (DATA / "poignancy.jsonl").read_text().splitlines() if x]


def test_systemone_ratings_order_memories_like_the_local_scorer(
    model_server, real_chat_model, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    items = _poignancy()
    memories = [item["memory"] for item in items]
    parts = Parts.load(
        flags={"model.spec": model_server.spec, "model.served.base_url": model_server.base_url}
    )
    served = rate_importance(parts.models.scorer, memories)
    local = rate_importance(real_chat_model, memories)
    rho = spearmanr(local, served).statistic
    with capsys.disabled():  # shown in every run, not only on failure
        print(f"\nSpearman(local, /v1/systemone) over {len(items)} memories: {rho:.3f}")
    assert parts.models.scorer.path.name == "systemone"  # type: ignore[attr-defined]
    assert rho >= 0.8
    by_group = {
        g: [r for i, r in zip(items, served, strict=True) if i["group"] == g]
        for g in ("mundane", "poignant")
    }
    assert statistics.mean(by_group["poignant"]) > statistics.mean(by_group["mundane"]) + 0.5


@pytest.mark.parametrize("scorer", PATHS)
def test_lm_rate_and_memory_add_rate_over_http(model_server, scorer: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    items = _poignancy()
    served = _served(model_server, scorer)
    result = _ok(["lm", "rate", *(i["memory"] for i in items), *served])
    shown = {}
    for line in result.output.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 2 and cells[0].replace(".", "").isdigit():
            shown[cells[1]] = float(cells[0])
    assert len(shown) == len(items) and all(1.0 <= r <= 10.0 for r in shown.values())
    means = {
        g: statistics.mean(shown[i["memory"]] for i in items if i["group"] == g)
        for g in ("mundane", "poignant")
    }
    print(f"{scorer}: mean rating {means}")
    if scorer == "auto":  # systemone reads the digits' probabilities; parsed replies carry none
        assert means["poignant"] > means["mundane"] + 0.5

    store = tmp_path / "store"
    for item in (items[0], items[-1]):
        _ok(["memory", "add", item["memory"], "--store", str(store), *served])
    stream = Parts.load().stream(store, create=False)
    rated = {r.text: r.importance for r in stream.records("user")}
    stream.close()
    assert set(rated) == {items[0]["memory"], items[-1]["memory"]}
    assert all(1.0 <= value <= 10.0 for value in rated.values())
    if scorer == "auto":
        assert rated[items[-1]["memory"]] > rated[items[0]["memory"]]


@pytest.mark.parametrize("scorer", PATHS)
def test_reflect_over_http(model_server, scorer: str, tmp_path: Path, real_embedder) -> None:  # type: ignore[no-untyped-def]
    from mindstream.memory import new_memory

    store = tmp_path / "store"
    lines = [json.loads(x) for x in (DATA / "klaus_week.jsonl").read_text().splitlines()][:20]
    stream = MemoryStream.open(store, real_embedder)
    stream.add_many([new_memory(text=x["text"], owner="Klaus", importance=8.0) for x in lines])
    stream.close()
    result = _ok(
        ["reflect", "--store", str(store), "--owner", "Klaus", *_served(model_server, scorer)]
    )
    assert "importance since the last reflection: 160" in result.output
    assert "question:" in result.output
    reopened = MemoryStream.open(store, real_embedder)
    reflections = [r for r in reopened.records("Klaus") if r.kind is MemoryKind.REFLECTION]
    print(result.output)
    assert reflections, "no insight was supported by its citations"
    assert all(reopened.get(e).owner == "Klaus" for r in reflections for e in r.evidence)
    reopened.close()


@pytest.mark.parametrize("scorer", PATHS)
def test_teach_move_and_ask_over_http(
    model_server, scorer: str, tmp_path: Path, real_embedder
) -> None:  # type: ignore[no-untyped-def]
    store = tmp_path / "taught"
    served = _served(model_server, scorer)
    moves = (
        "q Can a magnet attract a penny? (A) yes (B) no\nm A magnet cannot attract copper.\nquit\n"
    )
    taught = _ok(["teach", "--store", str(store), *served], input=moves)
    assert (
        "(taught)" in taught.output
        or "considered 1: A magnet cannot attract copper." in taught.output
    )
    stream = MemoryStream.open(store, real_embedder)
    (fact,) = [r for r in stream.records("user") if r.kind is MemoryKind.FACT]
    assert fact.text == "A magnet cannot attract copper."
    assert fact.metadata["question"] == "Can a magnet attract a penny?"
    stream.close()
    answer = _ok(
        ["ask", "Can a magnet attract a copper pan? (A) yes (B) no", "--store", str(store), *served]
    )
    print(answer.output)
    assert "Answer:" in answer.output
    assert (
        "A magnet cannot attract copper." in answer.output
    )  # a taught premise or a considered fact


@pytest.mark.parametrize("scorer", PATHS)
def test_change_detection_asks_the_served_model(
    model_server, scorer: str, tmp_path: Path, real_embedder
) -> None:  # type: ignore[no-untyped-def]
    """With change detection on, a write is judged by the served model (few-shot yes/no over
    its decision path) and the judgement is recorded on the new memory."""
    store = tmp_path / "memory"
    served = _served(model_server, scorer)
    on = {
        "MINDSTREAM_STREAM__CHANGES__ENABLED": "true",
        "MINDSTREAM_STREAM__CHANGES__JUDGE": "model",
    }
    for text in ("I live in a small flat in Leeds.", "We moved to York last week."):
        args = ["memory", "add", text, "--store", str(store), "--importance", "5", *served]
        _ok(args, env=on)
    stream = MemoryStream.open(store, real_embedder)
    leeds, york = sorted(stream.records("user"), key=lambda r: r.created_at)
    stream.close()
    p = york.provenance.closest_p
    print(f"\n{scorer}: P(replaces) {p}, Leeds {leeds.status.value}")
    assert york.provenance.closest == leeds.id and p is not None and 0.0 <= p <= 1.0
    assert (leeds.status.value == "superseded") == (p >= ChangePolicy().threshold)


def test_sim_survives_a_server_storm_and_resumes(model_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Two ticks of smallville over HTTP; a 503 storm stops the run with one line after
    retries; healed, `--resume` finishes it; then an interview."""
    out = tmp_path / "run"
    env = {"MINDSTREAM_MODEL__SERVED__RETRIES": "1"}
    with FaultProxy(model_server.base_url.removesuffix("/v1")) as proxy:
        served = _served(model_server, "auto", base_url=proxy.url + "/v1")
        run = _two_ticks(out, served)
        proxy.fail_after(8)  # the first tick needs more requests than this
        failed = runner.invoke(app, run, env=env)
        assert failed.exit_code == 2, failed.output
        assert "answered HTTP 503" in failed.output and "Traceback" not in failed.output
        assert proxy.failed >= 2  # every failing request was retried
        stopped_at = json.loads((out / "checkpoint.json").read_text())["tick"]
        assert stopped_at < 2
        proxy.heal()
        resumed = _ok([*run, "--resume"], env=env)
    assert "resumed at tick" in resumed.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ticks"] == 2 and summary["model"] == model_server.spec
    events = [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines()]
    ticks = [e["tick"] for e in events]
    assert sorted(set(ticks)) == [1, 2] and ticks == sorted(ticks)  # nothing doubled or lost
    assert sum(e["type"] == "tick" for e in events) == 2  # the failed attempt left no tick
    assert (out / "config.yaml").read_text().count(proxy.url) == 1

    answer = _ok(
        [
            "sim",
            "interview",
            str(out),
            "Isabella Rodriguez",
            "What are you doing today?",
            "--base-url",
            model_server.base_url,
        ]
    )
    print(answer.output)
    assert answer.output.startswith("Isabella Rodriguez:") and "(no answer)" not in answer.output


def test_sim_two_ticks_and_interview_chat_only(model_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    served = _served(model_server, "generate")
    _ok(_two_ticks(out, served))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ticks"] == 2 and summary["requests"]["importance"] > 0
    answer = _ok(["sim", "interview", str(out), "Sam Moore", "Who do you know in town?"])
    print(answer.output)
    assert answer.output.startswith("Sam Moore:") and "(no answer)" not in answer.output


def test_unknown_model_is_one_line(model_server) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(
        app,
        [
            "lm",
            "rate",
            "I made tea",
            "--model",
            "openai:no-such-model",
            "--base-url",
            model_server.base_url,
        ],
    )
    assert result.exit_code == 2
    line = result.output.strip()
    assert "no-such-model" in line and model_server.base_url in line and "refused" in line
    assert "Traceback" not in result.output


def test_a_short_429_storm_is_retried(model_server) -> None:  # type: ignore[no-untyped-def]
    with FaultProxy(model_server.base_url.removesuffix("/v1")) as proxy:
        proxy.fail_after(0, status=429, failures=2)
        result = _ok(
            [
                "lm",
                "rate",
                "My house burned down",
                *_served(model_server, "auto", proxy.url + "/v1"),
            ]
        )
        assert proxy.failed == 2 and proxy.forwarded >= 1
    assert 1.0 <= float(result.output.strip()) <= 10.0


def test_probe_shows_the_path_of_each_decision(model_server) -> None:  # type: ignore[no-untyped-def]
    result = _ok(["lm", "probe", *_served(model_server, "auto")])
    assert "/v1/systemone yes, log-probabilities no" in result.output
    lines = [line for line in result.output.splitlines() if "systemone" in line]
    assert any("rating" in line for line in lines) and any("yes/no" in line for line in lines)
