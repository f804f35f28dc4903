"""How a served model answers one closed-set question: three paths behind one small protocol.

- `SystemOnePath`: `POST /v1/systemone` (`transformers serve`), a probability for every option
  from one forward pass, no text generated.
- `LogprobPath`: a chat completion of one token with `top_logprobs` (OpenAI, vLLM, llama.cpp):
  the probabilities of the label tokens among the first token's alternatives.
- `GeneratedPath`: any chat endpoint: the reply is parsed for the label, re-asked with the
  parse error, and after the last attempt a `DecisionParseError`; never an invented value.
"""

from __future__ import annotations

import math
import re
import string
from typing import Any, Protocol

from mindstream.lm.errors import DecisionParseError, ScoringInputError
from mindstream.lm.prompts import (
    CHOICE_INSTRUCTION,
    DECISION_CHOICE,
    DECISION_RETRY,
    DECISION_SCORE,
    SCORE_INSTRUCTION,
    YES_NO_INSTRUCTION,
)
from mindstream.lm.served.endpoint import Endpoint

LETTERS = string.ascii_uppercase
TOP_LOGPROBS = 20
REPLY_TOKENS = 16  # a label, a number or yes/no, with room for "The answer is"
RETRY_TEMPERATURE = 0.7
# "B", "B.", "(B)", "B) the bakery": a letter alone or before punctuation ("A magnet" is a word);
# or "Answer: B", "The answer is (B)".
_LETTER = re.compile(r"^\W*\(?([A-Z])(?:[).:,]|\s*$)")
_ANSWER_LETTER = re.compile(r"\b(?i:answer)(?: is)?:?\s*\(?([A-Z])\b")
_NUMBER = re.compile(r"-?\d+")
_YES_NO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


class Answered:
    """A path's answer: probabilities over the options (or P(yes)) and the tokens read."""

    def __init__(self, probabilities: list[float], prompt_tokens: int = 0) -> None:
        self.probabilities = probabilities
        self.prompt_tokens = prompt_tokens


class DecisionPath(Protocol):
    name: str
    endpoint: Endpoint

    def choice(self, prompt: str, options: list[str]) -> Answered: ...

    def score(self, prompt: str, levels: list[str]) -> Answered: ...

    def noul(self, prompt: str) -> Answered:
        """`probabilities` is [P(yes)]."""
        ...


def check_options(options: list[str]) -> None:
    if not options:
        raise ScoringInputError("a choice needs at least one option")
    if len(options) > len(LETTERS):
        raise ScoringInputError(
            f"a served model chooses among at most {len(LETTERS)} options, got {len(options)}"
        )


class SystemOnePath:
    """Typed decisions through `/v1/systemone`; the server's decision template and labels decide
    how the prompt is shown to the model."""

    name = "systemone"

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint

    def choice(self, prompt: str, options: list[str]) -> Answered:
        check_options(options)
        keys = list(dict.fromkeys(o.strip() or o for o in options))
        answer, tokens = self._ask(prompt, {"type": "choice", "criteria": dict.fromkeys(keys)})
        by_key = answer["probabilities"]
        return Answered([float(by_key[o.strip() or o]) for o in options], tokens)

    def score(self, prompt: str, levels: list[str]) -> Answered:
        answer, tokens = self._ask(prompt, {"type": "score", "criteria": levels})
        by_index = answer["probabilities"]
        return Answered([float(by_index[str(i)]) for i in range(len(levels))], tokens)

    def noul(self, prompt: str) -> Answered:
        answer, tokens = self._ask(prompt, {"type": "noul"})
        return Answered([float(answer["noul"])], tokens)

    def _ask(self, state: str, question: dict[str, Any]) -> tuple[dict[str, Any], int]:
        body = {"model": self.endpoint.model, "state": state.rstrip(), "questions": {"q": question}}
        reply = self.endpoint.call(
            lambda client: client.post("/systemone", body=body, cast_to=object),
            "a typed decision (/v1/systemone)",
        )
        return reply["answers"]["q"], int(reply.get("usage", {}).get("input_tokens", 0))


def choice_text(prompt: str, options: list[str]) -> tuple[str, str]:
    """The question as chat text, and its instruction (repeated when a reply is unusable)."""
    check_options(options)
    listed = "\n".join(f"{LETTERS[i]}. {o.strip()}" for i, o in enumerate(options))
    instruction = CHOICE_INSTRUCTION.format(first="A", last=LETTERS[len(options) - 1])
    text = DECISION_CHOICE.format(instruction=instruction, prompt=prompt.rstrip(), options=listed)
    return text, instruction


def score_text(prompt: str, levels: list[str]) -> tuple[str, str]:
    instruction = SCORE_INSTRUCTION.format(low=levels[0], high=levels[-1])
    return DECISION_SCORE.format(instruction=instruction, prompt=prompt.rstrip()), instruction


def yes_no_text(prompt: str) -> tuple[str, str]:
    text = DECISION_SCORE.format(instruction=YES_NO_INSTRUCTION, prompt=prompt.rstrip())
    return text, YES_NO_INSTRUCTION


class GeneratedPath:
    """Chat-only endpoints: the label is read from the reply, re-asked up to `attempts`."""

    name = "generate"

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.attempts = endpoint.config.parse_attempts

    def choice(self, prompt: str, options: list[str]) -> Answered:
        index, tokens = self._read(
            choice_text(prompt, options), "an option letter", _choice(options)
        )
        return Answered(_one_hot(index, len(options)), tokens)

    def score(self, prompt: str, levels: list[str]) -> Answered:
        wanted = f"a number from {levels[0]} to {levels[-1]}"
        index, tokens = self._read(score_text(prompt, levels), wanted, _level(levels))
        return Answered(_one_hot(index, len(levels)), tokens)

    def noul(self, prompt: str) -> Answered:
        index, tokens = self._read(yes_no_text(prompt), "Yes or No", _yes_no)
        return Answered([1.0 - index], tokens)

    def _read(self, question: tuple[str, str], wanted: str, parse: Any) -> tuple[int, int]:
        text, instruction = question
        messages = [{"role": "user", "content": text}]
        replies: list[str] = []
        tokens = 0
        for attempt in range(self.attempts):
            # A greedy reply repeats itself when re-asked; later attempts sample.
            response = self._chat(list(messages), 0.0 if attempt == 0 else RETRY_TEMPERATURE)
            tokens += getattr(response.usage, "prompt_tokens", 0) or 0
            reply = (response.choices[0].message.content or "").strip()
            replies.append(reply)
            index = parse(reply)
            if index is not None:
                return index, tokens
            error = f"{reply[:60]!r} is not {wanted}"
            messages += [
                {"role": "assistant", "content": reply},
                {
                    "role": "user",
                    "content": DECISION_RETRY.format(error=error, instruction=instruction),
                },
            ]
        raise DecisionParseError(wanted, replies)

    def _chat(self, messages: list[dict[str, str]], temperature: float) -> Any:
        return self.endpoint.call(
            lambda client: client.chat.completions.create(
                model=self.endpoint.model,
                messages=messages,
                max_tokens=REPLY_TOKENS,
                temperature=temperature,
            ),
            "a chat completion",
        )


def _one_hot(index: int, size: int) -> list[float]:
    return [1.0 if i == index else 0.0 for i in range(size)]


def _choice(options: list[str]) -> Any:
    def parse(reply: str) -> int | None:
        match = _LETTER.match(reply) or _ANSWER_LETTER.search(reply)
        if match and LETTERS.index(match.group(1)) < len(options):
            return LETTERS.index(match.group(1))
        named = [
            i for i, o in enumerate(options) if o.strip() and o.strip().lower() in reply.lower()
        ]
        return named[0] if len(named) == 1 else None

    return parse


def _level(levels: list[str]) -> Any:
    def parse(reply: str) -> int | None:
        match = _NUMBER.search(reply)
        return levels.index(match.group(0)) if match and match.group(0) in levels else None

    return parse


def _yes_no(reply: str) -> int | None:
    """0 for yes, 1 for no (the option order of a yes/no question)."""
    match = _YES_NO.search(reply)
    return None if match is None else int(match.group(1).lower() == "no")


class LogprobPath:
    """First-token log-probabilities of a one-token chat completion; where no label is among
    the server's top alternatives, the question goes to `GeneratedPath`."""

    name = "logprobs"

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.fallback = GeneratedPath(endpoint)

    def choice(self, prompt: str, options: list[str]) -> Answered:
        labels = [LETTERS[i] for i in range(len(options))]
        return self._first_token(choice_text(prompt, options), labels) or self.fallback.choice(
            prompt, options
        )

    def score(self, prompt: str, levels: list[str]) -> Answered:
        return self._first_token(score_text(prompt, levels), levels) or self.fallback.score(
            prompt, levels
        )

    def noul(self, prompt: str) -> Answered:
        found = self._first_token(yes_no_text(prompt), ["yes", "no"], fold_case=True)
        if found is None:
            return self.fallback.noul(prompt)
        return Answered([found.probabilities[0]], found.prompt_tokens)

    def _first_token(
        self, question: tuple[str, str], labels: list[str], fold_case: bool = False
    ) -> Answered | None:
        text = question[0]
        response = self.endpoint.call(
            lambda client: client.chat.completions.create(
                model=self.endpoint.model,
                messages=[{"role": "user", "content": text}],
                max_tokens=1,
                temperature=0.0,
                logprobs=True,
                top_logprobs=TOP_LOGPROBS,
            ),
            "a chat completion with log-probabilities",
        )
        logprobs = response.choices[0].logprobs
        content = getattr(logprobs, "content", None) or []
        if not content:
            return None
        mass = [0.0] * len(labels)
        for alternative in content[0].top_logprobs or []:
            token = alternative.token.strip().strip("(").strip(".):")
            token = token.lower() if fold_case else token
            if token in labels:
                mass[labels.index(token)] += math.exp(alternative.logprob)
        total = sum(mass)
        if total <= 0:
            return None
        tokens = getattr(response.usage, "prompt_tokens", 0) or 0
        return Answered([m / total for m in mass], tokens)
