"""Users and their API keys. Keys are random (256 bits) and stored only as SHA-256 hashes; the
admin key comes from MINDSTREAM_ADMIN_KEY or a file created (mode 0600) on first start."""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

USER_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
ADMIN_ENV = "MINDSTREAM_ADMIN_KEY"


class UserError(ValueError):
    """A user name is invalid or unknown."""


class UserExists(UserError):
    """The user name is taken."""


def new_key() -> str:
    return "ms_" + secrets.token_urlsafe(32)


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


class Users:
    """The registry in `users.json`: user -> the hashes of their keys (several, each with a
    label, so one can be rotated while another keeps working); written atomically."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "users.json"
        self._lock = threading.Lock()
        stored = json.loads(self.path.read_text(encoding="utf-8")) if self.path.is_file() else {}
        self._users: dict[str, dict[str, Any]] = {n: _upgraded(u) for n, u in stored.items()}
        self._by_hash = {k["sha256"]: name for name, u in self._users.items() for k in u["keys"]}

    def create(self, name: str) -> str:
        """A new user; their key, shown this once."""
        if not USER_NAME.match(name):
            raise UserError(f"user name {name!r}: use 1-64 letters, digits, '.', '_' or '-'")
        with self._lock:
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
            self._save()

    def key_id(self, key: str) -> str:
        return digest(key)[:12]

    def who(self, key: str) -> str | None:
        return self._by_hash.get(digest(key))

    def remove(self, name: str) -> None:
        with self._lock:
            entry = self._users.pop(name, None)
            if entry is None:
                raise UserError(f"no user {name!r}")
            for key in entry["keys"]:
                self._by_hash.pop(key["sha256"], None)
            self._save()

    def _new_key(self, name: str, label: str) -> str:
        key = new_key()
        hashed = digest(key)
        self._users[name]["keys"].append({"sha256": hashed, "label": label, "created": _now()})
        self._by_hash[hashed] = name
        self._save()
        return key

    def names(self) -> list[str]:
        return sorted(self._users)

    def _save(self) -> None:
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(self._users, indent=1), encoding="utf-8")
        os.chmod(temporary, 0o600)
        os.replace(temporary, self.path)


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
