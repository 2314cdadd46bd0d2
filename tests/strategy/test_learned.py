"""The ``learned`` strategy (issue #13): features from the observation only, the model
file's checks, deterministic training, the kernel's argmax, whole games through
``haggis-sim run``, and a resume refused once the model file has changed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from cli_helpers import one_line_error
from redeal import redeal
from typer.testing import CliRunner

import haggis_sim as hs
import strategies
from haggis_sim.cli import app
from haggis_sim.engine import layout as L
from haggis_sim.engine import state as S
from haggis_sim.engine.rng import new_stream
from haggis_sim.kernel import njit
from haggis_sim.training.fit import fit, fit_hidden, hidden_scores
from haggis_sim.training.metrics import top1
from haggis_sim.training.model_io import model_bytes
from haggis_sim.training.positions import generate
from haggis_sim.training.settings import Improvement
from strategies import StrategyError
from strategies.builtin import LearnedStrategy
from strategies.learned_features import (
    BOUND_MARGIN,
    FEATURES,
    HEURISTIC_ARRAY,
    N_FEATURES,
    TANH_FIT_ERROR,
    decision_features,
    distinct_rows,
    feature_key,
    tanh_fit,
)
from strategies.learned_model import (
    DEFAULT_MODEL,
    MODELS_DIR,
    SHIPPED_MODELS,
    Hidden,
    load_model,
)
from strategies.simple_kernels import heuristic_act

ACTIVE = (L.PH_PLAY, L.PH_GIVE_TRICK, L.PH_GIVE_HAGGIS)
DEAL = [L.S_HAND, L.S_HAND + 1, L.S_HAND + 2, L.S_HAGGIS]
RULESETS = [("classic", 2), ("revised", 3), ("revised-split", 3), ("deluxe", 2), ("aid", 3),
            ("haggish", 2)]  # fmt: skip
TEACHER = "mcts:iters=10"  # a quick teacher for the training tests
runner = CliRunner()


def game_trace(preset: str, players: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rules = hs.Rules.preset(preset, players=players).to_array()
    states = np.empty((8000, L.STATE_SIZE), dtype=np.int64)
    actions = np.empty(8000, dtype=np.int64)
    n = S.random_game_trace(rules, np.int64(seed), 0.3, states, actions)
    assert n > 0
    return states[:n], actions[:n]


def features_of(st: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The legal actions and their features, as the acting seat sees them."""
    obs = S.observe(st, st[L.S_TO_ACT])
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    n = int(S.legal_actions(obs, buf, True))
    return buf[:n].copy(), decision_features(obs, buf, n)


def python_scores(model: Any, f: np.ndarray, players: int) -> np.ndarray:
    """A model's scores of the rows ``f`` computed here in numpy, apart from the kernel:
    the linear term plus, with a hidden layer, output . tanh(f @ W + b)."""
    r = players - 2
    s = f @ model.weights[r]
    if model.hidden is not None:
        h = model.hidden
        s = s + np.tanh(f @ h.weights[r] + h.bias[r]) @ h.output[r]
    return s


def positions(per_ruleset: int = 15, seed: int = 5) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for k, (preset, players) in enumerate(RULESETS):
        states, _ = game_trace(preset, players, 40 + k)
        live = np.flatnonzero(np.isin(states[:, L.S_PHASE], ACTIVE))
        out.extend(states[int(r)] for r in rng.choice(live, size=per_ruleset, replace=False))
    return out


def heuristic_positions(games: int = 6, every: int = 3) -> list[np.ndarray]:
    """Every ``every``-th decision of games the default heuristic plays against itself
    (it keeps its bombs late, where random play spends them early), revised rules, 2 and
    3 players."""
    out = []
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    for g in range(games):
        st = S.init_state(hs.Rules.preset("revised", players=2 + g % 2).to_array())
        S.start_game(st, np.int64(g))
        rng = new_stream(np.int64(g))
        k = 0
        while not (st[L.S_PHASE] == L.PH_ROUND_OVER and S.next_round(st)):
            if st[L.S_PHASE] == L.PH_ROUND_OVER:
                continue
            obs = S.observe(st, st[L.S_TO_ACT])
            k += 1
            if k % every == 0:
                out.append(st.copy())
            S.apply_action(st, heuristic_act(obs, HEURISTIC_ARRAY, rng, buf))
    return out


def write_model(path: Path, source: Path = DEFAULT_MODEL, **override: Any) -> None:
    """A model file with ``source``'s content (the default model's), some keys replaced or
    removed."""
    with np.load(source) as npz:
        arrays = {k: npz[k] for k in npz.files}
    for key, value in override.items():
        if value is None:
            del arrays[key]
        else:
            arrays[key] = value
    np.savez(path, **arrays)


# --- information set ------------------------------------------------------------------------


@pytest.mark.slow
def test_redealt_hidden_cards_give_identical_features_and_actions() -> None:
    """Another deal the acting seat cannot tell apart (hidden cards re-dealt through the
    engine, ``redeal``) gives the same legal actions, the same features and the same
    learned action at each of the seat's decisions."""
    strat = strategies.make("learned")
    assert isinstance(strat, LearnedStrategy)
    rng = np.random.default_rng(7)
    decisions = moved = 0
    for k, (preset, players) in enumerate(RULESETS):
        states, actions = game_trace(preset, players, 300 + k)
        live = np.flatnonzero(np.isin(states[:, L.S_PHASE], ACTIVE))
        for row in map(int, rng.choice(live, size=6, replace=False)):
            seat = int(states[row, L.S_TO_ACT])
            alt = redeal(states, actions, row, seat, rng)
            first = row + 1 - len(alt)
            moved += not np.array_equal(alt[-1][DEAL], states[row][DEAL])
            for j, st in enumerate(alt):
                if st[L.S_TO_ACT] != seat or st[L.S_PHASE] not in ACTIVE:
                    continue
                true = states[first + j]
                (la, fa), (lb, fb) = features_of(true), features_of(st)
                assert np.array_equal(la, lb) and np.array_equal(fa, fb), (preset, first + j)
                a = strat.act_array(S.observe(true, seat), new_stream(np.int64(j)))
                b = strat.act_array(S.observe(st, seat), new_stream(np.int64(j)))
                assert a == b
                decisions += 1
    assert moved >= 0.8 * 6 * len(RULESETS) and decisions >= 100, (moved, decisions)


def test_safe_plays_cannot_be_beaten_by_any_hand_the_unseen_cards_allow() -> None:
    """``safe`` (no opponent can beat the play without a bomb) against the engine's own
    move generator as oracle: each opponent is given its face cards and *every* unseen
    suit card (the most any deal allows); when it holds enough cards, no higher play of
    the same shape may exist for a play marked safe. For sets the feature is exact: a
    set marked beatable must have such a reply."""
    from haggis_sim.engine import moves as M

    safe_col, beat_col = FEATURES.index("safe"), FEATURES.index("beatable")
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    checked = {"safe": 0, "beatable": 0}
    for st in positions(per_ruleset=40, seed=11):
        seat = int(st[L.S_TO_ACT])
        if st[L.S_PHASE] != L.PH_PLAY:
            continue
        obs = S.observe(st, seat)
        legal, f = features_of(st)
        n_players, nsuits = int(st[L.S_NP]), int(st[L.S_NSUITS])
        seen = obs[L.S_HAND + seat] | obs[L.S_TRICK_CARDS]
        for o in range(n_players):
            seen |= obs[L.S_CAPT + o]
        unseen = L.SUIT_ALL & ~seen
        unseen &= sum(1 << (5 * r + s) for r in range(9) for s in range(nsuits))
        for m, row in zip(legal, f, strict=True):
            kind = M.move_type(m)
            if kind not in (L.T_SET, L.T_SEQ):
                assert row[safe_col] == row[beat_col] == 0
                continue
            assert row[safe_col] + row[beat_col] == 1
            ncards = bin(int(m) & L.CARDS_MASK).count("1")
            replies = False
            for o in range(n_players):
                if o == seat:
                    continue
                held = int(obs[L.S_SIZE + o])
                if held < ncards:
                    continue
                faces = (int(st[L.S_HAND + o]) >> (L.FACE_SHIFT + 3 * o)) & 7
                k = int(M.generate(np.int64(unseen), np.int64(faces), nsuits, m, buf, True))
                replies |= any(M.move_type(r) != L.T_BOMB for r in buf[:k])
            if row[safe_col]:
                assert not replies, (hex(int(m)), st.tolist())
                checked["safe"] += 1
            elif kind == L.T_SET:
                assert replies, (hex(int(m)), st.tolist())
                checked["beatable"] += 1
    assert checked["safe"] >= 20 and checked["beatable"] >= 100, checked


def test_the_heuristic_feature_uses_the_heuristic_defaults() -> None:
    params = strategies.make("heuristic").param_array()
    assert np.array_equal(HEURISTIC_ARRAY, params[: len(HEURISTIC_ARRAY)])
    assert not params[len(HEURISTIC_ARRAY) :].any()  # the padding to the widest kernel


# --- the model file -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ({"format_version": np.int64(99)}, ["format_version 99"]),
        ({"features": np.array((*FEATURES, "extra"))}, ["other features"]),
        ({"features": np.array(("pass", "bet5"))}, ["other features"]),
        ({"features": np.array((*FEATURES[1:], FEATURES[0]))}, ["other features"]),
        ({"weights": None}, ["lacks weights"]),
        ({"provenance": None, "format_version": None}, ["lacks format_version, provenance"]),
        ({"weights": np.zeros(3)}, ["weights must be"]),
        (
            {
                "weights": np.zeros(N_FEATURES),
                "format_version": np.int64(2),
                "features": np.array(FEATURES),
            },
            [f"(2, {N_FEATURES})"],
        ),
        (
            {
                "weights": np.zeros((2, N_FEATURES)),
                "format_version": np.int64(1),
                "features": np.array(FEATURES),
            },
            [f"({N_FEATURES},)"],
        ),
        ({"weights": np.full((2, N_FEATURES), np.nan)}, ["weights must be"]),
        ({"provenance": np.array("not json")}, ["provenance is not JSON"]),
    ],
)
def test_a_bad_model_file_is_refused_in_one_line(
    tmp_path: Path, override: dict[str, Any], words: list[str]
) -> None:
    path = tmp_path / "bad.npz"
    write_model(path, **override)
    with pytest.raises(StrategyError) as info:
        strategies.make(f"learned:model={path}")
    assert "\n" not in str(info.value)
    for w in words:
        assert w in str(info.value)
    res = runner.invoke(app, ["run", "-s", f"learned:model={path},greedy", "-n", "4", "-q",
                              "--out", str(tmp_path / "run")])  # fmt: skip
    one_line_error(res, *words)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("content", [b"", b"not a zip file", None])
def test_a_missing_or_unreadable_model_file_is_refused(
    tmp_path: Path, content: bytes | None
) -> None:
    path = tmp_path / "m.npz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(StrategyError, match="learned: ") as info:
        load_model(path)
    assert "\n" not in str(info.value)


def test_a_model_over_a_prefix_of_the_features_reads_zero_for_the_rest(tmp_path: Path) -> None:
    # a model trained before features were appended keeps its scores: weight 0 on the new
    path = tmp_path / "old.npz"
    w = np.random.default_rng(3).standard_normal((2, N_FEATURES))
    write_model(path, features=np.array(FEATURES[:40]), weights=w[:, :40],
                format_version=np.int64(2))  # fmt: skip
    model = load_model(path)
    assert model.weights.shape == (2, N_FEATURES)
    assert np.array_equal(model.weights[:, :40], w[:, :40])
    assert not model.weights[:, 40:].any()
    with pytest.raises(StrategyError, match="shape"):  # weights must match the names given
        write_model(path, features=np.array(FEATURES[:40]), weights=w,
                    format_version=np.int64(2))  # fmt: skip
        load_model(path)


def test_the_shipped_model_loads_with_its_provenance() -> None:
    model = load_model(DEFAULT_MODEL)
    assert model.weights.shape == (2, N_FEATURES)
    assert not np.array_equal(model.weights[0], model.weights[1])  # tuned per player count
    for key in ("command", "seed", "games", "teacher", "holdout_top1_vs_teacher"):
        assert key in model.provenance
    res = runner.invoke(app, ["strategies"])
    assert res.exit_code == 0
    line = next(x for x in res.stdout.splitlines() if x.startswith("    shipped model "))
    shown = json.loads(line.split(": ", 1)[1])
    assert shown["games"] == model.provenance["games"]
    assert shown["hidden_units"] == 16
    checks = model.provenance["heldout_vs_heuristic"]
    assert shown["heldout_vs_heuristic_2p"] == checks["2"]["win_rate"] > 0.8


# --- training -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_positions() -> Any:
    return generate(5, seed=3, teacher=TEACHER)


@pytest.mark.slow
def test_training_is_deterministic_for_a_seed(tiny_positions: Any) -> None:
    again = generate(5, seed=3, teacher=TEACHER)
    other = generate(5, seed=4, teacher=TEACHER)
    assert np.array_equal(tiny_positions.features, again.features)
    assert np.array_equal(tiny_positions.chosen, again.chosen)
    assert not np.array_equal(tiny_positions.chosen, other.chosen[: len(tiny_positions.chosen)])
    p = tiny_positions
    assert np.array_equal(tiny_positions.target, again.target)
    w1, _ = fit(p.features, p.decision, p.target)
    w2, _ = fit(again.features, again.decision, again.target)
    assert np.array_equal(w1, w2) and np.any(w1 != 0)


def test_targets_are_the_searchs_visit_shares(tiny_positions: Any) -> None:
    """Each decision's targets sum to 1; where the teacher searched, they are spread over
    the actions it visited and the chosen action holds the largest share (the search plays
    its most visited root child); elsewhere (bets, other decisions) the chosen one holds 1."""
    p = tiny_positions
    starts = np.flatnonzero(np.r_[True, np.diff(p.decision) != 0])
    sums = np.add.reduceat(p.target.astype(np.float64), starts)
    assert np.allclose(sums, 1.0, atol=1e-5)
    spread = 0
    for a, b in zip(starts, np.r_[starts[1:], len(p.decision)], strict=True):
        t, c = p.target[a:b], p.chosen[a:b]
        assert t[c][0] == t.max()
        spread += int(np.count_nonzero(t) > 1)
    assert spread > len(starts) // 4  # most searched decisions visit several actions


def test_mcts_decide_is_mcts_act_with_its_root_visits() -> None:
    """The kernel training records visits with makes the strategy's own decision with the
    same random draws, and its visits are those of a search that played the argmax."""
    from haggis_sim.kernel import MAX_MOVES
    from strategies import ismcts

    params = strategies.make("mcts:iters=60").param_array()
    buf = np.empty(MAX_MOVES, dtype=np.int64)
    moves, visits = np.empty(62, dtype=np.int64), np.empty(62)
    searched = 0
    for i, st in enumerate(positions(per_ruleset=6)):
        obs = S.observe(st, st[L.S_TO_ACT])
        r1, r2 = new_stream(np.int64(i)), new_stream(np.int64(i))
        want = ismcts.mcts_act(obs, params, r1, buf)
        got, n = ismcts.mcts_decide(obs, params, r2, buf, moves, visits)
        assert got == want and np.array_equal(r1, r2)
        if n > 0:
            searched += 1
            assert moves[int(np.argmax(visits[:n]))] == got
            assert 0 < visits[:n].sum() <= 60
    assert searched > 10


def test_the_fit_matches_soft_targets() -> None:
    """With visit shares as targets the fit reproduces a planted softmax's shares."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4000, N_FEATURES))
    decision = np.repeat(np.arange(400), 10)
    true_w = np.zeros(N_FEATURES)
    true_w[1] = 1.5
    s = np.exp(x @ true_w).reshape(400, 10)
    target = (s / s.sum(axis=1, keepdims=True)).ravel()
    w, _ = fit(x, decision, target, l2=0.0)
    assert abs(w[1] - 1.5) < 0.05 and np.max(np.abs(np.delete(w, 1))) < 0.05, w[:4]


@pytest.mark.slow
def test_positions_do_not_depend_on_jobs(tiny_positions: Any) -> None:
    two = generate(5, seed=3, teacher=TEACHER, jobs=2)
    assert np.array_equal(tiny_positions.features, two.features)
    assert np.array_equal(tiny_positions.decision, two.decision)


def test_the_fit_learns_a_planted_rule() -> None:
    """Decisions whose choice is the row with the largest first feature: the fit puts
    a large positive weight there and ranks nearly every choice first (chance: 10%)."""
    rng = np.random.default_rng(0)
    x = rng.random((3000, N_FEATURES))
    decision = np.repeat(np.arange(300), 10)
    chosen = np.zeros(3000, dtype=bool)
    for d in range(300):
        rows = slice(10 * d, 10 * d + 10)
        chosen[10 * d + int(np.argmax(x[rows, 0]))] = True
    w, info = fit(x, decision, chosen)
    assert w[0] > 5 * np.max(np.abs(w[1:])), w[:4]
    assert top1(x @ w, decision, chosen) >= 0.9


def test_ctrl_c_during_training_says_so_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import haggis_sim.training.train as learned_train

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(learned_train, "run_training", interrupted)
    out = tmp_path / "m.npz"
    res = runner.invoke(app, ["train", "--out", str(out), "--games", "4"])
    assert res.exit_code == 130, (res.stdout, res.stderr)
    assert res.stderr.strip().splitlines() == [f"interrupted: nothing written ({out} is as it was)"]
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_after_the_positions_were_written_says_where_they_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--data is written after stage 1's games, before the fit: a Ctrl-C during the fit
    keeps it, and the message says so instead of "nothing written"."""
    import haggis_sim.training.train as learned_train

    def interrupted_in_the_fit(out: Path, fit: Any, **kwargs: Any) -> None:
        kwargs["data"].write_bytes(b"positions")
        raise KeyboardInterrupt

    monkeypatch.setattr(learned_train, "run_training", interrupted_in_the_fit)
    out, data = tmp_path / "m.npz", tmp_path / "pos.parquet"
    res = runner.invoke(app, ["train", "--out", str(out), "--games", "4", "--data", str(data)])
    assert res.exit_code == 130, (res.stdout, res.stderr)
    assert res.stderr.strip().splitlines() == [
        f"interrupted: {out} not written (it is as it was); the positions are complete in {data}"
    ]
    assert not out.exists() and data.read_bytes() == b"positions"


@pytest.mark.slow
def test_train_command_writes_a_model_and_refuses_to_overwrite(tmp_path: Path) -> None:
    out, data = tmp_path / "m.npz", tmp_path / "pos.parquet"
    args = ["train", "--out", str(out), "--games", "5", "--seed", "2", "--teacher", TEACHER,
            "--data", str(data), "--hidden", "0", "--improve-iters", "1", "--improve-games", "12",
            "--check-games", "10"]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 0, (res.stdout, res.stderr)
    assert "held-out top-1" in res.stdout and "held-out vs heuristic" in res.stdout
    model = load_model(out)
    assert model.provenance["games"] == 5 and model.provenance["seed"] == 2
    # one stage 2 on both player counts, then a refinement per count, from its result
    assert sorted(model.provenance["stage2"]) == ["2", "3", "both"]
    for name, stage2 in model.provenance["stage2"].items():
        players = {"2", "3"} if name == "both" else {name}
        check = "2" if name == "both" else name
        assert stage2["iters"] == 1 and stage2["heldout_vs_heuristic"]["games"] >= 10
        assert stage2["heldout_vs_heuristic"]["rules"].startswith(f"revised, {check} players")
        assert {p.split("/")[1] for p in stage2["presets_players"]} == players
        assert "heuristic:bomb=never" in stage2["pool"] and "mcts" not in str(stage2["pool"])
    assert model.provenance["stage2"]["2"]["starts"].keys() == {"both"}
    frame = pl.read_parquet(data)
    assert frame["holdout"].any() and frame["chosen"].sum() == frame["decision"].n_unique()
    sums = frame.group_by("decision").agg(pl.col("target").sum())["target"]
    assert ((sums - 1.0).abs() < 1e-5).all()
    assert model.provenance["target"] == "visits"
    assert model.provenance["environment"]["blas"]  # the fit's BLAS kernels, recorded
    before = out.read_bytes()
    one_line_error(runner.invoke(app, args), "exists", "--force")
    assert out.read_bytes() == before
    strategies.make(f"learned:model={out}")  # the trained model plays


# --- the kernel -----------------------------------------------------------------------------


def test_the_kernel_plays_the_argmax_of_the_python_scores() -> None:
    model = load_model(DEFAULT_MODEL)
    strat = strategies.make("learned")
    assert isinstance(strat, LearnedStrategy)
    checked = 0
    for st in positions():
        legal, f = features_of(st)
        if len(legal) < 2:
            continue
        scores = python_scores(model, f, int(st[L.S_NP]))
        a = strat.act_array(S.observe(st, st[L.S_TO_ACT]), new_stream(np.int64(1)))
        assert a == legal[int(np.argmax(scores))]
        checked += 1
    assert checked >= 50


def test_actions_share_a_row_only_where_their_features_are_equal() -> None:
    """distinct_rows' classes against the features themselves: every action's features
    equal those of the first action of its class, the firsts come in list order, and the
    heuristic's action (which has a feature of its own) is always a first. The classes do
    merge: plays that differ only in their suits."""
    merged = 0
    for st in positions(40, seed=11):
        legal, f = features_of(st)
        obs = S.observe(st, st[L.S_TO_ACT])
        h = int(heuristic_act(obs, HEURISTIC_ARRAY, new_stream(np.int64(0)),
                              np.empty(L.MAX_MOVES, dtype=np.int64)))  # fmt: skip
        n = len(legal)
        first, row = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        u = distinct_rows(legal, n, h, first, row)
        assert list(first[:u]) == sorted(first[:u]) and first[0] == 0
        for i in range(n):
            j = first[row[i]]
            assert j <= i and np.array_equal(f[i], f[j]), (legal[i], legal[j])
            assert feature_key(legal[i]) == feature_key(legal[j])
        if h in legal:
            assert int(np.flatnonzero(legal == h)[0]) in set(first[:u])
        merged += n - u
    assert merged >= 100


def test_each_product_feature_is_its_factors_times_the_context() -> None:
    """The screen folds each product feature's weights into its factors' (PRODUCTS):
    for every action, a product feature must equal the sum of its factors times their
    context numbers, over positions where each product feature is non-zero somewhere
    (passes, bets, bombs, the heuristic's choice); and no factor is itself a product."""
    from strategies.learned_features import FACTOR_COLUMN, FACTORS, PRODUCTS, context

    assert not set(FACTORS.tolist()) & set(PRODUCTS[:, 0].tolist())
    assert np.all(FACTOR_COLUMN[PRODUCTS[:, 1]] >= 0)  # a product of factors, not of products
    assert len(FACTORS) + len(set(PRODUCTS[:, 0].tolist())) == N_FEATURES
    nonzero = np.zeros(N_FEATURES, dtype=bool)
    for st in positions(30, seed=13) + heuristic_positions():
        legal, f = features_of(st)
        obs = S.observe(st, st[L.S_TO_ACT])
        ctx = context(obs, legal, len(legal))
        want = np.zeros_like(f)
        for j, factor, slot in PRODUCTS:
            want[:, j] += f[:, factor] * ctx[slot]
        np.testing.assert_allclose(f[:, PRODUCTS[:, 0]], want[:, PRODUCTS[:, 0]], rtol=1e-12)
        nonzero |= np.any(f != 0, axis=0)
    assert nonzero[PRODUCTS[:, 0]].all(), np.array(FEATURES)[~nonzero]


def test_the_hand_shape_features_count_ranks_as_a_python_walk_does() -> None:
    """groups_after, breaks_group, singles_after and high_after against a walk over the
    ranks here: the hand's rank groups left after each play, the groups the play broke
    but left, the ranks left single, and the cards left above every unseen card; over
    positions where each count is above 0 somewhere."""
    from haggis_sim import kernel as K
    from strategies.learned_features import C_MAX_UNSEEN, context

    seen = np.zeros(4, dtype=int)
    for st in positions(30, seed=17) + heuristic_positions():
        legal, f = features_of(st)
        obs = S.observe(st, st[L.S_TO_ACT])
        ctx = context(obs, legal, len(legal))
        hand = int(obs[L.S_HAND + int(st[L.S_TO_ACT])]) & L.SUIT_ALL
        for i, m in enumerate(legal):
            if int(K.move_type(m)) not in (K.T_SET, K.T_SEQ, K.T_BOMB):
                continue
            played = int(m) & L.SUIT_ALL
            left = [((hand & ~played) >> (5 * r)) & 31 for r in range(9)]
            counts = (
                sum(1 for g in left if g),
                sum(1 for r, g in enumerate(left) if g and (played >> (5 * r)) & 31),
                sum(1 for g in left if bin(g).count("1") == 1),
                sum(bin(g).count("1") for r, g in enumerate(left) if r + 2 > ctx[C_MAX_UNSEEN]),
            )
            want = (counts[0] / 9.0, counts[1] / 2.0, counts[2] / 9.0, counts[3] / 5.0)
            assert tuple(f[i, [20, 21, 22, 62]]) == want, hex(int(m))
            seen += np.array(counts) > 0
    assert np.all(seen > 0), seen


def test_each_player_count_plays_its_own_weights(tmp_path: Path) -> None:
    """A model whose 3-player row is flipped plays the shipped model's 2-player actions
    and the flipped model's 3-player ones."""
    model = load_model(DEFAULT_MODEL)
    w, h = model.weights, model.hidden
    assert h is not None
    mixed, flipped = tmp_path / "mixed.npz", tmp_path / "flip.npz"
    # negating the linear and the output weights negates every score
    sign = np.array([[1.0], [-1.0]])
    mixed.write_bytes(model_bytes(w * sign, model.provenance,
                                  Hidden(h.weights, h.bias, h.output * sign)))  # fmt: skip
    flipped.write_bytes(model_bytes(-w, model.provenance, Hidden(h.weights, h.bias, -h.output)))
    plain, mix, flip = (strategies.make(s) for s in ("learned", f"learned:model={mixed}",
                                                      f"learned:model={flipped}"))  # fmt: skip
    differ = {2: 0, 3: 0}
    for st in positions(8):
        obs = S.observe(st, st[L.S_TO_ACT])
        got, a, b = (x.act_array(obs, new_stream(np.int64(1))) for x in (mix, plain, flip))
        players = int(st[L.S_NP])
        assert got == (a if players == 2 else b)
        differ[players] += a != b
    assert differ[2] >= 5 and differ[3] >= 5  # the rows do decide


def random_hidden_model(tmp_path: Path, units: int = 5, seed: int = 8) -> Path:
    """A model file with random linear and hidden weights, different per player count."""
    rng = np.random.default_rng(seed)
    layer = Hidden(rng.standard_normal((2, N_FEATURES, units)), rng.standard_normal((2, units)),
                   3 * rng.standard_normal((2, units)))  # fmt: skip
    path = tmp_path / "hidden.npz"
    path.write_bytes(model_bytes(0.3 * rng.standard_normal((2, N_FEATURES)), {"x": 1}, layer))
    return path


def test_the_kernel_scores_a_hidden_layer_as_numpy_does(tmp_path: Path) -> None:
    """The kernel's scores (the prior's softmax reads them) equal the numpy formula, and
    the learned strategy plays their argmax, for both player counts."""
    from strategies.learned_features import score_actions

    model = load_model(random_hidden_model(tmp_path))
    assert model.hidden is not None and model.hidden.units == 5
    strat = strategies.make(f"learned:model={tmp_path / 'hidden.npz'}")
    params = model.param_array()
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    scores = np.empty(L.MAX_MOVES)
    flips = {2: 0, 3: 0}
    for st in positions(8):
        legal, f = features_of(st)
        obs = S.observe(st, st[L.S_TO_ACT])
        n = score_actions(obs, params, buf, scores)
        players = int(st[L.S_NP])
        want = python_scores(model, f, players)
        np.testing.assert_allclose(scores[:n], want, rtol=1e-9, atol=1e-9)
        assert strat.act_array(obs, new_stream(np.int64(1))) == legal[int(np.argmax(want))]
        flips[players] += int(np.argmax(want)) != int(np.argmax(f @ model.weights[players - 2]))
    assert flips[2] >= 3 and flips[3] >= 3  # the hidden layer does change decisions


def test_the_kernel_refuses_a_model_array_cut_short() -> None:
    """A parameter array whose head announces a hidden layer must hold all of it: the
    default model's array one float short is refused, whole it plays; a linear model's
    array (gen1) needs no more than its linear weights."""
    from strategies.learned_features import check_weights

    whole = load_model(DEFAULT_MODEL).param_array()
    check_weights(whole)
    with pytest.raises(ValueError, match="does not hold its hidden layer"):
        check_weights(whole[:-1].copy())
    linear = load_model(MODELS_DIR / SHIPPED_MODELS["gen1"]).param_array()
    assert linear.shape == (1 + 2 * N_FEATURES,)
    check_weights(linear)
    with pytest.raises(ValueError, match="does not hold a model's weights"):
        check_weights(linear[:-1].copy())


def test_learned_plays_the_first_best_of_its_scores_for_every_model(tmp_path: Path) -> None:
    """learned scores exactly only the actions whose bound does not show them below
    another action's score; what it plays must still be the first argmax of
    score_actions' scores, for every shipped model (linear and hidden), a random hidden
    one with large output weights, whose units saturate and whose scores are close, and
    the same on a scale of millions."""
    from strategies.learned_features import learned_act, score_actions

    hidden = load_model(random_hidden_model(tmp_path, units=16, seed=11)).param_array()
    models = [load_model(MODELS_DIR / f).param_array() for f in SHIPPED_MODELS.values()]
    # the same model on a scale of millions (scores, units and their sums far from 1)
    huge = hidden.copy()
    huge[1:] *= 3e6
    huge[1 + 2 * N_FEATURES] = hidden[1 + 2 * N_FEATURES]  # the hidden width stays
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    scores = np.empty(L.MAX_MOVES)
    states = positions(40, seed=9)
    for params in [*models, hidden, huge]:
        for st in states:
            obs = S.observe(st, st[L.S_TO_ACT])
            n = score_actions(obs, params, buf, scores)
            want = int(buf[int(np.argmax(scores[:n]))])
            assert learned_act(obs, params, new_stream(np.int64(0)), buf) == want


def test_the_screen_bounds_hold_every_exact_score(tmp_path: Path) -> None:
    """The bounds learned screens a large decision with (matrix products over the
    factor features with the products' weights folded in, whose sums may round otherwise
    than the kernel's, and a stand-in for tanh) hold each action's
    exact score — the score score_actions gives — for every shipped model with a hidden
    layer, a random one with saturated units, and the same on a scale of millions; and
    they are tight enough to screen: most large decisions leave out most actions."""
    from strategies.learned_features import (
        HEURISTIC_ARRAY,
        SCREEN_FROM,
        action_features,
        context,
        heuristic_listed,
        score_actions,
        screen_rows,
    )
    from strategies.network import layer

    hidden = load_model(random_hidden_model(tmp_path, units=16, seed=11)).param_array()
    models = [load_model(MODELS_DIR / f).param_array() for f in SHIPPED_MODELS.values()]
    huge = hidden.copy()
    huge[1:] *= 3e6
    huge[1 + 2 * N_FEATURES] = hidden[1 + 2 * N_FEATURES]
    with_hidden = [p for p in [*models, hidden, huge] if p.shape[0] > 1 + 2 * N_FEATURES]
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    scores = np.empty(L.MAX_MOVES)
    screened = large = 0
    for params in with_hidden:
        for st in positions(40, seed=9):
            obs = S.observe(st, st[L.S_TO_ACT])
            n = score_actions(obs, params, buf, scores)
            if n < SCREEN_FROM:
                continue
            large += 1
            h = heuristic_listed(obs, HEURISTIC_ARRAY, buf, n)
            ctx = context(obs, buf, n)
            xs = np.empty((n, N_FEATURES))
            for i in range(n):
                action_features(obs, ctx, buf[i], h, xs[i])
            off, w_in, b_in, w_out = layer(params, np.int64(st[L.S_NP]))
            upper, lower = np.empty(n), np.empty(n)
            screen_rows(xs, ctx, params, off, w_in, b_in, w_out, upper, lower)
            assert np.all(lower <= scores[:n]) and np.all(scores[:n] <= upper)
            screened += int(np.sum(upper < lower.max())) >= n // 2
    assert large >= 50
    assert screened >= large * 0.8


@njit
def _fit_error(start: float, step: float, count: int) -> tuple[float, float]:
    """The largest ``|tanh_fit(x) - tanh(x)|`` at ``start + i * step`` (i < ``count``),
    and the largest slope of tanh_fit between neighbouring points."""
    worst = 0.0
    slope = 0.0
    last = tanh_fit(start)
    for i in range(count):
        x = start + i * step
        y = tanh_fit(x)
        worst = max(worst, abs(y - np.tanh(x)))
        if i > 0:
            slope = max(slope, abs(y - last) / step)
        last = y
    return worst, slope


def test_the_tanh_fit_is_within_its_stated_error_everywhere() -> None:
    """Screening trusts ``|tanh_fit(x) - tanh(x)| <= TANH_FIT_ERROR`` for every x: on
    [-12, 12] at points 2.5e-7 apart, the largest difference seen plus what the two
    functions can drift apart between points (their slopes, tanh's at most 1, times the
    gap) is within it; beyond, the fit is constant and tanh within 1e-10 of +-1. The
    error is not an ulp's: screening must (and does) widen its bounds by it."""
    step = 2.5e-7
    worst, slope = _fit_error(-12.0, step, int(24.0 / step) + 1)
    assert slope < 1.01
    assert worst + (slope + 1.0) * step <= TANH_FIT_ERROR
    assert worst > TANH_FIT_ERROR / 100
    for x in (12.0, 1e3, 1e300, np.inf):
        assert abs(tanh_fit(x) - 1.0) <= TANH_FIT_ERROR
        assert abs(tanh_fit(-x) + 1.0) <= TANH_FIT_ERROR
    assert np.isnan(tanh_fit(np.nan))  # a NaN sum's bound neither screens nor sets the bar
    assert 64 * np.spacing(1.0) < BOUND_MARGIN  # a few ulps per summand, relative


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ({"hidden_bias": None}, ["lacks hidden_bias"]),
        ({"hidden_weights": np.zeros((2, 10, 4))}, ["hidden_weights must be"]),
        ({"output": np.zeros((2, 3))}, ["output must be"]),
        ({"hidden_bias": np.full((2, 5), np.inf)}, ["hidden_bias must be"]),
    ],
)
def test_a_bad_hidden_layer_is_refused(
    tmp_path: Path, override: dict[str, Any], words: list[str]
) -> None:
    bad = tmp_path / "bad.npz"
    write_model(bad, random_hidden_model(tmp_path), **override)
    with pytest.raises(StrategyError) as info:
        load_model(bad)
    assert "\n" not in str(info.value)
    for w in words:
        assert w in str(info.value)


@pytest.mark.slow
def test_the_hidden_fit_learns_what_a_linear_one_cannot() -> None:
    """The chosen row is the one where features 0 and 1 differ in sign (an XOR): no linear
    score ranks it first much above chance (25%); a few hidden units do."""
    rng = np.random.default_rng(2)
    n_dec, k = 400, 4
    x = np.zeros((n_dec * k, N_FEATURES))
    x[:, :2] = rng.choice([-1.0, 1.0], size=(n_dec * k, 2))
    x[:, 2:] = 0.1 * rng.standard_normal((n_dec * k, N_FEATURES - 2))
    decision = np.repeat(np.arange(n_dec), k)
    chosen = np.zeros(n_dec * k, dtype=bool)
    for d in range(n_dec):
        rows = np.arange(k * d, k * d + k)
        odd = rows[x[rows, 0] != x[rows, 1]]
        chosen[odd[0] if len(odd) else rows[0]] = True
    players = np.full(n_dec * k, 2)
    w, _ = fit(x, decision, chosen.astype(float))
    linear, layer, info = fit_hidden(x, decision, chosen.astype(float), players, 4, seed=1)
    assert top1(x @ w, decision, chosen) < 0.6
    assert top1(hidden_scores(x, players, linear, layer), decision, chosen) > 0.9, info
    again = fit_hidden(x, decision, chosen.astype(float), players, 4, seed=1)
    assert np.array_equal(again[1].weights, layer.weights)  # deterministic for a seed


def test_train_refuses_stage2_with_a_hidden_layer(tmp_path: Path) -> None:
    out = tmp_path / "m.npz"
    for args, words in ((["--hidden", "4", "--improve-iters", "2"], ["linear models only"]),
                        (["--hidden", "-1"], ["--hidden must be 0 to"])):  # fmt: skip
        res = runner.invoke(app, ["train", "--out", str(out), "--games", "5", *args])
        one_line_error(res, *words)
        assert not out.exists()


@pytest.mark.slow
def test_train_with_a_hidden_layer_writes_a_model_that_plays(tmp_path: Path) -> None:
    out = tmp_path / "m.npz"
    args = ["train", "--out", str(out), "--games", "5", "--seed", "2", "--teacher", TEACHER,
            "--hidden", "3", "--improve-iters", "0", "--check-games", "10"]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 0, (res.stdout, res.stderr)
    assert "held-out vs heuristic" in res.stdout and "held-out vs two heuristics" in res.stdout
    model = load_model(out)
    assert model.hidden is not None and model.hidden.units == 3
    assert model.provenance["hidden_units"] == 3 and model.provenance["stage2"] is None
    checks = model.provenance["heldout_vs_heuristic"]
    assert sorted(checks) == ["2", "3"] and checks["2"]["games"] >= 10
    strategies.make(f"learned:model={out}")


def test_a_version_1_model_plays_its_weights_for_both_player_counts(tmp_path: Path) -> None:
    """Files from before per-player-count weights still load: one row for every game."""
    model = load_model(DEFAULT_MODEL)
    old = tmp_path / "v1.npz"
    write_model(
        old, format_version=np.int64(1), weights=model.weights[0], features=np.array(FEATURES)
    )
    loaded = load_model(old)
    assert np.array_equal(loaded.weights, np.vstack([model.weights[0]] * 2))


def test_other_weights_other_decisions(tmp_path: Path) -> None:
    """The model's content decides: flipped weights change many actions."""
    model = load_model(DEFAULT_MODEL)
    flipped = tmp_path / "flip.npz"
    flipped.write_bytes(model_bytes(-model.weights, model.provenance))
    a, b = strategies.make("learned"), strategies.make(f"learned:model={flipped}")
    assert isinstance(a, LearnedStrategy) and isinstance(b, LearnedStrategy)
    differ = 0
    for st in positions(5):
        obs = S.observe(st, st[L.S_TO_ACT])
        differ += a.act_array(obs, new_stream(np.int64(1))) != b.act_array(
            obs, new_stream(np.int64(1))
        )
    assert differ >= 10


# --- whole games and resume ---------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3])
def test_learned_plays_whole_games_through_run(tmp_path: Path, players: int) -> None:
    out = tmp_path / "run"
    res = runner.invoke(app, ["run", "-s", "learned,heuristic", "-p", str(players), "-n", "20",
                              "--chunk-size", "10", "--seed", "3", "--jobs", "1", "-q",
                              "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, (res.stdout, res.stderr)
    games = pl.read_parquet(out / "games" / "*.parquet")
    assert games.height == 20
    moves = pl.read_parquet(out / "moves" / "*.parquet")
    assert moves.height > 20 * 20
    spec = json.loads((out / "manifest.json").read_text())["config"]["strategies"][0]
    assert spec == f"learned:model=mix6,sha={load_model(DEFAULT_MODEL).sha256[:16]}"  # default


@pytest.mark.slow
def test_resume_is_refused_after_the_model_file_changed(tmp_path: Path) -> None:
    model_file = tmp_path / "m.npz"
    shutil.copy(DEFAULT_MODEL, model_file)
    out = tmp_path / "run"
    res = runner.invoke(app, ["run", "-s", f"learned:model={model_file},greedy", "-n", "20",
                              "--chunk-size", "10", "--seed", "3", "--jobs", "1", "-q",
                              "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, (res.stdout, res.stderr)
    # the run is cut short: its second chunk is lost
    ledger = (out / "parts.jsonl").read_text().splitlines()
    (out / "parts.jsonl").write_text(ledger[0] + "\n")
    model = load_model(model_file)
    model_file.write_bytes(model_bytes(model.weights * 1.5, model.provenance))
    one_line_error(runner.invoke(app, ["run", "--resume", str(out), "-q"]), "changed")
    shutil.copy(DEFAULT_MODEL, model_file)  # the original file back: the run resumes
    res = runner.invoke(app, ["run", "--resume", str(out), "-q"])
    assert res.exit_code == 0, (res.stdout, res.stderr)
    assert pl.read_parquet(out / "games" / "*.parquet").height == 20


# --- stage 2: improvement by play -----------------------------------------------------------

IMPROVEMENT = Improvement(iters=2, games=12)
IMPROVE = {"seed": 5, "check_games": 6, "combos": [("classic", 2), ("revised", 3)]}


def start_weights() -> dict[str, np.ndarray]:
    w = load_model(MODELS_DIR / SHIPPED_MODELS["gen2"]).weights[0]  # stage 2: linear models
    return {"imitation": w, "other": w * np.linspace(0.5, 1.5, len(w))}


@pytest.fixture(scope="module")
def improved() -> Any:
    from haggis_sim.training.improve import improve

    return improve(start_weights(), IMPROVEMENT, **IMPROVE)  # type: ignore[arg-type]


def _no_time(info: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in info.items() if k != "seconds"}


def test_stage2_is_deterministic_for_a_seed(improved: Any) -> None:
    from haggis_sim.training.improve import improve

    again = improve(start_weights(), IMPROVEMENT, **IMPROVE)  # type: ignore[arg-type]
    assert np.array_equal(improved.weights, again.weights)
    assert _no_time(improved.info) == _no_time(again.info)
    other = improve(start_weights(), IMPROVEMENT, **{**IMPROVE, "seed": 6})  # type: ignore[arg-type]
    assert other.info["history"] != improved.info["history"]  # other deals, other scores


@pytest.mark.slow
def test_stage2_does_not_depend_on_jobs(improved: Any) -> None:
    from haggis_sim.training.improve import improve

    two = improve(start_weights(), IMPROVEMENT, **IMPROVE, jobs=2)  # type: ignore[arg-type]
    assert np.array_equal(improved.weights, two.weights)
    assert _no_time(improved.info) == _no_time(two.info)


def test_stage2_never_returns_weights_worse_than_its_start(monkeypatch: Any) -> None:
    """Elitist: wild steps (sigma as large as the weights) on 2 games an iteration let
    luck pick a poor incumbent, yet the returned weights score at least the chosen
    start's on the final games, replayed here independently of ``improve``."""
    import haggis_sim.training.improve as LI
    from haggis_sim.training.games import schedule, spec_row

    monkeypatch.setattr(LI, "SIGMA0", 1.0)
    monkeypatch.setattr(LI, "SIGMA_RANGE", (1.0, 1.0))
    settings = {**IMPROVE, "seed": 7}
    starts = start_weights()
    res = LI.improve(starts, Improvement(iters=8, games=2), **settings)  # type: ignore[arg-type]
    pool = [spec_row(s) for s in LI.POOL]
    sched = schedule(7, (LI.TAG_FINAL,), 8, len(pool), settings["combos"])  # type: ignore[arg-type]
    start = starts[res.info["start_chosen"]]
    got, base = (LI.objective(LI.outcomes(sched, w, pool), sched) for w in (res.weights, start))
    assert got >= base
    assert res.info["accepted_steps"] >= 1  # the search did move away from the start


@pytest.mark.slow
def test_follow_heuristic_ranks_the_heuristic_first(tiny_positions: Any) -> None:
    from haggis_sim.training.improve import FOLLOW_SHARE, follow_heuristic

    p = tiny_positions
    x = p.features.astype(np.float64)
    w, _ = fit(x, p.decision, p.chosen)
    followed = follow_heuristic(w, x, p.decision, p.heuristic)
    most = top1(x[:, FEATURES.index("heuristic_choice")], p.decision, p.heuristic)
    assert top1(x @ followed, p.decision, p.heuristic) >= FOLLOW_SHARE * most
    assert top1(x @ w, p.decision, p.heuristic) < FOLLOW_SHARE * most


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--improve-iters", "-1", ["--improve-iters", "0 or more"]),
        ("--improve-games", "0", ["--improve-games", "positive"]),
        ("--improve-games", "many", ["--improve-games"]),
        ("--check-games", "1", ["--check-games", "2 or more"]),
        ("--target", "policy", ["--target", "visits, chosen", "'policy'"]),
    ],
)
def test_train_refuses_bad_stage2_options(
    tmp_path: Path, option: str, value: str, words: list[str]
) -> None:
    out = tmp_path / "m.npz"
    res = runner.invoke(app, ["train", "--out", str(out), "--games", "5", option, value])
    one_line_error(res, *words)
    assert not out.exists()


def test_stage2_batch_games_are_the_games_a_python_walk_plays() -> None:
    """The compiled batch play (the runner's game loop, without logs) gives each game of a
    schedule the winner and scores that a move-by-move Python walk of the same deal, seat
    entries and seat streams gives: the entries, seeds and streams reach the right seats."""
    from haggis_sim import kernel as K
    from haggis_sim.selfplay import play_out
    from haggis_sim.training.games import play_games, schedule, spec_row, weights_row
    from strategies import kernels

    sched = schedule(9, (1,), 8, 2, [("revised", 2), ("classic", 3)])
    opponents = [spec_row("heuristic"), spec_row("random")]  # random: the streams matter
    model = load_model(MODELS_DIR / SHIPPED_MODELS["gen2"])
    rows = [weights_row(model.weights)] + [row for _, row in opponents]
    sids = np.array([kernels.LEARNED_ID] + [sid for sid, _ in opponents], dtype=np.int64)
    params = np.zeros((len(rows), max(len(r) for r in rows)))
    for i, r in enumerate(rows):
        params[i, : len(r)] = r
    out = np.empty((len(sched), 4), dtype=np.int64)
    play_games(sched.rules, sids, params, sched.entries, sched.words, out)
    buf = np.empty(K.MAX_MOVES, dtype=np.int64)
    for g in range(len(sched)):
        players = int(sched.rules[g, L.R_PLAYERS])
        streams = [K.new_stream(sched.words[g, 1 + s]) for s in range(players)]

        def choose(seat: int, obs: np.ndarray, g: int = g, streams: list[Any] = streams) -> int:
            e = sched.entries[g, seat]
            return int(kernels.act(sids[e], obs, params[e], streams[seat], buf))

        st = play_out(sched.rules[g], sched.words[g, 0], choose)
        scores = [int(st[L.S_SCORE + s]) if s < players else -1 for s in range(3)]
        assert out[g].tolist() == [int(st[L.S_WINNER]), *scores], g
    assert len(set(out[:, 0].tolist())) > 1  # not one seat winning everything
