"""`mindstream eval town-day RUN_DIR`: a finished town run's figures as a section of
docs/results.md: wall time, requests and each component's cost; where plans came from and how
often agents were where their activity said; reactions to each injected event; conversations;
reflections; the paper's measures (diffusion from start to end and hour by hour, relationship
density, coordination at the gathering). `--compare RUN` adds another run of the same
scenario (the same day's first hours in-process) beside it. Everything is read from the run
folders (`summary.json`, `events.jsonl`, the plots); nothing is run again.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from mindstream.agents.generative.events import Tick
from mindstream.lab.experiments.report import table, write_section
from mindstream.sim.checkpoint import RunFolder
from mindstream.sim.events import RunSummary, read_summary
from mindstream.sim.happenings import PLAN_SOURCES, happenings
from mindstream.sim.scenario import load_scenario


def measure(run_dir: Path) -> dict[str, Any]:
    """The figures of one finished run."""
    folder = RunFolder(run_dir)
    summary = read_summary(run_dir / "summary.json")
    areas = list(load_scenario(folder.scenario).world)
    found = happenings(folder.events(), areas)
    hours = summary.ticks * summary.tick_minutes / 60
    return {
        "run": str(run_dir),
        "scenario": summary.scenario,
        "model": summary.model,
        "agents": len(summary.agents),
        "span": f"{summary.sim_start} to {summary.sim_end}",
        "sim_hours": hours,
        "wall_seconds": summary.wall_seconds,
        "wall_seconds_per_sim_hour": summary.wall_seconds / hours if hours else 0.0,
        "framework_share": summary.framework_share,
        "requests": summary.model_requests,
        "per_component": _components(summary),
        "happenings": found.model_dump(),
        "metrics": summary.metrics,
    }


def _components(summary: RunSummary) -> dict[str, dict[str, float]]:
    return {
        name: {
            "requests": summary.requests.get(name, 0),
            "prompt_tokens": usage["prompt_tokens"],
            "completion_tokens": usage["completion_tokens"],
            "request_seconds": usage["seconds"],
        }
        for name, usage in sorted(summary.ledger.items())
    }


def run(
    run_dir: Path, out: Path, compare: Path | None, command: str, section: str = "town_day"
) -> dict[str, Any]:
    result: dict[str, Any] = {"command": command, "day": measure(run_dir), "section": section}
    if compare is not None:
        result["compared"] = measure(compare)
        ticks = read_summary(compare / "summary.json").ticks
        result["day"]["same_span"] = _so_far(run_dir, ticks)
    for plot in ("diffusion", "timeline"):
        source = run_dir / f"{plot}.png"
        if source.is_file():
            out.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, out / f"{section}_{plot}.png")
    write_section(section, _markdown(result), result, out)
    return result


def _so_far(run_dir: Path, tick: int) -> dict[str, Any] | None:
    """The run's wall time and requests when `tick` ended (its Tick event), to set beside a
    shorter run of the same start; None for a log from before Ticks carried them."""
    for event in RunFolder(run_dir).events():
        if isinstance(event, Tick) and event.tick == tick and event.wall_seconds is not None:
            return {"ticks": tick, "wall_seconds": event.wall_seconds, "requests": event.requests}
    return None


def _markdown(result: dict[str, Any]) -> str:
    day = result["day"]
    runs = [day, *([result["compared"]] if "compared" in result else [])]
    found = day["happenings"]
    return "\n\n".join(
        [
            f"## A town day: {day['scenario']}, {day['agents']} agents, {day['span']}",
            _cost_table(runs),
            *([_same_span(day, result["compared"])] if day.get("same_span") else []),
            _component_table(day),
            _what_happened(found),
            _measures(day["metrics"]),
            _by_day(day),
            f"![knowledge and relationships over the day]({result['section']}_diffusion.png)",
            f"![where everyone was]({result['section']}_timeline.png)",
        ]
    )


def _cost_table(runs: list[dict[str, Any]]) -> str:
    rows = [
        [
            f"`{r['model']}`",
            r["span"],
            f"{r['sim_hours']:.1f}",
            f"{r['wall_seconds']:.0f}",
            f"{r['wall_seconds_per_sim_hour']:.0f}",
            r["requests"],
            f"{r['framework_share']:.1%}",
        ]
        for r in runs
    ]
    header = ["model", "sim time", "sim-hours", "wall s", "wall s per sim-hour", "requests",
              "framework share"]  # fmt: skip
    return table(header, rows)


def _same_span(day: dict[str, Any], compared: dict[str, Any]) -> str:
    span = day["same_span"]
    seconds = span["wall_seconds"]
    return (
        f"The same first {compared['sim_hours']:.1f} sim-hours ({span['ticks']} ticks) of the day "
        f"took {seconds:.0f} s and {span['requests']} requests on `{day['model']}`, against "
        f"{compared['wall_seconds']:.0f} s on `{compared['model']}` "
        f"({compared['wall_seconds'] / seconds:.2f}x)."
    )


def _component_table(day: dict[str, Any]) -> str:
    costliest = sorted(day["per_component"].items(), key=lambda kv: -kv[1]["request_seconds"])
    rows = [
        [name, c["requests"], int(c["prompt_tokens"]), int(c["completion_tokens"]),
         f"{c['request_seconds']:.0f}"]
        for name, c in costliest
    ]  # fmt: skip
    header = ["component", "requests", "prompt tokens", "completion tokens", "request-seconds"]
    return (
        f"Per component, `{day['model']}` (request-seconds overlap: requests run concurrently):\n\n"
        + table(header, rows)
    )


def _what_happened(found: dict[str, Any]) -> str:
    plans = ", ".join(
        f"{n} {PLAN_SOURCES.get(source, source)}" for source, n in sorted(found["plans"].items())
    )
    ended = ", ".join(f"{n} {why}" for why, n in sorted(found["ended_by"].items())) or "none"
    named = found.get("place_named", 0)
    kept = found.get("place_matched", 0)
    lines = [
        f"Day plans: {plans} ({found.get('plan_choices', 0)} parts of chosen plans were a "
        "choice; the rest kept the routine's activity).",
        f"Places: the activity named a place at {named} agent-ticks; the agent was there at "
        f"{kept}" + (f" ({kept / named:.0%})." if named else "."),
        f"Conversations: {found['conversations']}, {found['lines']} lines "
        f"({found['lines'] / max(found['conversations'], 1):.1f} a talk); ended: {ended}; "
        f"news told: {found.get('told', 0)}.",
        f"Reactions: {found['reactions']}"
        + (f" (put right: {'; '.join(found['fixed'])})" if found.get("fixed") else "")
        + f". Reflections: {found['reflections']} "
        f"({found['insights']} insights).",
    ]
    rows = [
        [e["time"][11:16], f"{e['place']} is {e['state']}", len(e["saw"]), len(e["reacted"])]
        for e in found["events"]
    ]
    if rows:
        lines.append(table(["time", "injected event", "saw it", "reacted"], rows))
    return "\n\n".join(lines)


def _measures(metrics: dict[str, Any]) -> str:
    start, end = metrics["diffusion"]["start"], metrics["diffusion"]["end"]
    rows = [
        [f"knows of the {t}", f"{start[t]['share']:.0%}", f"{end[t]['share']:.0%}"] for t in start
    ]
    rel = metrics["relationships"]
    rows.append(["relationship density", f"{rel['start']['density']:.2f}",
                 f"{rel['end']['density']:.2f}"])  # fmt: skip
    lines = [
        "The paper's measures, from memory (a topic or person counts when a seed, a "
        "conversation, an inner voice or a reflection mentions it):",
        table(["measure", "start", "end"], rows),
    ]
    for topic, gathering in metrics["coordination"].items():
        present = gathering["present"]
        shown = (
            "not reached" if present is None else f"{len(present)} ({', '.join(present) or '-'})"
        )
        lines.append(f"At {gathering['area']} during the {topic} ({gathering['window']}): {shown}.")
    return "\n\n".join(lines)


def _by_day(day: dict[str, Any]) -> str:
    """The paper's second-day question: where each day ended (the hour-by-hour measures'
    last hour of that date), and how many agents reflected that day."""
    ends: dict[str, dict[str, Any]] = {}
    for hour in day["metrics"].get("hourly", []):
        ends[hour["time"][:10]] = hour
    reflected = day["happenings"].get("reflected", {})
    topics = list(day["metrics"]["diffusion"]["start"])
    rows = []
    for date, hour in ends.items():
        agents = reflected.get(date, {})
        rows.append(
            [date, hour["time"][11:16]]
            + [f"{hour['shares'][t]:.0%}" for t in topics]
            + [f"{hour['density']:.2f}", sum(agents.values()), f"{len(agents)}/{day['agents']}"]
        )
    header = ["day", "last hour", *(f"knows of the {t}" for t in topics)]
    header += ["relationship density", "reflections", "agents who reflected"]
    return "By day (at the last hour simulated that day):\n\n" + table(header, rows)
