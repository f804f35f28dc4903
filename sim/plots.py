"""The run's figures: where each agent was at each tick, and the diffusion curves (the share
of agents who know of each topic, and the relationship density, hour by hour)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from mindstream.sim.events import Event


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_timeline(events: list[Event], path: Path) -> Path | None:
    """One row per agent, coloured by the area it was in at each tick."""
    ticks = [e.agents for e in events if e.type == "tick" and e.agents]
    moments = [datetime.fromisoformat(e.time) for e in events if e.type == "tick" and e.agents]
    if not ticks:
        return None
    plt = _pyplot()
    from matplotlib.dates import DateFormatter, HourLocator, date2num

    names = list(ticks[0])
    areas = sorted({a.place.split(":")[0] for tick in ticks for a in tick.values()})
    # tab20 for a town of more than ten areas (tab10 repeated colours: two areas read as one)
    palette = plt.get_cmap("tab10" if len(areas) <= 10 else "tab20")
    colours = {area: palette(i % palette.N) for i, area in enumerate(areas)}
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
    span_hours = (times[-1] - times[0]) * 24
    if span_hours >= 3:  # whole hours on a long run (the default picked 07:12, 09:36, ...)
        axis.xaxis.set_major_locator(HourLocator(interval=max(1, round(span_hours / 8))))
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


def plot_diffusion(hourly: list[dict[str, Any]], path: Path) -> Path | None:
    """Share of agents who know of each topic, and the relationship density, over the run
    (Park et al. 2023, section 7); None before two points exist."""
    if len(hourly) < 2:
        return None
    plt = _pyplot()
    from matplotlib.dates import DateFormatter

    times = [datetime.strptime(point["time"], "%Y-%m-%d %H:%M") for point in hourly]
    figure, axis = plt.subplots(figsize=(7, 3.6))
    for topic in hourly[0]["shares"]:
        shares = [100 * point["shares"][topic] for point in hourly]
        axis.plot(times, shares, marker="o", markersize=3, label=f"knows of the {topic}")
    density = [100 * point["density"] for point in hourly]
    axis.plot(times, density, linestyle="--", color="grey", label="relationship density")
    axis.set_ylim(0, 100)
    axis.set_ylabel("% of agents (density: % of pairs)")
    axis.xaxis.set_major_formatter(DateFormatter("%H:%M"))
    axis.legend(fontsize=8, loc="upper left")
    axis.set_title("Information diffusion and relationships, from memory")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
