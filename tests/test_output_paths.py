"""The path rule every writing command follows (:func:`haggis_sim.outputs.check_outside`):
nothing is written into a run's, a report's or an experiment's folder except by its owner.

Each case is a reproduction that once wrote (or deleted) where it must not: now one
``error:`` line, exit status 2, and nothing written. The resume case checks the other
side of the rule: ``run --resume`` removes only the run's own files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import invoke, one_line_error

from haggis_sim import outputs
from haggis_sim.experiment.schema import MARKER as EXPERIMENT_MARKER
from haggis_sim.logs.manifest import MANIFEST
from haggis_sim.report import MARKER as REPORT_MARKER

SMALL = ["-s", "greedy", "-n", "40", "--jobs", "1", "-q"]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes: what must stay exactly as it was."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two small finished runs (one is read, the other is written into)."""
    base = tmp_path_factory.mktemp("runs")
    for name in ("a", "b"):
        res = invoke("run", *SMALL, "--out", str(base / name))
        assert res.exit_code == 0, res.stderr
    return base / "a", base / "b"


@pytest.fixture
def owned(tmp_path: Path) -> dict[str, Path]:
    """A report folder and an experiment folder, each with its marker and nothing else."""
    folders = {}
    for kind, marker in (("report", REPORT_MARKER), ("experiment", EXPERIMENT_MARKER)):
        folder = tmp_path / kind
        folder.mkdir()
        (folder / marker).write_text(json.dumps({"tool": "haggis-sim", "files": []}))
        folders[kind] = folder
    return folders


def test_the_rule_knows_every_owned_folder_by_its_real_marker() -> None:
    assert dict(outputs.OWNED) == {
        MANIFEST: "run",
        REPORT_MARKER: "report",
        EXPERIMENT_MARKER: "experiment",
    }


def test_run_out_inside_another_run_is_refused(runs: tuple[Path, Path]) -> None:
    _, b = runs
    before = snapshot(b)
    res = invoke("run", *SMALL, "--out", str(b / "games" / "sub"))
    one_line_error(res, "--out", "inside the run folder", str(b))
    assert snapshot(b) == before


@pytest.mark.parametrize("where", ["games", "games/deeper"])
def test_query_to_inside_another_run_is_refused(runs: tuple[Path, Path], where: str) -> None:
    a, b = runs
    (b / where).mkdir(exist_ok=True)
    before = snapshot(b)
    to = b / where / "x.parquet"
    res = invoke("query", str(a), "SELECT * FROM games", "--to", str(to))
    one_line_error(res, "--to", "inside the run folder", str(b))
    assert snapshot(b) == before and not to.exists()
    if where != "games":
        (b / where).rmdir()


def test_study_out_inside_another_run_is_refused(runs: tuple[Path, Path]) -> None:
    a, b = runs
    before = snapshot(b)
    res = invoke("study", "bombs", str(a), "--positions", "2", "--out", str(b / "games" / "x.csv"))
    one_line_error(res, "--out", "inside the run folder", str(b))
    assert snapshot(b) == before


@pytest.mark.parametrize("kind", ["report", "experiment"])
def test_study_out_inside_a_report_or_experiment_is_refused(
    runs: tuple[Path, Path], owned: dict[str, Path], kind: str
) -> None:
    a, _ = runs
    folder = owned[kind]
    res = invoke("study", "bombs", str(a), "--positions", "2", "--out", str(folder / "x.csv"))
    one_line_error(res, "--out", f"inside the {kind} folder", str(folder))
    assert len(list(folder.iterdir())) == 1  # the marker alone


@pytest.mark.parametrize("kind", ["report", "experiment"])
def test_train_out_inside_a_report_or_experiment_is_refused(
    owned: dict[str, Path], kind: str
) -> None:
    folder = owned[kind]
    res = invoke("train", "--out", str(folder / "m.npz"), "--games", "10", "--jobs", "1")
    one_line_error(res, "--out", f"inside the {kind} folder", str(folder))
    assert len(list(folder.iterdir())) == 1  # the marker alone


def test_train_data_over_a_run_part_is_refused(runs: tuple[Path, Path], tmp_path: Path) -> None:
    _, b = runs
    part = sorted((b / "games").glob("part-*.parquet"))[0]
    before = snapshot(b)
    res = invoke("train", "--out", str(tmp_path / "m.npz"), "--data", str(part), "--force",
                 "--games", "10", "--jobs", "1")  # fmt: skip
    one_line_error(res, "--data", "inside the run folder", str(b))
    assert snapshot(b) == before and not (tmp_path / "m.npz").exists()


def test_resume_leaves_a_users_files_in_the_table_folders(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    a, _ = runs
    run = tmp_path / "run"
    shutil.copytree(a, run)
    users = {
        run / "games" / "part-notes.parquet": b"my notes",
        run / "games" / ".notes.tmp-backup": b"mine too",
        run / "rounds" / ".part-0000000000-0000000040.parquet.tmp-12x": b"and this",
    }
    for path, data in users.items():
        path.write_bytes(data)
    own_temp = run / "moves" / ".part-0000000000-0000000040.parquet.tmp-12345"
    own_temp.write_bytes(b"left by a killed writer")
    res = invoke("run", "--resume", str(run), "-q")
    assert res.exit_code == 0, res.stderr
    assert {p: p.read_bytes() for p in users} == users
    assert not own_temp.exists()  # the run's own temporary is still cleaned up
    res = invoke("query", str(run), "SELECT count(*) AS n FROM games")
    assert res.exit_code == 0, res.stderr
    assert "40" in res.stdout  # the user's file is not read as a part
