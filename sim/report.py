"""A readable report of a run: each agent's day, conversations, what it knows, the metrics,
and a timeline plot (report.md + timeline.png in the run folder)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from sim.checkpoint import RunFolder
from sim.events import Event, RunSummary
from sim.happenings import Happenings, happenings


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c).replace("|", "/") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_report(folder: RunFolder, summary: RunSummary) -> Path:
    events = folder.events()
    plot = plot_timeline(events, folder.root / "timeline.png")
    agents = list(summary.agents)
    parts = [
        f"# {summary.scenario}: {summary.sim_start} to {summary.sim_end}",
        f"{len(agents)} agents, {summary.ticks} ticks of {summary.tick_minutes} sim-minutes, "
        f"model `{summary.model}`, {'batched' if summary.batched else 'unbatched'} calls; "
        f"wall time {summary.wall_seconds:.0f} s "
        f"({summary.sim_minutes_per_wall_second:.2f} sim-minutes per wall-second), "
        f"{summary.framework_share:.1%} of it with no model call under way (the framework's "
        f"own share), {summary.model_requests} model requests.",
        _metrics(summary.metrics),
        *_happened(happenings(events)),
        f"![where everyone was]({plot.name})" if plot else "",
        "## Model calls per component",
        "Seconds add up each request's time: against a server, concurrent requests overlap, so "
        "they can exceed the wall time.",
        _table(
            ["component", "requests", "prompt tokens", "completion tokens", "request-seconds"],
            [
                [
                    c,
                    summary.requests.get(c, 0),
                    int(u["prompt_tokens"]),
                    int(u["completion_tokens"]),
                    f"{u['seconds']:.1f}",
                ]
                for c, u in sorted(summary.ledger.items())
            ],
        ),
    ]
    for name in agents:
        parts.append(_agent_section(name, events, summary))
    path = folder.root / "report.md"
    path.write_text("\n\n".join(p for p in parts if p) + "\n", encoding="utf-8")
    return path


_PLAN_SOURCES = {
    "model": "written by the model",
    "chosen": "chosen by the model part by part",
    "routine": "from the routine",  # runs from before plans were chosen
}


def _happened(found: Happenings) -> list[str]:
    """Injected events with who saw and who reacted, whispers, and the day's counts."""
    plans = ", ".join(
        f"{n} {_PLAN_SOURCES.get(source, source)}" for source, n in sorted(found.plans.items())
    )
    ended = ", ".join(f"{n} {why}" for why, n in sorted(found.ended_by.items())) or "none"
    parts = [
        "## What happened",
        f"Day plans: {plans or 'none'}. Conversations: {found.conversations} "
        f"({found.lines} lines; ended: {ended}). Reactions: {found.reactions}. "
        f"Reflections: {found.reflections} ({found.insights} insights).",
    ]
    if found.events:
        rows = [
            [
                e.time[11:16],
                f"{e.place} is {e.state}",
                ", ".join(f"{a} ({p:.2f})" for a, p in e.saw.items()) or "nobody",
                ", ".join(e.reacted) or "nobody",
            ]
            for e in found.events
        ]
        parts.append(_table(["time", "event", "saw it (P react)", "reacted"], rows))
    if found.whispers:
        rows = [[w.time[11:16], w.agent, w.text] for w in found.whispers]
        parts.append(_table(["time", "whispered to", "inner voice"], rows))
    return parts


def _metrics(metrics: dict[str, Any]) -> str:
    rows = [
        [
            f"knows of the {topic}",
            f"{start['share']:.0%} ({', '.join(start['agents']) or '-'})",
            f"{metrics['diffusion']['end'][topic]['share']:.0%} "
            f"({', '.join(metrics['diffusion']['end'][topic]['agents']) or '-'})",
        ]
        for topic, start in metrics["diffusion"]["start"].items()
    ]
    rel = metrics["relationships"]
    rows.append(
        [
            "relationship network density",
            f"{rel['start']['density']:.2f}",
            f"{rel['end']['density']:.2f}",
        ]
    )
    lines = [
        "## Emergent behaviour (memory-grounded; see sim/metrics.py)",
        _table(["measure", "start", "end"], rows),
    ]
    for topic, gathering in metrics["coordination"].items():
        present = gathering["present"]
        shown = "not reached by this run" if present is None else (", ".join(present) or "nobody")
        lines.append(
            f"Coordination — at {gathering['area']} during the {topic} "
            f"({gathering['window']}): {shown}."
        )
    return "\n\n".join(lines)


def _agent_section(name: str, events: list[Event], summary: RunSummary) -> str:
    lines = [f"## {name}"]
    for plan in (e for e in events if e.type == "plan" and e.agent == name):
        lines.append(f"**Day plan** ({plan.source}, at {plan.time[11:16]}): {plan.steps}")
    doing = [
        [e.time[11:16], e.agents[name].place, e.agents[name].doing]
        for e in events
        if e.type == "tick" and e.agents and name in e.agents
    ]
    lines.append(_table(["time", "where", "doing"], doing))
    reacts = [e for e in events if e.type == "react" and e.agent == name]
    lines += [f"- reacted at {e.time[11:16]} to *{e.to}*: {e.plan}" for e in reacts]
    for talk in (e for e in events if e.type == "conversation" and e.involves(name)):
        said = (
            "<br>".join(f"**{who}**: {text}" for who, text in talk.lines or []) or "(nothing said)"
        )
        lines.append(
            f"**Conversation** at {talk.time[11:16]} in {talk.place} "
            f"(ended: {talk.ended_by})<br>{said}"
        )
    insights = [
        i for e in events if e.type == "reflection" and e.agent == name for i in e.insights or []
    ]
    if insights:
        lines.append("**Reflections**: " + "; ".join(insights))
    answers = [a for a in summary.interviews if a.agent == name]
    if answers:
        lines.append(
            _table(["interview question", "answer"], [[a.question, a.answer] for a in answers])
        )
    return "\n\n".join(lines)


def plot_timeline(events: list[Event], path: Path) -> Path | None:
    """One row per agent, coloured by the area it was in at each tick."""
    ticks = [e.agents for e in events if e.type == "tick" and e.agents]
    moments = [datetime.fromisoformat(e.time) for e in events if e.type == "tick" and e.agents]
    if not ticks:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.dates import DateFormatter, date2num

    names = list(ticks[0])
    areas = sorted({a.place.split(":")[0] for tick in ticks for a in tick.values()})
    colours = {area: plt.get_cmap("tab10")(i % 10) for i, area in enumerate(areas)}
    times = [float(date2num(t)) for t in moments]
    width = (times[1] - times[0]) if len(times) > 1 else 1 / 144
    figure, axis = plt.subplots(figsize=(9, 0.6 * len(names) + 1.5))
    for row, name in enumerate(names):
        for when, tick in zip(times, ticks, strict=True):
            if name not in tick:
                continue
            area = tick[name].place.split(":")[0]
            axis.broken_barh([(when, width)], (row - 0.4, 0.8), color=colours[area])
    axis.set_yticks(range(len(names)), names)
    axis.xaxis.set_major_formatter(DateFormatter("%H:%M"))
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()]
    axis.legend(
        handles, list(colours), fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3
    )
    axis.set_title("Where each agent was (one bar per tick)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
