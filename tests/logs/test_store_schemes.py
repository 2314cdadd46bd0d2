"""A run is kept only where it persists: a local folder or an object store (s3://).
Every other scheme, and a store URL without a bucket, is one line and status 2 before
anything is written; nothing lands in a local folder named like the URL."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import invoke, one_line_error

import haggis_sim as hs
from haggis_sim.logs.store import StoreError, location
from haggis_sim.runner.tournament import tournament

RUN = ["-s", "greedy,random", "-n", "4", "--jobs", "1", "-q"]


@pytest.mark.parametrize(
    ("out", "words"),
    [
        ("memory://bucket/run", ["memory:// is not one"]),
        ("ftp://127.0.0.1:9/run", ["ftp:// is not one"]),
        ("zip://run::/missing.zip", ["zip:// is not one"]),
        ("s3://", ["s3://: a run URL needs a bucket"]),
        ("s3://bucket", ["a run URL needs a bucket and a prefix"]),
        ("gcs://", ["gcs://: runs are kept in a local folder", "absolute path"]),
        ("memory://", ["memory://: runs are kept"]),
        ("az://", ["az://: runs are kept"]),
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
        tournament(["greedy", "random"], games=4, out="s3://bucket/p")
    with pytest.raises(hs.InputError, match="memory:// is not one"):
        tournament(["greedy", "random"], games=4, out="memory://bucket/p")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("out", ["gcs://", "memory://bucket/x", "zip://a"])
def test_commands_that_write_local_folders_refuse_a_url(
    out: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`experiment --out gcs://` played every arm into a local folder gcs:, which the
    readers then took for a URL and called damaged."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.toml").write_text(
        'name = "e"\nquestion = "q"\ngames = 4\nseed = 1\nstrategies = ["greedy", "random"]\n'
        'metric = "win_rate"\n[[arms]]\nname = "a"\n[[arms]]\nname = "b"\n'
        'strategies = ["random", "greedy"]\n'
    )
    one_line_error(invoke("experiment", "x.toml", "--out", out, "--jobs", "1"), "looks like a URL")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.toml"]
    with pytest.raises(hs.InputError):
        tournament(["greedy", "random"], games=4, out=Path(out))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.toml"]


def test_a_local_folder_named_like_a_scheme_is_kept_by_its_absolute_path(tmp_path: Path) -> None:
    out = tmp_path / "gcs:"
    assert invoke("run", *RUN, "--out", str(out)).exit_code == 0
    res = invoke("query", str(out), "SELECT count(*) AS n FROM games")
    assert res.exit_code == 0 and "4" in res.stdout
