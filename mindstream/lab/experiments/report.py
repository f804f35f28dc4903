"""docs/results.md is assembled from the sections each experiment writes, never typed by hand."""

from __future__ import annotations

import json
import platform
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mindstream.lab.paths import DOCS as CHECKOUT_DOCS

DOCS = CHECKOUT_DOCS
SECTIONS = DOCS / "results"
ORDER = [
    "refeed_retrieval",
    "self_refine",
    "reflection",
    "teachme_retrieval",
    "teachme_scoring_train_complete",
    "teachme_scoring",
    "teachme",
    "teachme_contrast",
    "teachme_contrast_contrast_pairs_fresh",
]


def write_section(name: str, markdown: str, data: dict[str, Any], out: Path = SECTIONS) -> Path:
    """Save one experiment's markdown and JSON, then rebuild docs/results.md."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = data.get("command", "")
    footer = f"\n_Produced by `{command}` on {stamp} ({platform.machine()}, CPU only)._\n"
    (out / f"{name}.md").write_text(markdown.rstrip() + "\n" + footer)
    (out / f"{name}.json").write_text(json.dumps(data, indent=2, default=str))
    return build_report(out)


def build_report(sections: Path = SECTIONS) -> Path:
    parts = [
        "# Results\n",
        "Every table below is written by the command named under it (`mindstream eval --help`);",
        "the JSON beside each section in `docs/results/` holds the raw figures. All runs use",
        "the embedded SmolLM2-135M-Instruct and all-MiniLM-L6-v2 on a 2-core CPU.\n",
    ]
    names = sorted(p.stem for p in sections.glob("*.md"))
    for name in sorted(names, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n)):
        parts.append(_linked_from_above((sections / f"{name}.md").read_text(), sections.name))
    target = sections.parent / "results.md"
    target.write_text("\n".join(parts))
    return target


def table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _linked_from_above(markdown: str, folder: str) -> str:
    """A section's images are beside it; from the report one folder up they are in `folder`."""
    return re.sub(
        r"\]\((?![a-z]+:|/|\.\./|" + re.escape(folder) + r"/)([^)\s]+\.png)\)",
        r"](" + folder + r"/\1)",
        markdown,
    )
