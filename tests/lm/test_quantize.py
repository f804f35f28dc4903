"""Exporting a pair model's graph leaves the process's logging as it found it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest


def test_quantizing_a_graph_keeps_later_warnings(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """onnxruntime's quantizer warns on the root logger; hushing it by raising the root level
    for good lost every later warning of the process (a full test run's 'relevance alone')."""
    import torch

    from mindstream.lm.judges.change_judge import quantize

    source, target = tmp_path / "fp32.onnx", tmp_path / "int8.onnx"
    torch.onnx.export(
        torch.nn.Linear(8, 2), (torch.ones(1, 8),), str(source), opset_version=17, dynamo=False
    )
    before = logging.getLogger().level
    quantize(source, target)
    assert target.is_file() and logging.getLogger().level == before
    logging.getLogger("mindstream.test").warning("still heard")
    assert "still heard" in caplog.text
