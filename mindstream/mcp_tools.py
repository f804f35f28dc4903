"""`mindstream mcp`: one user's memory as MCP tools (remember, search, list, forget, correct,
delete all, chat, export) for assistants such as Claude Desktop or an IDE, over stdio or
streamable HTTP.

The tools call a running `mindstream serve` with that user's API key: the service stays the
only writer of its store, and the key decides whose memories the tools reach.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from mindstream.client import ServiceClient

T = TypeVar("T")

INSTRUCTIONS = (
    "A long-term memory of the user. Search it before answering about the user; remember "
    "what they tell you that will matter later; when they say a memory is wrong or out of "
    "date, correct it (action 'actually' with the new text keeps the old one as history)."
)


def answered(call: Callable[[], T]) -> T:
    """The service's answer; its refusal ("404: no memory with id ...") as the tool's error
    message, which the assistant reads (any other exception would reach it as a bare crash)."""
    from mcp.server.mcpserver.exceptions import ToolError

    from mindstream.client import ServiceError

    try:
        return call()
    except ServiceError as error:
        raise ToolError(str(error)) from None


def memory_server(client: ServiceClient) -> MCPServer:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="mindstream", instructions=INSTRUCTIONS)

    @server.tool()
    def remember(
        text: str,
        kind: Literal["fact", "observation", "plan"] = "fact",
        importance: float | None = None,
    ) -> dict[str, Any]:
        """Store something worth remembering; importance 1-10, or omitted to let the model rate
        it. A statement that replaces an earlier one supersedes it (see its status)."""
        return answered(lambda: client.remember(text, kind, importance))

    @server.tool()
    def search(query: str, k: int = 5, history: bool = False) -> list[dict[str, Any]]:
        """The memories most relevant to the query, true now first (with `history`, superseded
        and forgotten ones too, marked by their status)."""
        return answered(lambda: client.search(query, k, history))

    @server.tool()
    def forget(memory_id: str) -> dict[str, Any]:
        """Forget one memory (it stays in the export as forgotten, never recalled)."""
        return answered(lambda: client.forget(memory_id))

    @server.tool()
    def correct(
        memory_id: str, action: Literal["wrong", "actually", "forget"], text: str | None = None
    ) -> dict[str, Any]:
        """'actually' + text: the memory is out of date, this replaces it (provenance kept);
        'wrong': forget it and note the user said so; 'forget': just forget it."""
        body = {"action": action, "memory_id": memory_id, "text": text}
        return answered(lambda: dict(client.call("POST", "/v1/corrections", json=body)))

    @server.tool()
    def list_memories(
        kind: str | None = None, status: str | None = None, limit: int = 50
    ) -> list[dict[str, Any]]:
        """The user's memories, newest first (filter by kind: fact, observation, dialogue,
        plan, reflection, correction; status: active, superseded, forgotten)."""
        params = {k: v for k, v in {"kind": kind, "status": status}.items() if v is not None}
        params["limit"] = str(limit)
        return answered(lambda: list(client.call("GET", "/v1/memories", params=params)))

    @server.tool()
    def delete_all_memories(confirm: bool = False) -> dict[str, Any]:
        """Remove every memory of the user for good (not undoable): only with confirm=true."""
        if not confirm:
            from mcp.server.mcpserver.exceptions import ToolError

            raise ToolError("delete_all_memories removes everything for good: pass confirm=true")
        return answered(lambda: dict(client.call("DELETE", "/v1/memories")))

    @server.tool()
    def chat(message: str, session: str = "default") -> dict[str, Any]:
        """Ask the user's own assistant, which answers from these memories (and remembers
        what the user says in the chat)."""
        body = {"message": message, "session": session}
        return answered(lambda: dict(client.call("POST", "/v1/chat", json=body)))

    @server.tool()
    def export() -> dict[str, Any]:
        """Every memory of the user with its provenance (what it cites, what cites it)."""
        return answered(lambda: dict(client.call("GET", "/v1/export")))

    return server
