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


class Users:
    """The registry in `users.json`: user -> key hash; written atomically."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "users.json"
        self._lock = threading.Lock()
        self._users: dict[str, dict[str, str]] = (
            json.loads(self.path.read_text(encoding="utf-8")) if self.path.is_file() else {}
        )
        self._by_hash = {u["key_sha256"]: name for name, u in self._users.items()}

    def create(self, name: str) -> str:
        """A new user; their key, shown this once."""
        if not USER_NAME.match(name):
            raise UserError(f"user name {name!r}: use 1-64 letters, digits, '.', '_' or '-'")
        key = new_key()
        with self._lock:
            if name in self._users:
                raise UserExists(f"user {name!r} exists")
            created = datetime.now(UTC).isoformat()
            self._users[name] = {"key_sha256": digest(key), "created": created}
            self._by_hash[digest(key)] = name
            self._save()
        return key

    def who(self, key: str) -> str | None:
        return self._by_hash.get(digest(key))

    def remove(self, name: str) -> None:
        with self._lock:
            entry = self._users.pop(name, None)
            if entry is None:
                raise UserError(f"no user {name!r}")
            self._by_hash.pop(entry["key_sha256"], None)
            self._save()

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
