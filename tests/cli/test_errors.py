"""The command line blames the user only for input errors: a bug keeps its traceback.

Every user-facing error derives from :class:`haggis_sim.errors.InputError` and becomes
one ``error:`` line with status 2; any other exception, even a ``ValueError`` from deep
inside, is a fault of the program and must not be dressed up as bad input.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import invoke, one_line_error
from typer.testing import CliRunner

import haggis_sim.runner.run as run_module
from haggis_sim.cli import app
from haggis_sim.errors import IllegalAction, InputError
from haggis_sim.experiment import ExperimentError
from haggis_sim.logs.manifest import ManifestError
from haggis_sim.logs.query import QueryError
from haggis_sim.logs.schema import DamagedLogError
from haggis_sim.report import ReportError
from haggis_sim.runner.pool import BackendError
from haggis_sim.runner.run import RunError
from strategies import StrategyError

runner = CliRunner()


@pytest.mark.parametrize(
    "cls",
    [
        IllegalAction,
        ExperimentError,
        ManifestError,
        QueryError,
        DamagedLogError,
        ReportError,
        BackendError,
        RunError,
        StrategyError,
    ],
)
def test_every_user_facing_error_is_an_input_error(cls: type[Exception]) -> None:
    assert issubclass(cls, InputError) and issubclass(cls, ValueError)


def test_an_internal_value_error_is_not_reported_as_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("the moves buffer is full")  # a bug, not the user's input

    monkeypatch.setattr(run_module, "play_chunk", broken)
    args = ["run", "--strategies", "greedy,random", "--games", "4", "--jobs", "1"]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "run"), "-q"])
    assert res.exit_code == 1, res.stderr
    assert isinstance(res.exception, ValueError)
    assert "error: " not in res.stderr


def test_bad_input_is_still_one_line(tmp_path: Path) -> None:
    res = runner.invoke(app, ["run", "--games", "abc", "--out", str(tmp_path / "x"), "-q"])
    assert res.exit_code == 2
    assert res.stderr.strip().startswith("error: --games") and len(res.stderr.splitlines()) == 1
    res = runner.invoke(app, ["play", "--rules", "nosuch"])
    assert res.exit_code == 2 and "nosuch" in res.stderr


def test_a_scheduler_without_the_dask_backend_is_refused(tmp_path: Path) -> None:
    """--scheduler alone was silently ignored (the run played on this machine)."""
    out = tmp_path / "r"
    res = invoke("run", "-s", "greedy,random", "-n", "8", "--scheduler", "tcp://127.0.0.1:9",
                 "--out", str(out))  # fmt: skip
    one_line_error(res, "--scheduler tcp://127.0.0.1:9", "--backend dask")
    assert not out.exists()
    assert invoke("run", "-s", "greedy,random", "-n", "8", "-q", "--jobs", "1",
                  "--out", str(out)).exit_code == 0  # fmt: skip
    res = invoke("run", "--resume", str(out), "--scheduler", "tcp://127.0.0.1:9")
    one_line_error(res, "--backend dask")


@pytest.mark.parametrize("address", ["not an address", "tcp://HEAD", "127.0.0.1"])
def test_a_scheduler_that_is_not_an_address_is_refused(address: str, tmp_path: Path) -> None:
    """'not an address' reached dask.distributed and left as a ValueError traceback."""
    out = tmp_path / "r"
    res = invoke("run", "-s", "greedy,random", "-n", "8", "--backend", "dask",
                 "--scheduler", address, "--out", str(out))  # fmt: skip
    one_line_error(res, "is not a Dask scheduler address", "tcp://HOST:PORT")
    assert not out.exists()


class _Server:
    """A TCP server on this machine that is not a Dask scheduler: it accepts and then
    either stays silent or answers as a web server does."""

    def __init__(self, answer: bytes | None) -> None:
        import socket
        import threading

        self.sock = socket.create_server(("127.0.0.1", 0))
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.answer = answer
        self.held: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            if self.answer is not None:
                conn.recv(65536)
                conn.sendall(self.answer)

    def close(self) -> None:
        for conn in self.held:
            conn.close()
        self.sock.close()


@pytest.mark.parametrize(
    "answer", [None, b"HTTP/1.0 400 Bad Request\r\nContent-Type: text/html\r\n\r\n<html>"]
)
def test_a_server_that_is_not_a_dask_scheduler_is_refused_before_anything_is_made(
    answer: bytes | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python3 -m http.server` as --scheduler waited past 280 s with the lock file made."""
    pytest.importorskip("distributed")
    import haggis_sim.runner.pool as pool

    monkeypatch.setattr(pool, "SCHEDULER_HANDSHAKE", 1.5)
    server = _Server(answer)
    try:
        out = tmp_path / "new" / "r"
        res = invoke("run", "-s", "greedy,random", "-n", "8", "--backend", "dask",
                     "--scheduler", server.address, "--out", str(out))  # fmt: skip
        one_line_error(res, server.address)
        assert not (tmp_path / "new").exists()
        done = tmp_path / "done"
        assert invoke("run", "-s", "greedy,random", "-n", "8", "-q", "--jobs", "1",
                      "--out", str(done)).exit_code == 0  # fmt: skip
        before = {p.name: p.read_bytes() for p in done.iterdir() if p.is_file()}
        res = invoke("run", "--resume", str(done), "--backend", "dask",
                     "--scheduler", server.address)  # fmt: skip
        one_line_error(res, server.address)
        assert {p.name: p.read_bytes() for p in done.iterdir() if p.is_file()} == before
    finally:
        server.close()


@pytest.mark.slow
def test_ctrl_c_while_a_silent_server_is_asked_ends_at_once(tmp_path: Path) -> None:
    """Ctrl-C during the scheduler handshake ran on for 12 s (the handshake thread was
    waited for) and then printed the handshake's error instead of the interruption."""
    import signal
    import subprocess
    import sys
    import time

    pytest.importorskip("distributed")
    server = _Server(None)
    out = tmp_path / "r"
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "haggis_sim.cli", "run", "-s", "greedy,random", "-n",
             "8", "--backend", "dask", "--scheduler", server.address, "--out", str(out)],
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not server.held and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.held, "the run never contacted the server"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        server.close()
    assert proc.returncode == 130, err
    assert took < 5, f"{took:.1f} s after Ctrl-C"
    assert "interrupted before the first game" in err and "scheduler" not in err, err
    assert not out.exists()


def test_a_scheduler_without_workers_says_the_run_waits_for_one() -> None:
    """With no worker the run waited in silence (no progress, no line) until one joined."""
    distributed = pytest.importorskip("distributed")
    from haggis_sim.cli.common import build_rules
    from haggis_sim.runner.run import RunConfig, make_pool

    rules = build_rules("revised", 2, []).as_dict()
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as c:
        config = RunConfig(strategies=["greedy", "random"], games=8, rules=rules,
                           backend="dask", scheduler=c.scheduler_address)  # fmt: skip
        pool, note = make_pool(config, 8)
        try:
            assert note is not None and "no workers yet" in note and c.scheduler_address in note
        finally:
            pool.close(cancel=True)
        c.scale(1)
        c.wait_for_workers(1, timeout=30)
        pool, note = make_pool(config, 8)
        pool.close(cancel=True)
        assert note is None


def test_an_interrupt_before_the_first_game_reports_no_finalizer_noise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C inside the first compile could leave a half-built llvmlite object whose
    finalizer failed at exit: an "Exception ignored in ... PassBuilder" traceback after
    the one line."""
    import sys

    import haggis_sim.cli.run as cli_run

    def interrupted(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_run, "_execute", interrupted)
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # restored afterwards
    out = tmp_path / "r"
    res = invoke("run", "-s", "greedy,random", "-n", "8", "-q", "--out", str(out))
    assert res.exit_code == 130
    assert "interrupted before the first game" in res.stderr and not out.exists()

    assert sys.unraisablehook is cli_run._ignore_unraisable  # the ending process: quiet

    class HalfBuilt:
        def __del__(self) -> None:
            raise AttributeError("'PassBuilder' object has no attribute '_as_parameter_'")

    HalfBuilt()  # its finalizer fails now, as at the end of the process
    assert "Exception ignored" not in capsys.readouterr().err
