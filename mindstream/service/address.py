"""Where the service may listen, and keeping its data folder private.

The data folder holds people's words and keys: files are 0600 and folders 0700, for what
this process writes (umask) and for what an older version left. Listening beyond loopback
serves plain HTTP to the network, so it needs an explicit flag and says what to put in front.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path

PUBLIC_WARNING = (
    "warning: listening on {host}, beyond this machine, over plain HTTP: put it behind a "
    "reverse proxy that terminates TLS (nginx, Caddy, HAProxy) before anyone sends it a key"
)


class AddressError(ValueError):
    """The service cannot or may not listen where it was asked to."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_address(host: str, port: int, public: bool) -> str | None:
    """None, or the warning to print; refuses a public host without `public` and a busy port
    (before anything is written, so a failed start leaves no admin key behind)."""
    if not is_loopback(host) and not public:
        raise AddressError(
            f"service.host {host} listens beyond this machine: pass --public to allow it "
            "(and serve it behind TLS)"
        )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise AddressError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    return None if is_loopback(host) else PUBLIC_WARNING.format(host=host)


def keep_private(folder: Path) -> None:
    """New files 0600 and folders 0700 (this process's umask); existing ones made so."""
    os.umask(0o077)
    folder.mkdir(parents=True, exist_ok=True)
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o700 if path.is_dir() else 0o600)
