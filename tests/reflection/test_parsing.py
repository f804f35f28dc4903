"""Parsing loose model text into questions and cited insights; nothing is invented."""

from __future__ import annotations

from mindstream.reflection.parsing import parse_insights, parse_questions
from mindstream.reflection.prompts import FOCAL_QUESTIONS


def test_questions_are_numbered_lines_with_a_question_mark() -> None:
    text = (
        "1. What is Klaus passionate about?\n"
        "2) How does Klaus feel about Maria? He likes her\n- ok\n"
        "3. What is Klaus passionate about?"
    )
    assert parse_questions(text, 3) == [
        "What is Klaus passionate about?",
        "How does Klaus feel about Maria?",
    ]


def test_questions_that_echo_the_instruction_are_dropped() -> None:
    text = (
        "1. What is the most salient high-level question we can answer about the subjects "
        "in the statements?\n2. Why does Klaus study rents?"
    )
    assert parse_questions(text, 3, echo_of=FOCAL_QUESTIONS.template) == [
        "Why does Klaus study rents?"
    ]


def test_no_question_at_all_gives_an_empty_list() -> None:
    assert parse_questions("I cannot answer that.", 3) == []


def test_insights_keep_only_citations_in_range() -> None:
    text = (
        "1. Klaus is dedicated to his research (because of 1, 2, 9)\n"
        "2. Klaus likes Maria (because of 12)\n"
        "3. Klaus works hard\n"
        "4. ok (because of 1)\n"
        "5. Klaus cares about his community [because of 3 and 4]."
    )
    parsed = parse_insights(text, statement_count=5, limit=5)
    assert [(i.text, i.citations) for i in parsed.insights] == [
        ("Klaus is dedicated to his research", [1, 2]),
        ("Klaus cares about his community", [3, 4]),
    ]
    assert len(parsed.dropped) == 3
    assert any("out of range" in d for d in parsed.dropped)
    assert any("no citation" in d for d in parsed.dropped)
    assert any("too short" in d for d in parsed.dropped)


def test_empty_reply_gives_nothing() -> None:
    parsed = parse_insights("", 5, 5)
    assert parsed.insights == [] and parsed.dropped == []


def test_uncited_insights_are_kept_without_citations_when_asked() -> None:
    text = "1. Klaus works hard on his paper\n2. Klaus likes Maria (because of 12)\n3. ok"
    parsed = parse_insights(text, statement_count=5, limit=5, keep_uncited=True)
    assert [(i.text, i.citations) for i in parsed.insights] == [
        ("Klaus works hard on his paper", []),
        ("Klaus likes Maria", []),
    ]
    assert parsed.dropped == ["too short: ok"]
