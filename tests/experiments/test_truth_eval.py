"""`eval truth` and its data, on fakes: the `.chat` source and the JSON form say the same, bad
labels are refused in one line naming the place, and the scoring counts right and wrong
supersedes, recall, must-stay facts retired and current-first from what a stream did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindstream.lab.experiments import truth_data
from mindstream.lab.experiments.truth_data import TruthDataError, from_json, parse_chat, to_json
from mindstream.lab.experiments.truth_eval import measure
from mindstream.lm.fakes import FakeJudge, HashEmbeddings
from mindstream.memory import InMemoryStore, ManualClock, MemoryStream, StreamConfig
from mindstream.memory.records import ChangePolicy

CHAT = """title: Maya moves
user: Maya
assistant: Assistant
style: plain

## session 2026-01-04 19:20
U {home}: I live in Leeds
U {dog !}: my dog Max is a beagle
U: where is the nearest vet?
A: There is one on Park Road.
U {pin}: note: locker 14 code 2291

## session 2026-02-11 08:05
U {home2 > home}: We moved to York last week
U {pin2}: note: locker 15 code 8812
U {dog2 = dog}: Max is still a beagle, obviously

## questions
Q: Where does Maya live? | York | home2 | home
Q: What breed is Max? | beagle | dog
Q multi-hop: Which dog lives with Maya in York? | Max, a beagle | home2, dog
Q temporal: When did Maya move to York? | early February | home2
"""


def _chat(tmp_path: Path, text: str = CHAT) -> Path:
    path = tmp_path / "maya.chat"
    path.write_text(text)
    return path


def test_a_chat_file_and_its_json_are_the_same_conversation(tmp_path: Path) -> None:
    conversation = parse_chat(_chat(tmp_path))
    assert [(c.old, c.new) for c in conversation.changes] == [("D1:1", "D2:1")]
    assert [(c.old, c.new) for c in conversation.restates] == [("D1:2", "D2:3")]
    assert conversation.stays == ("D1:2",)
    assert conversation.questions[0].outdated == ("D1:1",)
    assert [t.by_user for t in conversation.turns[:4]] == [True, True, True, False]
    assert [q.category for q in conversation.questions] == [None, None, "multi-hop", "temporal"]
    assert conversation.questions[2].evidence == ("D2:1", "D1:2")
    assert from_json(to_json(conversation), Path("x.json"), 0) == conversation


@pytest.mark.parametrize(
    ("line", "change", "message"),
    [
        (11, "U {home2 > nowhere}: We moved", "maya.chat:12: > 'nowhere': no earlier turn"),
        (19, "Q: where? | York | home9", "maya.chat:20: unknown key 'home9'"),
        (19, "Q two-hop: where? | York | home2", "maya.chat:20: 'Q: question"),
        (6, "U {home !}: I live in Leeds", r"must-stay \(!\) but is replaced"),
    ],
)
def test_a_bad_label_is_refused_in_one_line_naming_the_place(
    tmp_path: Path, line: int, change: str, message: str
) -> None:
    lines = CHAT.splitlines()
    lines[line] = change
    with pytest.raises(TruthDataError, match=message):
        parse_chat(_chat(tmp_path, "\n".join(lines) + "\n"))


def test_json_with_an_unknown_turn_id_names_file_conversation_and_id(tmp_path: Path) -> None:
    sample = to_json(parse_chat(_chat(tmp_path)))
    sample["changes"].append({"old": "D1:1", "new": "D9:9"})
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([sample]))
    with pytest.raises(TruthDataError, match=r"bad.json: conversation 'maya': changes .*'D9:9'"):
        truth_data.load(path)


def test_the_shipped_parts_hold_what_the_issue_asks() -> None:
    for name in truth_data.SPLITS:
        for conversation in truth_data.split(name):
            assert len(conversation.turns) >= 200, conversation.sample_id
            assert len(conversation.changes) >= 10, conversation.sample_id
    assert len(truth_data.split("heldout")) >= 3 and len(truth_data.split("dev")) >= 3


def _build(judge: FakeJudge) -> MemoryStream:
    policy = ChangePolicy(enabled=True, min_similarity=-1.0, threshold=0.9)
    return MemoryStream(
        InMemoryStore(),
        HashEmbeddings(),
        clock=ManualClock(),
        config=StreamConfig(changes=policy),
        judge=judge,
    )


def test_the_scores_count_what_the_stream_did(tmp_path: Path) -> None:
    conversation = parse_chat(_chat(tmp_path))

    def judge(earlier: str, later: str) -> float:  # right about the move, wrong about the dog
        moved = "Leeds" in earlier and "York" in later
        return 0.95 if moved or ("beagle" in earlier and "still" in later) else 0.0

    tally = measure(conversation, lambda: _build(FakeJudge(replaces=judge)), named=False)
    assert tally["supersedes"] == 2 and tally["right"] == 1 and tally["link_right"] == 1
    assert tally["outdated_superseded"] == 1 and tally["outdated"] == 1
    assert tally["stays_retired"] == ["D1:2"]
    changed = [q for q in tally["questions"] if q["changed"]]
    assert changed and all(q["current_first"] for q in changed)
    wrong = [d for d in tally["decisions"] if not d["right"]]
    assert wrong[0]["old_text"] == "my dog Max is a beagle"


def test_like_items_and_questions_never_reach_the_judge(tmp_path: Path) -> None:
    conversation = parse_chat(_chat(tmp_path))
    seen: list[tuple[str, str]] = []

    def judge(earlier: str, later: str) -> float:
        seen.append((earlier, later))
        return 0.0

    measure(conversation, lambda: _build(FakeJudge(replaces=judge)), named=True)
    assert all("locker" not in a or "locker" not in b for a, b in seen)
    assert not any("vet" in a or "vet" in b for a, b in seen)
    assert not any(a.startswith("Maya:") for a, _ in seen)  # the shared name is not judged


def test_a_confirming_policy_is_shown_beside_the_pair_judge_alone() -> None:
    from mindstream.lab.experiments.truth_eval import ALONE, _policies

    confirming = StreamConfig(changes=ChangePolicy(enabled=True, confirm_from=0.9))
    policies = _policies(confirming)
    assert list(policies) == ["no detection", ALONE, "detection"]
    assert policies[ALONE].changes.confirm_from is None and policies[ALONE].changes.enabled
    assert policies["detection"].changes.confirm_from == 0.9
    assert not policies["no detection"].changes.enabled
    alone = StreamConfig(changes=ChangePolicy(enabled=True))
    assert list(_policies(alone)) == ["no detection", "detection"]
