"""Which replica owns a user, computed the same way here and in HAProxy.

A user's tag is the first 8 hex digits of SHA-256 of their name, and every key of theirs
carries it (`ms_<tag>_<secret>`), so the proxy reads the owner from the key alone (HAProxy:
`word(2,_),crc32,mod(N)`), and from the name on `DELETE /admin/users/<name>`
(`sha2(256),hex,lower,bytes(0,8),crc32,mod(N)`). Each replica is the only writer of the users
it owns; a request for another replica's user is refused (421), never served.
"""

from __future__ import annotations

import hashlib
import zlib


def user_tag(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:8]


def key_tag(key: str) -> str | None:
    """The tag in a key of the `ms_<tag>_<secret>` form (None for an older key)."""
    parts = key.split("_", 2)
    if len(parts) == 3 and parts[0] == "ms" and len(parts[1]) == 8:
        return parts[1]
    return None


def shard(tag: str, replicas: int) -> int:
    return zlib.crc32(tag.encode()) % replicas


def owner_of_name(name: str, replicas: int) -> int:
    return shard(user_tag(name), replicas)
