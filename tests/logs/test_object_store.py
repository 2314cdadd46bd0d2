"""Runs written to and read from an object store: a real S3-compatible server (moto's
server mode, started here on a free 127.0.0.1 port) reached through s3fs; nothing in the
tool is mocked. Credentials are in the environment only, as a user gives them."""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke, one_line_error
from cluster_helpers import free_port, linked_cache, moto_server

pytest.importorskip("s3fs")  # the test extra installs it; CI always has it
SECRET = f"secret-{uuid.uuid4().hex}"  # must appear in no object of a run
RUN = ["--strategies", "greedy,random", "--games", "120", "--chunk-size", "20", "--seed", "5"]


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """A moto S3 server on 127.0.0.1 for the session."""
    with moto_server() as url:
        yield url


@pytest.fixture
def bucket(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """A fresh bucket; the AWS_* variables point at the server; a private cache."""
    import s3fs

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    # the URL folders are this test's own; the compiled engine is the session's
    cache = linked_cache(tmp_path / "cache")
    monkeypatch.setenv("HAGGIS_SIM_CACHE_DIR", str(cache))
    s3fs.S3FileSystem.clear_instance_cache()
    fs = s3fs.S3FileSystem(endpoint_url=s3_endpoint)
    name = f"b{uuid.uuid4().hex[:12]}"
    fs.mkdir(name)
    return fs, name


def _ledger_digests(lines: bytes) -> list[tuple[str, ...]]:
    """Per table, the digests of the ledger's parts in game order (part boundaries out)."""
    entries = [json.loads(line) for line in lines.decode().splitlines() if line.strip()]
    entries.sort(key=lambda e: e["start"])
    return [tuple(e[t][2] for t in ("games", "rounds", "moves")) for e in entries]


@pytest.mark.slow  # a whole run through the S3 server; the refusals stay fast
def test_run_to_s3_equals_the_local_run(bucket: Any, tmp_path: Path) -> None:
    fs, name = bucket
    url = f"s3://{name}/run"
    res = invoke("run", *RUN, "--jobs", "1", "--quiet", "--out", url)
    assert res.exit_code == 0, (res.stdout, res.stderr)
    local = tmp_path / "local"
    res = invoke("run", *RUN, "--jobs", "1", "--quiet", "--out", str(local))
    assert res.exit_code == 0, res.stderr
    assert _ledger_digests(fs.cat(f"{name}/run/parts.jsonl")) == _ledger_digests(
        (local / "parts.jsonl").read_bytes()
    )
    for table in ("games", "rounds", "moves"):  # byte for byte, part for part
        for part in sorted(p.name for p in (local / table).iterdir()):
            assert fs.cat(f"{name}/run/{table}/{part}") == (local / table / part).read_bytes()
    manifest = json.loads(fs.cat(f"{name}/run/manifest.json"))
    assert manifest["status"] == "complete"
    # the working folder is gone once the run is in the store
    work = Path(os.environ["HAGGIS_SIM_CACHE_DIR"]) / "object-store" / "work"
    assert list(work.rglob("*")) == []
    # no secret in any object of the run
    for path in fs.find(f"{name}/run"):
        assert SECRET.encode() not in fs.cat(path), path


@pytest.mark.slow  # several seconds on this machine
def test_resume_after_an_interrupted_upload(bucket: Any, tmp_path: Path) -> None:
    fs, name = bucket
    url = f"s3://{name}/run"
    assert invoke("run", *RUN, "--jobs", "1", "--quiet", "--out", url).exit_code == 0
    whole = fs.cat(f"{name}/run/parts.jsonl")
    before = _tables(url)
    # as a run killed after 2 chunks whose ledger object lagged: 2 lines recorded, the
    # other parts uploaded (strays), one recorded part cut short, the manifest "running"
    lines = whole.decode().splitlines(keepends=True)
    fs.pipe(f"{name}/run/parts.jsonl", "".join(lines[:2]).encode())
    cut = json.loads(lines[1])
    part = f"{name}/run/moves/part-{cut['start']:010d}-{cut['stop']:010d}.parquet"
    fs.pipe(part, fs.cat(part)[:100])
    manifest = json.loads(fs.cat(f"{name}/run/manifest.json"))
    manifest.update(status="running")
    manifest.pop("finished", None)
    fs.pipe(f"{name}/run/manifest.json", json.dumps(manifest).encode())
    # other chunk sizes on resume: the strays' names are not replayed over
    res = invoke("run", "--resume", url, "--jobs", "1", "--quiet", "--chunk-size", "30")
    assert res.exit_code == 0, (res.stdout, res.stderr)
    assert "damaged" in res.stderr
    assert json.loads(fs.cat(f"{name}/run/manifest.json"))["status"] == "complete"
    after = fs.cat(f"{name}/run/parts.jsonl").decode().splitlines()
    assert after[0] == lines[0].strip()  # a good part is kept, not replayed
    parts = [p for p in fs.find(f"{name}/run") if p.endswith(".parquet")]
    assert len(parts) == 3 * len(after)  # no strays left
    for table, frame in _tables(url).items():
        assert frame.equals(before[table]), table


def _tables(url: str) -> dict[str, Any]:
    """Every table of the run at ``url`` (read through the readers' verified copy)."""
    from haggis_sim.logs import ledger
    from haggis_sim.logs.store import local_copy

    copy = local_copy(url)
    return {t: ledger.read_table(copy, t).collect() for t in ("games", "rounds", "moves")}


@pytest.mark.slow  # several seconds on this machine
def test_readers_take_a_url_and_the_sandbox_holds(bucket: Any, tmp_path: Path) -> None:
    fs, name = bucket
    url = f"s3://{name}/run"
    assert invoke("run", *RUN, "--jobs", "1", "--quiet", "--out", url).exit_code == 0
    fs.pipe(f"{name}/other/secret.parquet", fs.cat(f"{name}/run/games/" + _first_part(fs, name)))
    res = invoke("query", url, "SELECT count(*) AS n FROM games")
    assert res.exit_code == 0, res.stderr
    assert "120" in res.stdout
    for stolen in (f"s3://{name}/other/secret.parquet", f"s3://{name}/run/games/*.parquet"):
        res = invoke("query", url, f"SELECT count(*) FROM read_parquet('{stolen}')")
        one_line_error(res)
    res = invoke("replay", url, "3")
    assert res.exit_code == 0, res.stderr
    out = tmp_path / "report"
    res = invoke("report", url, "--out", str(out))
    assert res.exit_code == 0, res.stderr
    res = invoke("show", url, "3", "--out", str(tmp_path / "g.html"))
    assert res.exit_code == 0, res.stderr
    # a part of the local copy altered in place (same size) is fetched again, not trusted
    copy = Path(os.environ["HAGGIS_SIM_CACHE_DIR"]) / "object-store" / "copy"
    (kept,) = [p for p in copy.rglob(_first_part(fs, name)) if p.parent.name == "games"]
    data = bytearray(kept.read_bytes())
    data[-20] ^= 1
    kept.write_bytes(bytes(data))
    assert invoke("query", url, "SELECT count(*) FROM games").exit_code == 0
    assert kept.read_bytes() == fs.cat(f"{name}/run/games/" + _first_part(fs, name))
    # a part altered in the store is named, not read (by a reader without the copy)
    shutil.rmtree(copy)
    first = f"{name}/run/games/" + _first_part(fs, name)
    data = bytearray(fs.cat(first))
    data[-20] ^= 1
    fs.pipe(first, bytes(data))
    one_line_error(invoke("query", url, "SELECT count(*) FROM games"), "damaged", first)


def _first_part(fs: Any, name: str) -> str:
    return sorted(p.rsplit("/", 1)[1] for p in fs.find(f"{name}/run/games"))[0]


@pytest.mark.parametrize(
    ("where", "words"),
    [
        ("s3://{bucket}-missing/run", ["does not exist"]),
        ("s3://key:pw@{bucket}/run", ["may not carry"]),
        ("nosuch://x/run", ["nosuch:// is not one"]),
        ("s3://{bucket}", ["needs a bucket and a prefix"]),
    ],
)
def test_bad_urls_are_one_line(bucket: Any, where: str, words: list[str]) -> None:
    fs, name = bucket
    res = invoke("run", *RUN, "--jobs", "1", "--quiet", "--out", where.format(bucket=name))
    one_line_error(res, *words)
    assert fs.find(name) == []


def test_unreachable_endpoint_is_one_line(
    bucket: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import s3fs

    fs, name = bucket
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    s3fs.S3FileSystem.clear_instance_cache()
    t0 = time.monotonic()
    res = invoke("run", *RUN, "--jobs", "1", "--quiet", "--out", f"s3://{name}/run")
    one_line_error(res, f"s3://{name}/run")
    assert time.monotonic() - t0 < 60
    assert not (Path(os.environ["HAGGIS_SIM_CACHE_DIR"]) / "object-store").exists()


def test_the_client_keeps_no_uploaded_moves_or_rounds(bucket: Any) -> None:
    # through the API, which leaves the working folder for the caller: while a run plays,
    # the client's disk holds the chunks in flight and the games table, nothing uploaded
    from haggis_sim.rules import Rules
    from haggis_sim.runner.remote import execute_remote
    from haggis_sim.runner.run import RunConfig

    _, name = bucket
    config = RunConfig(strategies=["greedy", "random"], games=60, chunk_size=20, seed=5,
                       rules=Rules.preset("revised", players=2).as_dict(), jobs=1)  # fmt: skip
    manifest, work = execute_remote(config, f"s3://{name}/api")
    assert manifest.status == "complete"
    assert sorted(p.parent.name for p in work.rglob("*.parquet")) == ["games"] * 3


def test_a_store_runs_notes_and_refusals_name_its_url(
    bucket: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the run machinery says about its folder (a note, a refusal) reaches the user
    naming the URL they typed, never the working folder under the cache."""
    from haggis_sim.runner import remote
    from haggis_sim.runner.run import RunError

    def execute(config: Any, work: Path, *args: Any, **kwargs: Any) -> Any:
        on_note = args[2]
        on_note(f"continue with --resume {work}")
        raise RunError(f"cannot write the run folder {work}: No space left on device")

    monkeypatch.setattr(remote, "execute", execute)
    _, name = bucket
    url = f"s3://{name}/run"
    res = invoke("run", *RUN, "--jobs", "1", "--quiet", "--out", url)
    assert res.exit_code == 2, res.stderr
    assert "Traceback" not in res.stderr
    assert f"note: continue with --resume {url}\n" in res.stderr
    assert f"error: cannot write the run folder {url}: No space" in res.stderr
    assert "object-store" not in res.stderr


@pytest.mark.slow  # two runs through the S3 server
def test_compare_of_two_store_runs_names_their_urls(bucket: Any, tmp_path: Path) -> None:
    _, name = bucket
    urls = [f"s3://{name}/a", f"s3://{name}/b"]
    for url, seed in zip(urls, ("5", "6"), strict=True):
        games = ["--strategies", "greedy,random", "--games", "40", "--seed", seed]
        assert invoke("run", *games, "--jobs", "1", "--quiet", "--out", url).exit_code == 0
    res = invoke("compare", *urls, "--html", str(tmp_path / "c.html"))
    assert res.exit_code == 0, res.stderr
    assert f"A: {urls[0]}  (" in res.stdout and f"B: {urls[1]}  (" in res.stdout
    page = (tmp_path / "c.html").read_text()
    assert f"<code>{urls[0]}</code>" in page and f"<code>{urls[1]}</code>" in page
    assert "object-store" not in res.stdout + res.stderr + page
    one_line_error(invoke("compare", urls[0], urls[0]), f"{urls[0]} and {urls[0]}")
