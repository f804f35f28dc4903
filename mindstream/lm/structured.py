"""Parse model text into pydantic schemas, with bounded retries and a typed error.

Small models often answer almost-right; each retry shows the model its previous reply and the
parse error. When every attempt fails, `StructuredOutputError` carries all raw replies: the
caller decides what to do, and nothing is invented.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from mindstream.lm.errors import StructuredOutputError

SchemaT = TypeVar("SchemaT", bound=BaseModel)

RETRY_MESSAGE = (
    "Your reply could not be used: {error}\nReply again, following the requested format exactly."
)
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


class ParseError(ValueError):
    """A parser's way of saying the text does not fit; the message is shown to the model."""


def parse_json_object(text: str, schema: type[SchemaT]) -> SchemaT:
    """Validate the first {...} block of the text against the schema."""
    match = _JSON_OBJECT.search(text)
    if match is None:
        raise ParseError("no JSON object found")
    try:
        return schema.model_validate(json.loads(match.group(0)))
    except (json.JSONDecodeError, ValidationError) as error:
        raise ParseError(str(error).splitlines()[0]) from error


def complete_batch(
    model: BaseChatModel, prompts: Sequence[LanguageModelInput], component: str, **options: Any
) -> list[str]:
    """One batched call; each reply's text, stripped. `component` labels it for `CallLedger`."""
    replies = model.batch(list(prompts), config={"metadata": {"component": component}}, **options)
    return [str(reply.content).strip() for reply in replies]


def generate_structured(
    model: BaseChatModel,
    messages: list[BaseMessage],
    schema: type[SchemaT],
    *,
    parse: Callable[[str], SchemaT] | None = None,
    attempts: int = 3,
) -> SchemaT:
    """Ask the model, parse its reply into `schema`; re-ask with the error up to `attempts`."""
    parser = parse or (lambda text: parse_json_object(text, schema))
    history = list(messages)
    raw_texts: list[str] = []
    last_error = "no attempt made"
    for _ in range(max(attempts, 1)):
        reply = model.invoke(history)
        text = reply.text if isinstance(reply, AIMessage) else str(reply.content)
        raw_texts.append(text)
        try:
            return parser(text)
        except (ParseError, ValidationError) as error:
            last_error = str(error).splitlines()[0] if str(error) else type(error).__name__
            history += [
                AIMessage(content=text),
                HumanMessage(RETRY_MESSAGE.format(error=last_error)),
            ]
    raise StructuredOutputError(schema.__name__, raw_texts, last_error)
