"""Real clusters and stores for the scale-out tests: a ``dask scheduler`` and ``dask
worker`` processes (each worker in its own mount namespace, so the client's folders are
invisible to it), a moto S3 server, and a recording HTTP proxy in front of the server so
a test can tell which process made which request. Nothing here is part of the tool."""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env(**extra: str) -> dict[str, str]:
    """This environment (the numba cache included) without CI or a PYTHONPATH."""
    out = {k: v for k, v in os.environ.items() if k not in {"CI", "PYTHONPATH"}}
    return {**out, **extra}


def linked_cache(folder: Path) -> Path:
    """A cache folder of its own (for the URL folders a run keeps under the cache) whose
    compiled engine is this session's: a link to this process's numba cache, so a run
    there loads what the session compiled (and adds what it lacks) instead of compiling
    the engine anew."""
    from haggis_sim._cache import cache_dir

    engine = folder / cache_dir().name
    if not engine.exists():
        folder.mkdir(parents=True, exist_ok=True)
        cache_dir().mkdir(parents=True, exist_ok=True)
        engine.symlink_to(cache_dir(), target_is_directory=True)
    return folder


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM every process group, then SIGKILL what is still there 15 s later."""
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)


def private_mount(hidden: Path, *command: str) -> list[str]:
    """``command`` in a new mount namespace with an empty tmpfs over ``hidden``."""
    script = 'mount -t tmpfs haggis-test "$0" && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
            str(hidden), *command]  # fmt: skip


def check_private_mount(base: Path) -> str | None:
    """Why a private tmpfs over ``base`` cannot be had here (None: it can)."""
    probe = subprocess.run(private_mount(base, "true"), capture_output=True, text=True)
    if probe.returncode == 0:
        return None
    return (
        "unshare --mount with a private tmpfs is not possible here (needs root or user "
        f"namespaces): {probe.stderr.strip()}"
    )


def start_cluster(
    base: Path, workers: int, worker_env: dict[str, str]
) -> tuple[str, list[subprocess.Popen[bytes]]]:
    """A scheduler and ``workers`` one-thread workers that cannot see ``base``; its
    address and processes (stop them with :func:`stop`).

    The scheduler must be listening within 60 s (three tries, each on a fresh port), or
    RuntimeError quotes its log (kept beside ``base``, never inside it): a scheduler
    that dies at start fails the fixture with the reason instead of leaving a client
    waiting."""
    logs = base.parent / f"{base.name}-logs"
    logs.mkdir(exist_ok=True)
    for attempt in range(3):  # a port taken between free_port() and the bind: next one
        address = f"tcp://127.0.0.1:{free_port()}"
        port = address.rsplit(":", 1)[1]
        procs: list[subprocess.Popen[bytes]] = []
        with open(logs / "scheduler.log", "wb") as log:
            procs.append(subprocess.Popen(
                [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", port,
                 "--no-dashboard"], env=env(), start_new_session=True,
                stdout=log, stderr=subprocess.STDOUT,
            ))  # fmt: skip
        try:
            wait_listening(int(port), procs[0], logs / "scheduler.log", 60)
            break
        except RuntimeError:
            stop(procs)
            if attempt == 2:
                raise
    for i in range(workers):
        worker = [str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-nanny",
                  "--no-dashboard", "--name", f"hidden-{i}"]  # fmt: skip
        with open(logs / f"worker-{i}.log", "wb") as log:
            procs.append(subprocess.Popen(
                private_mount(base, *worker), env=worker_env, start_new_session=True,
                stdout=log, stderr=subprocess.STDOUT, cwd="/",
            ))  # fmt: skip
    return address, procs


def wait_listening(port: int, proc: subprocess.Popen[bytes], log: Path, seconds: float) -> None:
    """Return once 127.0.0.1:``port`` accepts; RuntimeError with the tail of ``log`` if
    ``proc`` exits first or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            code = proc.poll()
            if code is not None or time.monotonic() > deadline:
                state = f"exited with {code}" if code is not None else f"silent {seconds} s"
                tail = log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{log.stem} on port {port} {state}:\n{tail}") from None
            time.sleep(0.1)


@contextlib.contextmanager
def moto_server() -> Iterator[str]:
    """A moto S3 server on a free 127.0.0.1 port (bounded start-up wait); its URL."""
    server = shutil.which("moto_server") or str(BIN / "moto_server")
    port = free_port()
    proc = subprocess.Popen(
        [server, "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto_server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@dataclass
class Request:
    when: float
    method: str
    path: str  # /bucket/key


@dataclass
class Proxy:
    """A recording HTTP proxy to an S3 endpoint: ``url`` is what a client is pointed at.

    ``deny``: buckets whose writes are refused (403 AccessDenied, as for credentials
    without write permission); ``drop``: buckets whose PUTs are answered 200 but not
    forwarded (a store that loses an object it acknowledged)."""

    target: str
    requests: list[Request] = field(default_factory=list)
    deny: set[str] = field(default_factory=set)
    drop: set[str] = field(default_factory=set)
    url: str = ""

    def puts(self, bucket: str) -> list[str]:
        """The keys PUT in ``bucket`` through this proxy, in order."""
        prefix = f"/{bucket}/"
        return [r.path[len(prefix) :] for r in self.requests
                if r.method == "PUT" and r.path.startswith(prefix)]  # fmt: skip


@contextlib.contextmanager
def recording_proxy(target: str) -> Iterator[Proxy]:
    """A :class:`Proxy` to ``target`` on a free 127.0.0.1 port, for the block."""
    proxy = Proxy(target)
    host = urlsplit(target).netloc

    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def _body(self) -> bytes:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                out = b""
                while True:
                    size = int(self.rfile.readline().split(b";")[0], 16)
                    chunk = self.rfile.read(size + 2)[:size]
                    if size == 0:
                        break
                    out += chunk
                return out
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _reply(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _any(self) -> None:
            body = self._body()
            path = urlsplit(self.path).path
            proxy.requests.append(Request(time.monotonic(), self.command, path))
            bucket = path.strip("/").split("/", 1)[0]
            writes = self.command in ("PUT", "POST", "DELETE")
            if writes and bucket in proxy.deny:
                xml = b"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
                self._reply(403, [("Content-Type", "application/xml"),
                                  ("Content-Length", str(len(xml)))], xml)  # fmt: skip
                return
            if self.command == "PUT" and bucket in proxy.drop and "/" in path.strip("/"):
                self._reply(200, [("ETag", '"0"'), ("Content-Length", "0")], b"")
                return
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() not in ("transfer-encoding", "connection", "host")}  # fmt: skip
            headers["Host"] = host
            headers["Content-Length"] = str(len(body))
            conn = http.client.HTTPConnection(host, timeout=60)
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                hop = ("transfer-encoding", "connection", "content-length")
                out = [(k, v) for k, v in resp.getheaders() if k.lower() not in hop]
                length = resp.getheader("Content-Length") if self.command == "HEAD" else None
                out.append(("Content-Length", length or str(len(data))))
                self._reply(resp.status, out, data)
            finally:
                conn.close()

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    server.daemon_threads = True
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
