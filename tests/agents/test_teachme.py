"""TeachMe on scripted models: the paper's magnet-penny dialogue, and each dialog move."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from mindstream.agents.teachme import (
    TeachableReasoner,
    TeachMeConfig,
    TeachMeSession,
    split_choices,
)
from mindstream.agents.teachme.language import negate, rule_hypothesis
from mindstream.lm import LogLikelihood
from mindstream.lm.fakes import HashEmbeddings, ScriptedChatModel
from mindstream.lm.scoring.scorer import mean_loglik_choices
from mindstream.memory import InMemoryStore, MemoryKind, MemoryStatus, MemoryStream

PENNY = "Can a magnet attract a penny? (A) yes (B) no"


class MagnetScorer:
    """A scripted 'model': believes magnets attract pennies unless told copper is not magnetic."""

    def choose_batch(self, requests: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
        return mean_loglik_choices(self, requests)

    def loglik(self, prompt: str, continuations: Sequence[str]) -> list[LogLikelihood]:
        return self.loglik_batch([(prompt, c) for c in continuations])

    def loglik_batch(self, pairs: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        out = []
        for prompt, answer in pairs:
            refuted = "cannot attract copper" in prompt.lower()
            scores = {" yes": -3.0 if refuted else -1.0, " no": -0.5 if refuted else -2.0}
            value = scores.get(answer, -5.0)
            out.append(LogLikelihood(total=value, mean=value, tokens=1))
        return out

    def rate_batch(self, prompts: Sequence[str], low: int = 1, high: int = 10) -> list[float]:
        return [5.0] * len(prompts)

    def p_yes_batch(self, prompts: Sequence[str]) -> list[float]:
        return [0.9] * len(prompts)


def _session(write_premises: bool = True) -> TeachMeSession:
    stream = MemoryStream(InMemoryStore(), HashEmbeddings())
    writer = ScriptedChatModel(default="A magnet can attract copper.")
    reasoner = TeachableReasoner(
        stream, MagnetScorer(), writer, config=TeachMeConfig(write_premises=write_premises)
    )
    return TeachMeSession(reasoner)


def test_the_magnet_penny_dialogue() -> None:
    session = _session()
    first = session.ask(PENNY)
    assert first.choice == "yes"  # wrong, as in the paper

    missing = session.add_fact("A penny is made of copper.")
    assert missing.choice == "yes"
    proof = missing.proof
    assert proof is not None and [p.text for p in proof.premises] == [
        "A penny is made of copper.",
        "A magnet can attract copper.",
    ]
    assert proof.forced and proof.premises[0].memory_id is not None

    corrected = session.premise_false(2)  # "fact 2 is false"
    assert corrected.choice == "no"
    taught = {r.text: r for r in session.taught()}
    assert "A magnet cannot attract copper." in taught
    correction = taught["A magnet cannot attract copper."]
    assert correction.kind is MemoryKind.CORRECTION
    assert correction.metadata["question"] == "Can a magnet attract a penny?"
    assert correction.metadata["action"] == "premise false"
    # The model's written premise is now refuted by memory and supports nothing.
    assert all(
        "A magnet can attract copper." not in [p.text for p in pr.premises]
        for pr in corrected.proofs
    )

    pan = session.ask("Can a magnet attract a copper pan? (A) yes (B) no")
    assert pan.choice == "no"
    assert pan.proof is not None and pan.proof.premises[0].text == "A magnet cannot attract copper."


def test_split_choices_and_rule_hypotheses() -> None:
    assert split_choices(PENNY) == ("Can a magnet attract a penny?", ["yes", "no"])
    assert (
        rule_hypothesis("The sun is responsible for", "plants growing")
        == "The sun is responsible for plants growing."
    )
    assert rule_hypothesis("What do plants need?", "light") == "What do plants need: light."
    assert rule_hypothesis("Can a magnet attract a penny?", "yes") == (
        "A magnet can attract a penny."
    )
    assert rule_hypothesis("Can a magnet attract a penny?", "No") == (
        "A magnet cannot attract a penny."
    )
    assert rule_hypothesis("Is copper magnetic?", "no") == "Copper is not magnetic."


@pytest.mark.parametrize(
    ("statement", "negation"),
    [
        ("A magnet can attract copper.", "A magnet cannot attract copper."),
        ("Copper is magnetic.", "Copper is not magnetic."),
        ("A magnet cannot attract copper.", "A magnet can attract copper."),
        ("Plants need light.", "It is not true that plants need light."),
    ],
)
def test_negate(statement: str, negation: str) -> None:
    assert negate(statement) == negation


def test_agree_stores_the_proof_and_keeps_the_answer() -> None:
    session = _session()
    session.ask(PENNY)
    again = session.agree()
    taught = [r.text for r in session.taught()]
    assert "A magnet can attract copper." in taught
    assert "A magnet can attract a penny." in taught  # the conclusion
    assert again.choice == "yes"


def test_bad_reasoning_blocks_that_step_for_good() -> None:
    session = _session(write_premises=False)
    first = session.ask(PENNY)
    assert first.proof is not None
    step = (first.proof.hypothesis, [p.text for p in first.proof.premises])
    after = session.bad_reasoning()  # "yes" with no premises is not a proof
    assert all((p.hypothesis, [q.text for q in p.premises]) != step for p in after.proofs)
    assert after.choice == "no"
    again = session.ask(PENNY)  # and it stays blocked for later questions
    assert all((p.hypothesis, [q.text for q in p.premises]) != step for p in again.proofs)
    record = next(r for r in session.taught() if "blocked_hypothesis" in r.metadata)
    assert record.kind is MemoryKind.CORRECTION
    # Blocks are not facts: they are never retrieved as premises.
    facts = session.reasoner.retrieve_facts("magnet penny", ["yes", "no"])
    assert all("Bad reasoning" not in f.text for f in facts)


def test_forget_and_forget_all_undo_teaching() -> None:
    session = _session()
    session.ask(PENNY)
    session.add_fact("A penny is made of copper.")
    corrected = session.premise_false(2)
    assert corrected.choice == "no"
    correction = next(r for r in session.taught() if r.kind is MemoryKind.CORRECTION)
    assert session.forget(correction.id).choice == "yes"
    assert session.forget_all().choice == "yes"
    assert session.taught() == []
    stream = session.reasoner.stream
    assert all(r.status is not MemoryStatus.ACTIVE for r in stream.records("user"))


def test_use_fact_and_bad_numbers() -> None:
    session = _session(write_premises=False)
    session.ask(PENNY)
    session.add_fact("A penny is made of copper.")
    answer = session.use_fact(1)
    assert answer.considered and answer.considered[0].text == "A penny is made of copper."
    with pytest.raises(ValueError, match="considered facts"):
        session.use_fact(9)
    with pytest.raises(ValueError, match="premise"):
        session.premise_false(5)


def test_direct_mode_is_the_likeliest_choice() -> None:
    session = _session()
    answer = session.reasoner.direct("Can a magnet attract a penny?", ["yes", "no"])
    assert answer.mode == "direct" and answer.choice == "yes" and answer.proof is not None


def test_a_written_premise_that_restates_the_hypothesis_is_dropped() -> None:
    stream = MemoryStream(InMemoryStore(), HashEmbeddings())
    echo = ScriptedChatModel(default="A magnet can attract a penny.")
    reasoner = TeachableReasoner(
        stream, MagnetScorer(), echo, config=TeachMeConfig(write_premises=True)
    )
    answer = reasoner.answer("Can a magnet attract a penny?", ["yes", "no"])
    yes_proofs = [p for p in answer.proofs if p.hypothesis == "A magnet can attract a penny."]
    assert yes_proofs and all(p.premises == [] for p in yes_proofs)
    assert any(p.premises for p in answer.proofs if p.choice_index == 1)  # "no" keeps its own


def test_a_fact_before_any_question_is_refused_and_not_stored() -> None:
    session = _session()
    with pytest.raises(ValueError, match="ask a question first"):
        session.add_fact("A magnet does not attract copper.")
    with pytest.raises(ValueError, match="ask a question first"):
        session.fact_true("Copper is a metal.")
    assert session.taught() == []


def test_the_same_fact_is_stored_once() -> None:
    session = _session()
    session.ask(PENNY)
    session.add_fact("A penny is made of copper.")
    session.add_fact("a penny is made of copper")  # the same, differently typed
    session.use_fact(1)  # the considered fact is that one too
    assert [r.text for r in session.taught()] == ["A penny is made of copper."]


def test_a_question_without_two_choices_is_refused_at_once() -> None:
    session = _session()
    with pytest.raises(ValueError, match="at least two choices"):
        session.ask("What will a magnet pick up?")
    assert session.question is None


def test_the_teach_dialog_explains_a_bad_number() -> None:
    from mindstream.cli_teach import _move

    session = _session()
    session.ask(PENNY)
    with pytest.raises(ValueError, match="abc is not a number; f N"):
        _move(session, "f abc")
