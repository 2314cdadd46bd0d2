"""Generations of the search's prior (``train --generations``): each generation imitates
the champion of its time, the champion (the search with the promoted model as prior)
changes only on a gate that shows it stronger, OUT is the last promoted generation, the
first generation is plain ``train``, and an interrupted chain resumes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from chain_helpers import TEACHER, planted
from cli_helpers import invoke, one_line_error

from haggis_sim.training.chain import ChainHooks, Generation, generation_path, generation_seed
from haggis_sim.training.prior_chain import prior_candidate_spec, train_prior_chain
from haggis_sim.training.settings import ImitationFit, TrainingRun
from haggis_sim.training.train import run_training
from strategies import StrategyError
from strategies.learned_model import load_model

pytestmark = pytest.mark.slow  # prior chains train and gate real generations

# linear models (hidden 0) fit in a second; the command's own test fits a hidden layer
TINY = ImitationFit(games=10, seed=3, teacher=TEACHER, hidden=0, check_games=2)
TINY_ARGS = ("-n", "10", "--teacher", TEACHER, "--check-games", "2")


def test_the_champion_changes_only_when_the_gate_shows_the_new_prior_stronger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = planted(monkeypatch, 3, {1: 520, 2: 600, 3: 510})  # only generation 2 separates
    out = tmp_path / "m.npz"
    seen: list[Generation] = []
    res = train_prior_chain(
        out, TINY, generations=3, gate_games=6, hooks=ChainHooks(on_generation=seen.append)
    )
    assert [g.promoted for g in res.generations] == [False, True, False]
    assert [g.number for g in seen] == [1, 2, 3]
    root = res.generations[0].teacher
    assert root.startswith("mcts:iters=4,") and "model=gen2" in root
    # generation 2 still imitated (and was gated against) the teacher; 3 the search
    # with generation 2 as its prior
    assert res.generations[1].teacher == root
    third = res.generations[2].teacher
    gen2 = generation_path(out, 2)
    assert f"model={gen2.resolve()}" in third and "prior=learned" in third
    assert [c[1] for c in calls] == [root] * 4 + [third] * 2
    # the candidate of a gate is the champion's settings with the new model as prior
    assert calls[2][0].startswith("mcts:iters=4,") and ".m.gen2.npz.gate-" in calls[2][0]
    assert res.champion == third and res.champion_number == 2
    # OUT is generation 2, byte for byte, so the champion's pinned SHA-256 holds for it
    assert out.read_bytes() == gen2.read_bytes()
    prov = load_model(gen2).provenance
    assert prov["chain"]["generation"] == 2 and prov["chain"]["teacher"] == root
    assert prov["promoted"] is True and prov["seed"] == generation_seed(3, 2)
    assert prov["teacher"] == root
    assert [g["candidate"] for g in prov["gate"]] == [prior_candidate_spec(root, gen2)] * 2
    third_prov = load_model(generation_path(out, 3)).provenance
    assert third_prov["teacher"] == third and third_prov["promoted"] is False
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "m.gen1.npz", "m.gen2.npz", "m.gen3.npz", "m.npz"]  # fmt: skip


def test_a_chain_is_fixed_by_its_seed_and_its_first_generation_is_train(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first generation's weights are what train without --generations fits; an
    interrupted chain, run again, takes its finished generations from their files and
    ends with the weights of an uninterrupted one (generation 2 promoted: generation 3
    imitates the search with generation 2's prior)."""
    planted(monkeypatch, 4, {2: 600})
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    whole.mkdir()
    cut.mkdir()
    train_prior_chain(whole / "m.npz", replace(TINY, seed=4), generations=3, gate_games=6)
    single = run_training(tmp_path / "single.npz", replace(TINY, seed=4))

    def stop_after_two(gen: Generation) -> None:
        if gen.number == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_prior_chain(cut / "m.npz", replace(TINY, seed=4), generations=3, gate_games=6,
                          hooks=ChainHooks(on_generation=stop_after_two))  # fmt: skip
    assert sorted(p.name for p in cut.iterdir()) == ["m.gen1.npz", "m.gen2.npz"]
    again = train_prior_chain(cut / "m.npz", replace(TINY, seed=4), generations=3, gate_games=6)
    assert [g.resumed for g in again.generations] == [True, True, False]
    assert [g.promoted for g in again.generations] == [False, True, False]
    assert f"model={generation_path(cut / 'm.npz', 2).resolve()}," in again.generations[2].teacher
    for k in (1, 2, 3):
        a = load_model(generation_path(whole / "m.npz", k))
        b = load_model(generation_path(cut / "m.npz", k))
        assert np.array_equal(a.weights, b.weights), k
    first = load_model(generation_path(whole / "m.npz", 1))
    assert np.array_equal(first.weights, single.weights)
    third = load_model(generation_path(whole / "m.npz", 3))
    assert not np.array_equal(third.weights, first.weights)  # another teacher, other games


def test_a_real_gate_decides_and_the_command_says_so(tmp_path: Path) -> None:
    """Without a planted gate: the command plays the gates, prints them per generation,
    and its exit status says whether a generation was promoted (OUT written) or not."""
    out = tmp_path / "m.npz"
    res = invoke("train", "--out", str(out), *TINY_ARGS, "--hidden", "2", "--gate-games", "6",
                 "--generations", "2", "--seed", "5")  # fmt: skip
    gens = [load_model(generation_path(out, k)).provenance for k in (1, 2)]
    for prov in gens:
        assert prov["hidden_units"] == 2 and prov["heldout_vs_heuristic"]
        assert [(g["players"], g["games"] >= 6) for g in prov["gate"]] == [(2, True), (3, True)]
        assert all(g["wins"] <= g["games"] for g in prov["gate"])
    assert res.stderr.count("gate, 2 players: the new prior won") == 2, res.stderr
    assert res.stderr.count("gate, 3 players: the new prior won") == 2, res.stderr
    if any(p["promoted"] for p in gens):
        assert res.exit_code == 0 and out.exists(), res.stderr
        assert res.stdout.startswith(f"wrote {out}: generation ")
    else:
        assert res.exit_code == 1 and not out.exists(), res.stderr
        assert "no generation was shown stronger" in res.stderr


def test_a_chain_without_a_promotion_does_not_write_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted(monkeypatch, 3, {})  # every generation even with its champion
    out = tmp_path / "m.npz"
    res = invoke("train", "--out", str(out), *TINY_ARGS, "--hidden", "0", "--gate-games", "6",
                 "--seed", "3", "--generations", "2")  # fmt: skip
    assert res.exit_code == 1, (res.stdout, res.stderr)
    assert "no generation was shown stronger" in res.stderr and "not written" in res.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.gen1.npz", "m.gen2.npz"]


def test_chain_settings_that_cannot_run_are_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "m.npz"
    base = ("train", "--out", str(out), "-n", "10", "--teacher", TEACHER)
    gate = ("--gate-games", "6")
    for extra, words in (
        (("--generations", "0"), ["--generations"]),
        (gate, ["--gate-games", "--generations"]),
        (("--generations", "2"), ["--gate-games"]),
        ((*gate, "--generations", "99"), ["--generations"]),
        ((*gate, "--generations", "2", "--data", str(tmp_path / "p.parquet")), ["--data"]),
        ((*gate, "--generations", "2", "--hidden", "0", "--improve-iters", "3"),
         ["--improve-iters"]),
        ((*gate, "--generations", "2", "--teacher", "mcts:prior=none"), ["learned prior"]),
        ((*gate, "--generations", "2", "--teacher", "heuristic"), ["learned prior"]),
    ):  # fmt: skip
        one_line_error(invoke(*base, *extra), *words)
    assert not list(tmp_path.iterdir())


def test_a_file_of_other_settings_is_kept_unless_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted(monkeypatch, 3, {})
    out = tmp_path / "m.npz"
    mine = generation_path(out, 2)
    mine.write_bytes(b"mine")
    with pytest.raises(StrategyError, match="--force"):
        train_prior_chain(out, TINY, generations=2, gate_games=6)
    assert mine.read_bytes() == b"mine" and not generation_path(out, 1).exists()
    # the files of a finished chain are refused to a chain of other settings
    train_prior_chain(out, TINY, generations=2, gate_games=6, run=TrainingRun(force=True))
    with pytest.raises(StrategyError, match="other settings"):
        train_prior_chain(out, TINY, generations=2, gate_games=7)


@pytest.mark.parametrize(
    ("generations", "words"), [(1, "2 generations or more"), (51, "at most 50")]
)
def test_a_chain_of_one_generation_or_too_many_is_refused_as_such(
    tmp_path: Path, generations: int, words: str
) -> None:
    """The API's chain has two generations or more (the commands train one model
    without a chain for --generations 1); the refusal says which bound, before any game."""
    with pytest.raises(StrategyError, match=words):
        train_prior_chain(tmp_path / "m.npz", TINY, generations=generations, gate_games=6)
    assert list(tmp_path.iterdir()) == []
