"""The relation judge's training data and the changed-facts evaluation set are kept apart, and
the training data carries no shortcut the judge could learn instead of the relation."""

from __future__ import annotations

import json
import re
from collections import defaultdict

from mindstream.agents.teachme.language import negate
from mindstream.lab.experiments.changed_facts_data import (
    GENERATED,
    HAND,
    generate,
    load_templates,
)
from mindstream.lab.experiments.openbookqa import DEFAULT_DATA, load_questions
from mindstream.lab.training.judge import HELDOUT_SLOTS, JudgeTraining, build_examples, measured
from mindstream.lab.training.judge_data import (
    contradiction_examples,
    load_catalogue,
    replacement_pairs,
    trap_examples,
)

UNSEEN_EVAL_SLOTS = {
    "nursery",
    "dentist",
    "hairdresser",
    "running_club",
    "mortgage",
    "vet",
    "coffee_order",
}


def test_every_template_of_every_slot_formats() -> None:
    catalogue = load_catalogue()
    pairs = replacement_pairs(catalogue, list(catalogue.slots), 60, 100, seed=3)
    assert {p.slot for p in pairs if p.slot} == set(catalogue.slots)
    assert all("{" not in p.earlier + p.later for p in pairs)
    assert {p.replaces for p in pairs} == {True, False}


def test_the_evaluation_set_shares_no_later_statement_and_no_unseen_slot_with_training() -> None:
    """Plain earlier statements ("I live in Leeds.") may coincide; what the judge decides on,
    the later statement of a pair, never does."""
    catalogue = load_catalogue()
    assert not UNSEEN_EVAL_SLOTS & set(catalogue.slots)
    assert set(load_templates().slots) >= UNSEEN_EVAL_SLOTS
    training = replacement_pairs(catalogue, list(catalogue.slots), 400, 400, seed=0)

    def key(text: str) -> str:
        return text.rstrip(".!").lower()

    sentences = {key(s) for p in training for s in (p.earlier, p.later)}
    items = [json.loads(line) for path in (GENERATED, HAND) for line in path.open()]
    assert [i["later"] for i in items if key(i["later"]) in sentences] == []


def test_the_committed_evaluation_set_is_what_the_generator_writes() -> None:
    made = [json.dumps(i.model_dump()) for i in generate(load_templates())]
    assert GENERATED.read_text().splitlines() == made


def test_contradiction_groups_have_one_yes_and_a_negation_alone_decides_nothing() -> None:
    questions = load_questions(DEFAULT_DATA / "train_complete.jsonl", limit=200)
    examples = contradiction_examples(questions, None, seed=0, bank_share=0)
    groups: dict[int, list[bool]] = defaultdict(list)
    for e in examples:
        if e.group:
            groups[e.group].append(e.label)
    assert groups and all(labels.count(True) == 1 for labels in groups.values())
    for kind in ("openbookqa negated fact", "openbookqa a wrong choice denied"):
        made = [e for e in examples if e.source.startswith(kind)]
        assert {e.label for e in made} == {True, False}
    # a wrong choice's denial alone is a yes only against the claim it denies
    for e in (e for e in examples if e.source == "openbookqa a wrong choice denied"):
        fact, claim = (line.split(": ", 1)[1] for line in e.prompt.splitlines()[:2])
        assert e.label == (fact == negate(claim))


def test_held_out_slots_and_questions_never_reach_training() -> None:
    questions = load_questions(DEFAULT_DATA / "train_complete.jsonl", limit=600)
    catalogue = load_catalogue()
    for task in ("replaces", "contradicts"):
        settings = JudgeTraining(
            task=task, heldout=100, contradiction_questions=50, per_slot=5, town=5
        )
        examples, held = build_examples(catalogue, questions, None, settings)
        assert held and not {e.prompt for e in held} & {e.prompt for e in examples}
    replacements, _ = build_examples(catalogue, questions, None, JudgeTraining(per_slot=5))
    for slot in HELDOUT_SLOTS:
        values = catalogue.slots[slot].values
        assert not any(f"Earlier: {v}" in e.prompt for e in replacements for v in values)


def test_reaction_examples_never_show_fire_or_flood_words_nor_held_out_objects() -> None:
    from mindstream.lab.training.react_data import (
        HELD_OUT_EVERYDAY,
        HELD_OUT_OBJECTS,
        HELD_OUT_URGENT,
        reaction_examples,
    )

    train = reaction_examples(600, seed=0)
    held = reaction_examples(100, seed=1, held_out=True)
    assert sum(e.label for e in train) == 300 and sum(e.label for e in held) == 50
    texts = " ".join(e.prompt.lower() for e in train)
    assert "burn" not in texts and "flood" not in texts  # the town's fire and flood are unseen
    for word in (*HELD_OUT_OBJECTS, *HELD_OUT_URGENT, *HELD_OUT_EVERYDAY):
        assert f": {word} is" not in texts and f" is {word}\n" not in texts
    assert not {e.prompt for e in held} & {e.prompt for e in train}


def test_a_word_trap_names_a_choice_word_and_nothing_of_the_question() -> None:
    """The judge's no-examples include another question's denial sharing only a noun with a
    claim ("A magnet does not attract copper" against "...conducts electricity?: a copper
    wire"), and never one about the question's own topic."""
    import random

    from mindstream.lab.experiments.openbookqa import Question
    from mindstream.lab.training.judge_data import WordTraps, content_words

    q = Question(
        id="q",
        stem="Which material conducts electricity?",
        choices=["a rubber band", "a copper wire"],
        labels=["A", "B"],
        answer="B",
        fact="copper is a conductor of electricity.",
    )
    facts = ["a magnet can attract copper.", "copper wire conducts electricity.", q.fact]
    claim, denial = WordTraps(facts).denial_for(q, random.Random(0)) or ("", "")
    assert (claim, denial) == (
        "Which material conducts electricity: a copper wire.",
        "a magnet cannot attract copper.",
    )
    assert WordTraps(facts[1:]).denial_for(q, random.Random(0)) is None
    assert content_words("Which materials conduct electricity?") == {
        "material",
        "conduct",
        "electricity",
    }


def test_word_traps_enter_the_data_only_when_asked() -> None:
    questions = load_questions(DEFAULT_DATA / "train_complete.jsonl", limit=200)
    plain = contradiction_examples(questions, None, seed=0, bank_share=0)
    trapped = contradiction_examples(questions, None, seed=0, bank_share=0, trap_share=0.3)
    source = "openbookqa another topic's denial"
    assert not [e for e in plain if e.source == source]
    traps = [e for e in trapped if e.source == source]
    assert traps and not any(e.label for e in traps) and len(plain) == len(trapped)
    mostly = contradiction_examples(questions, None, seed=0, bank_share=0, trap_share=0.9)
    assert len([e for e in mostly if e.source == source]) > 2 * len(traps)


def test_held_out_traps_are_measured_apart_from_the_ranked_groups() -> None:
    questions = load_questions(DEFAULT_DATA / "train_complete.jsonl", limit=300)
    settings = JudgeTraining(task="contradicts", heldout=100, contradiction_questions=50)
    examples, held = build_examples(load_catalogue(), questions, None, settings)
    traps = [e for e in held if e.source == "openbookqa another topic's denial"]
    assert traps and all(e.group == 0 and not e.label for e in traps)
    assert not {e.prompt for e in traps} & {e.prompt for e in examples}
    grouped = [e for e in held if e.group]
    right = [1.0 if e.label else 0.0 for e in grouped]
    found = measured("contradicts", [*grouped, *traps], [*right, *[0.9] * len(traps)])
    assert found["denied claim ranked first"] == 1.0 and found["balanced accuracy"] == 1.0
    assert found["another topic's denial read as contradicted"] == 1.0
    assert trap_examples(questions[:50], seed=1)[0].prompt.startswith("Fact: ")


def test_the_chat_models_stream_pairs_come_from_train_only() -> None:
    """`train judge replaces --chats N`: every replacement of the train conversations whose
    two turns are statements, three times, and N kept pairs; every statement from a train
    conversation, none from dev or held-out."""
    from mindstream.lab.experiments import truth_data
    from mindstream.lab.training.change_data import statements
    from mindstream.lab.training.judge import chat_examples
    from mindstream.lm.fakes import HashEmbeddings

    examples = chat_examples(200, seed=0, embed=HashEmbeddings().embed_array)
    texts = {
        name: {t.text.rstrip(".") for c in truth_data.split(name) for t in c.turns}
        for name in truth_data.SPLITS
    }
    pairs = [re.match(r"Earlier: (.*)\nLater: (.*)\n", e.prompt, re.S) for e in examples]
    said = {text.rstrip(".") for m in pairs if m for text in m.groups()}  # as prompts end
    assert all(pairs) and said <= texts["train"]
    assert not said & (texts["dev"] | texts["heldout"])
    changes = 0  # a change whose turn reads as a question is never judged, so never mined
    for c in truth_data.split("train"):
        stated = {t.dia_id for t in statements(c)}
        changes += sum(link.old in stated and link.new in stated for link in c.changes)
    yes = [e for e in examples if e.label]
    assert len(yes) == 3 * changes and len(examples) - len(yes) == 200
