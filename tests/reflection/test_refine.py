"""Self-Refine and ReFeed on scripted models: control flow, history, selection."""

from __future__ import annotations

from mindstream.lm.fakes import FakeScorer, HashEmbeddings, ScriptedChatModel
from mindstream.memory import InMemoryStore, MemoryStream
from mindstream.reflection.refeed import ReFeed, ReFeedConfig, fuse, stream_retriever
from mindstream.reflection.self_refine import SelfRefine, SelfRefineConfig


def test_self_refine_stops_when_feedback_is_satisfied_and_keeps_history() -> None:
    model = ScriptedChatModel(
        rules={
            "Give short, specific feedback": ["Mention the cafe.", "It is correct."],
            "Write an improved answer": "Isabella hosts a party at the cafe.",
        },
        default="Isabella hosts a party.",
    )
    history = SelfRefine(model).run("Write one sentence about Isabella's party.")
    assert [s.output for s in history.steps] == [
        "Isabella hosts a party.",
        "Isabella hosts a party at the cafe.",
    ]
    assert [s.feedback for s in history.steps] == ["Mention the cafe.", "It is correct."]
    assert history.stopped_by == "stop condition"
    # The refine prompt carried the whole history so far.
    refine_prompt = next(p for p in model.prompts if "Write an improved answer" in p)
    assert "Answer 0: Isabella hosts a party." in refine_prompt
    assert "Feedback 0: Mention the cafe." in refine_prompt


def test_self_refine_respects_max_iters_with_program_feedback() -> None:
    model = ScriptedChatModel(default="a sentence")

    def never_happy(tasks, outputs):  # type: ignore[no-untyped-def]
        return ["add more words"] * len(outputs)

    histories = SelfRefine(
        model, feedback=never_happy, config=SelfRefineConfig(max_iters=2)
    ).run_batch(["t1", "t2"])
    assert [len(h.steps) for h in histories] == [3, 3]  # y0, y1, y2
    assert all(h.stopped_by == "max_iters" for h in histories)
    assert all(s.feedback == "add more words" for h in histories for s in h.steps)


def test_fuse_merges_rankings_and_removes_duplicates() -> None:
    assert fuse([["a", "b", "c"], ["b", "d"], ["b", "a"]], 3) == ["b", "a", "d"]


def test_refeed_retrieves_with_question_plus_answers_and_picks_by_loglik() -> None:
    stream = MemoryStream(InMemoryStore(), HashEmbeddings())
    for fact in ["a magnet attracts iron", "copper is not magnetic", "the sun is a star"]:
        stream.add(fact, owner="book", kind="fact", importance=1)
    queries: list[str] = []
    retrieve = stream_retriever(stream, "book")

    def spying(query: str, k: int) -> list[str]:
        queries.append(query)
        return retrieve(query, k)

    model = ScriptedChatModel(
        rules={"Using the documents": "copper is not magnetic"}, default="zinc"
    )
    result = ReFeed(model, FakeScorer(), spying, ReFeedConfig(samples=2, keep=2)).run(
        "Can a magnet attract copper?"
    )
    assert queries == ["Can a magnet attract copper? zinc"] * 2
    assert set(result.documents) == {"copper is not magnetic", "a magnet attracts iron"}
    assert result.refined == "copper is not magnetic"
    # FakeScorer rewards words shared with the context: the refined answer wins.
    assert result.refined_score > result.initial_score
    assert result.answer == result.refined
