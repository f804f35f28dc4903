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
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel, ConfigDict, ValidationError

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
    config: RunnableConfig | None = None,
    **invoke: Any,
) -> SchemaT:
    """Ask the model, parse its reply into `schema`; re-ask with the error up to `attempts`
    (`config` and `invoke` go to each call: callbacks, tracing metadata)."""
    parser = parse or (lambda text: parse_json_object(text, schema))
    history = list(messages)
    raw_texts: list[str] = []
    last_error = "no attempt made"
    for _ in range(max(attempts, 1)):
        reply = model.invoke(history, config, **invoke)
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


STRUCTURED_INSTRUCTION = "Reply with one JSON object only, no other text, in this form:\n{form}"


def structured_output(
    model: BaseChatModel, schema: Any, *, include_raw: bool = False, attempts: int = 3
) -> Runnable[LanguageModelInput, Any]:
    """LangChain's `with_structured_output` on any chat model, through the retrying parser:
    a pydantic model gives an instance, a JSON schema or TypedDict a dict; with `include_raw`,
    `{"raw", "parsed", "parsing_error"}` as LangChain's own runnables return."""
    from langchain_core.runnables import RunnableLambda
    from langchain_core.utils.function_calling import convert_to_json_schema

    is_model = isinstance(schema, type) and issubclass(schema, BaseModel)
    target: type[BaseModel] = schema if is_model else _AnyObject
    json_schema = convert_to_json_schema(schema)
    instruction = HumanMessage(STRUCTURED_INSTRUCTION.format(form=json_form(json_schema)))
    opening = json_opening(json_schema)

    def parse(text: str) -> BaseModel:
        # the reply goes on from the prefilled opening, unless the model wrote it again
        whole = text if text.lstrip().startswith("{") else opening + text
        return parse_json_object(whole, target)

    traced = {"kwargs": {"method": "json_mode"}, "schema": json_schema}

    def run(given: LanguageModelInput, config: RunnableConfig) -> Any:
        messages = [*model._convert_input(given).to_messages(), instruction, AIMessage(opening)]
        try:
            parsed = generate_structured(
                model,
                messages,
                target,
                parse=parse,
                attempts=attempts,
                config=config,
                ls_structured_output_format=traced,
            )
        except StructuredOutputError as error:
            if not include_raw:
                raise
            raw = AIMessage(content=error.raw_texts[-1] if error.raw_texts else "")
            return {"raw": raw, "parsed": None, "parsing_error": error}
        value = parsed if is_model else _as_given(schema, parsed.model_dump())
        if include_raw:
            return {
                "raw": AIMessage(content=json.dumps(_plain(value))),
                "parsed": value,
                "parsing_error": None,
            }
        return value

    return RunnableLambda(run, name="structured_output")


def json_form(json_schema: dict[str, Any]) -> str:
    """The object to fill in, each value a placeholder saying what goes there: a small model
    copies a raw JSON schema back instead of following it, but fills in a form."""
    properties = json_schema.get("properties") or {}
    if not properties:
        return json.dumps(json_schema)
    fields = []
    for name, spec in properties.items():
        spec = spec if isinstance(spec, dict) else {}
        hint = spec.get("description") or spec.get("title") or name
        kind = spec.get("type")
        value = f'"<{hint}>"' if kind in (None, "string") else f"<{kind}: {hint}>"
        fields.append(f'"{name}": {value}')
    return "{" + ", ".join(fields) + "}"


def json_opening(json_schema: dict[str, Any]) -> str:
    """The first words of the JSON a schema asks for, given as a prefill: '{"setup": "' for a
    schema whose first property is a string (a small model then writes the rest; asked
    plainly, it writes prose or the schema itself)."""
    properties = json_schema.get("properties") or {}
    if not properties:
        return "{"
    name, spec = next(iter(properties.items()))
    quote = '"' if isinstance(spec, dict) and spec.get("type") == "string" else ""
    return f'{{"{name}": {quote}'


class _AnyObject(BaseModel):
    """Any JSON object (a schema given as JSON schema or TypedDict)."""

    model_config = ConfigDict(extra="allow")


def _as_given(schema: Any, value: dict[str, Any]) -> Any:
    """A pydantic v1 model's instance for a v1 schema; the dict for a JSON schema or
    TypedDict."""
    from pydantic import v1

    if isinstance(schema, type) and issubclass(schema, v1.BaseModel):
        return schema.parse_obj(value)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump()
    return value.dict() if hasattr(value, "dict") and not isinstance(value, dict) else value
