"""Call accounting: per-component totals from direct records and from langchain callbacks."""

from __future__ import annotations

import time

from rich.console import Console

from mindstream.lm import BusyClock, CallLedger
from mindstream.lm.accounting import counted, counted_chat
from mindstream.lm.fakes import ScriptedChatModel


def test_records_accumulate_per_component() -> None:
    ledger = CallLedger()
    ledger.record("importance", prompt_tokens=10, seconds=0.5)
    ledger.record("importance", prompt_tokens=5, seconds=0.25)
    ledger.record("plan", completion_tokens=7)
    usage = ledger.usage()
    assert usage["importance"].calls == 2 and usage["importance"].prompt_tokens == 15
    assert ledger.total().calls == 3 and ledger.total().completion_tokens == 7


def test_callback_counts_any_chat_model_by_component() -> None:
    ledger = CallLedger()
    model = ScriptedChatModel(default="three words here", callbacks=[ledger.callback()])
    model.invoke("hello there", config={"metadata": {"component": "dialogue"}})
    model.batch(["a", "b"], config={"metadata": {"component": "plan"}})
    usage = ledger.usage()
    assert usage["dialogue"].calls == 1
    assert usage["dialogue"].completion_tokens == 3
    assert usage["plan"].calls == 2


def test_table_renders_every_component() -> None:
    ledger = CallLedger()
    ledger.record("reflect", prompt_tokens=3)
    console = Console(record=True, width=100)
    console.print(ledger.table())
    text = console.export_text()
    assert "reflect" in text and "total" in text


def test_busy_clock_counts_overlapping_calls_once_and_the_gaps_not_at_all() -> None:
    clock = BusyClock()
    with clock.busy():
        time.sleep(0.05)
        with clock.busy():  # a second call in flight at the same time: no extra time
            time.sleep(0.05)
    time.sleep(0.3)  # nothing in flight: the framework's time, not counted
    first = clock.seconds()
    assert 0.1 <= first < 0.3
    clock.enter()
    time.sleep(0.05)
    assert clock.seconds() >= first + 0.05  # a call under way counts while it runs
    clock.leave()
    counted = clock.seconds()
    clock.leave()  # an end without a start adds nothing
    time.sleep(0.3)
    assert clock.seconds() == counted


def test_a_counted_chat_model_is_counted_once_under_its_component() -> None:
    ledger, other = CallLedger(), CallLedger()
    model = ScriptedChatModel(default="two words", callbacks=[other.callback()])
    view = counted_chat(counted_chat(model, "plan", ledger), "reflect", ledger)
    view.invoke("hello")
    assert set(ledger.usage()) == {"reflect"} and ledger.usage()["reflect"].calls == 1
    assert other.usage() == {}  # a ledger's callback is replaced, never stacked
    assert counted(model, "plan", ledger) is model  # counts nothing itself: as it is
