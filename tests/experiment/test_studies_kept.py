"""A study finished earlier is kept on a re-run of its experiment; a changed or damaged one
runs again, saying why in one line."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from test_studies import BASE

import haggis_sim.counterfactual.decisions as decisions
from haggis_sim.experiment import parse_experiment, run_experiment
from haggis_sim.experiment import studies as studies_mod

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

TEXT = (
    BASE
    + """
[[studies]]
kind = "bets"
arm = "eager"
positions = 4
samples = {samples}
followed_games = 4
"""
)
RESULT = "study-bets-eager.json"


def _run(out: Path, samples: int = 6) -> tuple[dict[str, Any], list[str]]:
    lines: list[str] = []
    exp = parse_experiment(tomllib.loads(TEXT.format(samples=samples)))
    summary = run_experiment(exp, out, jobs=1, report=False, log=lines.append)
    return summary, lines


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("exp") / "exp"
    summary, _ = _run(out)
    return out, summary


def _copy(first: tuple[Path, dict[str, Any]], tmp_path: Path) -> Path:
    import shutil

    out = tmp_path / "exp"
    shutil.copytree(first[0], out)
    return out


def _no_search(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make every search and followed game raise; return the list the calls land in."""
    calls: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        calls.append("search")
        raise AssertionError("the study was run again")

    monkeypatch.setattr(decisions, "run_study", refuse)
    monkeypatch.setattr(studies_mod, "follow_records", refuse)
    return calls


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count the searches, letting them run."""
    calls: list[str] = []
    real = decisions.run_study

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append("search")
        return real(*args, **kwargs)

    monkeypatch.setattr(decisions, "run_study", counted)
    return calls


def test_a_finished_study_is_kept_without_searching(
    first: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _copy(first, tmp_path)
    kept = json.loads((out / RESULT).read_text())["result"]
    assert json.dumps(kept) == json.dumps(first[1]["studies"][0])
    csv = (out / "study-bets-eager.csv").read_text()
    (out / "study-bets-eager.csv").unlink()
    calls = _no_search(monkeypatch)
    summary, lines = _run(out)
    assert calls == []
    assert "study bets over eager: finished earlier, kept (study-bets-eager.json)" in lines
    assert json.dumps(summary["studies"]) == json.dumps(first[1]["studies"])  # kept as it was
    assert (out / "study-bets-eager.csv").read_text() == csv  # written again, the same


def test_changed_settings_run_the_study_again(
    first: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _copy(first, tmp_path)
    calls = _counting(monkeypatch)
    summary, lines = _run(out, samples=7)
    assert calls == ["search"]
    assert "study bets over eager: samples changed since its earlier result; running it again" in (
        lines
    )
    assert summary["studies"][0]["samples"] == 7
    assert json.loads((out / RESULT).read_text())["result"]["samples"] == 7
    calls.clear()
    _no_search(monkeypatch)
    _, lines = _run(out, samples=7)  # and now that one is kept
    assert any("finished earlier, kept" in line for line in lines)


@pytest.mark.parametrize("damage", ["garbage", "edited", "empty"])
def test_a_damaged_or_edited_result_runs_the_study_again(
    first: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    damage: str,
) -> None:
    out = _copy(first, tmp_path)
    path = out / RESULT
    if damage == "garbage":
        path.write_bytes(b"\x00\xff{not json")
    elif damage == "empty":
        path.write_text("")
    else:  # valid JSON, a result changed by hand
        record = json.loads(path.read_text())
        record["result"]["guidance"] = ["always bet"]
        path.write_text(json.dumps(record))
    calls = _counting(monkeypatch)
    summary, lines = _run(out)
    assert calls == ["search"]
    notice = [line for line in lines if "earlier result file" in line]
    assert notice == [
        "study bets over eager: its earlier result file is damaged or was edited; running it again"
    ]
    # the same study again (its population text names the arm's folder, here a copy)
    (again,), (study,) = summary["studies"], first[1]["studies"]
    assert again["population"].replace(str(out), "") == study["population"].replace(
        str(first[0]), ""
    )
    again["population"] = study["population"]
    assert json.dumps(again) == json.dumps(study)  # NaN too
