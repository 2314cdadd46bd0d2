"""``haggis-sim report``: every number checked against an independent polars computation,
interval coverage on synthetic data, the page's files and its rendering in headless
Chromium, and runs that are empty or unfinished.

Runs are small (a few hundred games, one process) so the module stays fast.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from run_helpers import played_run
from scipy.stats import binomtest
from typer.testing import CliRunner

from haggis_sim import stats
from haggis_sim.analytics import sections
from haggis_sim.cli import app
from haggis_sim.report import build_report
from haggis_sim.rules import Rules
from haggis_sim.runner.run import RunConfig, create_run, execute

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

runner = CliRunner()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    base = tmp_path_factory.mktemp("runs")
    r2 = played_run(base / "r2", ["greedy", "random:bet=0.3"], 240, 2, seed=7, chunk_size=100)
    r3 = played_run(base / "r3", ["random:bet=0.3", "greedy", "heuristic"], 60, 3, seed=8,
                    chunk_size=30, preset="deluxe")  # fmt: skip
    return [r2, r3]


@pytest.fixture(scope="module")
def report(runs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rep") / "report"
    result = runner.invoke(app, ["report", *map(str, runs), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def table(report: Path, name: str) -> pl.DataFrame:
    return pl.read_csv(report / "tables" / f"{name}.csv")


def logs(runs: list[Path], name: str) -> pl.DataFrame:
    frames = []
    for i, r in enumerate(runs):
        f = pl.read_parquet(r / name / "part-*.parquet").with_columns(pl.lit(i).alias("run"))
        if name == "games":
            f = f.with_columns(
                pl.col("rules").cast(pl.String),
                *(pl.col(f"strategy_{k}").cast(pl.String) for k in range(3)),
            )
        frames.append(f)
    return pl.concat(frames, how="diagonal_relaxed")


def seat_rows(games: pl.DataFrame) -> pl.DataFrame:
    return pl.concat(
        [
            games.filter(pl.col(f"strategy_{k}").is_not_null()).select(
                "run", "game_id", "deal_id", "rules",
                pl.lit(k).alias("seat"), pl.col(f"strategy_{k}").alias("strategy"),
                pl.col(f"entry_{k}").cast(pl.Int64).alias("entry"),
                pl.col(f"score_{k}").cast(pl.Float64).alias("score"),
                (pl.col("winner") == k).alias("won"),
            )
            for k in range(3)
        ]
    )  # fmt: skip


def round_rows(runs: list[Path]) -> pl.DataFrame:
    rounds = logs(runs, "rounds")
    seats = seat_rows(logs(runs, "games")).select("run", "game_id", "seat", "strategy", "rules")
    per = pl.concat(
        [
            rounds.filter(pl.col(f"total_{k}").is_not_null()).select(
                "run", "game_id", "round", pl.lit(k).alias("seat"),
                *(pl.col(f"{c}_{k}").cast(pl.Float64).alias(c)
                  for c in ("bet", "going_out", "cards", "bets", "bonus", "total")),
            )
            for k in range(3)
        ]
    )  # fmt: skip
    return per.join(seats, on=["run", "game_id", "seat"])


def close(a: pl.DataFrame, b: pl.DataFrame, keys: list[str], cols: list[str]) -> None:
    """Same keys, and the columns equal to floating-point precision."""
    a = a.select(*keys, *cols).sort(keys)
    b = b.select(*keys, *cols).sort(keys)
    assert a.height == b.height
    for k in keys:
        assert a[k].cast(pl.String).to_list() == b[k].cast(pl.String).to_list(), k
    for c in cols:
        np.testing.assert_allclose(
            a[c].cast(pl.Float64).to_numpy(), b[c].cast(pl.Float64).to_numpy(), rtol=1e-9,
            err_msg=c,
        )  # fmt: skip


# --- numbers ---------------------------------------------------------------------------------


def test_strategy_and_pair_results(runs: list[Path], report: Path) -> None:
    gs = (
        seat_rows(logs(runs, "games"))
        .group_by("run", "game_id", "strategy")
        .agg(pl.col("deal_id").first(), pl.col("rules").first(), pl.col("score").mean(),
             pl.col("won").any(), pl.col("entry").min())
    )  # fmt: skip
    field = gs.group_by("run", "game_id").agg(pl.col("strategy").unique().sort().alias("f"))
    gs_f = gs.join(field, on=["run", "game_id"]).with_columns(
        pl.struct("f", "strategy").map_elements(
            lambda r: " + ".join(x for x in r["f"] if x != r["strategy"]),
            return_dtype=pl.String,
        ).alias("opponents")
    )  # fmt: skip
    mine = gs_f.group_by("rules", "strategy", "opponents").agg(
        pl.len().alias("games"), pl.col("won").sum().alias("wins"),
        pl.col("score").mean().alias("mean_score"),
    )  # fmt: skip
    theirs = table(report, "strategies")
    close(theirs, mine, ["rules", "strategy", "opponents"], ["games", "wins", "mean_score"])
    for row in theirs.iter_rows(named=True):
        ci = binomtest(row["wins"], row["games"]).proportion_ci(method="wilson")
        assert row["win_low"] == pytest.approx(ci.low) and row["win_high"] == pytest.approx(ci.high)

    # A is the strategy the user named first (the lower --strategies entry)
    pair = gs.join(gs, on=["run", "game_id"], suffix="_b").filter(
        pl.col("entry") < pl.col("entry_b")
    )
    neither = ~pl.col("won") & ~pl.col("won_b")
    pair = pair.with_columns(
        (pl.col("won") | (neither & (pl.col("score") > pl.col("score_b")))).alias("a_win"),
        (pl.col("won_b") | (neither & (pl.col("score_b") > pl.col("score")))).alias("b_win"),
        (pl.col("score") - pl.col("score_b")).alias("m"),
    )
    deals = pair.group_by("run", "rules", "strategy", "strategy_b", "deal_id").agg(
        pl.len().alias("n"), pl.col("a_win").sum().alias("aw"), pl.col("b_win").sum().alias("bw"),
        pl.col("m").mean().alias("dm"),
    )  # fmt: skip
    mine_p = deals.group_by("rules", "strategy", "strategy_b").agg(
        pl.col("n").sum().alias("games"), pl.len().alias("deals"),
        pl.col("aw").sum().alias("wins_a"), pl.col("bw").sum().alias("wins_b"),
        pl.col("dm").mean().alias("margin"), pl.col("dm").alias("dms"),
    ).rename({"strategy": "a", "strategy_b": "b"})  # fmt: skip
    theirs_p = table(report, "pairs")
    close(theirs_p, mine_p, ["rules", "a", "b"], ["games", "deals", "wins_a", "wins_b", "margin"])
    mine_p = mine_p.sort("rules", "a", "b")
    for row, dms in zip(theirs_p.sort("rules", "a", "b").iter_rows(named=True),
                        mine_p["dms"].to_list(), strict=True):  # fmt: skip
        _, lo, hi = stats.paired_mean_ci(dms)
        assert row["margin_low"] == pytest.approx(lo) and row["margin_high"] == pytest.approx(hi)
    # three strategies took part: a rating table, equal to an independent maximum-likelihood
    # Bradley-Terry fit of the pair wins counted above, and ordered by it
    names = sorted(set(mine_p["a"]) | set(mine_p["b"]))
    wins = np.zeros((3, 3))
    for row in mine_p.iter_rows(named=True):
        i, j = names.index(row["a"]), names.index(row["b"])
        wins[i, j] += row["wins_a"]
        wins[j, i] += row["wins_b"]
    expected = dict(zip(names, bradley_terry_ml(wins), strict=True))
    ratings = table(report, "ratings")
    assert ratings["strategy"].to_list() == sorted(names, key=expected.get, reverse=True)
    for row in ratings.iter_rows(named=True):
        assert row["rating"] == pytest.approx(expected[row["strategy"]], abs=0.5), row
        i = names.index(row["strategy"])
        assert (row["pair_wins"], row["pair_losses"]) == (wins[i].sum(), wins[:, i].sum())


def test_seat_points_bets_bombs_shape(runs: list[Path], report: Path) -> None:
    games = logs(runs, "games")
    seats = seat_rows(games)
    players = games.select("run", players=pl.sum_horizontal(
        pl.col(f"strategy_{k}").is_not_null() for k in range(3))).unique()  # fmt: skip
    mine = seats.join(players, on="run").group_by("rules", "players", "seat").agg(
        pl.len().alias("games"), pl.col("won").sum().alias("wins"),
        pl.col("score").mean().alias("mean_score"),
    )  # fmt: skip
    close(table(report, "seat"), mine, ["rules", "players", "seat"],
          ["games", "wins", "mean_score"])  # fmt: skip

    rr = round_rows(runs)
    pts = rr.group_by("rules", "strategy").agg(
        pl.len().alias("rounds"), *(pl.col(c).mean() for c in
                                    ("going_out", "cards", "bets", "bonus", "total")))  # fmt: skip
    close(table(report, "points"), pts, ["rules", "strategy"],
          ["rounds", "going_out", "cards", "bets", "bonus", "total"])  # fmt: skip

    bets = (
        rr.filter(pl.col("bet") > 0)
        .group_by("rules", "strategy", pl.col("bet").cast(pl.Int64).alias("value"))
        .agg(pl.len().alias("bets"), (pl.col("bets") > 0).sum().alias("ok"),
             pl.col("bets").sum().alias("pts"))
    )  # fmt: skip
    assert bets.height > 0, "the runs should contain bets"
    close(table(report, "bet_rates"), bets, ["rules", "strategy", "value"], ["bets"])
    out = (
        table(report, "bet_outcomes")
        .with_columns((pl.col("net_points") * pl.col("bets")).alias("pts"))
        .group_by("rules", "strategy", "value")
        .agg(pl.col("bets").sum(), pl.col("successes").sum().alias("ok"), pl.col("pts").sum())
    )
    close(out, bets, ["rules", "strategy", "value"], ["bets", "ok", "pts"])

    moves = logs(runs, "moves").filter(pl.col("type") == "bomb")
    sg = seats.select("run", "game_id", "seat", "strategy", "rules")
    bombs = moves.join(sg, on=["run", "game_id", "seat"]).group_by("rules", "strategy").agg(
        pl.len().alias("bombs"), pl.col("trick").cast(pl.Float64).mean().alias("mean_trick"),
        pl.col("hand_after").cast(pl.Float64).mean().alias("mean_bomber_left"),
        pl.col("won_trick").mean().alias("took_trick_rate"),
    )  # fmt: skip
    close(table(report, "bombs"), bombs, ["rules", "strategy"],
          ["bombs", "mean_trick", "mean_bomber_left", "took_trick_rate"])  # fmt: skip

    scores = np.sort(games.select("score_0", "score_1", "score_2").fill_null(-(10**9))
                     .to_numpy(), axis=1)  # fmt: skip
    games = games.with_columns(pl.Series("margin", scores[:, -1] - scores[:, -2]))
    rounds = logs(runs, "rounds").join(games.select("run", "game_id", "rules"),
                                       on=["run", "game_id"])  # fmt: skip
    shape = games.group_by("rules").agg(
        pl.len().alias("games"), pl.col("rounds").cast(pl.Float64).mean().alias("mean_rounds"),
        pl.col("margin").cast(pl.Float64).mean().alias("mean_margin"),
    ).join(rounds.group_by("rules").agg(
        pl.col("tricks").cast(pl.Float64).mean().alias("mean_tricks_per_round")
    ), on="rules")  # fmt: skip
    close(table(report, "shape"), shape, ["rules"],
          ["games", "mean_rounds", "mean_margin", "mean_tricks_per_round"])  # fmt: skip
    dist = games.group_by("rules", "rounds").agg(pl.len().alias("games"))
    close(table(report, "shape_rounds"), dist, ["rules", "rounds"], ["games"])


# --- intervals -------------------------------------------------------------------------------


def test_tables_write_floats_to_ten_decimals(report: Path) -> None:
    # DuckDB's parallel sums vary in the last bits between builds: ten decimals keep a
    # rebuilt report's tables byte for byte the same
    decimals = [
        len(cell.partition(".")[2])
        for f in (report / "tables").glob("*.csv")
        for line in f.read_text().splitlines()[1:]
        for cell in line.split(",")
        if re.fullmatch(r"-?\d+\.\d+", cell)
    ]
    assert decimals and max(decimals) <= 10 and 10 in decimals


def test_wilson_coverage() -> None:
    rng = np.random.default_rng(2024)
    p, n = 0.3, 200
    ks = rng.binomial(n, p, size=2000)
    hits = sum(lo <= p <= hi for lo, hi in (stats.wilson(int(k), n) for k in ks))
    assert 0.93 <= hits / len(ks) <= 0.97
    assert stats.wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_intervals_use_scipy_stats_quantiles_bit_for_bit(confidence: float) -> None:
    """The quantiles come from scipy.special (a light import); they must be exactly
    scipy.stats' norm.ppf and t.ppf, so no published interval moves by an ulp."""
    from scipy.stats import norm, t

    z = float(norm.ppf(0.5 + confidence / 2))
    for k, n in ((0, 10), (3, 10), (30, 100), (977, 2000)):
        p = k / n
        z2n = z * z / n
        centre = (p + z2n / 2) / (1 + z2n)
        half = z / (1 + z2n) * np.sqrt(p * (1 - p) / n + z2n / (4 * n))
        low = 0.0 if p <= 0 else max(0.0, centre - half)
        assert stats.wilson(k, n, confidence) == (low, min(1.0, centre + half))
    for n in (2, 3, 30, 1000, 10**6):
        half = float(t.ppf(0.5 + confidence / 2, n - 1)) * 2.5 / np.sqrt(n)
        assert stats.mean_ci_from_moments(1.0, 2.5, n, confidence) == (1.0 - half, 1.0 + half)


def test_paired_mean_coverage() -> None:
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(1000):
        _, lo, hi = stats.paired_mean_ci(rng.normal(1.5, 4.0, size=30))
        hits += lo <= 1.5 <= hi
    assert 0.93 <= hits / 1000 <= 0.97


def bradley_terry_ml(wins: np.ndarray, prior: float = 0.5) -> np.ndarray:
    """Elo-scale Bradley-Terry ratings (centred on 0) maximising the likelihood directly
    (scipy), independent of the report's MM iteration; ``prior`` pseudo-wins both ways
    for every pair that met, as the report documents."""
    from scipy.optimize import minimize

    w = wins + prior * ((wins + wins.T) > 0)

    def nll(s: np.ndarray) -> float:
        d = s[:, None] - s[None, :]
        return float((w * np.logaddexp(0.0, -d)).sum())

    s = minimize(nll, np.zeros(len(w)), method="BFGS", options={"gtol": 1e-10}).x
    return np.asarray((s - s.mean()) * 400.0 / np.log(10.0))


def test_ratings_order_strategies_of_known_strength() -> None:
    """Data whose answer is known: ``c`` beats ``a`` 3:1, ``a`` beats ``b`` 3:1 and ``c``
    beats ``b`` 9:1 (Bradley-Terry odds), listed so that neither the names' order nor the
    ``a``/``b`` columns match the strength order."""
    pairs = pl.DataFrame(
        {
            "a": ["a", "a", "b"],
            "b": ["b", "c", "c"],
            "wins_a": [7500, 2500, 1000],
            "wins_b": [2500, 7500, 9000],
        }
    )
    got = sections.ratings(pairs, ["a", "b", "c"])
    assert got["strategy"].to_list() == ["c", "a", "b"]
    step = 400.0 * np.log10(3.0)  # 3:1 odds on the Elo scale
    assert got["rating"].to_list() == pytest.approx([step, 0.0, -step], abs=2.0)
    assert got["pair_wins"].to_list() == [16500, 10000, 3500]
    assert got["pair_losses"].to_list() == [3500, 10000, 16500]


def test_bradley_terry_recovers_strengths() -> None:
    truth = np.array([0.0, 0.7, -0.7])
    p = 1 / (1 + np.exp(truth[None, :] - truth[:, None]))
    n = 20000
    wins = np.where(np.eye(3, dtype=bool), 0.0, p * n)
    fit = stats.bradley_terry(wins)
    np.testing.assert_allclose(fit, truth - truth.mean(), atol=1e-3)


# --- the page --------------------------------------------------------------------------------


def test_page_references_existing_files(report: Path) -> None:
    page = (report / "index.html").read_text()
    refs = re.findall(r"""(?:src|href)=['"]([^'"#]+)['"]""", page)
    assert sum(r.endswith(".png") for r in refs) == 7  # the overview and one per section
    for ref in refs:
        assert not ref.startswith(("/", "http:", "https:", "file:")), ref
        assert (report / ref).is_file(), ref
    for fact in ("command", "rules", "strategies", "seed", "games (planned)", "package version"):
        assert fact in page
    assert not list(report.parent.glob(".report.tmp-*"))


def test_png_format_writes_only_figures(runs: list[Path], tmp_path: Path) -> None:
    out = build_report(runs[:1], tmp_path / "figs", "png")
    names = sorted(p.name for p in out.iterdir())
    assert names and all(n.endswith(".png") or n == ".haggis-sim-report.json" for n in names)


@pytest.mark.browser
def test_renders_in_headless_chromium(report: Path, tmp_path: Path) -> None:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (apt-get install chromium)")
        pytest.skip("chromium is not installed")
    cmd = [
        exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000",
        "--dump-dom", (report / "index.html").resolve().as_uri(),
    ]  # fmt: skip
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    body = re.search(r"<body([^>]*)>", dom)
    assert body, dom[:500]
    loaded = re.search(r'data-images-loaded="(\d+)"', body.group(1))
    total = re.search(r'data-images="(\d+)"', body.group(1))
    assert loaded and total, body.group(0)
    assert int(total.group(1)) == 7 and loaded.group(1) == total.group(1)


# --- bad, empty and unfinished runs ----------------------------------------------------------


def test_bad_input_is_one_error_line(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["report", str(tmp_path / "nope"), "--out", str(tmp_path / "o")])
    assert missing.exit_code == 2 and missing.stderr.startswith("error: ")
    assert len(missing.stderr.strip().splitlines()) == 1
    (tmp_path / "plain").mkdir()
    plain = runner.invoke(app, ["report", str(tmp_path / "plain"), "--out", str(tmp_path / "o")])
    assert plain.exit_code == 2 and "not a haggis-sim run" in plain.stderr
    fmt = runner.invoke(app, ["report", str(tmp_path), "--out", str(tmp_path / "o"),
                              "--format", "pdf"])  # fmt: skip
    assert fmt.exit_code == 2 and fmt.stderr.startswith("error: ")


def test_unfinished_run_without_games_says_so(tmp_path: Path) -> None:
    cfg = RunConfig(strategies=["greedy", "random"], games=10,
                    rules=Rules.preset("revised", players=2).as_dict(), command="test")  # fmt: skip
    create_run(cfg, tmp_path / "empty")  # manifest "running", no chunk finished
    result = runner.invoke(app, ["report", str(tmp_path / "empty"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "unfinished" in result.stderr and "no games" in result.stderr
    page = (tmp_path / "o" / "index.html").read_text()
    assert "unfinished" in page and "no games logged" in page.lower()
    assert not re.findall(r"<img", page)


def test_partly_finished_run_reports_its_games(runs: list[Path], tmp_path: Path) -> None:
    src = runs[0]
    part = tmp_path / "part"
    shutil.copytree(src, part)
    for table in ("games", "rounds", "moves"):
        for f in sorted((part / table).glob("part-*.parquet"))[1:]:
            f.unlink()
    ledger = part / "parts.jsonl"  # the run as it stood after its first chunk
    first = min(ledger.read_text().splitlines(), key=lambda line: json.loads(line)["start"])
    ledger.write_text(first + "\n")
    text = (part / "manifest.json").read_text().replace('"complete"', '"running"')
    (part / "manifest.json").write_text(text)
    result = runner.invoke(app, ["report", str(part), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "unfinished" in (tmp_path / "o" / "index.html").read_text()
    assert pl.read_csv(tmp_path / "o" / "tables" / "shape.csv")["games"].sum() == 100


def test_build_report_tells_its_steps(runs: list[Path], tmp_path: Path) -> None:
    """The progress display hears of every section's query, the figures and the page."""
    steps: list[tuple[str, int, int]] = []
    build_report(runs[:1], tmp_path / "o", on_step=lambda w, i, n: steps.append((w, i, n)))
    names = [w for w, _, _ in steps]
    assert names[: len(sections.SECTIONS)] == [
        f"section {k.replace('_', ' and ')}" for k in sections.SECTIONS
    ]
    assert names[-3:] == ["figures", "page and tables", "done"]
    done = [i for _, i, _ in steps]
    assert done == sorted(done) and steps[-1][1] == steps[-1][2] == len(steps) - 1


# --- labels, verdicts and empty sections -----------------------------------------------------


def test_short_specs_keep_only_what_differs() -> None:
    from haggis_sim.report import short_specs

    late = "heuristic:bet=0.55,bomb=late,bomb_cards=5"
    early = "heuristic:bet=0.55,bomb=early,bomb_cards=5"
    got = short_specs([late, early, "greedy"])
    assert got == {late: "heuristic:bomb=late", early: "heuristic:bomb=early", "greedy": "greedy"}


def test_short_specs_name_a_model_pin_only_between_files_of_one_name() -> None:
    """A SHA-256 pin follows its model file: between two models it adds nothing to the
    label; between two versions of one file it is what tells them apart; an empty pin (a
    value model the spec does not use) is no difference."""
    from haggis_sim.report import short_specs

    two_models = ["learned:model=a.npz,sha=aaa", "learned:model=b.npz,sha=bbb"]
    assert list(short_specs(two_models).values()) == ["learned:model=a.npz", "learned:model=b.npz"]
    one_file = ["learned:model=a.npz,sha=aaa", "learned:model=a.npz,sha=bbb"]
    assert list(short_specs(one_file).values()) == ["learned:sha=aaa", "learned:sha=bbb"]
    unused = ["mcts:value=game,vmodel=v1,vsha=", "mcts:value=net,vmodel=v1,vsha=fff"]
    assert list(short_specs(unused).values()) == ["mcts:value=game", "mcts:value=net"]


def _summary(arms: list[tuple[str, list[str], str, int]], diffs: list[tuple[float, ...]]) -> dict:
    """A summary.json-shaped dict: arms (name, strategies, rules, players) and, per arm after
    the first, the win-rate difference (diff, low, high) from the first."""
    rows = [{"arm": arms[0][0], "mean": 0.5, "low": 0.45, "high": 0.55, "n": 100,
             "no_pairing": False, "vs_first": {"diff": 0.0, "low": 0.0, "high": 0.0,
                                               "paired": True}}]  # fmt: skip
    for (name, *_), (d, lo, hi) in zip(arms[1:], diffs, strict=True):
        rows.append({"arm": name, "mean": 0.5 + d, "low": 0.4, "high": 0.6, "n": 100,
                     "no_pairing": False,
                     "vs_first": {"diff": d, "low": lo, "high": hi, "paired": True}})  # fmt: skip
    return {
        "name": "x", "question": "q?", "games_per_arm": 100, "seed": 1, "seats": "rotate",
        "metric": "win_rate", "goal": "max", "entry": 0,
        "metrics_described": {"win_rate": "the entry wins the game"},
        "arms": [{"name": n, "strategies": s, "rules": r, "players": p, "games": 100,
                  "paired_with_first": True, "no_pairing": False} for n, s, r, p in arms],
        "results": {"win_rate": {"column": "win_rate_0", "rows": rows}},
        "best": None,
    }  # fmt: skip


def test_arm_labels_name_exactly_what_differs() -> None:
    from haggis_sim.experiment import arm_labels

    h = "heuristic:bet=0.55,bomb={},bomb_cards={}"
    arms = [
        ("late-vs-greedy", [h.format("late", 5), "greedy"], "revised", 2),
        ("early-vs-greedy", [h.format("early", 5), "greedy"], "revised", 2),
        ("late2-vs-greedy", [h.format("late", 2), "greedy"], "revised", 2),
        ("early-vs-late", [h.format("early", 5), h.format("late", 5)], "revised", 2),
    ]
    labels = arm_labels(_summary(arms, [(0, 0, 0)] * 3))
    assert labels == {
        "late-vs-greedy": "bomb=late,bomb_cards=5 vs greedy",
        "early-vs-greedy": "bomb=early vs greedy",
        "late2-vs-greedy": "bomb_cards=2 vs greedy",
        "early-vs-late": "bomb=early vs heuristic",
    }
    rules = [("a", ["heuristic"], "revised", 3), ("b", ["heuristic"], "classic", 3),
             ("c", ["heuristic"], "classic", 2)]  # fmt: skip
    assert arm_labels(_summary(rules, [(0, 0, 0)] * 2)) == {
        "a": "revised; 3 players", "b": "classic; 3 players", "c": "classic; 2 players"
    }  # fmt: skip


def test_verdict_sentence_groups_arms_by_their_interval() -> None:
    from haggis_sim.experiment import arm_labels, verdict_sentence

    arms = [("base", ["heuristic:bet=0.5", "greedy"], "revised", 2),
            ("up", ["heuristic:bet=0.6", "greedy"], "revised", 2),
            ("down", ["heuristic:bet=0.7", "greedy"], "revised", 2),
            ("same", ["heuristic:bet=0.8", "greedy"], "revised", 2)]  # fmt: skip
    summary = _summary(arms, [(0.05, 0.02, 0.08), (-0.04, -0.06, -0.01), (0.01, -0.01, 0.03)])
    text = verdict_sentence(summary, "win_rate", arm_labels(summary))
    assert text.startswith("win_rate — the entry wins the game (entry #0): bet=0.5 (baseline)")
    assert "higher in bet=0.6 +5.0% (95% +2.0% … +8.0%)" in text
    assert "lower in bet=0.7 -4.0% (95% -6.0% … -1.0%)" in text
    assert "no difference separable at 95% in bet=0.8 +1.0%" in text


def test_sections_without_data_say_why(tmp_path: Path) -> None:
    cfg = RunConfig(strategies=["greedy", "random"], games=20, chunk_size=10, jobs=1,
                    rules=Rules.preset("revised", players=2).as_dict(), log_moves=False,
                    command="test")  # fmt: skip
    execute(cfg, tmp_path / "run")
    out = build_report([tmp_path / "run"], tmp_path / "o")
    page = (out / "index.html").read_text()
    assert "bombs are read from the moves log, which this run did not keep" in page
    assert "--no-log-moves" in page
    assert not (out / "fig-bombs.png").exists()


def test_series_styles_stay_distinct_past_the_palette() -> None:
    """More than seven series (e.g. nine bomb policies) must not repeat a style."""
    from haggis_sim.report import PALETTE, series_style

    styles = [tuple(sorted(series_style(i).items())) for i in range(3 * len(PALETTE))]
    assert len(set(styles)) == len(styles)
    assert {series_style(i)["color"] for i in range(len(PALETTE))} == set(PALETTE)
