"""`mindstream lm ...`: talk to, rate with and embed with the embedded models."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from lm import DEFAULT_MODEL_SPEC, rate_importance
from lm.embeddings import MiniLMEmbeddings
from mindstream.cli_support import (
    MODEL_OPTION_HELP,
    build_model,
    clean_errors,
    console,
    require_scorer,
)

app = typer.Typer(
    help="Use the model layer directly: chat, rate importance, embed.", no_args_is_help=True
)

ModelSpec = Annotated[str, typer.Option("--model", "-m", help=MODEL_OPTION_HELP)]


@app.command()
@clean_errors
def chat(
    text: Annotated[str, typer.Argument(help="What to say to the model.")],
    model: ModelSpec = DEFAULT_MODEL_SPEC,
    max_new_tokens: Annotated[int, typer.Option(help="Longest reply, in tokens.")] = 128,
    temperature: Annotated[float, typer.Option(help="0 is greedy; above 0 samples.")] = 0.0,
) -> None:
    """Print the model's reply to TEXT (one user turn, through the model's chat template)."""
    if not text.strip():
        raise ValueError("TEXT is empty")
    chat_model = build_model(model, max_new_tokens=max_new_tokens, temperature=temperature)
    console.print(chat_model.invoke(text).text, highlight=False)


@app.command()
@clean_errors
def rate(
    memories: Annotated[list[str], typer.Argument(help="One or more memories to rate.")],
    model: ModelSpec = DEFAULT_MODEL_SPEC,
) -> None:
    """Print the importance (1-10) of each MEMORY: Generative Agents' poignancy prompt, few-shot,
    scored as the expected value over the model's probabilities of the ratings 1..10."""
    if any(not m.strip() for m in memories):
        raise ValueError("a MEMORY is empty")
    scorer = require_scorer(build_model(model), model)
    ratings = rate_importance(scorer, memories)
    if len(memories) == 1:
        console.print(f"{ratings[0]:.1f}")
        return
    table = Table("importance", "memory")
    for memory, rating in sorted(zip(memories, ratings, strict=True), key=lambda p: -p[1]):
        table.add_row(f"{rating:.1f}", memory)
    console.print(table)


@app.command()
@clean_errors
def embed(
    text: Annotated[str, typer.Argument(help="Text to embed.")],
    show: Annotated[int, typer.Option(help="How many leading values to print.")] = 8,
) -> None:
    """Print the dimension and the first values of TEXT's all-MiniLM-L6-v2 embedding."""
    if not text.strip():
        raise ValueError("TEXT is empty")
    vector = MiniLMEmbeddings().embed_array([text])[0]
    console.print(f"dimension: {vector.shape[0]}")
    console.print("first values: " + " ".join(f"{v:+.4f}" for v in vector[:show]))
