"""The town-day section's per-day table: where each day ended and who reflected that day."""

from __future__ import annotations

from mindstream.lab.experiments.town_day import _by_day


def test_each_day_ends_at_its_last_hour_and_counts_its_own_reflections() -> None:
    day = {
        "agents": 4,
        "metrics": {
            "diffusion": {"start": {"party": {}, "candidacy": {}}},
            "hourly": [
                {
                    "time": "2023-02-14 07:00",
                    "shares": {"party": 0.25, "candidacy": 0.25},
                    "density": 0.1,
                },
                {
                    "time": "2023-02-14 23:00",
                    "shares": {"party": 0.5, "candidacy": 0.25},
                    "density": 0.2,
                },
                {
                    "time": "2023-02-15 22:00",
                    "shares": {"party": 0.75, "candidacy": 0.5},
                    "density": 0.3,
                },
            ],
        },
        "happenings": {"reflected": {"2023-02-15": {"Ann Lee": 2, "Bob Ray": 1}}},
    }
    rows = [line for line in _by_day(day).splitlines() if line.startswith("| 2023")]
    assert rows == [
        "| 2023-02-14 | 23:00 | 50% | 25% | 0.20 | 0 | 0/4 |",
        "| 2023-02-15 | 22:00 | 75% | 50% | 0.30 | 3 | 2/4 |",
    ]
