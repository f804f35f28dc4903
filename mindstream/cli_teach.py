"""`mindstream ask` and `mindstream teach`: the teachable reasoner from the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from mindstream.cli_support import clean_errors, configured, console
from mindstream.memory.records import RelevanceMode

if TYPE_CHECKING:
    from mindstream.agents.teachme import Answer, TeachMeSession
    from mindstream.compose import Parts

StoreOption = Annotated[
    Path, typer.Option("--store", "-s", help="Folder of the memory store (taught facts).")
]
UserOption = Annotated[str, typer.Option("--user", "-u", help="Whose taught facts to use.")]
RetrievalOption = Annotated[
    RelevanceMode | None,
    typer.Option(
        help="How taught facts are found: bm25 (the paper's choice, teachme.retrieval's default),"
        " embedding (better recall in our Table A1 run, docs/results.md), hybrid."
    ),
]
HELP = """moves after an answer:
  a              agree: store the proof, so this question gets this answer again
  f N            premise N is false (its negation is stored)
  m FACT         a fact is missing
  t FACT         a fact the model disbelieved is true
  b              bad reasoning: never use this step again
  u N            use considered fact N
  x ID           forget one taught fact (see `l`)
  X              forget everything taught
  l              list taught facts
  q QUESTION     ask a new question:  q Can a magnet attract a penny? (A) yes (B) no
  quit           leave"""


def _session(
    parts: Parts, store: Path, user: str, retrieval: RelevanceMode | None, **changes: Any
) -> TeachMeSession:
    from mindstream.agents.teachme import TeachMeSession

    if retrieval is not None:
        changes["retrieval"] = retrieval
    return TeachMeSession(parts.reasoner(parts.stream(store), user, **changes))


def show(answer: Answer) -> None:
    if not answer.found or answer.proof is None:
        console.print("[bold]No proof found.[/] Facts I considered:")
    else:
        checked = (
            f", verifier {answer.proof.entailment:.2f}"
            if answer.proof.entailment is not None
            else ""
        )
        console.print(
            f"[bold]Answer:[/] {answer.choice}   (score {answer.proof.score:.2f}{checked})",
            highlight=False,
        )
        for n, premise in enumerate(answer.proof.premises, start=1):
            source = "taught" if premise.memory_id else f"my belief {premise.belief:.2f}"
            console.print(f"  {n}. {premise.text}  [dim]({source})[/]")
        console.print(f"  [bold]therefore[/] {answer.proof.hypothesis}")
    for veto in answer.vetoes:
        console.print(
            f"  [dim]ruled out {escape(answer.choices[veto.choice_index])!r} by what you taught: "
            f"{escape(veto.fact)!r} (contradiction {veto.contradiction:.2f})[/]",
            highlight=False,
        )
    if answer.note:
        console.print(f"  [yellow]{escape(answer.note)}[/]", highlight=False)
    for n, fact in enumerate(answer.considered, start=1):
        console.print(f"  [dim]considered {n}: {fact.text}[/]")


@clean_errors
@configured
def ask(
    parts: Parts,
    question: Annotated[str, typer.Argument(help="QUESTION (A) choice (B) choice ...")],
    store: StoreOption = Path("runs/teachme-memory"),
    user: UserOption = "user",
    retrieval: RetrievalOption = None,
    direct: Annotated[
        bool, typer.Option(help="Answer by likelihood alone, without a proof.")
    ] = False,
) -> None:
    """Answer a multiple-choice question with a proof built from taught facts."""
    from mindstream.agents.teachme import split_choices

    stem, choices = split_choices(question)
    if not stem or len(choices) < 2:
        raise ValueError("give the question with at least two choices: 'QUESTION (A) ... (B) ...'")
    session = _session(parts, store, user, retrieval, write_premises=False)
    reasoner = session.reasoner
    show(reasoner.direct(stem, choices) if direct else reasoner.answer(stem, choices))


@clean_errors
@configured
def teach(
    parts: Parts,
    store: StoreOption = Path("runs/teachme-memory"),
    user: UserOption = "user",
    retrieval: RetrievalOption = None,
    write_premises: Annotated[
        bool,
        typer.Option(help="Let the model write a premise per proof (with teachme.verifier=off)."),
    ] = True,
) -> None:
    """An interactive TeachMe session: ask, see the proof, correct it, watch the answer change."""
    session = _session(parts, store, user, retrieval, write_premises=write_premises)
    console.print(HELP)
    while True:
        try:
            line = input("> ").strip()
        except (EOFError, KeyboardInterrupt):
            break
        if line in ("quit", "exit"):
            break
        try:
            _move(session, line)
        except ValueError as error:
            console.print(f"[red]{error}[/]")
    session.reasoner.stream.close()


def _move(session: TeachMeSession, line: str) -> None:
    command, _, rest = line.partition(" ")
    rest = rest.strip()
    moves = {
        "q": lambda: session.ask(rest),
        "a": session.agree,
        "f": lambda: session.premise_false(_number(rest, "f N: the premise's number")),
        "m": lambda: session.add_fact(rest),
        "t": lambda: session.fact_true(rest),
        "b": session.bad_reasoning,
        "u": lambda: session.use_fact(_number(rest, "u N: the considered fact's number")),
        "x": lambda: session.forget(_taught_id(session, rest)),
        "X": session.forget_all,
    }
    if command == "l":
        table = Table("id", "kind", "fact", "taught for")
        for record in session.taught():
            table.add_row(
                record.id[:8],
                record.kind.value,
                record.text,
                str(record.metadata.get("question", "")),
            )
        console.print(table)
    elif command in moves:
        show(moves[command]())
    else:
        console.print(HELP)


def _number(text: str, usage: str) -> int:
    if not text.strip().isdigit():
        raise ValueError(f"{text.strip() or 'nothing'} is not a number; {usage}")
    return int(text)


def _taught_id(session: TeachMeSession, prefix: str) -> str:
    matches = [r.id for r in session.taught() if r.id.startswith(prefix)]
    if len(matches) != 1:
        raise ValueError(f"{prefix!r} matches {len(matches)} taught facts; see `l`")
    return matches[0]
