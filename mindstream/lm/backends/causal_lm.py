"""A transformers causal LM: batched generation and batched log-likelihood scoring.

This is the only module of `lm` that imports torch; it is imported lazily by the loaders.
"""

from __future__ import annotations

import copy
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache
from transformers.modeling_outputs import BaseModelOutputWithPast
from transformers.utils import logging as hf_logging

from mindstream.lm.errors import ScoringInputError
from mindstream.lm.scoring.scorer import label_log_scores, normalise

PREFIX_CACHE_SIZE = 8
# The KV cache's argument and output field: `cache` from transformers 5.24 (which warns on
# the old name in every in-process run), `past_key_values` before.
CACHE = "cache" if "cache" in BaseModelOutputWithPast.__dataclass_fields__ else "past_key_values"


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int


def convert_gguf(gguf: Path, target: Path) -> None:
    """Dequantise a GGUF file into a float32 transformers folder (done once, then cached)."""
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32
    )
    # The GGUF quantizer refuses to serialise; the weights are already dequantised.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(str(target))
    tokenizer.save_pretrained(str(target))


class CausalLMBackend:
    """Owns one tokenizer and model; every method works on batches."""

    def __init__(self, model: torch.nn.Module, tokenizer: object) -> None:
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.load_seconds = 0.0
        self.tokens_read = 0  # running total of tokens passed through scoring forwards
        self._prefixes: OrderedDict[tuple[int, ...], DynamicCache] = OrderedDict()

    @classmethod
    def from_folder(cls, folder: Path, *, threads: int | None) -> CausalLMBackend:
        if threads:
            torch.set_num_threads(threads)
        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        start = time.perf_counter()
        tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(
            str(folder), dtype=torch.float32, local_files_only=True
        )
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        backend = cls(model, tokenizer)
        backend.load_seconds = time.perf_counter() - start
        return backend

    # ---- text <-> tokens -------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])  # type: ignore[operator]

    def chat_prompt(self, messages: list[dict[str, str]]) -> str:
        """The templated prompt; a final assistant message is a prefill the reply continues
        (small models follow a format far better when its first words are given)."""
        prefill = bool(messages) and messages[-1]["role"] == "assistant"
        return str(
            self.tokenizer.apply_chat_template(  # type: ignore[attr-defined]
                messages,
                tokenize=False,
                add_generation_prompt=not prefill,
                continue_final_message=prefill,
            )
        )

    # ---- generation ------------------------------------------------------------------
    @torch.inference_mode()
    def generate(
        self,
        prompts: Sequence[str],
        *,
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        batch_size: int,
        seed: int | None = None,
        min_new_tokens: int = 0,
        stop: Sequence[str] = (),
    ) -> list[Completion]:
        """Generate for all prompts, `batch_size` at a time with left padding.

        Decoding is memory-bandwidth bound (every step reads all weights), so a batch costs
        little more per step than one prompt, but it runs until its longest reply ends (or
        reaches a `stop` string: the text after it is not returned, so it is not generated).
        """
        if seed is not None:
            torch.manual_seed(seed)
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
        results: dict[int, Completion] = {}
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            for index, completion in zip(
                chunk,
                self._generate_chunk(
                    [prompts[i] for i in chunk],
                    max_new_tokens,
                    min_new_tokens,
                    temperature,
                    top_p,
                    stop,
                ),
                strict=True,
            ):
                results[index] = completion
        return [results[i] for i in range(len(prompts))]

    def _generate_chunk(
        self,
        prompts: list[str],
        max_new_tokens: int,
        min_new_tokens: int,
        temperature: float,
        top_p: float,
        stop: Sequence[str] = (),
    ) -> list[Completion]:
        tok = self.tokenizer
        tok.padding_side = "left"  # type: ignore[attr-defined]
        enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)  # type: ignore[operator]
        sampling = {"do_sample": True, "temperature": temperature, "top_p": top_p}
        output = self.model.generate(
            **enc,
            max_new_tokens=max_new_tokens,
            min_new_tokens=min_new_tokens,
            pad_token_id=tok.pad_token_id,  # type: ignore[attr-defined]
            **(sampling if temperature > 0 else {"do_sample": False}),
            **({"stop_strings": list(stop), "tokenizer": tok} if stop else {}),
        )
        new_tokens = output[:, enc["input_ids"].shape[1] :]
        eos = tok.eos_token_id  # type: ignore[attr-defined]
        completions = []
        for row, mask in zip(new_tokens.tolist(), enc["attention_mask"], strict=True):
            used = row.index(eos) + 1 if eos in row else len(row)
            text = tok.decode(row[:used], skip_special_tokens=True)  # type: ignore[attr-defined]
            completions.append(Completion(text.strip(), int(mask.sum()), used))
        return completions

    def stream(
        self,
        prompt: str,
        *,
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        counts: dict[str, int],
    ) -> Iterator[str]:
        """The reply's text as it is generated (a token or a few at a time), from a
        generation running in a background thread; `counts` gets the prompt's and the
        reply's token counts when it ends."""
        from transformers import TextIteratorStreamer

        tok = self.tokenizer
        enc = tok([prompt], return_tensors="pt", add_special_tokens=False)  # type: ignore[operator]
        streamer = TextIteratorStreamer(tok, skip_prompt=True, skip_special_tokens=True)
        sampling = {"do_sample": True, "temperature": temperature, "top_p": top_p}
        options = {
            **enc,
            "max_new_tokens": max_new_tokens,
            "pad_token_id": tok.pad_token_id,  # type: ignore[attr-defined]
            "streamer": streamer,
            **(sampling if temperature > 0 else {"do_sample": False}),
        }
        produced: list[torch.Tensor] = []

        def run() -> None:
            with torch.inference_mode():
                produced.append(self.model.generate(**options))

        thread = threading.Thread(target=run, name="generate-stream", daemon=True)
        thread.start()
        try:
            yield from streamer
        finally:
            thread.join()
            prompt_tokens = int(enc["input_ids"].shape[1])
            total = int(produced[0].shape[1]) if produced else prompt_tokens
            counts.update(prompt_tokens=prompt_tokens, completion_tokens=total - prompt_tokens)

    # ---- scoring ---------------------------------------------------------------------
    @torch.inference_mode()
    def position_logprobs(
        self, sequences: Sequence[list[int]], positions: Sequence[list[int]], batch_size: int
    ) -> list[torch.Tensor]:
        """Log-softmax over the vocabulary at chosen positions of each sequence.

        Sequences of one chunk that share a token prefix (a few-shot template, a question
        scored against several answers) run that prefix once; the output head runs only on
        the chosen positions, so a batch never materialises sequence × vocabulary logits.
        """
        head = self.model.get_output_embeddings()
        out: list[torch.Tensor] = []
        for start in range(0, len(sequences), batch_size):
            chunk = list(sequences[start : start + batch_size])
            chunk_positions = list(positions[start : start + batch_size])
            # Every requested position must lie after the shared prefix.
            limit = min(min(p) for p in chunk_positions)
            prefix_len = self._shared_prefix_length(chunk, limit)
            hidden = self._suffix_hidden(chunk, prefix_len)
            for row, pos in enumerate(chunk_positions):
                logits = head(hidden[row, [p - prefix_len for p in pos]]).float()
                out.append(torch.log_softmax(logits, dim=-1))
        return out

    def _shared_prefix_length(self, chunk: list[list[int]], limit: int) -> int:
        """Several sequences share their common prefix; a lone one reuses a cached prefix."""
        if len(chunk) > 1:
            return min(_common_prefix_length(chunk), limit)
        sequence = chunk[0]
        fits = [
            len(k) for k in self._prefixes if len(k) <= limit and tuple(sequence[: len(k)]) == k
        ]
        return max(fits, default=0)

    def _suffix_hidden(self, chunk: list[list[int]], prefix_len: int) -> torch.Tensor:
        """Hidden states of every sequence after `prefix_len` shared tokens (right padded)."""
        pad = self.tokenizer.pad_token_id  # type: ignore[attr-defined]
        cache = self._prefix_cache(chunk[0][:prefix_len], len(chunk)) if prefix_len else None
        width = max(len(s) for s in chunk) - prefix_len
        ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        mask = torch.zeros((len(chunk), prefix_len + width), dtype=torch.long)
        mask[:, :prefix_len] = 1
        for row, seq in enumerate(chunk):
            ids[row, : len(seq) - prefix_len] = torch.tensor(seq[prefix_len:])
            mask[row, : len(seq)] = 1
        self.tokens_read += int(mask[:, prefix_len:].sum())
        output = self.model.base_model(
            input_ids=ids, attention_mask=mask, use_cache=cache is not None, **{CACHE: cache}
        )
        return output.last_hidden_state

    def _prefix_cache(self, prefix: list[int], copies: int) -> DynamicCache:
        """KV cache of a shared prefix, computed once and kept in a small LRU."""
        key = tuple(prefix)
        cached = self._prefixes.pop(key, None)
        if cached is None:
            self.tokens_read += len(prefix)
            output = self.model.base_model(input_ids=torch.tensor([prefix]), use_cache=True)
            cached = getattr(output, CACHE)
        self._prefixes[key] = cached
        while len(self._prefixes) > PREFIX_CACHE_SIZE:
            self._prefixes.popitem(last=False)
        cache = copy.deepcopy(cached)
        if copies > 1:
            cache.batch_repeat_interleave(copies)
        return cache

    def continuation_logprobs(
        self, pairs: Sequence[tuple[str, str]], batch_size: int
    ) -> list[list[float]]:
        """Per-token log-probabilities of each continuation after its prompt."""
        sequences, positions, targets = [], [], []
        for prompt, continuation in pairs:
            prompt, continuation = _move_trailing_space(prompt, continuation)
            prompt_ids, cont_ids = self.encode(prompt), self.encode(continuation)
            if not cont_ids:
                raise ScoringInputError("a continuation to score is empty")
            if not prompt_ids:
                prompt_ids = [self.tokenizer.eos_token_id]  # type: ignore[attr-defined]
            sequences.append(prompt_ids + cont_ids)
            positions.append(list(range(len(prompt_ids) - 1, len(prompt_ids) + len(cont_ids) - 1)))
            targets.append(cont_ids)
        rows = self.position_logprobs(sequences, positions, batch_size)
        return [
            row[torch.arange(len(t)), torch.tensor(t)].tolist()
            for row, t in zip(rows, targets, strict=True)
        ]

    def label_probabilities(
        self, prompts: Sequence[str], labels: Sequence[str], batch_size: int
    ) -> list[list[float]]:
        """P(label | prompt) for a closed set of labels, normalised over the set.

        Labels share token prefixes ("1" and "10"); they are arranged in a trie and each
        prompt needs one sequence per maximal branch: for 1..10 that is the single sequence
        prompt + "1". A label that is also a prefix of another label ends there with
        probability 1 − P(continuing into the longer labels).
        """
        if not labels:
            raise ScoringInputError("no labels to choose from")
        out = []
        jobs = []
        for prompt in prompts:
            stripped, space = _split_trailing_space(prompt)
            prompt_ids = self.encode(stripped) or [self.tokenizer.eos_token_id]  # type: ignore[attr-defined]
            label_ids = [tuple(self.encode(space + label)) for label in labels]
            branches = _maximal_prefixes(label_ids)
            jobs.append((prompt_ids, label_ids, branches))
        sequences = [p + list(b) for p, _, bs in jobs for b in bs]
        positions = [list(range(len(p) - 1, len(p) + len(b))) for p, _, bs in jobs for b in bs]
        rows = iter(self.position_logprobs(sequences, positions, batch_size))
        for _, label_ids, branches in jobs:
            dist: dict[tuple[int, ...], torch.Tensor] = {}
            for branch in branches:
                row = next(rows)
                for depth in range(len(branch) + 1):
                    dist[branch[:depth]] = row[depth]
            out.append(normalise(label_log_scores(label_ids, _lookup(dist))))
        return out


def _common_prefix_length(sequences: list[list[int]]) -> int:
    first = sequences[0]
    length = min(len(s) for s in sequences)
    for other in sequences[1:]:
        length = next((i for i in range(length) if other[i] != first[i]), length)
    return length


def _split_trailing_space(text: str) -> tuple[str, str]:
    stripped = text.rstrip(" ")
    return stripped, text[len(stripped) :]


def _move_trailing_space(prompt: str, continuation: str) -> tuple[str, str]:
    stripped, space = _split_trailing_space(prompt)
    return stripped, space + continuation


def _maximal_prefixes(label_ids: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Proper prefixes of the labels (the trie's inner nodes) that extend no other one."""
    inner = {ids[:depth] for ids in label_ids for depth in range(len(ids))}
    return sorted(p for p in inner if not any(len(q) > len(p) and q[: len(p)] == p for q in inner))


def _lookup(dist: dict[tuple[int, ...], torch.Tensor]) -> Callable[[tuple[int, ...], int], float]:
    return lambda prefix, token: float(dist[prefix][token])
