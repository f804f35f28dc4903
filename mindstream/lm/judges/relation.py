"""The relation judge: how two statements relate, as probabilities.

Two questions, one judge: does a later statement make an earlier one out of date ("I live in
Leeds" / "the boxes went over to the new house in York"), and does a fact show a claim false
(TeachMe's taught negations)? The memory stream asks the first on every write, TeachMe the
second before it rules a choice out. On the embedded model each question has its own yes/no
adapter trained on built data (`mindstream train judge replaces|contradicts`, shipped in
`mindstream/lm/adapters/judge/`); a served model answers the same questions, few-shot, through its
scorer's `p_yes_batch`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from langchain_core.prompts import PromptTemplate

from mindstream.lm.config import JUDGE_ADAPTER_DIR
from mindstream.lm.judges.yes_no import YesNo, load_yes_no_adapter

if TYPE_CHECKING:
    from mindstream.lm.scoring.scorer import Scorer

REPLACES = PromptTemplate.from_template(
    "Earlier: {earlier}\nLater: {later}\n"
    "Does the later statement make the earlier one out of date? Answer:"
)
CONTRADICTS = PromptTemplate.from_template(
    "Fact: {fact}\nClaim: {claim}\nDoes the fact show that the claim is false? Answer:"
)
# For a served model (no adapter): the same questions after worked examples of each answer.
FEW_SHOT_REPLACES = PromptTemplate.from_template(
    "Answer each question with Yes or No.\n\n"
    "Earlier: I live in Leeds.\nLater: We got the keys to our new flat in York.\n"
    "Does the later statement make the earlier one out of date? Answer: Yes\n\n"
    "Earlier: I have a dog called Max.\nLater: We adopted a cat as well.\n"
    "Does the later statement make the earlier one out of date? Answer: No\n\n"
    "Earlier: My manager is Priya.\nLater: Priya left, so now I report to Tom.\n"
    "Does the later statement make the earlier one out of date? Answer: Yes\n\n"
    "Earlier: I work at Acme.\nLater: My sister works at Globex.\n"
    "Does the later statement make the earlier one out of date? Answer: No\n\n"
    "{request}"
)
FEW_SHOT_CONTRADICTS = PromptTemplate.from_template(
    "Answer each question with Yes or No.\n\n"
    "Fact: Metals conduct electricity.\nClaim: Copper does not conduct electricity.\n"
    "Does the fact show that the claim is false? Answer: Yes\n\n"
    "Fact: Plants need sunlight to grow.\nClaim: A plant in a sunny window grows.\n"
    "Does the fact show that the claim is false? Answer: No\n\n"
    "{request}"
)


# Does what an agent just saw need it to stop? The base model's own yes/no does not tell a
# fire from a clean table (P 0.50 against 0.51 over ten smallville25 residents), so the
# embedded model answers through a trained adapter (`mindstream train judge reacts`).
REACTS = PromptTemplate.from_template(
    "{name} is {activity}.\nObservation: {observation}\n"
    "Does this need {name} to stop and deal with it now? Answer:"
)
FEW_SHOT_REACTS = PromptTemplate.from_template(
    "Answer each question with Yes or No.\n\n"
    + REACTS.format(name="Ana", activity="reading", observation="the kitchen: sink is overflowing")
    + " Yes\n\n"
    + REACTS.format(name="Ben", activity="cooking", observation="the cafe: piano is in use")
    + " No\n\n{request}"
)


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text[-1:] in ".!?" else text + "."


def replaces_prompt(earlier: str, later: str) -> str:
    return REPLACES.format(earlier=_sentence(earlier), later=_sentence(later))


def contradicts_prompt(fact: str, claim: str) -> str:
    return CONTRADICTS.format(fact=_sentence(fact), claim=_sentence(claim))


def reacts_prompt(name: str, activity: str, observation: str) -> str:
    return REACTS.format(name=name, activity=activity.rstrip("."), observation=observation)


@runtime_checkable
class ReactionJudge(Protocol):
    """P(the agent must stop and deal with what it saw) for (name, activity, observation)."""

    def reacts_batch(self, sights: Sequence[tuple[str, str, str]]) -> list[float]: ...


class AdapterReactions:
    """The trained reaction adapter (in-process, or served by vLLM as a LoRA module)."""

    def __init__(self, adapter: Callable[[], YesNo]) -> None:
        self.adapter = adapter

    def reacts_batch(self, sights: Sequence[tuple[str, str, str]]) -> list[float]:
        return self.adapter().p_yes([reacts_prompt(*s) for s in sights]) if sights else []


class ScorerReactions:
    """Any scorer's P(yes) after worked examples (a served model without the adapter)."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer

    def reacts_batch(self, sights: Sequence[tuple[str, str, str]]) -> list[float]:
        prompts = [FEW_SHOT_REACTS.format(request=reacts_prompt(*s)) for s in sights]
        return self.scorer.p_yes_batch(prompts) if prompts else []


@runtime_checkable
class RelationJudge(Protocol):
    """P(later replaces earlier) for (earlier, later) pairs; P(fact shows the claim false) for
    (fact, claim) pairs. Each call is one batch."""

    def replaces_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]: ...

    def contradicts_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]: ...


class AdapterJudge:
    """The embedded model with one adapter per question, each merged into its own copy of the
    weights and loaded on its first use (an assistant never loads the contradiction one,
    TeachMe never the replacement one)."""

    def __init__(self, replaces: Callable[[], YesNo], contradicts: Callable[[], YesNo]) -> None:
        self.replaces_adapter = replaces
        self.contradicts_adapter = contradicts

    def replaces_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        return self.replaces_adapter().p_yes([replaces_prompt(e, n) for e, n in pairs])

    def contradicts_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        return self.contradicts_adapter().p_yes([contradicts_prompt(f, c) for f, c in pairs])


class ScorerJudge:
    """Any scorer as a judge (a served model): its P(yes) on few-shot prompts."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer

    def replaces_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        prompts = [FEW_SHOT_REPLACES.format(request=replaces_prompt(e, n)) for e, n in pairs]
        return self.scorer.p_yes_batch(prompts) if prompts else []

    def contradicts_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        prompts = [FEW_SHOT_CONTRADICTS.format(request=contradicts_prompt(f, c)) for f, c in pairs]
        return self.scorer.p_yes_batch(prompts) if prompts else []


def _adapter(
    base: Path, adapters: Path, task: str, probe: str, threads: int | None
) -> Callable[[], YesNo]:
    """The adapter in `adapters`/`task` on `base`, loaded (once per process) when first asked."""
    trainer = f"mindstream train judge {task}"
    return lambda: load_yes_no_adapter(base, adapters / task, probe, threads, trainer)


def load_adapter_judge(
    base: Path, adapters: Path = JUDGE_ADAPTER_DIR, threads: int | None = None
) -> AdapterJudge:
    """The judge on the base model in `base`, with the adapters in `adapters`/replaces and
    `adapters`/contradicts, each loaded when first asked."""
    replaces = replaces_prompt("I live in a flat in Leeds", "We moved to York")
    contradicts = contradicts_prompt("Ice is cold.", "Ice is hot.")
    return AdapterJudge(
        _adapter(base, adapters, "replaces", replaces, threads),
        _adapter(base, adapters, "contradicts", contradicts, threads),
    )


def load_adapter_reactions(
    base: Path, adapters: Path = JUDGE_ADAPTER_DIR, threads: int | None = None
) -> AdapterReactions:
    """The reaction adapter in `adapters`/reacts, loaded when first asked."""
    probe = reacts_prompt("Ana", "reading", "the kitchen: stove is on fire")
    return AdapterReactions(_adapter(base, adapters, "reacts", probe, threads))
