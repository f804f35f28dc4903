"""The showcase `make demo` runs: every piece of the model layer on the embedded models.

Later issues replace it with the main job (a town simulation); until then it shows what the
foundation does, with its timings and model-call accounting.
"""

from __future__ import annotations

import time

from rich.table import Table

from lm import CallLedger, LocalModelConfig, belief, choose, rate_importance
from lm.embeddings import MiniLMEmbeddings
from lm.local import LocalChatModel
from mindstream.cli_support import console

DEMO_MEMORIES = (
    "I made my bed this morning",
    "I bought milk at the corner shop",
    "I locked the front door",
    "My sister gave birth to her first child",
    "I was fired from the job I loved",
    "My doctor told me the tumour is benign",
)
DEMO_QUESTIONS = (
    "Name one thing people do in a cafe.",
    "What season comes after winter?",
    "Give a short greeting to a neighbour.",
    "What do plants need to grow?",
)


def run_demo() -> None:
    ledger = CallLedger()
    start = time.perf_counter()
    model = LocalChatModel(
        settings=LocalModelConfig(max_new_tokens=48), ledger=ledger, callbacks=[ledger.callback()]
    )
    model.backend  # noqa: B018  # load now: honest timings
    console.rule("mindstream demo: the embedded model layer")
    console.print(f"SmolLM2-135M-Instruct loaded in {time.perf_counter() - start:.1f} s")

    chat = model.for_component("chat")
    _timed("one chat turn", lambda: console.print(chat.invoke(DEMO_QUESTIONS[0]).text))
    replies = _timed("four prompts as one batch", lambda: chat.batch(list(DEMO_QUESTIONS)))
    for question, reply in zip(DEMO_QUESTIONS, replies, strict=True):
        console.print(f"[bold]{question}[/] {reply.text}", highlight=False)

    ratings = rate_importance(model.for_component("importance"), DEMO_MEMORIES)
    table = Table("importance (1-10)", "memory", title="poignancy by log-likelihood")
    for memory, rating in sorted(zip(DEMO_MEMORIES, ratings, strict=True), key=lambda p: p[1]):
        table.add_row(f"{rating:.1f}", memory)
    console.print(table)

    picked = choose(
        model.for_component("choose"),
        "Isabella wants to buy fresh bread for the party, so she walks to the",
        [" bakery", " swimming pool", " dentist"],
    )
    console.print(
        f"choose(): the model picks [bold]{picked.option.strip()}[/] "
        f"(mean log-likelihoods {', '.join(f'{s:.2f}' for s in picked.scores)})"
    )
    statements = ["Ice is cold.", "Fish live in the desert sand."]
    for statement, p in zip(
        statements, belief(model.for_component("belief"), statements), strict=True
    ):
        console.print(f"belief: P(yes) that “{statement}” = {p:.2f}")

    embedder = MiniLMEmbeddings()
    vectors = embedder.embed_array(
        ["a party at the cafe", "a celebration at the coffee shop", "tax law"]
    )
    console.print(
        f"embeddings ({vectors.shape[1]}-d): similarity party~celebration "
        f"{float(vectors[0] @ vectors[1]):.2f}, party~tax law {float(vectors[0] @ vectors[2]):.2f}"
    )
    console.print(ledger.table())
    console.print(f"demo wall time: {time.perf_counter() - start:.1f} s")


def _timed(label: str, action):
    start = time.perf_counter()
    result = action()
    console.print(f"[dim]{label}: {time.perf_counter() - start:.2f} s[/]")
    return result
