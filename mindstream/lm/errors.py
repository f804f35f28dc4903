"""Typed errors of the model layer: callers catch these, never parse messages."""

from __future__ import annotations


class LMError(Exception):
    """Base class of every error raised by `lm`."""


class ModelPackageMissingError(LMError):
    """A model-carrying PyPI package is not installed; the message says how to install it."""


class MissingExtraError(LMError):
    """An optional backend (openai, ollama) needs an extra that is not installed."""


class UnknownModelSpecError(LMError, ValueError):
    """`resolve_model` got a spec it does not understand."""


class RealModelForbiddenError(LMError, RuntimeError):
    """A unit test tried to load a real model; mark it `real_model` or use a fake."""


class StructuredOutputError(LMError):
    """Model text could not be parsed into the schema within the allowed attempts.

    Carries every raw reply so the caller can log or show it; no data is invented.
    """

    def __init__(self, schema_name: str, raw_texts: list[str], last_error: str) -> None:
        self.schema_name = schema_name
        self.raw_texts = raw_texts
        self.last_error = last_error
        tail = raw_texts[-1][:200] if raw_texts else ""
        super().__init__(
            f"could not parse model output into {schema_name} after {len(raw_texts)} "
            f"attempt(s): {last_error}; last reply: {tail!r}"
        )


class ScoringInputError(LMError, ValueError):
    """Bad input to a scorer: empty continuation, empty label set, inverted scale."""


class ServedModelError(LMError):
    """A model server could not answer; the message names the server and what to do."""


class ServerUnreachableError(ServedModelError):
    """No connection to the server (refused, timed out, wrong URL)."""


class PortInUseError(ServedModelError):
    """A server to be started here found its port taken (another server may answer there)."""


class ServerRejectedError(ServedModelError):
    """The server answered with a client error: unknown model, bad request, bad API key."""


class ServerBusyError(ServedModelError):
    """The server kept answering 429 or 5xx after every retry with backoff."""


class DecisionParseError(ServedModelError):
    """A chat-only server's replies never named a label, number or yes/no we could read.

    Carries every raw reply; no value is invented.
    """

    def __init__(self, what: str, raw_texts: list[str]) -> None:
        self.raw_texts = raw_texts
        tail = raw_texts[-1][:120] if raw_texts else ""
        super().__init__(
            f"could not read {what} from the model's reply after {len(raw_texts)} attempt(s); "
            f"last reply: {tail!r}"
        )
