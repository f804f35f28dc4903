"""The reranker: a cross-encoder that reads a question and a memory together and scores how
well the memory answers it, for the few most relevant candidates the bi-encoder found.

It starts from the dialogue retriever's weights (`adapters/retriever` merged into
all-MiniLM-L6-v2) with a LoRA adapter and a one-logit head on top (`adapters/reranker`,
trained by `mindstream train reranker`), merged and exported to onnxruntime once per machine
like the change judge, so a query imports neither torch nor transformers.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from mindstream.lm.backends import loading
from mindstream.lm.backends.embeddings import RETRIEVER_DIR
from mindstream.lm.backends.onnx_embedder import fingerprint, merged_encoder
from mindstream.lm.judges.change_judge import (
    OnnxPairModel,
    exported_graph,
    keep_layers,
    settings_of,
)

RERANKER_DIR = Path(__file__).parents[1] / "adapters" / "reranker"
_BATCH = 8  # pairs sorted by length, padded per batch: 63 ms for 20 chat turns against 86 at 32


def trained_candidates(folder: Path = RERANKER_DIR) -> int:
    """How many of the retriever's top memories the reranker was trained to re-score (the
    `stream.rerank` to use it with); 20 for an adapter that does not say."""
    return settings_of(folder).candidates or 20


class StaleReranker(RuntimeError):
    """The reranker was trained on another version of the retriever than the one shipped."""


class OnnxReranker:
    """`scores(question, texts)`: one number per text, higher answers better (the memory
    stream's `Reranker` protocol)."""

    def __init__(self, pairs: OnnxPairModel) -> None:
        self.pairs = pairs
        self._last: tuple[tuple[str, tuple[str, ...]], np.ndarray] | None = None

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """The same query over the same candidates again (a caller asking for another k) is
        answered from the last call."""
        key = (query, tuple(texts))
        last = self._last
        if last is not None and last[0] == key:
            return last[1].copy()
        pairs = [(query, text) for text in texts]
        scored = (
            self.pairs.logits(pairs, batch_size=_BATCH)[:, 0]
            if pairs
            else np.zeros(0, dtype=np.float32)
        )
        self._last = (key, scored)
        return scored.copy()


def merged_reranker(folder: Path, base: Path, retriever: Path = RETRIEVER_DIR) -> Any:
    """The cross-encoder as trained: MiniLM with the retriever merged in, then the reranker's
    adapter and head merged on top (torch; for export and training-time measures)."""
    from peft import PeftModel
    from transformers import AutoModelForSequenceClassification
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    model = AutoModelForSequenceClassification.from_pretrained(
        str(base), num_labels=1, local_files_only=True
    )
    model.bert.load_state_dict(merged_encoder(base, retriever).state_dict(), strict=False)
    keep_layers(model, settings_of(folder).layers)
    return PeftModel.from_pretrained(model, str(folder)).merge_and_unload().eval()


def cached_graph(folder: Path, base: Path, cache_dir: Path, quantized: bool) -> Path:
    """The merged reranker as an onnxruntime graph, exported once per adapter version."""
    stem = cache_dir / f"reranker-{fingerprint(folder)}-{fingerprint(RETRIEVER_DIR)}"
    return exported_graph(stem, "the reranker", lambda: merged_reranker(folder, base), quantized)


@lru_cache(maxsize=4)
def load_reranker(
    folder: Path = RERANKER_DIR,
    cache_dir: Path | None = None,
    threads: int | None = None,
    quantized: bool = True,
) -> OnnxReranker:
    """The shipped reranker (exported on first use); `quantized`: int8 weights, about twice
    the pairs a second, and dev recall as with float32 (0.911 vs 0.903 at 10, 0.843 vs 0.838
    at 5: re-scoring the retriever's top 20 on the dev chats)."""
    from mindstream.lm.config import LocalModelConfig

    if not (folder / "adapter_config.json").is_file():
        raise FileNotFoundError(
            f"{folder}: no reranker here (train one: mindstream train reranker)"
        )
    settings = settings_of(folder)
    if settings.built_on not in (None, fingerprint(RETRIEVER_DIR)):
        raise StaleReranker(
            f"{folder}: trained on another retriever than {RETRIEVER_DIR} (retrain it: "
            "mindstream train reranker)"
        )
    base = loading.minilm_model_dir()
    loading.guard_real_model_load(f"the reranker in {folder}")
    graph = cached_graph(folder, base, cache_dir or LocalModelConfig().cache_dir, quantized)
    return OnnxReranker(OnnxPairModel(graph, base, settings, threads))
