"""The verifier path of TeachMe on scripted parts: premise gating, taught facts ruling a
choice out through the judge (never one they support), proofs never holding a premise the
user refuted, forcing a considered fact, the verifier memo."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from mindstream.agents.teachme import TeachableReasoner, TeachMeConfig
from mindstream.agents.teachme.language import normal_form
from mindstream.lm import LogLikelihood
from mindstream.lm.fakes import FakeJudge, HashEmbeddings
from mindstream.lm.judges.verifier import MemoVerifier
from mindstream.lm.scoring.scorer import mean_loglik_choices
from mindstream.memory import InMemoryStore, MemoryRecord, MemoryStream, new_memory

QUESTION = "What will a magnet pick up?"
CHOICES = ["a copper coin", "a steel paperclip"]


class PrefersCopper:
    """A direct answer that is wrong: the first choice is always likeliest."""

    def choose_batch(self, requests: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
        return mean_loglik_choices(self, requests)

    def loglik_batch(self, pairs: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        return [
            LogLikelihood(
                total=-1.0 if "copper" in a else -2.0,
                mean=-1.0 if "copper" in a else -2.0,
                tokens=1,
            )
            for _, a in pairs
        ]

    def loglik(self, prompt: str, continuations: Sequence[str]) -> list[LogLikelihood]:
        return self.loglik_batch([(prompt, c) for c in continuations])

    def rate_batch(self, prompts: Sequence[str], low: int = 1, high: int = 10) -> list[float]:
        return [5.0] * len(prompts)

    def p_yes_batch(self, prompts: Sequence[str]) -> list[float]:
        return [0.5] * len(prompts)


class WordVerifier:
    """Entailed when the premise shares a content word with the hypothesis's answer part;
    a negative premise entails nothing. Counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        self.calls += len(requests)
        out = []
        for premises, hypothesis in requests:
            text = " ".join(premises).lower()
            answer = hypothesis.lower().split(":")[-1]
            shared = {w for w in answer.split() if len(w) > 4 and w.strip(".") in text}
            out.append(0.05 if " not " in f" {text} " or not shared else 0.9)
        return out


class SteelVerifier(WordVerifier):
    """Entailed exactly when premise and hypothesis both mention steel."""

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        return [0.9 if "steel" in " ".join(p) and "steel" in h else 0.1 for p, h in requests]


class SameEmbeddings(HashEmbeddings):
    """Everything about magnets is close; anything else is far."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] if "magnet" in t.lower() else [0.0, 1.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def denies(fact: str, claim: str) -> float:
    """A negative fact contradicts a claim whose answer part it names (a word of 5+ letters)."""
    answer = claim.lower().split(":")[-1]
    named = any(len(w) > 4 and w.strip(".") in fact.lower() for w in answer.split())
    return 0.95 if " not " in f" {fact.lower()} " and named else 0.05


def _reasoner(
    facts: list[str],
    verifier: WordVerifier | None = None,
    judge: FakeJudge | None = None,
    gate_entailment: float = 0.5,
    claim_first_share: float = 0.0,
) -> TeachableReasoner:
    stream = MemoryStream(InMemoryStore(), SameEmbeddings())
    stream.add_many([new_memory(text=f, owner="user", kind="fact", importance=8.0) for f in facts])
    config = TeachMeConfig(
        retrieve_k=5,
        gate_similarity=0.5,
        gate_entailment=gate_entailment,
        claim_first_share=claim_first_share,
    )
    return TeachableReasoner(
        stream,
        PrefersCopper(),
        config=config,
        verifier=verifier or WordVerifier(),
        judge=judge or FakeJudge(contradicts=denies),
    )


def taught_fact(text: str, day: int = 1, **metadata: str) -> MemoryRecord:
    """A taught fact as the stream stores it, on day `day` of January 2026 (id f<day>)."""
    when = datetime(2026, 1, day, tzinfo=UTC)
    return MemoryRecord(
        id=f"f{day}",
        owner="u",
        kind="fact",
        text=text,
        created_at=when,
        last_accessed_at=when,
        importance=8.0,
        metadata=metadata,
    )


def test_without_facts_the_direct_answer_stands() -> None:
    answer = _reasoner([]).answer(QUESTION, CHOICES)
    assert answer.choice == "a copper coin" and not answer.proof.premises  # type: ignore[union-attr]


def test_a_taught_negation_rules_its_choice_out_and_names_the_fact() -> None:
    answer = _reasoner(["A magnet does not attract copper."]).answer(QUESTION, CHOICES)
    assert answer.ruled_out == [0]
    assert answer.choice == "a steel paperclip"
    assert answer.vetoes[0].fact == "A magnet does not attract copper."


def test_a_fact_never_rules_out_a_choice_it_supports() -> None:
    """The judge finds the fact contradicts the paperclip most (wrongly, and not surely enough
    to block it as a premise); the verifier finds it entails the paperclip (it names steel),
    so nothing is ruled out."""
    fact = "A magnet attracts steel paperclips and does not attract copper coins."
    judge = FakeJudge(contradicts=lambda fact, claim: 0.25 if "steel" in claim else 0.1)
    answer = _reasoner([fact], SteelVerifier(), judge).answer(QUESTION, CHOICES)
    assert answer.ruled_out == []
    assert answer.choice == "a steel paperclip"


class WeakVerifier(WordVerifier):
    """Like the real verifier on a negation: "does not attract copper" entails "a copper coin"
    weakly (0.3, below the support floor), yet more than the paperclip: its best choice."""

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        return [0.3 if "copper" in h else 0.05 for _, h in requests]


def test_a_clear_judge_overrules_the_weak_support_the_verifier_reads_into_a_negation() -> None:
    """The verifier's best choice for the negation is copper (0.3): alone that counts as
    support, but the judge's clear lead (0.6 against 0.25, at least `support_overruled_at`)
    overrules it: copper is ruled out, not proved."""
    judge = FakeJudge(contradicts=lambda fact, claim: 0.6 if "copper" in claim else 0.25)
    reasoner = _reasoner(["A magnet does not attract copper."], WeakVerifier(), judge, 0.0)
    answer = reasoner.answer(QUESTION, CHOICES)
    assert answer.ruled_out == [0]
    assert not [p for p in answer.proofs if p.premises and p.choice_index == 0]
    assert answer.choice == "a steel paperclip"


def test_a_slight_lean_of_the_judge_never_takes_a_fact_from_the_choice_it_supports_best() -> None:
    """The judge leans to copper by a little (0.30 against 0.25): the fact's best-entailed
    choice stays supported, neither vetoed nor blocked (as "Ice floats on water because it is
    less dense" keeps "on the top surface")."""
    judge = FakeJudge(contradicts=lambda fact, claim: 0.3 if "copper" in claim else 0.25)
    reasoner = _reasoner(["A magnet does not attract copper."], WeakVerifier(), judge, 0.0)
    answer = reasoner.answer(QUESTION, CHOICES)
    assert answer.ruled_out == []
    assert [p for p in answer.proofs if p.premises and p.choice_index == 0]


def test_a_fact_that_reads_as_contradicting_every_choice_rules_none_out() -> None:
    """A judge that says yes to every claim has told us nothing about which one."""
    judge = FakeJudge(contradicts=lambda fact, claim: 0.95)
    answer = _reasoner(["A magnet does not attract copper."], judge=judge).answer(QUESTION, CHOICES)
    assert answer.ruled_out == []


def test_a_negation_the_judge_does_not_find_contradicting_vetoes_nothing() -> None:
    """Word overlap with 'not' is not a veto: only the judge's contradiction is."""
    answer = _reasoner(["A magnet does not attract copper."], judge=FakeJudge()).answer(
        QUESTION, CHOICES
    )
    assert answer.ruled_out == [] and answer.choice == "a copper coin"


def test_the_judge_reads_fact_and_claim_both_ways_in_one_batch() -> None:
    """Read fact first, this judge leans to the paperclip (the same predicate, another
    subject); read claim first, it finds the copper the fact names. Half of each reading rules
    out the copper coin, with one judge batch for both orders."""

    def leans(first: str, second: str) -> float:
        if "not" in first:  # fact first
            return 0.65 if "paperclip" in second else 0.35
        return 0.95 if "copper" in first else 0.1  # claim first

    judge = FakeJudge(contradicts=leans)
    fact_first = _reasoner(["A magnet does not attract copper."], judge=judge)
    assert fact_first.answer(QUESTION, CHOICES).ruled_out == [1]
    judge.batches = 0
    both = _reasoner(["A magnet does not attract copper."], judge=judge, claim_first_share=0.5)
    answer = both.answer(QUESTION, CHOICES)
    assert answer.ruled_out == [0] and answer.choice == "a steel paperclip"
    assert judge.batches == 1


def test_using_a_considered_fact_changes_the_proof_or_says_why_not() -> None:
    from mindstream.agents.teachme import TeachMeSession

    facts = ["A magnet attracts steel paperclips.", "A magnet is made of iron."]
    session = TeachMeSession(_reasoner(facts))
    first = session.ask(QUESTION, CHOICES)
    assert first.proof is not None and first.proof.premises[0].text == facts[0]
    number = [f.text for f in first.considered].index(facts[1]) + 1
    forced = session.use_fact(number)
    assert forced.proof is not None and forced.proof.premises[0].text == facts[1]
    assert forced.note is not None and "rests on that fact" in forced.note
    again = session.use_fact([f.text for f in forced.considered].index(facts[1]) + 1)
    assert again.note == "That fact was already the proof's premise; nothing changed."


def test_a_gated_fact_is_the_premise_and_an_unrelated_one_is_not() -> None:
    reasoner = _reasoner(["A magnet attracts steel paperclips.", "Copper is used in coins."])
    answer = reasoner.answer(QUESTION, CHOICES)
    assert answer.choice == "a steel paperclip"
    assert answer.proof is not None and answer.proof.premises[0].text.startswith("A magnet")
    used = {j.fact.text: j.used for j in answer.judgements}
    assert used == {"A magnet attracts steel paperclips.": True, "Copper is used in coins.": False}


def test_a_premise_whose_negation_is_taught_never_enters_a_proof() -> None:
    fact = "A magnet attracts steel paperclips."
    reasoner = _reasoner([fact, "A magnet does not attract steel paperclips."])
    answer = reasoner.answer(QUESTION, CHOICES)
    for proof in answer.proofs:
        assert all(normal_form(p.text) != normal_form(fact) for p in proof.premises)


def test_the_memo_judges_each_request_once() -> None:
    inner = WordVerifier()
    memo = MemoVerifier(inner)
    requests = [(["a magnet attracts iron"], "x: iron."), (["a"], "b")]
    assert memo.entailment_batch(requests) == memo.entailment_batch(requests + requests[:1])[:2]
    assert inner.calls == 2


def test_contradiction_ignores_phrasing_of_the_negation() -> None:
    from mindstream.agents.teachme.language import contradicts

    assert contradicts("A magnet attracts copper.", "A magnet does not attract copper.")
    assert contradicts("A magnet attracts copper.", "It is not true that a magnet attracts copper.")
    assert contradicts("A magnet cannot attract copper.", "A magnet can attract copper.")
    assert not contradicts("A magnet attracts iron.", "A magnet does not attract copper.")
    assert not contradicts("A magnet attracts iron.", "A magnet attracts iron.")


def test_bad_reasoning_blocks_a_direct_answer_too() -> None:
    from mindstream.agents.teachme import TeachMeSession

    session = TeachMeSession(_reasoner([]))
    assert session.ask(QUESTION, CHOICES).choice == "a copper coin"
    assert session.bad_reasoning().choice == "a steel paperclip"


def test_a_newer_fact_supporting_a_choice_overrules_an_older_facts_veto() -> None:
    """What was taught last is what is true now: an older fact misread as denying a choice no
    longer rules it out once a newer fact makes that choice its best supported one."""
    from mindstream.agents.teachme.config import TeachMeConfig
    from mindstream.agents.teachme.judging import FactJudgement, vetoes

    def judged(text: str, day: int, entailment: list[float], contra: list[float]) -> FactJudgement:
        return FactJudgement(
            fact=taught_fact(text, day),
            similarity=0.6,
            on_topic=0.6,
            entailment=entailment,
            contradiction=contra,
            used=True,
        )

    negated = judged("Ice is not denser than water.", 2, [0.01, 0.03, 0.03], [0.09, 0.37, 0.1])
    floats = "Ice floats on water because it is less dense."
    newer = judged(floats, 3, [0.07, 0.34, 0.19], [0.02, 0.01, 0.01])
    older = judged(floats, 1, [0.07, 0.34, 0.19], [0.02, 0.01, 0.01])
    config = TeachMeConfig()
    assert [v.choice_index for v in vetoes([negated], config)] == [1]
    assert vetoes([negated, newer], config) == []
    assert [v.choice_index for v in vetoes([negated, older], config)] == [1]  # taught before


def test_only_a_fact_taught_as_missing_for_this_question_escapes_the_premise_block() -> None:
    from mindstream.agents.teachme.judging import taught_for

    def taught(action: str, question: str) -> MemoryRecord:
        return taught_fact("Ice floats on water.", action=action, question=question)

    pond = "Where does the ice form?"
    assert taught_for(taught("missing fact", pond), pond)
    assert not taught_for(taught("missing fact", "Why do boats float?"), pond)
    assert not taught_for(taught("premise false", pond), pond)


def test_a_fact_never_proves_what_its_negation_supports_more() -> None:
    """A denial read almost as support ("Rubber does not conduct electricity" for "a rubber
    band", 0.22) proves nothing its negation ("Rubber conducts electricity") supports more."""
    from mindstream.agents.teachme.config import TeachMeConfig
    from mindstream.agents.teachme.judging import FactJudgement, not_premise_of

    judged = FactJudgement(
        fact=taught_fact("Rubber does not conduct electricity."),
        similarity=0.7,
        on_topic=0.7,
        entailment=[0.22, 0.15],
        contradiction=[0.02, 0.02],  # below the block floor: the judge sees no denial
        negation_entailment=[0.75, 0.3],
        used=True,
    )
    assert not_premise_of(judged, TeachMeConfig(negation_margin=None)) == set()
    assert not_premise_of(judged, TeachMeConfig(negation_margin=0.2)) == {0}
    assert not_premise_of(judged, TeachMeConfig(negation_margin=0.1)) == {0, 1}


def test_a_fact_about_another_topic_vetoes_nothing() -> None:
    """The judge reads "Eagles do not eat fish" as denying "a fish" for a question about how a
    strawberry gets planted; the fact is not about that question (cosine 0.05 to it alone), so
    it rules nothing out. The same reading from a fact about the question does."""
    from mindstream.agents.teachme.config import TeachMeConfig
    from mindstream.agents.teachme.judging import FactJudgement, vetoes

    def judged(on_topic: float) -> FactJudgement:
        return FactJudgement(
            fact=taught_fact("Eagles do not eat fish."),
            similarity=0.4,
            on_topic=on_topic,
            entailment=[0.05, 0.02],
            contradiction=[0.6, 0.1],
            used=True,
        )

    config = TeachMeConfig(veto_on_topic=0.35)
    assert vetoes([judged(0.05)], config) == []
    assert [v.choice_index for v in vetoes([judged(0.5)], config)] == [0]
    assert [v.choice_index for v in vetoes([judged(0.05)], TeachMeConfig(veto_on_topic=None))] == [
        0
    ]


def test_a_fact_taught_for_this_question_vetoes_at_the_narrower_margin() -> None:
    """A lead of 0.1 is under `veto_margin` (0.25: a category's denial misleads the judge on
    an instance), but over `taught_here_margin` for a fact the teacher added for this very
    question."""

    def leans(first: str, second: str) -> float:
        return 0.4 if "copper" in second else 0.3

    fact = "A magnet does not attract copper."
    elsewhere = _reasoner([fact], judge=FakeJudge(contradicts=leans))
    assert elsewhere.answer(QUESTION, CHOICES).ruled_out == []
    here = _reasoner([], judge=FakeJudge(contradicts=leans))
    here.stream.add_many(
        [
            new_memory(
                text=fact,
                owner="user",
                kind="fact",
                importance=8.0,
                metadata={"action": "missing fact", "question": QUESTION},
            )
        ]
    )
    answer = here.answer(QUESTION, CHOICES)
    assert answer.ruled_out == [0] and answer.choice == "a steel paperclip"
