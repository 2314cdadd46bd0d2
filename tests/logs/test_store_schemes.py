"""A run is kept only where it persists: a local folder or an object store (s3://).
Every other scheme, and a store URL without a bucket, is one line and status 2 before
anything is written; nothing lands in a local folder named like the URL."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import invoke, one_line_error

import haggis_sim as hs
from haggis_sim.logs.store import StoreError, location

RUN = ["-s", "greedy,random", "-n", "4", "--jobs", "1", "-q"]


@pytest.mark.parametrize(
    ("out", "words"),
    [
        ("memory://bucket/run", ["memory:// is not one"]),
        ("ftp://127.0.0.1:9/run", ["ftp:// is not one"]),
        ("zip://run::/missing.zip", ["zip:// is not one"]),
        ("s3://", ["s3://: a run URL needs a bucket"]),
        ("s3://bucket", ["a run URL needs a bucket and a prefix"]),
    ],
)
def test_run_refuses_stores_that_do_not_keep_a_run(
    out: str, words: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    one_line_error(invoke("run", *RUN, "--out", out), *words)
    one_line_error(invoke("query", out, "SELECT 1"), *words)
    assert list(tmp_path.iterdir()) == []


def test_location_keeps_local_paths_and_store_urls() -> None:
    assert location("runs/a") == Path("runs/a")
    assert location("c:/runs") == Path("c:/runs")
    assert location("file:///tmp/r") == Path("/tmp/r")
    assert location(Path("s3://b/p")) == "s3://b/p"  # a Path folds s3:// into s3:/
    with pytest.raises(StoreError):
        location(Path("s3://"))


def test_tournament_refuses_a_store_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(hs.InputError, match="tournament plays into a local folder"):
        hs.tournament(["greedy", "random"], games=4, out="s3://bucket/p")
    with pytest.raises(hs.InputError, match="memory:// is not one"):
        hs.tournament(["greedy", "random"], games=4, out="memory://bucket/p")
    assert list(tmp_path.iterdir()) == []
