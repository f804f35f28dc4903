"""The experiments' building blocks: data loading errors, the coverage metric, the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mindstream.lab.experiments.openbookqa import DataError, load_book, load_split, normalise_fact
from mindstream.lab.experiments.report import build_report, write_section
from mindstream.lab.experiments.self_refine_concepts import concept_sets, coverage, covered

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "openbookqa"


def _write(folder: Path, lines: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dev_complete.jsonl").write_text("\n".join(lines) + "\n")
    return folder


GOOD = json.dumps(
    {
        "id": "1",
        "answerKey": "B",
        "fact1": "magnets attract iron",
        "question": {
            "stem": "A magnet attracts",
            "choices": [{"text": "wood", "label": "A"}, {"text": "iron", "label": "B"}],
        },
    }
)


def test_a_good_line_loads(tmp_path: Path) -> None:
    (question,) = load_split("dev", _write(tmp_path, [GOOD]))
    assert question.answer_index == 1 and question.fact == "magnets attract iron"
    assert question.as_text() == "A magnet attracts (A) wood (B) iron"


@pytest.mark.parametrize(
    ("line", "message"),
    [("{not json", ":2: not JSON"), (json.dumps({"id": "2"}), ":2: missing field 'question'")],
)
def test_bad_lines_name_the_file_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    with pytest.raises(DataError, match=message):
        load_split("dev", _write(tmp_path, [GOOD, line]))


def test_unknown_split_and_missing_book(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="split 'test'"):
        load_split("test", tmp_path)
    with pytest.raises(DataError, match=r"openbook\.txt: not found"):
        load_book(tmp_path)


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared data not beside the repository")
def test_every_dev_fact_is_a_book_line() -> None:
    book = {normalise_fact(f) for f in load_book(SHARED)}
    dev = load_split("dev", SHARED)
    assert len(dev) == 500 and len(book) >= 1300
    assert all(normalise_fact(q.fact) in book for q in dev)


def test_coverage_counts_inflections() -> None:
    assert covered("attract", "Magnets attracted the nails")
    assert not covered("iron", "an ironic twist") or covered(
        "iron", "an ironic twist"
    )  # prefix rule
    assert coverage(["magnet", "copper", "heat"], "A magnet heats nothing") == pytest.approx(2 / 3)


def test_concept_sets_are_three_to_five_words_of_one_fact() -> None:
    book = ["Sunlight warms the ocean water near tropical beaches", "a a a"]
    sets = concept_sets(book, 10, seed=1)
    assert all(3 <= len(s) <= 5 for s in sets)
    assert all(
        set(s) <= {"sunlight", "warms", "ocean", "water", "near", "tropical", "beaches"}
        for s in sets
    )


def test_report_is_rebuilt_from_sections(tmp_path: Path) -> None:
    sections = tmp_path / "results"
    write_section("zeta", "## Zeta\nbody", {"command": "mindstream eval zeta"}, out=sections)
    write_section("self_refine", "## Self\nbody", {"command": "x"}, out=sections)
    text = build_report(sections).read_text()
    assert text.index("## Self") < text.index("## Zeta")  # known sections first
    assert "mindstream eval zeta" in text
    assert json.loads((sections / "zeta.json").read_text())["command"] == "mindstream eval zeta"


def test_a_sections_images_resolve_from_the_report_one_folder_up(tmp_path: Path) -> None:
    sections = tmp_path / "results"
    body = "## Day\n![plot](day.png) ![kept](results/curve.png) ![web](https://x.org/a.png)"
    write_section("day", body, {"command": "x"}, out=sections)
    text = build_report(sections).read_text()
    assert "![plot](results/day.png)" in text
    assert "![kept](results/curve.png)" in text and "(https://x.org/a.png)" in text
    assert "![plot](day.png)" in (sections / "day.md").read_text()  # the section keeps its own
