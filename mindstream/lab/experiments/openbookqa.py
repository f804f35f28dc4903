"""OpenBookQA (Mihaylov et al. 2018), read from ../shared/data or a path given by the user."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from mindstream.lab.paths import SHARED_DATA

DEFAULT_DATA = SHARED_DATA / "openbookqa"
SPLIT_FILES = {"train": "train_complete.jsonl", "dev": "dev_complete.jsonl"}


class DataError(ValueError):
    """A data file is missing or malformed; the message names the file, line and field."""


class Question(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    stem: str
    choices: list[str]
    labels: list[str]
    answer: str  # label, e.g. "A"
    fact: str  # the core fact (fact1)

    @property
    def answer_index(self) -> int:
        return self.labels.index(self.answer)

    def as_text(self) -> str:
        options = " ".join(
            f"({label}) {text}" for label, text in zip(self.labels, self.choices, strict=True)
        )
        return f"{self.stem} {options}"


def normalise_fact(text: str) -> str:
    return " ".join(text.strip().strip('"').lower().split())


def load_book(folder: Path = DEFAULT_DATA) -> list[str]:
    path = folder / "openbook.txt"
    if not path.is_file():
        raise DataError(f"{path}: not found (pass --data with the openbookqa folder)")
    facts = [line.strip().strip('"') for line in path.read_text().splitlines() if line.strip()]
    if not facts:
        raise DataError(f"{path}: no facts")
    return facts


def load_split(split: str, folder: Path = DEFAULT_DATA, limit: int | None = None) -> list[Question]:
    if split not in SPLIT_FILES:
        raise DataError(f"split {split!r}: expected one of {sorted(SPLIT_FILES)}")
    return load_questions(folder / SPLIT_FILES[split], limit)


def load_questions(path: Path, limit: int | None = None, flag: str = "--data") -> list[Question]:
    """Any file in the OpenBookQA `*_complete.jsonl` format; an empty one is refused."""
    if not path.is_file():
        raise DataError(f"{path}: not found (pass {flag} with an OpenBookQA jsonl file)")
    questions = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        questions.append(_parse(line, path, number))
        if limit is not None and len(questions) == limit:
            break
    if not questions:
        raise DataError(f"{path}: no questions (an OpenBookQA *_complete.jsonl file is needed)")
    return questions


def _parse(line: str, path: Path, number: int) -> Question:
    try:
        raw = json.loads(line)
        choices = raw["question"]["choices"]
        return Question(
            id=str(raw["id"]),
            stem=raw["question"]["stem"],
            choices=[c["text"] for c in choices],
            labels=[c["label"] for c in choices],
            answer=raw["answerKey"],
            fact=raw["fact1"],
        )
    except json.JSONDecodeError as error:
        raise DataError(f"{path}:{number}: not JSON ({error.msg})") from None
    except (KeyError, TypeError) as error:
        raise DataError(f"{path}:{number}: missing field {error}") from None
    except ValidationError as error:
        field = ".".join(str(p) for p in error.errors()[0]["loc"])
        raise DataError(f"{path}:{number}: bad field {field}") from None
