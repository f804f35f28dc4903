"""Users and their API keys. Keys are random (256 bits) and stored only as SHA-256 hashes; the
admin key comes from MINDSTREAM_ADMIN_KEY or a file created (mode 0600) on first start."""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field

from mindstream.service.shards import user_tag

USER_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
ADMIN_ENV = "MINDSTREAM_ADMIN_KEY"


class UserError(ValueError):
    """A user name is invalid or unknown."""


class UserExists(UserError):
    """The user name is taken."""


def new_key(tag: str | None = None) -> str:
    """`ms_<tag>_<secret>`: the tag names the user's replica (see `shards`)."""
    return f"ms_{tag}_{secrets.token_urlsafe(32)}" if tag else "ms_" + secrets.token_urlsafe(32)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class LastKey(UserError):
    """Revoking this key would leave the user with none."""


class KeyInfo(BaseModel):
    id: str = Field(description="the first 12 hex digits of the key's SHA-256")
    label: str
    created: str


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _upgraded(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry of the one-key format as the several-keys one."""
    if "keys" in entry:
        return entry
    key = {"sha256": entry["key_sha256"], "label": "first", "created": entry["created"]}
    return {"created": entry["created"], "keys": [key]}


class Registry(Protocol):
    """Where users and their key hashes are kept: a JSON file for one process, a chroma
    collection that every replica reads for several."""

    def load(self) -> dict[str, dict[str, Any]]: ...

    def save(self, name: str, entry: dict[str, Any]) -> None: ...

    def delete(self, name: str) -> None: ...


class JsonRegistry:
    """`users.json` in the data folder, written atomically (mode 0600)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "users.json"

    def load(self) -> dict[str, dict[str, Any]]:
        stored = json.loads(self.path.read_text(encoding="utf-8")) if self.path.is_file() else {}
        return {name: _upgraded(entry) for name, entry in stored.items()}

    def save(self, name: str, entry: dict[str, Any]) -> None:
        users = self.load()
        users[name] = entry
        self._write(users)

    def delete(self, name: str) -> None:
        users = self.load()
        users.pop(name, None)
        self._write(users)

    def _write(self, users: dict[str, dict[str, Any]]) -> None:
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(users, indent=1), encoding="utf-8")
        os.chmod(temporary, 0o600)
        os.replace(temporary, self.path)


class Users:
    """Users -> the hashes of their keys (several, each with a label, so one can be rotated
    while another keeps working). Read from the registry again when a key or name is not
    known here, so a user another replica created is found: at most one read a second, and a
    miss waits for the next read rather than answering from one made before it asked."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._lock = threading.Lock()
        self._refreshed = 0.0
        self._users: dict[str, dict[str, Any]] = {}
        self._by_hash: dict[str, str] = {}
        self._refresh()

    def create(self, name: str) -> str:
        """A new user; their key, shown this once."""
        if not USER_NAME.match(name):
            raise UserError(f"user name {name!r}: use 1-64 letters, digits, '.', '_' or '-'")
        with self._lock:
            self._refresh()
            if name in self._users:
                raise UserExists(f"user {name!r} exists")
            self._users[name] = {"created": _now(), "keys": []}
            return self._new_key(name, "first")

    def add_key(self, name: str, label: str) -> str:
        """Another key for the user; shown this once."""
        with self._lock:
            return self._new_key(name, label)

    def keys(self, name: str) -> list[KeyInfo]:
        return [
            KeyInfo(id=k["sha256"][:12], label=k["label"], created=k["created"])
            for k in self._users[name]["keys"]
        ]

    def revoke(self, name: str, key_id: str) -> None:
        """Revoke one of the user's keys by its id; never the last one (`LastKey`)."""
        with self._lock:
            keys = self._users[name]["keys"]
            found = [k for k in keys if k["sha256"][:12] == key_id]
            if not found:
                raise KeyError(f"no key {key_id!r}")
            if len(keys) == 1:
                raise LastKey("that is the user's last key: add another before revoking it")
            keys.remove(found[0])
            self._by_hash.pop(found[0]["sha256"], None)
            self.registry.save(name, self._users[name])

    def key_id(self, key: str) -> str:
        return digest(key)[:12]

    def who(self, key: str) -> str | None:
        """The user a key belongs to; an unknown key reads the registry again (at most once a
        second, so a key made on another replica just now is found; the service rate-limits
        unknown keys by address before asking)."""
        hashed = digest(key)
        if hashed not in self._by_hash:
            asked = time.monotonic()
            with self._lock:
                if self._refreshed <= asked:  # no read began since this key was asked for
                    time.sleep(max(0.0, self._refreshed + 1.0 - time.monotonic()))
                    self._refresh()
        return self._by_hash.get(hashed)

    def known(self, key: str) -> bool:
        """Whether the key is one this process has read (no registry read)."""
        return digest(key) in self._by_hash

    def remove(self, name: str) -> None:
        with self._lock:
            self._refresh()
            entry = self._users.pop(name, None)
            if entry is None:
                raise UserError(f"no user {name!r}")
            for key in entry["keys"]:
                self._by_hash.pop(key["sha256"], None)
            self.registry.delete(name)

    def names(self) -> list[str]:
        with self._lock:
            self._refresh()
        return sorted(self._users)

    def _new_key(self, name: str, label: str) -> str:
        key = new_key(user_tag(name))
        hashed = digest(key)
        self._users[name]["keys"].append({"sha256": hashed, "label": label, "created": _now()})
        self._by_hash[hashed] = name
        self.registry.save(name, self._users[name])
        return key

    def _refresh(self) -> None:
        self._refreshed = time.monotonic()  # when the read began: later writes may be missing
        self._users = self.registry.load()
        self._by_hash = {k["sha256"]: n for n, u in self._users.items() for k in u["keys"]}


def admin_key(folder: Path) -> tuple[str, Path | None]:
    """The admin key, and the file it was written to when it was made here."""
    from_env = os.environ.get(ADMIN_ENV, "").strip()
    if from_env:
        return from_env, None
    path = folder / "admin.key"
    if path.is_file():
        return path.read_text(encoding="utf-8").strip(), path
    key = new_key()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(key + "\n")
    return key, path
