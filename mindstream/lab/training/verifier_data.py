"""Entailment examples for the verifier, from the training splits only.

- OpenBookQA train: the core fact with each choice's hypothesis, the right one entailed (a
  group ranked together, so the verifier learns which choice a fact supports), plus the
  negated fact (not entailed) and an unrelated fact (not entailed).
- EntailmentBank train: every step of every proof (premises -> conclusion, entailed), the same
  step with one premise swapped for a distractor, and with the conclusion negated (not entailed).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from mindstream.agents.teachme.language import negate, rule_hypothesis
from mindstream.lab.experiments.openbookqa import DataError, Question

_FIELD = re.compile(r"\$(\w+)\$ = (.*?)(?= ; \$\w+\$ = |$)")
_SENT = re.compile(r"(sent\d+): (.*?)(?= sent\d+: |$)")
_STEP = re.compile(r"^\s*(.+?) -> (int\d+: .+|hypothesis)\s*$")


class Example(BaseModel):
    """One judgement: do `premises` entail `hypothesis`? Examples sharing a `group` (> 0)
    have exactly one entailed member and are also ranked against each other."""

    model_config = ConfigDict(frozen=True)

    premises: list[str]
    hypothesis: str
    entailed: bool
    group: int = 0
    source: str = ""


def openbookqa_examples(
    questions: list[Question], seed: int = 0, negated_share: float = 0.25
) -> list[Example]:
    """`negated_share` of the questions also get their fact negated against the right answer:
    "X does not Y" must not entail "Y" (TeachMe's support guard trusts this)."""
    rng = random.Random(seed)
    facts = sorted({q.fact for q in questions})
    out: list[Example] = []
    for number, q in enumerate(questions, start=1):
        hypotheses = [rule_hypothesis(q.stem, c) for c in q.choices]
        for i, h in enumerate(hypotheses):
            out.append(
                Example(
                    premises=[q.fact],
                    hypothesis=h,
                    entailed=i == q.answer_index,
                    group=number,
                    source="openbookqa",
                )
            )
        right = hypotheses[q.answer_index]
        if rng.random() < negated_share:
            out.append(
                Example(
                    premises=[negate(q.fact)],
                    hypothesis=right,
                    entailed=False,
                    source="openbookqa negated",
                )
            )
        if rng.random() < 0.25:
            other = rng.choice(facts)
            if other != q.fact:
                out.append(
                    Example(
                        premises=[other],
                        hypothesis=right,
                        entailed=False,
                        source="openbookqa unrelated",
                    )
                )
    return out


def entailmentbank_examples(path: Path, seed: int = 0) -> list[Example]:
    """Steps of the proofs in an EntailmentBank `train.angles.jsonl` (task_2 has distractors)."""
    rng = random.Random(seed)
    out: list[Example] = []
    if not path.is_file():
        raise DataError(f"{path}: not found (pass --entailmentbank with a train.angles.jsonl)")
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            fields = dict(_FIELD.findall(json.loads(line)["input"]))
            proof = json.loads(line)["output"].split("=", 1)[1]
            context = dict(_SENT.findall(fields["context"]))
            hypothesis = fields["hypothesis"]
        except (json.JSONDecodeError, KeyError, IndexError) as error:
            raise DataError(
                f"{path}:{number}: not an EntailmentBank angles line ({error})"
            ) from None
        for premises, conclusion in _steps(proof, context, hypothesis):
            out += _step_examples(premises, conclusion, list(context.values()), rng)
    if not out:
        raise DataError(f"{path}: no proof steps (an EntailmentBank train.angles.jsonl is needed)")
    return out


def _steps(proof: str, context: dict[str, str], hypothesis: str) -> Iterator[tuple[list[str], str]]:
    known = dict(context)
    for step in filter(None, (s.strip() for s in proof.split(";"))):
        match = _STEP.match(step)
        if not match:
            continue
        names = [n.strip() for n in match.group(1).split("&")]
        if match.group(2) == "hypothesis":
            conclusion = hypothesis
        else:
            name, conclusion = match.group(2).split(": ", 1)
            known[name] = conclusion
        if all(n in known for n in names):
            yield [known[n] for n in names], conclusion


def _step_examples(
    premises: list[str], conclusion: str, context: list[str], rng: random.Random
) -> list[Example]:
    out = [
        Example(premises=premises, hypothesis=conclusion, entailed=True, source="entailmentbank")
    ]
    distractors = [s for s in context if s not in premises]
    if distractors:
        swapped = list(premises)
        swapped[rng.randrange(len(swapped))] = rng.choice(distractors)
        out.append(
            Example(
                premises=swapped,
                hypothesis=conclusion,
                entailed=False,
                source="entailmentbank swapped premise",
            )
        )
    out.append(
        Example(
            premises=premises,
            hypothesis=negate(conclusion),
            entailed=False,
            source="entailmentbank negated",
        )
    )
    return out
