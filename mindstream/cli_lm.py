"""`mindstream lm ...`: talk to, rate with, probe and embed with the configured models."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from mindstream.cli_support import clean_errors, configured, console

if TYPE_CHECKING:
    from mindstream.compose import Parts

app = typer.Typer(
    help="Use the model layer directly: chat, rate importance, probe a server, embed.",
    no_args_is_help=True,
)


@app.command()
@clean_errors
@configured
def chat(
    parts: Parts,
    text: Annotated[str, typer.Argument(help="What to say to the model.")],
    max_new_tokens: Annotated[int, typer.Option(help="Longest reply, in tokens.")] = 128,
    temperature: Annotated[float, typer.Option(help="0 is greedy; above 0 samples.")] = 0.0,
) -> None:
    """Print the model's reply to TEXT (one user turn, through the model's chat template)."""
    if not text.strip():
        raise ValueError("TEXT is empty")
    reply = parts.chat_for("chat").invoke(text, max_tokens=max_new_tokens, temperature=temperature)
    console.print(reply.text, highlight=False)


@app.command()
@clean_errors
@configured
def rate(
    parts: Parts,
    memories: Annotated[list[str], typer.Argument(help="One or more memories to rate.")],
) -> None:
    """Print the importance (1-10) of each MEMORY: Generative Agents' poignancy prompt, few-shot,
    scored as the expected value over the model's probabilities of the ratings 1..10."""
    from mindstream.lm import rate_importance

    if any(not m.strip() for m in memories):
        raise ValueError("a MEMORY is empty")
    ratings = rate_importance(parts.scorer_for("importance"), memories)
    if len(memories) == 1:
        console.print(f"{ratings[0]:.1f}")
        return
    table = Table("importance", "memory")
    for memory, rating in sorted(zip(memories, ratings, strict=True), key=lambda p: -p[1]):
        table.add_row(f"{rating:.1f}", memory)
    console.print(table)


SAMPLE_MEMORY = "My sister gave birth to her first child"
SAMPLE_STATEMENT = "Ice is cold."
SAMPLE_CHOICE = (
    "Isabella wants fresh bread for the party, so she walks to the",
    ["bakery", "dentist"],
)


@app.command()
@clean_errors
@configured
def probe(parts: Parts) -> None:
    """Show how each kind of decision is asked of the configured model (a server is probed once:
    prompt log-probabilities, /v1/systemone, first-token log-probabilities, or parsed
    replies), with a sample answer."""
    from mindstream.lm import belief, choose, rate_importance

    config = parts.config.model
    scorer = parts.models.scorer
    if config.is_served:
        from mindstream.lm.resolve import endpoint_of
        from mindstream.lm.served.scorer import probe as probe_endpoint

        report = probe_endpoint(endpoint_of(config))
        console.print(
            f"{config.spec} at {report.url}: chat completions yes, prompt log-probabilities "
            f"{'yes' if report.likelihood else 'no'}, /v1/systemone "
            f"{'yes' if report.systemone else 'no'}, log-probabilities "
            f"{'yes' if report.logprobs else 'no'} (probed in {report.seconds:.2f} s)",
            soft_wrap=True,
        )
    path = getattr(getattr(scorer, "path", None), "name", None) or (
        "served log-likelihoods" if config.is_served else "local log-likelihoods"
    )
    table = Table("decision", "asked through", "sample", "answer", title=config.spec)
    rating = rate_importance(scorer, [SAMPLE_MEMORY])[0]
    table.add_row("rating 1-10", path, SAMPLE_MEMORY, f"{rating:.2f}")
    yes = belief(scorer, [SAMPLE_STATEMENT])[0]
    table.add_row("yes/no", path, f"is it true that {SAMPLE_STATEMENT}", f"P(yes) = {yes:.2f}")
    prompt, options = SAMPLE_CHOICE
    picked = choose(scorer, prompt, [" " + o for o in options])
    table.add_row("choice", path, f"{prompt} {' / '.join(options)}", picked.option.strip())
    reply = parts.chat_for("chat").invoke("Say hello to a neighbour.", max_tokens=24).text
    table.add_row("generation", "chat completion", "Say hello to a neighbour.", reply)
    console.print(table)


@app.command()
@clean_errors
@configured
def embed(
    parts: Parts,
    text: Annotated[str, typer.Argument(help="Text to embed.")],
    show: Annotated[int, typer.Option(help="How many leading values to print.")] = 8,
) -> None:
    """Print the dimension and the first values of TEXT's all-MiniLM-L6-v2 embedding."""
    if not text.strip():
        raise ValueError("TEXT is empty")
    vector = parts.models.embedder.embed_array([text])[0]
    console.print(f"dimension: {vector.shape[0]}")
    console.print("first values: " + " ".join(f"{v:+.4f}" for v in vector[:show]))
