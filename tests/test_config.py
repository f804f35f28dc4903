"""One configuration for everything: file, then environment, then flags; bad values named by
source and field; the sim, the reflector and an experiment built from one file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mindstream.cli import app
from mindstream.compose import Parts
from mindstream.config import ConfigError, MindstreamConfig, load_config
from mindstream.lm.fakes import HashEmbeddings
from mindstream.sim import load_scenario
from mindstream.sim.runner import start_run

FILE = """\
model:
  spec: openai:town-model
  scorer: generate
  served: {base_url: "http://127.0.0.1:9/v1", max_concurrency: 3}
stream:
  decay: 0.99
  weights: {recency: 0.5, importance: 2, relevance: 3}
reflection: {threshold: 40}
sim:
  seed: 7
  stream: {decay: 0.98, weights: {recency: 1, importance: 2, relevance: 4}}
teachme: {retrieve_k: 3}
assistant: {k: 5, stream: {gate: 20}}
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "mindstream.yaml"
    path.write_text(FILE)
    return path


def test_environment_overrides_the_file_and_flags_override_both(config_file: Path) -> None:
    environ = {
        "MINDSTREAM_STREAM__DECAY": "0.9",
        "MINDSTREAM_REFLECTION__THRESHOLD": "60",
        "OPENAI_BASE_URL": "http://10.0.0.1:8000/v1",
        "MINDSTREAM_STREAM__WEIGHTS": '{"recency": 1, "importance": 1, "relevance": 2}',
        "HOME": "/ignored",
    }
    config = load_config(config_file, environ, {"reflection.threshold": 70.0, "model.spec": None})
    assert config.stream.decay == 0.9  # environment over file
    assert config.reflection.threshold == 70.0  # flag over environment
    assert config.model.spec == "openai:town-model"  # an unset flag changes nothing
    assert config.model.base_url() == "http://10.0.0.1:8000/v1"
    assert config.stream.weights.relevance == 2.0
    assert config.model.served.max_concurrency == 3  # the file's sibling field survives


def test_a_bad_value_names_its_source_and_field(config_file: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\(environment\): stream.decay: Input should be less"):
        load_config(config_file, {"MINDSTREAM_STREAM__DECAY": "1.5"})
    with pytest.raises(ConfigError, match=rf"\({config_file}\): reflection.thresold: Extra inputs"):
        config_file.write_text("reflection: {thresold: 3}\n")
        load_config(config_file, {})
    with pytest.raises(ConfigError, match=r"\(flags\): model.scorer"):
        load_config(None, {}, {"model.scorer": "psychic"})
    broken = tmp_path / "broken.yaml"
    broken.write_text("model: [\n")
    with pytest.raises(ConfigError, match=r"broken.yaml: not valid YAML \(line 2\)"):
        load_config(broken, {})
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "missing.yaml", {})


def test_the_sim_the_reflector_and_an_experiment_get_what_one_file_says(
    config_file: Path, tmp_path: Path
) -> None:
    from mindstream.lab.experiments.teachme import Lab

    parts = Parts.load(config_file)
    parts.override(embedder=HashEmbeddings())  # the one real part a unit test swaps out
    engine = start_run(load_scenario("smallville"), tmp_path / "run", parts.run_parts())
    town = engine.stream.config  # the town's policy, not the memory commands'
    assert (town.weights.relevance, town.decay) == (4.0, 0.98)
    assert engine.reflector is not None and engine.reflector.config.threshold == 40.0
    assert engine.config.seed == 7
    served = engine.minds.model
    endpoint = served.endpoint  # type: ignore[attr-defined]
    assert (endpoint.url, endpoint.model) == ("http://127.0.0.1:9/v1", "town-model")
    assert engine.minds._scorer.path.name == "generate"  # type: ignore[attr-defined]
    kept = MindstreamConfig.model_validate(
        __import__("yaml").safe_load((tmp_path / "run" / "config.yaml").read_text())
    )
    assert kept == parts.config

    stream = parts.stream(tmp_path / "store")
    assert parts.reflector(stream).config.threshold == 40.0
    assert stream.config.weights.relevance == 3.0
    lab = Lab.of(parts)
    assert lab.spec == "openai:town-model" and lab.config.retrieve_k == 3
    assistant = parts.config.assistant
    assert (assistant.k, assistant.stream.gate, assistant.stream.recency_unit_hours) == (5, 20, 24)
    assert parts.reasoner(stream, retrieve_k=2).config.retrieve_k == 2  # a change, validated
    with pytest.raises(ValueError, match="retrieve_k"):
        parts.reasoner(stream, retrieve_k=-1)


def test_show_config_prints_what_every_command_would_use(config_file: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "memory",
            "stats",
            "--store",
            "x",
            "--config",
            str(config_file),
            "--show-config",
            "--model",
            "openai:other",
        ],
        env={"MINDSTREAM_REFLECTION__THRESHOLD": "55"},
    )
    assert result.exit_code == 0, result.output
    shown = MindstreamConfig.model_validate(yaml.safe_load(result.output))
    assert shown.model.spec == "openai:other" and shown.reflection.threshold == 55.0
    assert shown.stream.decay == 0.99
    assert "OPENAI_API_KEY" in result.output and "sk-" not in result.output  # the name, no key
