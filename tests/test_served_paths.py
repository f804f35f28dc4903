"""Served models on a scripted OpenAI-compatible server (real HTTP, no model): the probe, the
log-probability and chat-only decision paths, prefills, concurrency and one-line errors."""

from __future__ import annotations

import math
import socket
import threading
import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from typer.testing import CliRunner

from mindstream.cli import app
from mindstream.lm import (
    CallLedger,
    DecisionParseError,
    ServedConfig,
    ServerUnreachableError,
    choose,
    p_yes,
    rate,
)
from mindstream.lm.served.chat import ServedChatModel, as_turns, strip_prefill
from mindstream.lm.served.decisions import GeneratedPath, LogprobPath, _choice
from mindstream.lm.served.endpoint import Endpoint
from mindstream.lm.served.scorer import ServedScorer, probe
from mindstream.lm.served.server import free_port
from tests.fake_openai import FakeOpenAI

YES_NO = "Is ice cold?"
RATING = "Memory: I lost my job\nRating:"
CHOICE = ("Isabella wants bread, so she walks to the", ["dentist", "bakery"])


def _endpoint(url: str, **config: object) -> Endpoint:
    return Endpoint(url=url, model="m", config=ServedConfig(retries=0, **config))  # type: ignore[arg-type]


def _kind(prompt: str) -> str:
    return "choice" if "letter" in prompt else "rating" if "number" in prompt else "yes/no"


def _tops(prompt: str) -> dict[str, float]:
    return {
        "yes/no": {"Yes": 0.5, " yes": 0.1, "No": 0.3, "Hmm": 0.1},
        "rating": {"7": 0.5, "8": 0.25, "The": 0.25},
        "choice": {"B": 0.6, "A": 0.2, "Sure": 0.2},
    }[_kind(prompt)]


def test_probe_picks_log_probabilities_where_offered() -> None:
    with FakeOpenAI(lambda p: "Yes", _tops) as fake:
        report = probe(_endpoint(fake.base_url), fresh=True)
    assert (report.chat, report.systemone, report.logprobs) == (True, False, True)
    assert report.path == "logprobs"
    with FakeOpenAI(lambda p: "Yes") as fake:
        assert probe(_endpoint(fake.base_url), fresh=True).path == "generate"


def test_logprob_path_reads_the_labels_among_the_first_token_alternatives() -> None:
    with FakeOpenAI(lambda p: "x", _tops) as fake:
        scorer = ServedScorer(LogprobPath(_endpoint(fake.base_url)))
        assert p_yes(scorer, YES_NO) == pytest.approx(0.6 / 0.9)
        assert rate(scorer, RATING, 1, 10) == pytest.approx((7 * 0.5 + 8 * 0.25) / 0.75)
        picked = choose(scorer, *CHOICE)
        assert picked.option == "bakery"
        assert picked.scores == pytest.approx([math.log(0.25), math.log(0.75)])
        assert all(r["max_tokens"] == 1 and r["top_logprobs"] == 20 for r in fake.requests)


def test_logprob_path_parses_the_reply_when_no_label_is_among_the_alternatives() -> None:
    with FakeOpenAI(lambda p: "No, it is not.", lambda p: {"Well": 1.0}) as fake:
        scorer = ServedScorer(LogprobPath(_endpoint(fake.base_url)))
        assert p_yes(scorer, YES_NO) == 0.0
        assert [bool(r.get("logprobs")) for r in fake.requests] == [True, False]


def test_chat_only_path_re_asks_with_the_error_then_reads_the_answer() -> None:
    replies = iter(["The answer is 13.", "7", "I think so", "yes", "Well...", "B. the bakery"])
    with FakeOpenAI(lambda p: next(replies)) as fake:
        scorer = ServedScorer(GeneratedPath(_endpoint(fake.base_url)))
        assert rate(scorer, RATING, 1, 10) == 7.0
        assert p_yes(scorer, YES_NO) == 1.0
        assert choose(scorer, *CHOICE).option == "bakery"
    retry = fake.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "The answer is 13."}
    assert "could not be used" in retry[-1]["content"] and "1 to 10" in retry[-1]["content"]
    assert fake.requests[1]["temperature"] > 0  # a re-ask samples
    first = fake.requests[0]["messages"][0]["content"]
    assert first.startswith("Answer with one whole number") and first.endswith("1 to 10 only.")


@pytest.mark.parametrize(
    ("reply", "index"),
    [
        ("B", 1),
        ("(B)", 1),
        ("B. the bakery", 1),
        ("The answer is B.", 1),
        ("Answer: (A)", 0),
        ("I think the bakery.", 1),
        ("A bakery, not a dentist", None),  # both named, and "A" is a word here
        ("I think so", None),
        ("the answer is a bakery", 1),  # "a" is not a letter label; "bakery" names the option
        ("C", None),  # no third option
    ],
)
def test_chat_only_choices_read_a_label_or_a_single_named_option(
    reply: str, index: int | None
) -> None:
    assert _choice(["dentist", "bakery"])(reply) == index


def test_chat_only_path_gives_up_with_a_typed_error_never_a_value() -> None:
    with FakeOpenAI(lambda p: "maybe") as fake:
        scorer = ServedScorer(GeneratedPath(_endpoint(fake.base_url, parse_attempts=3)))
        with pytest.raises(DecisionParseError, match="after 3 attempt") as caught:
            p_yes(scorer, YES_NO)
    assert caught.value.raw_texts == ["maybe"] * 3


def test_a_prefill_becomes_an_instruction_and_is_taken_off_the_reply() -> None:
    prefill = "Ann's plan for today:\n1) 8:00 am:"
    turns, found = as_turns([HumanMessage("Write Ann's plan."), AIMessage(prefill)])
    assert found == prefill and len(turns) == 1
    assert turns[0]["content"].startswith("Write Ann's plan.")
    assert turns[0]["content"].endswith(prefill)
    assert strip_prefill(f"{prefill} wake up\n2) 9:00 am: work", prefill).startswith("wake up")
    assert strip_prefill("1) 8:00 am: wake up", prefill) == "wake up"
    assert strip_prefill("I wake up at eight.", prefill) == "I wake up at eight."
    assert as_turns([HumanMessage("hi")]) == ([{"role": "user", "content": "hi"}], "")


def test_a_batch_goes_out_concurrently_and_is_counted() -> None:
    in_flight, peak, lock = [0], [0], threading.Lock()

    def slow(prompt: str) -> str:
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.2)
        with lock:
            in_flight[0] -= 1
        return f"re: {prompt}"

    ledger = CallLedger()
    with FakeOpenAI(slow) as fake:
        model = ServedChatModel(
            endpoint=_endpoint(fake.base_url, max_concurrency=3), callbacks=[ledger.callback()]
        )
        replies = model.batch([f"q{n}" for n in range(6)], max_tokens=5)
    assert [r.text for r in replies] == [f"re: q{n}" for n in range(6)]
    assert peak[0] == 3
    assert ledger.usage()["chat"].calls == 6
    assert all(r["max_tokens"] == 5 for r in fake.requests)


def test_an_unreachable_server_is_one_line_naming_it_within_the_timeout() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    started = time.perf_counter()
    result = CliRunner().invoke(
        app,
        ["lm", "rate", "I made tea", "--model", "openai:m", "--base-url", url],
        env={"MINDSTREAM_MODEL__SERVED__RETRIES": "1", "MINDSTREAM_MODEL__SERVED__TIMEOUT": "5"},
    )
    assert time.perf_counter() - started < 15
    assert result.exit_code == 2
    assert (
        result.output.count("\n") == 1
        and f"cannot reach the model server at {url}" in result.output
    )


def test_a_server_too_slow_to_answer_says_so_and_what_to_raise() -> None:
    """A 25-agent unscripted day's first tick queued dozens of requests on a 2-core vLLM: the
    run stopped with 'cannot reach ...; is it running?' while the server was up."""

    def slow(prompt: str) -> str:
        time.sleep(2.0)
        return "1"

    with FakeOpenAI(slow) as fake:
        model = ServedChatModel(endpoint=_endpoint(fake.base_url, timeout=0.5))
        with pytest.raises(ServerUnreachableError) as raised:
            model.invoke("Rate it.")
    message = str(raised.value)
    assert "did not answer" in message and "within 0.5 s" in message
    assert "MINDSTREAM_MODEL__SERVED__TIMEOUT" in message and "is it running" not in message


def test_the_install_hint_keeps_its_brackets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "fastapi" else real(name, *a)
    )
    (tmp_path / "config.json").write_text("{}")
    result = CliRunner().invoke(
        app, ["model", "serve", "--engine", "transformers", "--model-path", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "pip install 'mindstream[serve]'" in result.output


def test_serving_on_vllm_without_the_engine_says_how_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MINDSTREAM_ENGINE_PYTHON", str(tmp_path / "no-python"))
    (tmp_path / "config.json").write_text("{}")
    result = CliRunner().invoke(
        app, ["model", "serve", "--engine", "vllm", "--model-path", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "make engine" in result.output and "Traceback" not in result.output


def test_serving_on_a_taken_port_or_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        serve = ["model", "serve", "--engine", "transformers", "--model-path", str(tmp_path)]
        result = CliRunner().invoke(app, [*serve, "--port", str(port)])
    assert result.exit_code == 2 and _one_error_line(result.output)
    assert f"port {port} on 127.0.0.1 is in use" in result.output
    missing = tmp_path / "nowhere"
    result = CliRunner().invoke(
        app, ["model", "serve", "--engine", "transformers", "--model-path", str(missing)]
    )
    assert result.exit_code == 2 and _one_error_line(result.output)
    assert f"{missing}: no transformers model folder" in result.output


def _one_error_line(output: str) -> bool:
    lines = output.splitlines()
    return "Traceback" not in output and [n for n, line in enumerate(lines) if "error" in line] == [
        len(lines) - 1
    ]
