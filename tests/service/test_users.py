"""Keys another process created are found at once, even right after this process read the
registry (the miss waits for a fresh read instead of answering from an old one)."""

from __future__ import annotations

from pathlib import Path

from mindstream.service.users import JsonRegistry, Users


def test_a_key_made_elsewhere_just_after_a_read_is_known(tmp_path: Path) -> None:
    here, elsewhere = Users(JsonRegistry(tmp_path)), Users(JsonRegistry(tmp_path))
    assert here.who("ms_unknown") is None  # a fresh read of the registry
    key = elsewhere.create("ann")
    assert here.who(key) == "ann"
    assert here.who("ms_still_unknown") is None
