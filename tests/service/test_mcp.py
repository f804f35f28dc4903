"""`mindstream mcp` for real: the SDK's own client starts it over stdio (and reaches it over
streamable HTTP), and its tools reach one user's memories in a running `mindstream serve`."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from mindstream.lm.served.server import free_port
from tests.service.conftest import ServiceProcess

pytestmark = pytest.mark.real_model

TOOLS = {"remember", "search", "list_memories", "forget", "correct", "delete_all_memories"}
TOOLS |= {"chat", "export"}


def _data(result: Any) -> Any:
    assert not result.is_error, result.content
    return result.structured_content.get("result", result.structured_content)


def _run(target: Any) -> dict[str, Any]:
    """The client's event loop in its own thread: the page tests' browser may hold one open in
    this thread."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _use_tools(target)).result(timeout=300)


async def _use_tools(target: Any) -> dict[str, Any]:
    from mcp import Client

    async with Client(target) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        stored = _data(
            await client.call_tool("remember", {"text": "I keep bees.", "importance": 6})
        )
        found = _data(await client.call_tool("search", {"query": "bees", "k": 3}))
        moved = _data(
            await client.call_tool(
                "correct",
                {"memory_id": stored["id"], "action": "actually", "text": "I gave the bees away."},
            )
        )
        exported = _data(await client.call_tool("export", {}))
        refused = await client.call_tool("forget", {"memory_id": "not-a-memory"})
        listed = _data(await client.call_tool("list_memories", {"status": "active"}))
        unconfirmed = await client.call_tool("delete_all_memories", {})
        return {
            "listed": listed,
            "unconfirmed": unconfirmed,
            "names": names,
            "found": found,
            "moved": moved,
            "exported": exported,
            "refused": refused,
            "stored": stored,
        }


def test_mcp_tools_over_stdio_reach_one_users_memories(service: ServiceProcess) -> None:
    from mcp.client.stdio import StdioServerParameters

    yan = service.user("yan")
    key = yan.headers["Authorization"].removeprefix("Bearer ")
    service.user("zed").post("/v1/memories", json={"text": "Zed keeps bees too.", "importance": 6})
    launch = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mindstream", "mcp", "--server", service.url],
        env={**os.environ, "MINDSTREAM_API_KEY": key, "MINDSTREAM_THREADS": "1"},
    )
    seen = _run(launch)
    assert seen["names"] >= TOOLS
    assert [f["memory"]["text"] for f in seen["found"]] == ["I keep bees."]  # not Zed's
    assert seen["moved"]["text"] == "I gave the bees away."
    statuses = {m["text"]: m["status"] for m in seen["exported"]["memories"]}
    assert statuses == {"I keep bees.": "superseded", "I gave the bees away.": "active"}
    assert seen["refused"].is_error and "404" in json.dumps(seen["refused"].model_dump())
    assert [m["text"] for m in seen["listed"]] == ["I gave the bees away."]
    assert seen["unconfirmed"].is_error and "confirm=true" in json.dumps(
        seen["unconfirmed"].model_dump()
    )


def test_a_wrong_key_over_stdio_is_a_tool_error_the_client_can_show(
    service: ServiceProcess,
) -> None:
    from mcp.client.stdio import StdioServerParameters

    launch = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mindstream", "mcp", "--server", service.url],
        env={**os.environ, "MINDSTREAM_API_KEY": "ms_wrong", "MINDSTREAM_THREADS": "1"},
    )

    async def search() -> Any:
        from mcp import Client

        async with Client(launch) as client:
            return await client.call_tool("search", {"query": "bees"})

    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(asyncio.run, search()).result(timeout=300)
    assert answer.is_error and "unknown API key" in json.dumps(answer.model_dump())


def test_mcp_over_streamable_http_and_a_wrong_key_fails_in_one_line(
    service: ServiceProcess,
) -> None:
    key = service.user("ada").headers["Authorization"].removeprefix("Bearer ")
    port = free_port()
    command = [sys.executable, "-m", "mindstream", "mcp", "--server", service.url]
    env = {**os.environ, "MINDSTREAM_THREADS": "1"}
    wrong = subprocess.run(
        [*command, "--api-key", "ms_wrong", "--transport", "http", "--port", str(port)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert wrong.returncode != 0 and "unknown API key" in wrong.stdout + wrong.stderr
    assert "Traceback" not in wrong.stderr
    process = subprocess.Popen(
        [*command, "--api-key", key, "--transport", "http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        seen = _run(f"http://127.0.0.1:{port}/mcp")
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert seen["names"] >= TOOLS and seen["found"][0]["memory"]["text"] == "I keep bees."
