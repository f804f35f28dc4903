"""The dialogue retriever's training pairs: what each source yields, and bad files refused in
one line naming the file and the field."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from mindstream.lab.experiments import truth_data
from mindstream.lab.training import retriever_data as data
from mindstream.lm.fakes import HashEmbeddings

FRIENDS = {
    "data": [
        {
            "title": "s01_e01_c01",
            "paragraphs": [
                {
                    "utterances:": [
                        {"uid": 0, "speakers": ["Ross Geller"], "utterance": "Breathe ."},
                        {"uid": 1, "speakers": ["Monica Geller"], "utterance": "I do n't know ."},
                        {"uid": 2, "speakers": ["Ross Geller"], "utterance": "His name is Jamie ."},
                    ],
                    "qas": [
                        {
                            "question": "What is the son 's name ?",
                            "answers": [{"answer_text": "Jamie", "utterance_id": 2}],
                        }
                    ],
                }
            ],
        }
    ]
}
MOLWENI = {
    "data": {
        "dialogues": [
            {
                "edus": [
                    {"text": "that i use between linux and windows", "speaker": "JuJuBee_"},
                    {"text": "did you mount it with fstab ?", "speaker": "nit-wit"},
                ],
                "context": "jujubee_: that i use between linux and windows "
                "nit-wit: did you mount it with fstab ?",
                "qas": [
                    {"question": "What did nit-wit ask ?", "answers": [{"answer_start": 65}]},
                    {"question": "Who ?", "answers": [], "is_impossible": True},
                ],
            }
        ]
    }
}


def embed(texts: Sequence[str]) -> np.ndarray:
    return HashEmbeddings().embed_array(list(texts))


def test_friendsqa_gives_the_answering_utterance_with_its_speaker(tmp_path: Path) -> None:
    path = tmp_path / "friends.json"
    path.write_text(json.dumps(FRIENDS))
    pairs = data.mined(data.from_friendsqa(path), embed, "friends")
    assert [(p.query, p.positive) for p in pairs] == [
        ("What is the son's name?", "Ross Geller: His name is Jamie.")
    ]
    assert "Ross Geller: His name is Jamie." not in pairs[0].negatives
    assert len(pairs[0].negatives) == 2


def test_molweni_gives_the_turn_holding_the_answer_offset(tmp_path: Path) -> None:
    path = tmp_path / "molweni.json"
    path.write_text(json.dumps(MOLWENI))
    pairs = data.mined(data.from_molweni(path), embed, "molweni")
    assert [(p.query, p.positive) for p in pairs] == [
        ("What did nit-wit ask?", "nit-wit: did you mount it with fstab?")
    ]


def test_chat_pairs_never_use_an_outdated_turn_as_a_negative() -> None:
    conversations = truth_data.split("dev")
    pairs = data.mined(data.from_chats(conversations), embed, "chats")
    questions = sum(len(c.questions) for c in conversations)
    assert len(pairs) >= questions * 0.9
    for conversation in conversations:
        text = {t.dia_id: t.text for t in conversation.turns}
        for question in conversation.questions:
            outdated = {text[o] for o in question.outdated}
            for pair in (p for p in pairs if p.query == question.question):
                assert not outdated & set(pair.negatives)


@pytest.mark.parametrize(
    ("content", "field"),
    [("{}", "'data'"), ('{"data": [{"paragraphs": [{}]}]}', "'utterances:'"), ("[1", "JSON")],
)
def test_a_bad_file_is_refused_in_one_line_naming_it(
    tmp_path: Path, content: str, field: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(data.RetrieverDataError) as raised:
        data.from_friendsqa(path)
    message = str(raised.value)
    assert str(path) in message and field in message and "\n" not in message


def test_a_file_without_answerable_questions_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_text(json.dumps({"data": {"dialogues": [{"edus": [], "qas": []}]}}))
    with pytest.raises(data.RetrieverDataError, match="no question with an answering turn"):
        data.from_molweni(path)
