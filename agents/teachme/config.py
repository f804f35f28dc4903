"""Configuration of the teachable reasoner (read without importing the reasoner)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mindstream.memory.records import RelevanceMode


class TeachMeConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    retrieve_k: int = Field(5, ge=0, description="taught facts retrieved per question (r)")
    retrieval: RelevanceMode = "bm25"
    hypotheses: Literal["rule", "model"] = "rule"
    write_premises: bool = Field(
        False, description="the model writes one more premise per proof (verified with p_yes)"
    )
    entailment_check: bool = Field(False, description="multiply in p_yes(premises => hypothesis)")
    min_proof_score: float | None = Field(None, description="below this, no proof is found")
    max_tokens: int = Field(32, ge=1, description="length of written premises and answers")
    verifier: Literal["auto", "off"] = Field(
        "auto",
        description="judge proofs with the entailment verifier (the embedded model's adapter, "
        "or a served model's own yes/no); off: the answer's likelihood after the premises",
    )
    # Gate thresholds: measured by `mindstream eval teachme-scoring` on the 500 held-out train
    # questions (docs/results/teachme_scoring.md), never on dev.
    # Measured there: an entailment floor only lost accuracy (57.6% with none, 49.6% at 0.5),
    # so the verifier gates by choosing the most confident fact's proof, not by a floor; the
    # similarity floor 0.3 keeps far-off facts out for 1.6 points.
    gate_similarity: float = Field(
        0.3, description="a fact is a premise only this close (cosine) to question + choices"
    )
    gate_entailment: float = Field(
        0.0, description="... and only if the verifier finds it entails some choice this much"
    )
    # Veto floor: chosen by `mindstream eval teachme-vetoes` on 500 OpenBookQA train
    # questions neither adapter saw (a taught negated core fact should rule out the choice it
    # denies and no other): the most denied choices ruled out with at most 0.06 wrong vetoes
    # per fact and a core fact vetoing its own right choice for at most 1% of questions.
    # The margin is wider than that eval's best (0.05): there a denial rules out what it
    # names, but taught "Insects do not have a backbone", the judge leads with "an
    # exoskeleton" for a grasshopper. Chosen on our transfer items (`eval teachme-transfer`,
    # 60 questions, taught: 28 right at 0.05, 31 at 0.1, 32 at 0.15, 34 at 0.2, 36 at 0.25,
    # 35 at 0.3; nothing taught 36), with the contrast pairs unchanged (30/30 own, 29-30/30
    # shared). It rules out fewer OBQA own denials (38.2% -> 17.8% with the on-topic floor):
    # the premise blocks below keep a denied choice from being proved.
    veto_floor: float = Field(
        0.05,
        ge=0,
        le=1,
        description="a relevant taught fact rules out the choice the relation judge finds it "
        "shows false most, when that P is at least this ...",
    )
    veto_margin: float = Field(
        0.25, ge=0, le=1, description="... and at least this much above the next choice's ..."
    )
    taught_here_margin: float = Field(
        0.05,
        ge=0,
        le=1,
        description="the margin instead, for a fact the teacher added for this very question: "
        "it is about this question by the teacher's word, not an instance of a category",
    )
    support_floor: float = Field(
        0.5,
        ge=0,
        le=1,
        description="... and never when the verifier finds the fact entails the choice this much",
    )
    # Premise blocks: chosen by the same eval on the same questions: the most denied choices
    # blocked with the right answer's proof blocked for at most 5% of core facts taught
    # (63.6% blocked, 1.2% right blocked).
    block_floor: float = Field(
        0.05,
        ge=0,
        le=1,
        description="a fact is never the premise of the choice the judge finds it shows false "
        "most, when that P is at least this and the fact does not support it ...",
    )
    block_margin: float = Field(
        0.0, ge=0, le=1, description="... and at least this much above the next choice's"
    )
    # The verifier reads a denial as support ("Humans do not need carbon dioxide" entails
    # "humans need carbon dioxide" at 0.81), so its support counts only while the judge's
    # reading is not clear-cut. Chosen with the veto thresholds (None: support always counts).
    support_overruled_at: float | None = Field(
        0.2,
        ge=0,
        le=1,
        description="the verifier's support does not keep a choice when the judge's P that the "
        "fact shows it false leads the next choice's by at least this",
    )

    # A fact also supports the choice it entails best, even weakly ("Ice floats on water
    # because it is less dense" entails "on the top surface" at 0.33, its best): the level is
    # chosen with the veto thresholds, which keep this guard on (see `teachme_vetoes.choose`).
    best_support_floor: float | None = Field(
        0.3,
        ge=0,
        le=1,
        description="the choice the verifier finds the fact entails most, at least this much, "
        "counts as supported too (None: only the support floor)",
    )

    # Contradiction is symmetric; the judge was trained fact first. Read claim first, the judge
    # trained without denials of wrong choices told apart the subject a fact denies from another
    # with the same predicate; the judge trained with them does so fact first, and the veto
    # thresholds' eval chose 0 (the fact-first reading alone).
    claim_first_share: float = Field(
        0.0,
        ge=0,
        le=1,
        description="weight of the judge's claim-first reading in P(the fact shows the claim "
        "false); the rest is the fact-first reading",
    )

    # The verifier reads a denial almost as support, but the denial's negation (the claim
    # itself) as far more: a fact does not prove a choice its negation supports more. Chosen by
    # `mindstream eval teachme-vetoes` with the premise blocks, within their budget (97.8% of
    # denied choices blocked, the right one for 3.4% of core facts; 63.4% and 1.2% without).
    negation_margin: float | None = Field(
        0.0,
        ge=0,
        le=1,
        description="a relevant fact is never the premise of a choice its negation entails by "
        "more than this above the fact (one more verifier pass per relevant fact)",
    )

    # The judge reads "not" next to a shared noun: another topic's denial ("A magnet does not
    # attract copper" against "Which material conducts electricity?") vetoed a choice as often
    # as a question's own denial did. A veto needs a fact about the question itself. Chosen by
    # `mindstream eval teachme-vetoes` on held-out train questions: the most own denials ruled
    # out less other topics' denials vetoing, within the wrong-veto budgets (other topics'
    # denials vetoing 68.2% -> 6.4%, own denials ruled out 53.0% -> 38.2%).
    veto_on_topic: float | None = Field(
        0.35,
        ge=-1,
        le=1,
        description="a taught fact rules a choice out only when it is this close (cosine) to "
        "the question alone, not only to the choices (None: any relevant fact may)",
    )

    @property
    def veto_rule(self) -> VetoRule:
        return VetoRule(
            floor=self.veto_floor,
            margin=self.veto_margin,
            support=self.support_floor,
            best_support=self.best_support_floor,
            overruled_at=self.support_overruled_at,
        )

    @property
    def taught_here_rule(self) -> VetoRule:
        return self.veto_rule.model_copy(update={"margin": self.taught_here_margin})

    @property
    def block_rule(self) -> VetoRule:
        return self.veto_rule.model_copy(
            update={"floor": self.block_floor, "margin": self.block_margin}
        )


class VetoRule(BaseModel):
    """When a taught fact rules a choice out (`judging.ruled_out_by`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    floor: float  # the judge's P that the fact shows the choice false, at least this ...
    margin: float  # ... and this far above the next choice's ...
    support: float  # ... unless the verifier finds the fact entails the choice this much ...
    best_support: float | None = None  # ... or this much and more than any other choice ...
    overruled_at: float | None = None  # ... and the judge's lead is below this
