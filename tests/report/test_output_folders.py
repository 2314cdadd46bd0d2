"""Hostile output paths for ``report``, ``experiment`` and ``compare``: nothing a user owns
is ever deleted or overwritten, every refusal is one ``error:`` line with exit status 2,
and Ctrl-C gives one line, exit status 130 and no partial output.

One tiny run (20 games) and one tiny experiment are built once for the module.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from haggis_sim import report as report_pkg
from haggis_sim.analytics import sections
from haggis_sim.cli import app
from haggis_sim.experiment import (
    ExperimentError,
    check_experiment_out,
    load_experiment,
    run_experiment,
)

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
CLI = "import sys; from haggis_sim.cli import app; sys.argv[0] = 'haggis-sim'; app()"

EXPERIMENT = """
name = "hostile"
question = "Does a betting random player do better?"
games = 10
seed = 3
strategies = ["greedy", "random"]
metric = "win_rate"
chunk_size = 10

[[arms]]
name = "plain"

[[arms]]
name = "bets"
strategies = ["greedy", "random:bet=0.3"]
"""


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under ``folder``, by relative path."""
    out: dict[str, bytes | None] = {}
    for p in sorted(folder.rglob("*")):
        out[p.relative_to(folder).as_posix()] = None if p.is_dir() else p.read_bytes()
    return out


def one_line(result: Result, code: int = 2, prefix: str = "error:") -> str:
    """Assert the exit code and exactly one stderr line starting with ``prefix``; return it."""
    text = result.stdout + result.stderr
    assert result.exit_code == code, text
    assert "Traceback" not in text and not isinstance(result.exception, Exception), text
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), result.stderr
    return lines[0]


def report(*args: str | Path) -> Result:
    return runner.invoke(app, ["report", *map(str, args)])


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "run"
    args = [
        "--strategies",
        "greedy,random",
        "--games",
        "20",
        "--chunk-size",
        "10",
        "--jobs",
        "1",
        "--out",
    ]
    result = runner.invoke(app, ["run", *args, str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def earlier(run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished report (png format: figures and marker) written into an empty folder."""
    out = tmp_path_factory.mktemp("earlier") / "rep"
    out.mkdir()
    assert report_pkg.check_out(out) == "empty"
    result = report(run, "--out", out, "--format", "png")
    assert result.exit_code == 0, result.output
    return out


# ------------------------------------------------------------------ report: refusals


def test_user_folder_is_refused_and_kept(run: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    (mine / "chapter").mkdir(parents=True)
    (mine / "thesis.txt").write_text("years of work\n")
    (mine / "chapter" / "one.md").write_text("# one\n")
    before = snapshot(tmp_path)
    line = one_line(report(run, "--out", mine))
    assert "not a report folder" in line and "thesis.txt" in line
    assert snapshot(tmp_path) == before
    line = one_line(report(run, "--out", mine, "--force"))  # --force does not help
    assert "not a report folder" in line and snapshot(tmp_path) == before


def test_run_folder_and_paths_inside_it_are_refused(run: Path) -> None:
    before = snapshot(run)
    assert "is a haggis-sim run folder" in one_line(report(run, "--out", run, "--force"))
    assert "inside the run folder" in one_line(report(run, "--out", run / "report"))
    assert "inside the run folder" in one_line(report(run, "--out", run / "games" / "x"))
    assert snapshot(run) == before


def test_file_and_path_under_a_file_are_refused(run: Path, tmp_path: Path) -> None:
    f = tmp_path / "somefile.txt"
    f.write_text("keep me\n")
    assert "is a file, not a folder" in one_line(report(run, "--out", f, "--force"))
    line = one_line(report(run, "--out", f / "report"))
    assert f"{f} is a file, not a folder" in line
    assert snapshot(tmp_path) == {"somefile.txt": b"keep me\n"}


def test_symbolic_link_is_refused(run: Path, tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "target")
    assert "symbolic link" in one_line(report(run, "--out", tmp_path / "link"))
    assert (tmp_path / "link").is_symlink() and not any((tmp_path / "target").iterdir())


def test_path_inside_a_report_folder_is_refused(run: Path, earlier: Path, tmp_path: Path) -> None:
    rep = tmp_path / "rep"
    shutil.copytree(earlier, rep)
    assert "inside the report folder" in one_line(report(run, "--out", rep / "sub"))
    assert snapshot(rep) == snapshot(earlier)


# ------------------------------------------------------------------ report: what it may write


def test_new_and_empty_folders_get_a_marked_report(
    run: Path, earlier: Path, tmp_path: Path
) -> None:
    out = tmp_path / "new" / "deeper"
    result = report(run, "--out", out)
    assert result.exit_code == 0, result.output
    for folder, fmt in ((out, "html"), (earlier, "png")):  # earlier: into an empty folder
        marker = json.loads((folder / report_pkg.MARKER).read_text())
        files, folders = report_pkg.tree(folder)
        assert marker["tool"] == "haggis-sim" and marker["kind"] == "report"
        assert marker["version"] and marker["created"] and marker["format"] == fmt
        assert sorted([*marker["files"], report_pkg.MARKER]) == files
        assert marker["folders"] == folders
        assert "fig-results.png" in files
    assert "index.html" in report_pkg.tree(out)[0] and "tables/pairs.csv" in report_pkg.tree(out)[0]
    assert [p.name for p in tmp_path.iterdir()] == ["new"]  # no temp folder left
    assert [p.name for p in earlier.parent.iterdir()] == ["rep"]


def test_second_report_needs_force_and_force_replaces(
    run: Path, earlier: Path, tmp_path: Path
) -> None:
    rep = tmp_path / "rep"
    shutil.copytree(earlier, rep)
    old = snapshot(rep)
    assert "add --force" in one_line(report(run, "--out", rep))
    assert snapshot(rep) == old
    result = report(run, "--out", rep, "--force")  # html over the earlier png report
    assert result.exit_code == 0, result.output
    marker = json.loads((rep / report_pkg.MARKER).read_text())
    assert marker["format"] == "html" and (rep / "index.html").is_file()
    assert sorted([*marker["files"], report_pkg.MARKER]) == report_pkg.tree(rep)[0]
    assert snapshot(rep) != old
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]  # the old report and temp are gone


def test_force_refuses_a_report_holding_a_user_file(
    run: Path, earlier: Path, tmp_path: Path
) -> None:
    rep = tmp_path / "rep"
    shutil.copytree(earlier, rep)
    (rep / "notes").mkdir()
    (rep / "notes" / "mine.txt").write_text("my notes\n")
    before = snapshot(rep)
    line = one_line(report(run, "--out", rep, "--force"))
    assert f"{rep / 'notes'}" in line and "did not write" in line
    assert snapshot(rep) == before
    shutil.rmtree(rep / "notes")
    (rep / "fig-results.png").unlink()  # a file of the report gone: still the report's own
    assert report_pkg.check_out(rep, force=True) == "replace"


def test_damaged_marker_is_refused(run: Path, earlier: Path, tmp_path: Path) -> None:
    rep = tmp_path / "rep"
    shutil.copytree(earlier, rep)
    (rep / report_pkg.MARKER).write_text("{not json")
    before = snapshot(rep)
    assert "damaged" in one_line(report(run, "--out", rep, "--force"))
    assert snapshot(rep) == before


# ------------------------------------------------------------------ report: the OS says no


def test_unwritable_places_give_one_line(run: Path, tmp_path: Path) -> None:
    line = one_line(report(run, "--out", "/proc/haggis-test"))
    assert line.startswith("error: cannot create a folder in /proc")
    line = one_line(report(run, "--out", "/proc/haggis-test/deeper/report"))
    assert line.startswith("error: cannot create the folder /proc/haggis-test")
    assert not Path("/proc/haggis-test").exists()


def test_failed_write_leaves_nothing(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*_a: object, **_k: object) -> None:
        raise OSError(28, "No space left on device", "fig-results.png")

    monkeypatch.setattr(report_pkg, "_figures", full)
    line = one_line(report(run, "--out", tmp_path / "a" / "b" / "rep"))
    assert "cannot write the report files" in line and "No space left on device" in line
    assert list(tmp_path.iterdir()) == []  # no temp folder, no parent folders it made


# ------------------------------------------------------------------ report: Ctrl-C


@pytest.mark.parametrize(
    "error", [KeyboardInterrupt(), RuntimeError("Query interrupted")], ids=["python", "duckdb"]
)
def test_interrupt_in_process_leaves_nothing(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    def interrupted(_con: object) -> dict[str, object]:
        raise error

    name = next(iter(sections.SECTIONS))
    monkeypatch.setitem(sections.SECTIONS, name, interrupted)
    line = one_line(report(run, "--out", tmp_path / "new" / "rep"), 130, "interrupted")
    assert line == "interrupted: no report written"
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(KeyboardInterrupt):  # the API gives DuckDB's interrupt back as Ctrl-C
        report_pkg.build_report([run], tmp_path / "api")
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_on_the_command_leaves_nothing(run: Path, tmp_path: Path) -> None:
    """SIGINT to a real ``haggis-sim report`` once its temporary folder exists."""
    out = tmp_path / "rep"
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "report", str(run), "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not any(tmp_path.iterdir()) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, "the report finished before it could be interrupted"
    assert [p.name for p in tmp_path.iterdir()][0].startswith(".rep.tmp-")
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines() == ["interrupted: no report written"], stderr
    assert "wrote" not in stdout
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ experiment


def experiment(file: Path, out: Path) -> Result:
    return runner.invoke(app, ["experiment", str(file), "--out", str(out), "--jobs", "1"])


@pytest.fixture(scope="module")
def exp(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The experiment file and a finished experiment folder (with its report)."""
    root = tmp_path_factory.mktemp("exp")
    file = root / "hostile.toml"
    file.write_text(EXPERIMENT)
    result = experiment(file, root / "out")
    assert result.exit_code == 0, result.output
    return file, root / "out"


def test_experiment_folder_is_marked_and_rerun_keeps_arms(
    exp: tuple[Path, Path], tmp_path: Path
) -> None:
    file, done = exp
    out = tmp_path / "out"
    shutil.copytree(done, out, symlinks=True)
    marker = json.loads((out / ".haggis-sim-experiment.json").read_text())
    assert marker["name"] == "hostile" and "summary.md" in marker["files"]
    parts = snapshot(out / "plain")
    result = experiment(file, out)
    assert result.exit_code == 0, result.output
    assert "finished earlier" in result.stderr and snapshot(out / "plain") == parts
    assert (out / "report" / report_pkg.MARKER).is_file()
    (out / ".haggis-sim-experiment.json").unlink()  # a folder from before markers: still ours
    kept = check_experiment_out(load_experiment(file), out)
    assert kept["name"] == "hostile" and "summary.md" in kept["files"]
    (out / "experiment.toml").write_text(EXPERIMENT.replace('"hostile"', '"other"'))
    with pytest.raises(ExperimentError, match="not this experiment's folder"):
        check_experiment_out(load_experiment(file), out)


def test_experiment_refuses_other_folders(
    exp: tuple[Path, Path], run: Path, tmp_path: Path
) -> None:
    file, done = exp
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.txt").write_text("years of work\n")
    f = tmp_path / "file.txt"
    f.write_text("keep\n")
    before, run_before = snapshot(tmp_path), snapshot(run)
    assert "not this experiment's folder" in one_line(experiment(file, mine))
    assert "is a haggis-sim run folder" in one_line(experiment(file, run))
    assert "inside the run folder" in one_line(experiment(file, run / "exp"))
    assert "is a file" in one_line(experiment(file, f))
    assert "report folder" in one_line(experiment(file, done / "report"))
    other = tmp_path / "other.toml"
    other.write_text(EXPERIMENT.replace('"hostile"', '"other"'))
    assert "holds the experiment 'hostile'" in one_line(experiment(other, done))
    assert snapshot(tmp_path) == {**before, "other.toml": other.read_bytes()}
    assert snapshot(run) == run_before


def test_experiment_refuses_user_files_in_its_folder(
    exp: tuple[Path, Path], tmp_path: Path
) -> None:
    file, done = exp
    out = tmp_path / "out"
    shutil.copytree(done, out, symlinks=True)
    (out / "report" / "mine.txt").write_text("mine\n")
    before = snapshot(out)
    line = one_line(experiment(file, out))
    assert "the experiment's report" in line and "mine.txt" in line
    assert snapshot(out) == before
    (out / "report" / "mine.txt").unlink()
    (out / "plain" / "manifest.json").unlink()  # an arm folder that is no longer a run
    before = snapshot(out)
    assert "is not a run folder" in one_line(experiment(file, out))
    assert snapshot(out) == before


def test_experiment_unwritable_out_gives_one_line(exp: tuple[Path, Path]) -> None:
    file, _ = exp
    assert "cannot write" in one_line(experiment(file, Path("/proc/haggis-test")))
    with pytest.raises(ExperimentError, match="cannot write into /proc/haggis-test"):
        run_experiment(load_experiment(file), Path("/proc/haggis-test"), report=False)


# ------------------------------------------------------------------ compare --html


@pytest.fixture(scope="module")
def seed_1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another run to compare ``run`` with (a run compared with itself is refused)."""
    out = tmp_path_factory.mktemp("hostile") / "seed1"
    args = ["--strategies", "greedy,random", "--games", "20", "--seed", "1", "--jobs", "1"]
    result = runner.invoke(app, ["run", *args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def compare(run: Path, html: Path, other: Path) -> Result:
    return runner.invoke(app, ["compare", str(run), str(other), "--html", str(html)])


def test_compare_html_refuses_user_files_and_replaces_its_own(
    run: Path, seed_1: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "page.html"
    mine.write_text("<p>my page</p>\n")
    (tmp_path / "folder").mkdir()
    before = snapshot(tmp_path)
    assert "not a comparison written by haggis-sim" in one_line(compare(run, mine, seed_1))
    assert "not a file" in one_line(compare(run, tmp_path / "folder", seed_1))
    assert "inside the run folder" in one_line(compare(run, run / "cmp.html", seed_1))
    assert "is a file" in one_line(compare(run, mine / "cmp.html", seed_1))
    assert snapshot(tmp_path) == before
    line = one_line(compare(run, Path("/proc/haggis-test/cmp.html"), seed_1))
    assert line.startswith("error: cannot write --html /proc/haggis-test/cmp.html")
    ours = tmp_path / "new" / "cmp.html"
    for _ in range(2):  # new, then its own earlier fragment
        result = compare(run, ours, seed_1)
        assert result.exit_code == 0, result.output
        assert ours.read_text().startswith('<section class="compare">')
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["cmp.html"]
