"""Against a real vLLM (CPU engine, the embedded model's weights in float32): the likelihood
scorer over HTTP answers as the in-process scorer does, prefills continue as in-process, and
the town, TeachMe and memory run on it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from scipy.stats import spearmanr
from typer.testing import CliRunner

from mindstream.cli import app
from mindstream.compose import Parts
from mindstream.lm import choose_many, rate_importance
from mindstream.lm.served.likelihood import ServedLikelihoodScorer
from mindstream.lm.served.scorer import probe
from tests.conftest import DATA, two_town_ticks

pytestmark = pytest.mark.real_model

runner = CliRunner()


def _parts(server, **flags: str) -> Parts:  # type: ignore[no-untyped-def]
    return Parts.load(
        flags={
            "model.spec": server.spec,
            "model.served.base_url": server.base_url,
            "model.served.max_concurrency": "32",
            **flags,
        }
    )


def _served(server) -> list[str]:  # type: ignore[no-untyped-def]
    return ["--model", server.spec, "--base-url", server.base_url]


def test_the_probe_picks_exact_likelihoods(vllm_server) -> None:  # type: ignore[no-untyped-def]
    parts = _parts(vllm_server)
    from mindstream.lm.resolve import endpoint_of

    report = probe(endpoint_of(parts.config.model))
    assert report.likelihood and report.path == "likelihood"
    assert isinstance(parts.models.scorer, ServedLikelihoodScorer)


def test_ratings_choices_and_yes_no_match_the_local_scorer(
    vllm_server, real_chat_model, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    memories = [
        json.loads(x)["memory"] for x in (DATA / "poignancy.jsonl").read_text().splitlines() if x
    ]
    scorer = _parts(vllm_server).models.scorer
    served, local = rate_importance(scorer, memories), rate_importance(real_chat_model, memories)
    rho = spearmanr(local, served).statistic
    with capsys.disabled():  # shown in every run, not only on failure
        print(f"\nSpearman(local, vLLM likelihood) over {len(memories)} memories: {rho:.3f}")
    assert rho >= 0.99
    assert max(abs(a - b) for a, b in zip(local, served, strict=True)) < 0.05
    prompts = ["Is the sky blue? Answer:", "Is fire cold? Answer:"]
    yes = zip(scorer.p_yes_batch(prompts), real_chat_model.p_yes_batch(prompts), strict=True)
    assert all(abs(a - b) < 0.01 for a, b in yes)
    request = [("Klaus is hungry. He walks to the", [" bakery", " dentist", " library"])]
    for baseline in (None, "He walks to the"):  # mean log-likelihoods, and PMI
        there = choose_many(scorer, request, baseline)[0].scores
        here = choose_many(real_chat_model, request, baseline)[0].scores
        assert there == pytest.approx(here, abs=0.02)


def test_a_prefilled_reply_continues_as_in_process(vllm_server, real_chat_model) -> None:  # type: ignore[no-untyped-def]
    chat = _parts(vllm_server).chat_for("interview")
    for question in ("What are you working on?", "Who do you live with?"):
        messages = [
            HumanMessage(f"You are Klaus Mueller, a student. Interviewer: {question}"),
            AIMessage("Klaus: I"),
        ]
        served = chat.invoke(messages, max_tokens=16).text
        local = real_chat_model.invoke(messages, max_tokens=16).text
        print(f"\nvLLM:  {served}\nlocal: {local}")
        assert served.split()[:6] == local.split()[:6]
        assert "I'm not sure what to say" not in served


def test_two_town_ticks_and_an_interview_over_vllm(vllm_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    args = [*two_town_ticks(out), *_served(vllm_server), "--max-concurrency", "32"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads((out / "checkpoint.json").read_text())["tick"] == 2
    question = "What are you doing today?"
    interview = ["sim", "interview", str(out), "Sam Moore", question, *_served(vllm_server)]
    answer = runner.invoke(app, interview)
    assert answer.exit_code == 0, answer.output
    assert "I'm not sure what to say" not in answer.output


def test_teach_and_ask_over_vllm(vllm_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store = tmp_path / "taught"
    moves = "q Can a magnet attract a penny? (A) yes (B) no\nm A magnet cannot attract copper.\n"
    taught = runner.invoke(
        app, ["teach", "--store", str(store), *_served(vllm_server)], input=moves + "quit\n"
    )
    assert taught.exit_code == 0, taught.output
    question = "Can a magnet attract a copper pan? (A) yes (B) no"
    answer = runner.invoke(app, ["ask", question, "--store", str(store), *_served(vllm_server)])
    print(answer.output)
    assert answer.exit_code == 0 and "A magnet cannot attract copper." in answer.output


def test_the_verifier_and_the_judge_run_on_vllm_as_in_process(vllm_server) -> None:  # type: ignore[no-untyped-def]
    """The adapters served as LoRA modules give the in-process adapters' probabilities."""
    from mindstream.lm.served.adapters import ADAPTERS

    served, local = _parts(vllm_server), Parts.load()
    assert served.models.served_adapters == set(ADAPTERS)
    proofs = [
        (["A magnet attracts iron."], "A magnet can pick up an iron nail."),
        (["Sound travels fastest through solids like steel."], "Sound travels fastest in steel."),
        (["Plants need sunlight."], "The moon is made of cheese."),
    ]
    there, here = (
        served.models.verifier.entailment_batch(proofs),
        local.models.verifier.entailment_batch(proofs),
    )
    print(f"\nverifier: vLLM {there}, in-process {here}")
    assert there == pytest.approx(here, abs=0.02)
    moves = [("I live in a small flat in Leeds.", "We moved to York last week.")]
    facts = [("Ice is less dense than water.", "Ice sinks in water.")]
    assert served.models.judge.replaces_batch(moves) == pytest.approx(
        local.models.judge.replaces_batch(moves), abs=0.02
    )
    assert served.models.judge.contradicts_batch(facts) == pytest.approx(
        local.models.judge.contradicts_batch(facts), abs=0.02
    )


def test_the_assistant_on_vllm_knows_the_move_and_chats(vllm_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The assistant with its chat model on vLLM: after the move (judged in the background by
    the shipped pair judges, whatever the chat model, and, with `confirm_from` set (off by
    default), confirmed by the served model's own relation judge where the pair judges would
    supersede: a changed door code), York is recalled first (Leeds superseded, or kept below
    it as a near miss) and the chat answer is written from it."""
    from mindstream.memory import MemoryStatus

    parts = _parts(vllm_server, **{"assistant.stream.changes.confirm_from": "0.9"})
    assistant = parts.assistant(tmp_path / "memory")
    stream = assistant.stream
    leeds = stream.add("I live in a small flat in Leeds.", owner="maya", kind="fact", importance=5)
    york = stream.add(  # P(replaces) about 0.63: a near miss, York ranks right above Leeds
        "I moved from Leeds to York last week.", owner="maya", kind="fact", importance=5
    )
    code = stream.add(  # the pair judge's P(replaces) about 0.97: asked again of the server
        "the front door keypad code at Banksia is 4417, then the hash key.",
        owner="maya",
        kind="fact",
        importance=5,
    )
    new_code = stream.add(
        "Banksia have changed the front door code after the escape business. It's 7731 and "
        "hash now.",
        owner="maya",
        kind="fact",
        importance=5,
    )
    assert stream.settle(timeout=120)
    print(f"\nLeeds: {stream.get(leeds.id).status.value} {stream.get(york.id).provenance}")
    assert stream.get(york.id).provenance.detection == "done"
    confirmed = stream.get(new_code.id).provenance
    print(f"door code: {stream.get(code.id).status.value} {confirmed}")
    assert confirmed.closest == code.id and confirmed.closest_model is not None
    assert stream.get(york.id).status is MemoryStatus.ACTIVE
    assert assistant.search("maya", "Which city do I live in?")[0].record.id == york.id
    reply = assistant.chat("maya", "Which city do I live in?")
    print(reply)
    used = {m.id: m.status for m in reply.memories}
    assert used[york.id] == "active"
    stream.close()


@contextmanager
def _float32(parts: Parts) -> Iterator[None]:
    """The in-process reaction adapter in float32 while inside (as vLLM serves it)."""
    from mindstream.lm.judges.relation import AdapterReactions
    from mindstream.models import DeferredReactions

    deferred = parts.models.reactions
    assert isinstance(deferred, DeferredReactions)
    built = deferred.built
    assert isinstance(built, AdapterReactions)
    adapter = built.adapter()
    measured, adapter.precision = adapter.precision, "float32"
    try:
        yield
    finally:
        adapter.precision = measured


def test_the_town_decides_reactions_on_vllm_as_in_process(vllm_server) -> None:  # type: ignore[no-untyped-def]
    """Object reactions end to end on vLLM (the reaction adapter served as a LoRA module): the
    same decisions as in-process for smallville25's flood and fire and the same objects' everyday
    states, seen by six residents."""
    from tests.real.test_reactions_real import EMERGENCIES, six_residents_see

    def decided(parts: Parts) -> list[tuple[str, str, bool, float]]:
        return [(d.agent.name, d.sight.text, d.reacts(), d.p) for d in six_residents_see(parts)[0]]

    local = Parts.load()
    with _float32(local):  # vLLM serves float32; in-process bfloat16 is chosen where faster
        here = decided(local)
    there = decided(_parts(vllm_server))
    assert [(n, t) for n, t, _, _ in there] == [(n, t) for n, t, _, _ in here]
    gaps = [abs(a[3] - b[3]) for a, b in zip(there, here, strict=True)]
    print(f"\nlargest P gap, vLLM against in-process float32: {max(gaps):.2e}")
    assert max(gaps) < 0.01
    flips = sum(a[2] != b[2] for a, b in zip(there, here, strict=True))
    assert flips <= 1, (there, here)  # a decision exactly at the margin may differ
    emergencies = [r for _, t, r, _ in there if t.endswith(EMERGENCIES)]
    everyday = [r for _, t, r, _ in there if not t.endswith(EMERGENCIES)]
    print(f"\nvLLM: {sum(emergencies)}/12 emergencies and {sum(everyday)}/12 everyday reacted to")
    print(f"decisions that differ from in-process: {flips}")
    assert sum(emergencies) >= 8, there  # in-process: 10 of 12


from langchain_tests.integration_tests import ChatModelIntegrationTests  # noqa: E402

from mindstream.lm.served.chat import ServedChatModel  # noqa: E402
from tests.lm.chat_features import MindstreamChatFeatures  # noqa: E402


class TestServedChatModelOnVllm(MindstreamChatFeatures, ChatModelIntegrationTests):
    """LangChain's standard integration suite against the served model on this module's
    vLLM: streaming, async, usage, stop sequences, structured output over HTTP."""

    served: ClassVar[dict[str, str]] = {}

    @pytest.fixture(autouse=True)
    def _server(self, vllm_server, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
        monkeypatch.setenv("OPENAI_BASE_URL", vllm_server.base_url)
        type(self).served = {"model": vllm_server.model}

    @property
    def chat_model_class(self) -> type[ServedChatModel]:
        return ServedChatModel

    @property
    def chat_model_params(self) -> dict[str, object]:
        return {**self.served, "temperature": 0.0, "max_tokens": 40}
