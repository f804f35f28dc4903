"""A reranker trained on fewer layers or candidates says so beside its adapter, and export and
the query path read it back (no model is loaded here)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from mindstream.lm.judges.reranker import keep_layers, trained_candidates


def _model(layers: int) -> SimpleNamespace:
    encoder = SimpleNamespace(layer=[f"layer {n}" for n in range(layers)])
    return SimpleNamespace(bert=SimpleNamespace(encoder=encoder), config=SimpleNamespace())


def test_keep_layers_keeps_the_first_ones_and_says_so_in_the_config() -> None:
    model = _model(6)
    keep_layers(model, 2)
    assert model.bert.encoder.layer == ["layer 0", "layer 1"]
    assert model.config.num_hidden_layers == 2


def test_keep_layers_leaves_a_full_model_alone() -> None:
    for layers in (None, 6, 8):
        model = _model(6)
        keep_layers(model, layers)
        assert len(model.bert.encoder.layer) == 6
        assert not hasattr(model.config, "num_hidden_layers")


def test_trained_candidates_reads_the_adapter_and_defaults_to_20(tmp_path: Path) -> None:
    assert trained_candidates(tmp_path) == 20  # an adapter that does not say (the shipped one)
    (tmp_path / "judge_config.json").write_text(
        json.dumps({"labels": ["relevant"], "layers": 2, "candidates": 12})
    )
    assert trained_candidates(tmp_path) == 12
