"""haggis_sim.outputs on its own, with a kind of folder that is not a report.

The report's use of it is tested end to end in tests/report/test_output_folders.py; here the general
API: the marker name, the wording and the error class are the caller's, and a refused or
failed write leaves nothing behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from haggis_sim import outputs


class NotebookError(ValueError):
    pass


NOTEBOOK = outputs.OwnedFolder(
    "experiment",
    ".notebook.json",
    NotebookError,
    "--into",
    ((".manifest.json", "run"), (".notebook.json", "experiment")),
)


def fill(files: dict[str, str]) -> outputs.Writer:
    def write(folder: Path) -> None:
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
        outputs.write_marker(folder, NOTEBOOK.marker, {"kind": "notebook"})

    return write


def test_a_folder_is_written_whole_and_replaced_only_with_force(tmp_path: Path) -> None:
    out = tmp_path / "a" / "nb"
    assert outputs.write_folder(out, NOTEBOOK, False, fill({"x.txt": "1", "d/y.txt": "2"})) == out
    marker = json.loads((out / NOTEBOOK.marker).read_text())
    assert marker == {"kind": "notebook", "files": ["d/y.txt", "x.txt"], "folders": ["d"]}
    with pytest.raises(NotebookError, match=r"^--into .* holds an earlier experiment; add --force"):
        outputs.check_folder(out, NOTEBOOK)
    outputs.write_folder(out, NOTEBOOK, True, fill({"z.txt": "3"}))
    assert outputs.tree(out) == ([NOTEBOOK.marker, "z.txt"], [])
    assert sorted(p.name for p in out.parent.iterdir()) == ["nb"]  # no temp or old folder left


def test_refusals_use_the_callers_words(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    with pytest.raises(NotebookError, match="is not an experiment folder .*notes.txt"):
        outputs.check_folder(tmp_path / "mine", NOTEBOOK)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / ".manifest.json").write_text("{}")
    with pytest.raises(NotebookError, match="is inside the run folder"):
        outputs.check_folder(tmp_path / "run" / "nb", NOTEBOOK)
    with pytest.raises(NotebookError, match="is a haggis-sim run folder; the experiment needs"):
        outputs.check_folder(tmp_path / "run", NOTEBOOK)
    nb = tmp_path / "nb"
    outputs.write_folder(nb, NOTEBOOK, False, fill({"x.txt": "1"}))
    (nb / "extra.txt").write_text("user's")
    with pytest.raises(NotebookError, match="which the experiment did not write; --force"):
        outputs.check_folder(nb, NOTEBOOK, force=True)
    (nb / NOTEBOOK.marker).write_text("[]")
    with pytest.raises(NotebookError, match="damaged .*what the experiment wrote, so nothing"):
        outputs.check_folder(nb, NOTEBOOK, force=True)


def test_a_failed_fill_leaves_nothing(tmp_path: Path) -> None:
    def broken(folder: Path) -> None:
        (folder / "half.txt").write_text("half")
        raise OSError(28, "No space left on device", str(folder / "half.txt"))

    with pytest.raises(NotebookError, match="cannot write the experiment files into .*space"):
        outputs.write_folder(tmp_path / "a" / "b" / "nb", NOTEBOOK, False, broken)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("data", ["text é", b"\x00bytes"], ids=["text", "bytes"])
def test_a_file_is_replaced_whole(tmp_path: Path, data: str | bytes) -> None:
    out = tmp_path / "page.html"
    out.write_text("old")
    outputs.write_file_atomically(out, data, NotebookError)
    assert out.read_bytes() == (data.encode() if isinstance(data, str) else data)
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


def test_a_failed_file_write_leaves_the_old_file(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    out.write_text("old")
    tmp = outputs.reserve_file(out, NotebookError, "--table")
    assert tmp.exists() and tmp.parent == tmp_path

    def broken(path: Path) -> None:
        path.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(NotebookError, match=r"^cannot write --table .*t.csv: No space left"):
        outputs.write_file_atomically(out, broken, NotebookError, "--table", reserved=tmp)
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["t.csv"]
