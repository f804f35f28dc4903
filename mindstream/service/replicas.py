"""`mindstream serve --replicas N`: N service processes sharing users, on loopback.

A chroma server holds the memories, the user registry and TeachMe's facts; with `--stores M`,
M servers share the memories (replica i keeps its users' on store i mod M) and the first keeps
the registry and the facts. Each replica is the only writer for the users it owns (`shards`);
HAProxy in front sends each request to the owner, read from the key. Whatever dies is
restarted: a replica (until it is back, its users get 503 with Retry-After from the proxy,
everyone else is served as before), a chroma server (meanwhile the replicas on it answer 503
naming the store) or the proxy. Ctrl-C stops it all.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from mindstream.lm.served.server import free_port, wait_until_answers
from mindstream.service.address import keep_private
from mindstream.service.registry import LEASE_OWNER_ENV
from mindstream.service.users import admin_key

RETRY_AFTER_S = 5
RESTART_PAUSE_S = 2.0
UNAVAILABLE = (
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    f"Retry-After: {RETRY_AFTER_S}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n"
    '{"error": {"code": 503, "message": "the replica that keeps your memories is restarting: '
    f'retry in {RETRY_AFTER_S} s"}}}}\n'
)


class ReplicaError(ValueError):
    """The set cannot start (no haproxy, a server that never answered)."""


def proxy_config(port: int, replicas: list[int], unavailable: Path) -> str:
    """HAProxy: the owner replica from the key's tag (or the name on a user's deletion);
    anything else (pages, admin, health) to any replica that is up."""
    n = len(replicas)
    lines = [
        "global",
        "  maxconn 2048",
        "defaults",
        "  mode http",
        "  timeout connect 2s",
        "  timeout client 600s",
        "  timeout server 600s",
        "frontend api",
        f"  bind 127.0.0.1:{port}",
        "  http-request set-var(txn.tag) req.hdr(Authorization),word(2,_) "
        'if { req.hdr(Authorization) -m beg "Bearer ms_" }',
        "  http-request set-var(txn.tag) path,field(4,/),sha2(256),hex,lower,bytes(0,8) "
        "if { path_beg /admin/users/ } METH_DELETE",
        f"  http-request set-var(txn.shard) var(txn.tag),crc32,mod({n}) "
        "if { var(txn.tag) -m found }",
        "  use_backend replica%[var(txn.shard)] if { var(txn.shard) -m found }",
        "  default_backend any",
        "backend any",
        "  balance roundrobin",
        "  option httpchk GET /health",
        *(
            f"  server r{i} 127.0.0.1:{p} check inter 1s fall 2 rise 1"
            for i, p in enumerate(replicas)
        ),
    ]
    for i, p in enumerate(replicas):
        lines += [
            f"backend replica{i}",
            "  option httpchk GET /health",
            *(f"  errorfile {code} {unavailable}" for code in (502, 503, 504)),
            f"  server r{i} 127.0.0.1:{p} check inter 1s fall 2 rise 1",
        ]
    return "\n".join(lines) + "\n"


class ReplicaSet:
    def __init__(self, data: Path, port: int, replicas: int, stores: int = 1) -> None:
        """`stores` chroma servers: the first keeps the user registry and TeachMe's facts,
        and replica i keeps its users' memories on store i mod `stores`."""
        if not 1 <= stores <= replicas:
            raise ReplicaError(f"--stores {stores}: between 1 and the replicas ({replicas})")
        found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/sbin")
        if found is None:
            raise ReplicaError("haproxy is not installed: `make haproxy` installs Debian's")
        self.haproxy = found
        keep_private(data)
        self.data, self.port, self.count = data, port, replicas
        self.key, self.key_file = admin_key(data)
        self.store_ports = [free_port() for _ in range(stores)]
        self.chroma_port = self.store_ports[0]
        self.ports = [free_port() for _ in range(replicas)]
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self._died: dict[str, float] = {}

    def run(self) -> None:
        """Start everything, restart a replica that exits, stop all on SIGINT/SIGTERM."""
        stopping: list[int] = []
        signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
        try:
            self.start()
            while not stopping:
                self.restart_the_dead()
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def start(self) -> None:
        for store in range(len(self.store_ports)):
            self._spawn(_store_name(store), self._chroma_command(store), os.environ.copy())
        for store, port in enumerate(self.store_ports):
            self._wait(f"http://127.0.0.1:{port}/api/v2/heartbeat", _store_name(store))
        for i in range(self.count):
            self._start_replica(i)
        for i, port in enumerate(self.ports):
            self._wait(f"http://127.0.0.1:{port}/health", f"replica{i}")
        unavailable = self.data / "503.http"
        unavailable.write_text(UNAVAILABLE, encoding="utf-8")
        config = self.data / "haproxy.cfg"
        config.write_text(proxy_config(self.port, self.ports, unavailable), encoding="utf-8")
        self._spawn("proxy", self._proxy_command(), os.environ.copy())
        self._wait(f"http://127.0.0.1:{self.port}/health", "proxy")
        self._write_state()

    def restart_the_dead(self, pause: float = RESTART_PAUSE_S) -> None:
        """Whatever exited (a replica, the chroma server, the proxy) starts again `pause`
        seconds later, on the same port and folder (no tight crash loop). While the store is
        down the replicas answer 503 naming it, and go on when it is back."""
        now = time.monotonic()
        for name, child in list(self.children.items()):
            if child.poll() is None:
                continue
            died = self._died.setdefault(name, now)
            if died == now:
                print(f"{name} exited (code {child.returncode}); restarting it", flush=True)
            if now - died >= pause:
                del self._died[name]
                self._restart(name)
                self._write_state()

    def _restart(self, name: str) -> None:
        if name.startswith("replica"):
            self._start_replica(int(name.removeprefix("replica")))
        elif name.startswith("chroma"):
            store = int(name.removeprefix("chroma") or 0)
            self._spawn(name, self._chroma_command(store), os.environ.copy())
        else:
            self._spawn("proxy", self._proxy_command(), os.environ.copy())

    def stop(self) -> None:
        for child in reversed(list(self.children.values())):
            if child.poll() is None:
                child.terminate()
        for child in self.children.values():
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()

    def _start_replica(self, index: int) -> None:
        env = {
            **os.environ,
            "MINDSTREAM_ADMIN_KEY": self.key,
            "MINDSTREAM_STORE__KIND": "chroma-server",
            "MINDSTREAM_STORE__HOST": "127.0.0.1",
            "MINDSTREAM_STORE__PORT": str(self.chroma_port),
            "MINDSTREAM_STORE__MEMORY_PORT": str(self.store_ports[index % len(self.store_ports)]),
            "MINDSTREAM_SERVICE__REPLICAS": str(self.count),
            "MINDSTREAM_SERVICE__REPLICA": str(index),
            LEASE_OWNER_ENV: f"{socket.gethostname()}:{os.getpid()}:replica{index}",
        }
        folder = self.data / f"replica-{index}"
        command = [sys.executable, "-m", "mindstream", "serve", "--data", str(folder)]
        self._spawn(f"replica{index}", [*command, "--port", str(self.ports[index])], env)

    def _proxy_command(self) -> list[str]:
        return [self.haproxy, "-f", str(self.data / "haproxy.cfg"), "-db"]

    def _chroma_command(self, store: int) -> list[str]:
        chroma = Path(sys.executable).parent / "chroma"
        path = str(self.data / ("chroma" if store == 0 else f"chroma-{store}"))
        return [
            str(chroma),
            "run",
            "--path",
            path,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.store_ports[store]),
        ]

    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> None:
        log = (self.data / f"{name}.log").open("ab")
        self.children[name] = subprocess.Popen(command, env=env, stdout=log, stderr=log)

    def _wait(self, url: str, child: str, timeout: float = 180) -> None:
        """Until the child process `child` answers at `url` (its log is data/<child>.log)."""
        outcome = wait_until_answers(url, timeout, self.children[child])
        if outcome == "answered":
            return
        self.stop()
        why = "exited" if outcome == "exited" else f"did not answer within {timeout:g} s"
        raise ReplicaError(f"{child} {why} at {url}; see {self.data / (child + '.log')}")

    def _write_state(self) -> None:
        state = {
            "proxy": self.port,
            "chroma": self.chroma_port,
            "stores": self.store_ports,
            "replicas": [
                {"index": i, "port": p, "pid": self.children[f"replica{i}"].pid}
                for i, p in enumerate(self.ports)
            ],
            "pids": {name: child.pid for name, child in self.children.items()},
        }
        (self.data / "replicas.json").write_text(json.dumps(state, indent=1), encoding="utf-8")


def _store_name(store: int) -> str:
    """The child process of a store: "chroma" for the first (it keeps the registry)."""
    return "chroma" if store == 0 else f"chroma{store}"
