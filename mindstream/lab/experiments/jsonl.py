"""JSON-lines data files of one record type (pairs, items, transfer questions), read so that a
bad line is one error naming the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from mindstream.lab.experiments.openbookqa import DataError

Record = TypeVar("Record", bound=BaseModel)


def read_jsonl(path: Path, model: type[Record]) -> list[Record]:
    """Every non-blank line of `path` as `model`; `DataError` at the first bad one."""
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(model.model_validate(json.loads(line)))
        except json.JSONDecodeError as error:
            raise DataError(f"{path}:{number}: not JSON ({error.msg})") from None
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "line"
            raise DataError(f"{path}:{number}: {field}: {first['msg']}") from None
    return records
