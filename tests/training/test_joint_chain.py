"""Joint generations (``train --generations K --value-units U``): each generation fits
the search's prior and its leaf value on the same self-play games, its gate plays the
champion's settings with both new models, a promoted generation's search uses both, and
OUT and OUT.value.npz are the last promoted generation's two files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from chain_helpers import TEACHER, planted
from cli_helpers import invoke, one_line_error

from haggis_sim.training import gate
from haggis_sim.training.chain import generation_path, generation_seed
from haggis_sim.training.gate import trial_path
from haggis_sim.training.positions import combos, generate, play_game
from haggis_sim.training.prior_chain import (
    JOINT_VALUE_DATA,
    joint_candidate_spec,
    train_prior_chain,
    value_companion,
)
from haggis_sim.training.settings import ImitationFit, TrainingRun
from haggis_sim.training.train import run_training
from haggis_sim.training.value_data import value_game
from haggis_sim.training.value_rows import ValueRecorder
from strategies import StrategyError
from strategies.learned_model import load_model, load_value_model

pytestmark = pytest.mark.slow  # joint chains train and gate real generations

TINY = ImitationFit(games=10, seed=3, teacher=TEACHER, hidden=0, check_games=2)
TINY_ARGS = ("-n", "10", "--teacher", TEACHER, "--check-games", "2", "--hidden", "0")


def test_a_joint_generation_learns_both_models_and_its_search_uses_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = planted(monkeypatch, 3, {1: 520, 2: 600, 3: 510})  # only generation 2 separates
    out = tmp_path / "m.npz"
    res = train_prior_chain(out, TINY, generations=3, gate_games=6, value_units=2)
    assert [g.promoted for g in res.generations] == [False, True, False]
    root = res.generations[0].teacher
    assert "value=game" in root
    # the gates play the champion's settings with both trial models, value=net
    cand = calls[2][0]
    assert ".m.gen2.npz.gate-" in cand and "value=net" in cand
    trial = Path(cand.split(",model=")[1].split(",")[0])
    assert f",vmodel={value_companion(trial)}" in cand
    gen2 = generation_path(out, 2)
    third = res.generations[2].teacher
    assert f"model={gen2.resolve()}," in third and "value=net" in third
    assert f"vmodel={value_companion(gen2).resolve()}," in third
    assert [c[1] for c in calls] == [root] * 4 + [third] * 2
    # OUT and its value are generation 2's files, byte for byte (pinned SHA-256s hold)
    assert out.read_bytes() == gen2.read_bytes()
    assert value_companion(out).read_bytes() == value_companion(gen2).read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "m.gen1.npz", "m.gen1.value.npz", "m.gen2.npz", "m.gen2.value.npz", "m.gen3.npz",
        "m.gen3.value.npz", "m.npz", "m.value.npz"]  # fmt: skip
    value = load_value_model(value_companion(gen2)).provenance
    prior = load_model(gen2).provenance
    assert value["data"] == JOINT_VALUE_DATA and value["hidden_units"] == 2
    assert value["seed"] == prior["seed"] == generation_seed(3, 2)
    assert value["chain"] == prior["chain"] and value["chain"]["value_units"] == 2
    assert value["gate"] == prior["gate"] and value["promoted"] is prior["promoted"] is True
    assert [g["candidate"] for g in prior["gate"]] == [joint_candidate_spec(root, gen2)] * 2
    # the first generation's prior is what train without --generations fits
    single = run_training(tmp_path.parent / "single.npz", TINY)
    assert np.array_equal(load_model(generation_path(out, 1)).weights, single.weights)


def test_the_value_rows_are_every_seats_decisions_of_the_prior_games() -> None:
    """Recording values draws nothing (the same positions), and a game whose line-up is
    the teacher in every seat gives the rows train-value records of its own game."""
    teacher = TEACHER
    plain = generate(6, 7, teacher)
    joint = generate(6, 7, teacher, values=True)
    for name in ("features", "decision", "chosen", "target", "heuristic", "game", "players"):
        assert np.array_equal(getattr(plain, name), getattr(joint, name)), name
    assert plain.values is None and joint.values is not None
    assert sorted(set(joint.values.game)) == list(range(6))
    rows = play_game(0, 7, teacher, values=True)["values"]  # line-up teacher vs teacher
    alone = value_game(0, 7, teacher)
    assert np.array_equal(rows.features, alone.features)
    assert np.array_equal(rows.target, alone.target)
    assert ((rows.target >= 0) & (rows.target <= 1)).all()


def test_every_seat_records_value_rows_whoever_plays_it(monkeypatch: pytest.MonkeyPatch) -> None:
    seats: list[int] = []
    record = ValueRecorder.decision

    def spy(self: ValueRecorder, seat: int, obs: np.ndarray) -> None:
        seats.append(seat)
        record(self, seat, obs)

    monkeypatch.setattr(ValueRecorder, "decision", spy)
    g = len(combos())  # line-up teacher vs heuristic, the teacher in seat g % players
    rows = play_game(g, 7, TEACHER, values=True)
    assert sorted(set(seats)) == list(range(rows["players"])) and len(seats) == len(
        rows["values"].target
    )


def test_plain_and_joint_chains_do_not_take_each_others_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted(monkeypatch, 5, {})
    out = tmp_path / "m.npz"
    fit = replace(TINY, seed=5)
    train_prior_chain(out, fit, generations=2, gate_games=6)
    gen1 = generation_path(out, 1).read_bytes()
    with pytest.raises(StrategyError, match="other settings"):
        train_prior_chain(out, fit, generations=2, gate_games=6, value_units=2)
    assert generation_path(out, 1).read_bytes() == gen1
    res = train_prior_chain(out, fit, generations=2, gate_games=6, value_units=2,
                            run=TrainingRun(force=True))  # fmt: skip
    assert [g.resumed for g in res.generations] == [False, False]
    assert value_companion(generation_path(out, 2)).exists()
    with pytest.raises(StrategyError, match="other settings"):
        train_prior_chain(out, fit, generations=2, gate_games=6)
    again = train_prior_chain(out, fit, generations=2, gate_games=6, value_units=2)
    assert [g.resumed for g in again.generations] == [True, True]


def test_the_command_runs_joint_generations_and_refuses_what_cannot_run(
    tmp_path: Path,
) -> None:
    out = tmp_path / "m.npz"
    base = ("train", "--out", str(out), *TINY_ARGS)
    for extra, words in (
        (("--value-units", "2"), ["--value-units", "--generations"]),
        (("--value-units", "99", "--generations", "2", "--gate-games", "6"), ["--value-units"]),
        (("--value-units", "-1", "--generations", "2", "--gate-games", "6"), ["--value-units"]),
    ):  # fmt: skip
        one_line_error(invoke(*base, *extra), *words)
    assert not list(tmp_path.iterdir())
    res = invoke(*base, "--generations", "2", "--gate-games", "6", "--value-units", "2",
                 "--seed", "5")  # fmt: skip
    assert res.stderr.count("gate, 2 players: the new prior and value won") == 2, res.stderr
    values = [load_value_model(value_companion(generation_path(out, k))) for k in (1, 2)]
    assert all(v.provenance["hidden_units"] == 2 for v in values)
    if res.exit_code == 0:
        assert value_companion(out).exists() and out.exists()
    else:
        assert res.exit_code == 1 and not out.exists() and not value_companion(out).exists()


def test_a_gate_removes_the_copies_it_wrote_and_no_other_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Interrupted in its gate, a joint generation leaves neither trial copy behind; a
    prior-only generation writes no value copy, so it leaves a file at that name alone."""

    def interrupted(*args: Any, **kwargs: Any) -> None:
        seen.extend(p.name for p in tmp_path.iterdir())
        raise KeyboardInterrupt

    seen: list[str] = []
    monkeypatch.setattr(gate, "match", interrupted)
    out = tmp_path / "m.npz"
    trial = trial_path(generation_path(out, 1))  # generation 1's gate is interrupted
    with pytest.raises(KeyboardInterrupt):
        train_prior_chain(out, TINY, generations=2, gate_games=6, value_units=2)
    assert sorted(seen) == sorted([trial.name, value_companion(trial).name])
    assert list(tmp_path.iterdir()) == []
    seen.clear()
    bystander = value_companion(trial)
    bystander.write_bytes(b"not the chain's")
    with pytest.raises(KeyboardInterrupt):
        train_prior_chain(out, TINY, generations=2, gate_games=6)
    assert sorted(seen) == sorted([trial.name, bystander.name])
    assert [p.name for p in tmp_path.iterdir()] == [bystander.name]
    assert bystander.read_bytes() == b"not the chain's"
