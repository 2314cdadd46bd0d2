"""The numeric scoring knobs ``out_points`` and ``face_points`` as rule flags: published
values by default and left out of the record, a changed value recorded and read back
(manifest, resume, experiment file), impossible values refused in one line before
anything is played. Their effect on a round's score: tests/engine/test_scoring.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import invoke, one_line_error

import haggis_sim as hs
from haggis_sim.experiment.schema import build_rules as experiment_rules
from haggis_sim.rules import PUBLISHED_KNOBS


@pytest.mark.parametrize("preset", ["classic", "revised", "deluxe", "aid"])
def test_the_published_values_are_the_defaults_and_left_out_of_the_record(preset: str) -> None:
    rules = hs.Rules.preset(preset, players=2)
    assert (rules.out_points, rules.face_points) == (5, (2, 3, 5))
    record = rules.as_dict()
    assert not record.keys() & PUBLISHED_KNOBS.keys()
    again = hs.Rules(**{**record, "bet_values": tuple(record["bet_values"])})
    assert again == rules and again.to_array().tolist() == rules.to_array().tolist()


def test_a_changed_knob_is_recorded_and_named_in_the_label() -> None:
    rules = hs.Rules.preset("revised", players=3, out_points=4, face_points=(1, 2, 3))
    record = rules.as_dict()
    assert record["out_points"] == 4 and record["face_points"] == [1, 2, 3]
    assert rules.label == "revised out_points=4 face_points=1,2,3"
    assert rules.to_array().tolist()[-4:] == [4, 1, 2, 3]


def test_a_run_records_its_knobs_and_resumes_with_them(tmp_path: Path) -> None:
    out = tmp_path / "run"
    knobs = ["--rule", "out_points=3", "--rule", "face_points=1,1,4"]
    res = invoke("run", "-s", "random,random", "-n", "8", "--chunk-size", "4", "-q", *knobs,
                 "--out", str(out))  # fmt: skip
    assert res.exit_code == 0, res.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    recorded = manifest["rules"]
    assert recorded["out_points"] == 3 and recorded["face_points"] == [1, 1, 4]
    again = invoke("run", "--resume", str(out), "-q")
    assert again.exit_code == 0, again.stderr


def test_an_experiment_file_takes_the_knobs() -> None:
    rules = experiment_rules("revised", 2, {"out_points": 6, "face_points": [3, 3, 3]})
    assert (rules.out_points, rules.face_points) == (6, (3, 3, 3))


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ("out_points=-1", ("out_points must be an integer 0..100", "-1")),
        ("out_points=five", ("out_points takes an integer", "five")),
        ("face_points=2,3", ("face_points must be three integers 0..100",)),
        ("face_points=2,3,500", ("face_points must be three integers 0..100",)),
        ("face_points=a,b,c", ("face_points takes numbers like 2,3,5",)),
    ],
)
def test_an_impossible_knob_gets_one_line_and_nothing_is_written(
    tmp_path: Path, rule: str, words: tuple[str, ...]
) -> None:
    out = tmp_path / "run"
    res = invoke("run", "-s", "random,random", "-n", "4", "--rule", rule, "--out", str(out))
    one_line_error(res, *words)
    assert not out.exists()


def test_face_points_with_per_card_scoring_are_refused(tmp_path: Path) -> None:
    """Under ``card_points=per_card`` every card scores 1: a face value there would be
    silently ignored, so it is refused (its published value is accepted)."""
    out = tmp_path / "run"
    res = invoke("run", "-s", "random,random", "-n", "4", "--rules", "deluxe",
                 "--rule", "face_points=1,2,3", "--out", str(out))  # fmt: skip
    one_line_error(res, "face_points count under card_points=classic only")
    assert not out.exists()
    assert hs.Rules.preset("deluxe", players=2, face_points=(2, 3, 5)).card_points == "per_card"
