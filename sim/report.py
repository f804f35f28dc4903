"""A readable report of a run: the metrics and their curves, what happened, where everyone was
hour by hour, the model's calls, and each agent's day, conversations and reflections with
their evidence (report.md, timeline.png and diffusion.png in the run folder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mindstream.memory import MemoryKind, MemoryStream
from mindstream.sim.checkpoint import RunFolder
from mindstream.sim.events import Event, RunSummary
from mindstream.sim.happenings import PLAN_SOURCES, Happenings, happenings
from mindstream.sim.plots import plot_diffusion, plot_timeline
from mindstream.sim.scenario import load_scenario


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c).replace("|", "/") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_report(
    folder: RunFolder, summary: RunSummary, stream: MemoryStream | None = None
) -> Path:
    """The report of a run; with its `stream`, reflections are listed with their evidence."""
    events = folder.events()
    plot = plot_timeline(events, folder.root / "timeline.png")
    curves = plot_diffusion(summary.metrics.get("hourly", []), folder.root / "diffusion.png")
    parts = [
        f"# {summary.scenario}: {summary.sim_start} to {summary.sim_end}",
        _run_line(summary),
        _metrics(summary.metrics),
        f"![diffusion over the run]({curves.name})" if curves else "",
        *_happened(happenings(events, _areas(folder))),
        _hourly_places(events),
        f"![where everyone was]({plot.name})" if plot else "",
        _calls(summary),
    ]
    parts += [_agent_section(name, events, summary, stream) for name in summary.agents]
    path = folder.root / "report.md"
    path.write_text("\n\n".join(p for p in parts if p) + "\n", encoding="utf-8")
    return path


def _run_line(summary: RunSummary) -> str:
    return (
        f"{len(summary.agents)} agents, {summary.ticks} ticks of {summary.tick_minutes} "
        f"sim-minutes, model `{summary.model}`, "
        f"{'batched' if summary.batched else 'unbatched'} calls; "
        f"wall time {summary.wall_seconds:.0f} s "
        f"({summary.sim_minutes_per_wall_second:.2f} sim-minutes per wall-second), "
        f"{summary.framework_share:.1%} of it with no model call under way (the framework's "
        f"own share), {summary.model_requests} model requests."
    )


def _calls(summary: RunSummary) -> str:
    rows = [
        [
            c,
            summary.requests.get(c, 0),
            int(u["prompt_tokens"]),
            int(u["completion_tokens"]),
            f"{u['seconds']:.1f}",
        ]
        for c, u in sorted(summary.ledger.items())
    ]
    header = ["component", "requests", "prompt tokens", "completion tokens", "request-seconds"]
    return (
        "## Model calls per component\n\n"
        "Seconds add up each request's time: against a server, concurrent requests overlap, so "
        "they can exceed the wall time.\n\n" + _table(header, rows)
    )


def _areas(folder: RunFolder) -> list[str]:
    """The world's areas (where an activity that names one can be checked)."""
    return list(load_scenario(folder.scenario).world) if folder.scenario.is_file() else []


def _hourly_places(events: list[Event]) -> str:
    """Where everyone was at each hour (a table of areas; the plot shows every tick)."""
    hours = [e for e in events if e.type == "tick" and e.agents and e.time[14:16] == "00"]
    if len(hours) < 2:
        return ""
    names = list(hours[0].agents or {})
    rows = [
        [
            name,
            *(
                (e.agents or {})[name].place.split(":")[0] if name in (e.agents or {}) else ""
                for e in hours
            ),
        ]
        for name in names
    ]
    return "## Where everyone was, hour by hour\n\n" + _table(
        ["agent", *(e.time[11:16] for e in hours)], rows
    )


def _happened(found: Happenings) -> list[str]:
    """Injected events with who saw and who reacted, whispers, and the day's counts."""
    plans = ", ".join(
        f"{n} {PLAN_SOURCES.get(source, source)}" for source, n in sorted(found.plans.items())
    )
    ended = ", ".join(f"{n} {why}" for why, n in sorted(found.ended_by.items())) or "none"
    parts = [
        "## What happened",
        f"Day plans: {plans or 'none'}"
        + (f" ({found.plan_choices} parts were a choice)" if found.plans.get("chosen") else "")
        + f". Conversations: {found.conversations} "
        f"({found.lines} lines; ended: {ended}; news told: {found.told}). "
        f"Reactions: {found.reactions}"
        + (f" (put right: {'; '.join(found.fixed)})" if found.fixed else "")
        + ". "
        f"Reflections: {found.reflections} ({found.insights} insights).",
        f"Places: at {found.place_named} of the agents' ticks the activity named a place; the "
        f"agent was there at {found.place_matched}"
        + (f" ({found.place_matched / found.place_named:.0%})." if found.place_named else "."),
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
        _hourly_metrics(metrics.get("hourly", [])),
    ]
    for topic, gathering in metrics["coordination"].items():
        present = gathering["present"]
        shown = "not reached by this run" if present is None else (", ".join(present) or "nobody")
        lines.append(
            f"Coordination — at {gathering['area']} during the {topic} "
            f"({gathering['window']}): {shown}."
        )
    return "\n\n".join(lines)


def _hourly_metrics(hourly: list[dict[str, Any]]) -> str:
    if len(hourly) < 2:
        return ""
    topics = list(hourly[0]["shares"])
    rows = [
        [p["time"][11:], *(f"{p['shares'][t]:.0%}" for t in topics), f"{p['density']:.2f}"]
        for p in hourly
    ]
    return _table(["time", *(f"knows of the {t}" for t in topics), "density"], rows)


def _agent_section(
    name: str, events: list[Event], summary: RunSummary, stream: MemoryStream | None
) -> str:
    lines = [f"## {name}"]
    for plan in (e for e in events if e.type == "plan" and e.agent == name):
        lines.append(f"**Day plan** ({plan.source}, at {plan.time[11:16]}): {plan.steps}")
    lines.append(_table(["time", "where", "doing"], _spans(name, events)))
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
    lines.append(_reflections(name, events, stream))
    answers = [a for a in summary.interviews if a.agent == name]
    if answers:
        lines.append(
            _table(["interview question", "answer"], [[a.question, a.answer] for a in answers])
        )
    return "\n\n".join(line for line in lines if line)


def _spans(name: str, events: list[Event]) -> list[list[str]]:
    """The agent's ticks, runs of the same place and activity as one row ("07:00-08:20")."""
    rows: list[list[str]] = []
    last = None
    for e in events:
        if e.type != "tick" or not e.agents or name not in e.agents:
            continue
        now = (e.agents[name].place, e.agents[name].doing)
        if now == last:
            rows[-1][0] = f"{rows[-1][0][:5]}-{e.time[11:16]}"
        else:
            rows.append([e.time[11:16], *now])
        last = now
    return rows


def _reflections(name: str, events: list[Event], stream: MemoryStream | None) -> str:
    """Each insight, and with the stream the memories it cites."""
    if stream is None:
        insights = [
            i
            for e in events
            if e.type == "reflection" and e.agent == name
            for i in e.insights or []
        ]
        return "**Reflections**: " + "; ".join(insights) if insights else ""
    own = {r.id: r for r in stream.records(name)}
    rows = [
        [
            r.created_at.strftime("%H:%M"),
            r.text,
            "<br>".join(own[i].text for i in r.evidence if i in own),
        ]
        for r in own.values()
        if r.kind is MemoryKind.REFLECTION
    ]
    return (
        "**Reflections**, with the memories each cites\n\n"
        + _table(["time", "insight", "evidence"], rows)
        if rows
        else ""
    )
