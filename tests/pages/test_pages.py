"""The town, TeachMe and chat pages in headless chromium against the real service."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.pages.conftest import RUN, screenshot
from tests.service.conftest import ServiceProcess

pytestmark = pytest.mark.real_model


def _busiest_conversation_tick() -> int:
    """The tick of the conversation with the most lines (the screenshot shows its bubbles)."""
    talks = [json.loads(line) for line in (RUN / "events.jsonl").read_text().splitlines()]
    talks = [e for e in talks if e["type"] == "conversation" and e.get("lines")]
    assert talks, "the test run has no conversation with lines"
    return int(max(talks, key=lambda e: len(e["lines"]))["tick"])


def test_town_replay_conversation_plan_and_reflection_evidence(
    site: ServiceProcess, page: tuple[Any, Any]
) -> None:
    tab, console = page
    tab.goto(f"{site.url}/runs/town")
    tab.wait_for_selector(".agent")
    drawn = tab.evaluate("performance.getEntriesByName('run-drawn')[0].startTime")
    summary = json.loads((RUN / "summary.json").read_text())
    print(
        f"\ntown page load ({len(summary['agents'])} agents, {summary['ticks']} ticks): "
        f"drawn {drawn:.0f} ms after navigation"
    )
    last = summary["ticks"]
    assert tab.locator("#tick-label").inner_text() == f"tick {last} of {last}"  # opens at its end
    doing = tab.locator(".activity")
    assert doing.count() == len(summary["agents"])  # every activity readable without hovering
    assert all(len(text.split()) > 1 for text in doing.all_inner_texts())
    tick = _busiest_conversation_tick()
    tab.locator("#scrubber").fill(str(tick))
    assert tab.locator("#tick-label").inner_text().startswith(f"tick {tick} ")
    assert tab.locator(".bubble").count() >= 1
    talker = tab.locator(".room:has(.bubble) .agent").first
    talker.click()
    tab.wait_for_selector(".mind h3:text('Plan')")
    assert "null" not in tab.locator(".mind").inner_text()
    assert tab.locator(".mind ul li").count() > 0
    tab.locator("#scrubber").fill(str(last))  # the mind follows the replay's time: his
    tab.locator(".agent[data-agent='Klaus Mueller']").click()  # reflections come late in the day
    reflection = tab.locator(".reflection").first
    reflection.wait_for()
    reflection.locator("summary").click()
    evidence = reflection.locator(".evidence li")
    assert evidence.count() >= 1 and evidence.first.inner_text().strip()
    tab.locator("input[aria-label='recall query']").fill("the party")
    tab.locator("button:text('Recall')").click()
    tab.wait_for_selector("table.recall tr td")
    tab.evaluate("window.scrollTo(0, 0)")
    screenshot(tab, "town.png")
    assert console.errors == []


def test_missing_run_is_a_404_page_with_the_name_escaped(
    site: ServiceProcess, page: tuple[Any, Any]
) -> None:
    tab, _ = page
    response = tab.goto(f"{site.url}/runs/%3Cb%3Enope")
    assert response is not None and response.status == 404
    assert "<b>nope" in tab.locator("#message").inner_text()
    assert tab.locator("#message b").count() == 0


def test_teach_a_false_premise_changes_the_answer_and_is_listed(
    site: ServiceProcess, page: tuple[Any, Any]
) -> None:
    tab, console = page
    teacher = site.user("tess")
    tab.goto(f"{site.url}/teach")
    tab.fill("#key", teacher.headers["Authorization"].removeprefix("Bearer "))
    tab.click("button:text('Log in')")
    tab.wait_for_selector("#question")
    tab.fill("#question", "What will a magnet pick up?")
    tab.fill("#choices", "a copper coin\na steel paperclip")
    tab.click("button:text('Ask')")
    tab.wait_for_selector("#choice", timeout=180_000)
    tab.fill("input[aria-label='missing fact']", "A magnet attracts copper coins.")
    tab.click("button:text('Add fact')")
    tab.wait_for_selector(".premise .badge.taught", timeout=180_000)
    before = tab.locator("#answer").inner_text()
    tab.locator(".premise button.false").first.click()
    tab.wait_for_function(
        "before => document.querySelector('#answer').innerText !== before",
        arg=before,
        timeout=180_000,
    )
    # The table is redrawn after the answer, from its own request: wait for it.
    tab.wait_for_selector("#taught td:text('premise false')")
    listed = tab.locator("#taught").inner_text()
    assert "premise false" in listed and "missing fact" in listed
    screenshot(tab, "teach.png")
    assert console.errors == []


def test_chat_login_message_memories_and_escaping(
    site: ServiceProcess, page: tuple[Any, Any]
) -> None:
    tab, console = page
    user = site.user("pat")
    hostile = "<script>window.owned = 1</script><b>bold?</b>"
    assert user.post("/v1/memories", json={"text": hostile, "importance": 3}).status_code == 200
    user.post("/v1/memories", json={"text": "My sister Ana lives in Lisbon.", "importance": 7})
    tab.goto(f"{site.url}/chat")
    tab.fill("#key", "ms_not_a_key")
    tab.click("button:text('Log in')")
    tab.wait_for_selector("#error:text('Could not log in')")
    assert "unknown API key" in tab.locator("#error").inner_text()
    tab.fill("#key", user.headers["Authorization"].removeprefix("Bearer "))
    tab.click("button:text('Log in')")
    tab.wait_for_selector("#memories .memory")
    shown = tab.locator(".memory-text", has_text="window.owned")
    assert shown.inner_text() == hostile
    assert tab.evaluate("window.owned") is None and tab.locator("#memories b").count() == 0
    tab.fill("#message", "Where does my sister live?")
    tab.click("button:text('Send')")
    tab.wait_for_selector(".message.assistant", timeout=180_000)
    assert "Lisbon" in tab.locator(".message.assistant ul.used").inner_text()
    screenshot(tab, "chat.png")
    errors = [e for e in console.errors if "401" not in e]  # the refused key's request
    assert errors == []


def test_chat_shows_what_a_newer_memory_replaced_and_restores_it(
    site: ServiceProcess, page: tuple[Any, Any]
) -> None:
    tab, console = page
    user = site.user("quinn")
    leeds = user.post("/v1/memories", json={"text": "I live in Leeds.", "importance": 6}).json()
    moved = user.post(f"/v1/memories/{leeds['id']}/supersede", json={"text": "I live in York."})
    assert moved.status_code == 200
    tab.goto(f"{site.url}/chat")
    tab.fill("#key", user.headers["Authorization"].removeprefix("Bearer "))
    tab.click("button:text('Log in')")
    tab.wait_for_selector("#replaced li")
    replaced = tab.locator("#replaced li").first.inner_text()
    assert "I live in Leeds." in replaced
    assert "replaced by “I live in York.” (correction)" in replaced
    assert "replaces 1" in tab.locator("#memories").inner_text()
    tab.locator("#replaced li button:text('restore')").click()
    tab.wait_for_selector("#replaced-title", state="hidden")
    assert "I live in Leeds." in tab.locator("#memories").inner_text()
    assert user.get(f"/v1/memories/{leeds['id']}").json()["status"] == "active"
    assert console.errors == []


def test_live_view_follows_a_run_as_it_is_written(
    site: ServiceProcess, page: tuple[Any, Any]
) -> None:
    """A run folder without summary.json is live: the page follows its log over server-sent
    events, new ticks extend the timeline, and the run's end is shown."""
    runs = Path(site.env["MINDSTREAM_SERVICE__RUNS"])
    live = runs / "live"
    shutil.copytree(RUN, live, ignore=shutil.ignore_patterns("summary.json", "memory"))
    lines = (RUN / "events.jsonl").read_text().splitlines()
    cut = next(n for n, line in enumerate(lines) if json.loads(line)["tick"] > 3)
    (live / "events.jsonl").write_text("\n".join(lines[:cut]) + "\n")
    tab, console = page
    tab.goto(f"{site.url}/runs/live")
    tab.wait_for_selector("#live:text('live')")
    assert tab.locator("#scrubber").get_attribute("max") == "3"
    with (live / "events.jsonl").open("a") as log:
        log.write("\n".join(lines[cut:]) + "\n")
    last = json.loads(lines[-1])["tick"]
    tab.wait_for_function(f"document.querySelector('#scrubber').max === '{last}'")
    assert tab.locator("#tick-label").inner_text().startswith(f"tick {last} ")  # it followed
    shutil.copy(RUN / "summary.json", live / "summary.json")
    tab.wait_for_selector("#live:text('finished')")
    assert console.errors == []


def test_chat_keeps_reversed_and_very_long_words_in_their_place(
    site: ServiceProcess, page: tuple[Any, Any]
) -> None:
    tab, console = page
    user = site.user("rae")
    for text in ("I like \u202eyllaer tea", "a" * 4000, "My cat is called Pip."):
        assert user.post("/v1/memories", json={"text": text, "importance": 3}).status_code == 200
    tab.goto(f"{site.url}/chat")
    tab.fill("#key", user.headers["Authorization"].removeprefix("Bearer "))
    tab.click("button:text('Log in')")
    tab.wait_for_selector("#memories .memory")
    assert tab.locator("#memories .memory").first.inner_text().startswith("My cat")  # newest
    reversed_row = tab.locator(".memory", has_text="yllaer")
    correct = reversed_row.locator("button:text('correct')").bounding_box()
    forget = reversed_row.locator("button:text('forget')").bounding_box()
    assert forget["x"] > correct["x"]  # the override stayed in the text: buttons in order
    assert tab.evaluate("document.documentElement.scrollWidth") <= 1360
    assert console.errors == []
