"""The long-memory evaluation: a tolerant reader of the conversation format, token F1, and the
command on mindstream's own data set (the real embedder; importance given, so no chat model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindstream.cli import app
from mindstream.lab.experiments.long_memory import DataProblem, load
from mindstream.lab.experiments.long_memory_chats import load_any
from mindstream.lab.experiments.long_memory_eval import token_f1
from tests.conftest import DATA

GOOD_TURNS = [
    {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat called Miso."},
    {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely!"},
    {"speaker": "Ana", "dia_id": "D1-3", "text": "malformed id"},
    {"speaker": "Ana", "dia_id": "D1:4"},
]


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data))
    return path


def test_the_reader_skips_and_counts_what_it_cannot_use(tmp_path: Path) -> None:
    sample = {
        "sample_id": "s1",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Bo",
            "session_1": GOOD_TURNS,
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "hi"}],
            "session_2_date_time": "sometime",
        },
        "qa": [
            {"question": "What is Ana's cat called?", "answer": "Miso", "evidence": ["D1:1"]},
            {"question": "Who said hi?", "evidence": ["D2:1"]},
            {"answer": "no question"},
            {"question": "Evidence in a string", "evidence": "D1:1; D1:2", "category": 4},
        ],
    }
    samples, skipped = load(_write(tmp_path, [sample, {"qa": []}, "junk"]))
    (loaded,) = samples
    assert [t.dia_id for t in loaded.turns] == ["D1:1", "D1:2"]
    assert loaded.turns[0].at.isoformat() == "2023-05-08T13:56:00+00:00"
    assert [q.evidence for q in loaded.questions] == [["D1:1"], ["D1:1", "D1:2"]]
    assert loaded.questions[1].category == "4"
    assert skipped == {
        "turn with a malformed dia_id": 1,
        "turn without text": 1,
        "session without a readable date": 1,
        "question without evidence among the turns": 1,
        "question without text": 1,
        "sample without a conversation": 2,
    }


def test_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(DataProblem, match="expected a list of samples"):
        load(_write(tmp_path, {"not": "a list"}))
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    result = CliRunner().invoke(
        app, ["eval", "long-memory", "--data", str(broken), "--importance", "5"]
    )
    assert result.exit_code == 2 and "not readable JSON" in result.output


def test_token_f1() -> None:
    assert token_f1("It is Biscuit.", "Biscuit") == pytest.approx(2 / 3)
    assert token_f1("The Lisbon flat", "Lisbon") == pytest.approx(2 / 3)
    assert token_f1("no idea", "Biscuit") == 0.0
    assert token_f1("Biscuit", "Biscuit") == 1.0


@pytest.mark.real_model
def test_the_assistant_policy_recalls_at_least_as_well_as_relevance_alone(tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "long-memory",
            "--data",
            str(DATA / "long_memory.json"),
            "--importance",
            "5",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "long_memory.json").read_text())
    assert (data["turns"], data["questions"], data["skipped"]) == (344, 101, {})
    recall = {name: p["recall"]["all"] for name, p in data["policies"].items()}
    relevance_only = [v for name, v in recall.items() if "relevance only" in name]
    best = max(v["10"] for v in relevance_only)
    assert recall["assistant default"]["10"] >= best
    assert recall["Park default (equal weights, hours)"]["10"] < 0.5 * best  # recency swamps
    changed = data["policies"]["assistant default"]
    print(
        f"assistant R@10 {recall['assistant default']['10']:.2f} (best relevance-only {best:.2f}), "
        f"changed facts right {changed['changed_right']}/{changed['changed_total']}"
    )
    assert changed["changed_right"] >= max(
        p["changed_right"] for n, p in data["policies"].items() if "relevance only" in n
    )
    assert (out / "long_memory.md").read_text().count("\n| assistant default |") == 1  # one row


def test_the_committed_data_set_is_what_the_generator_writes() -> None:
    from mindstream.lab.experiments.long_memory_data import build

    assert json.loads((DATA / "long_memory.json").read_text()) == [build()]


CHAT = """title: Dana moves
user: Dana
assistant: Assistant
style: lowercase

## session 2026-01-04 19:20
U: hey can u help me plan meals
A: Of course! What do you like?
U {home}: we're in leeds, the flat near hyde park corner
U {cat !}: our cat pepper is 3 now

## session 2026-02-11 08:05
U {home2 > home}: first night in the new house in york!!
U: do you remember my cat?

## questions
Q: where does dana live now? | York | home2 | home
Q: how old is pepper? | 3 | cat
Q temporal: when did we move? | in February | home2
"""


def test_a_chat_is_read_as_the_assistant_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "dana.chat"
    path.write_text(CHAT)
    (sample,), skipped = load_any(path)
    assert not skipped
    recalled = [t.memory_text for t in sample.turns if t.recalled]
    assert recalled == [
        "we're in leeds, the flat near hyde park corner",
        "our cat pepper is 3 now",
        "first night in the new house in york!!",
    ]
    kept = [t.memory_text for t in sample.turns if not t.recalled]
    assert kept == [
        "hey can u help me plan meals",  # a request without its mark: asked, as in `Assistant`
        "Assistant: Of course! What do you like?",
        "do you remember my cat?",
    ]
    assert [q.category for q in sample.questions] == ["changed", "stays", "temporal"]


@pytest.mark.real_model
def test_a_folder_of_chats_is_measured_per_conversation_beside_the_stock_embedder(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "dana.chat").write_text(CHAT)
    out = tmp_path / "results"
    result = CliRunner().invoke(
        app,
        ["eval", "long-memory", "--data", str(folder), "--importance", "5", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "long_memory_chats.json").read_text())
    policies = data["policies"]
    assert {"assistant default", "assistant default (stock MiniLM)"} <= set(policies)
    assert set(policies["assistant default"]["per_conversation"]) == {"dana"}
    assert set(policies["assistant default"]["questions"]) == {
        "changed",
        "stays",
        "temporal",
        "all",
    }
    assert "R@10 per conversation" in (out / "long_memory_chats.md").read_text()
