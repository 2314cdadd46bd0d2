"""Experiment files (validation, running, summary) and the comparison of two runs.

Every number the summary and the comparison report is recomputed here independently with
polars from the arms' Parquet logs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from scipy.stats import beta
from scipy.stats import t as student_t
from typer.testing import CliRunner

from haggis_sim.analytics.compare import compare_runs, compare_section_html
from haggis_sim.cli import app
from haggis_sim.experiment import (
    ExperimentError,
    load_experiment,
    parse_experiment,
    run_experiment,
)
from haggis_sim.logs import ledger
from haggis_sim.rules import Rules
from haggis_sim.runner.run import RunConfig, execute

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()

BASE = """
name = "tiny"
question = "Does betting earlier pay?"
games = 40
seed = 5
players = 2
strategies = ["heuristic", "greedy"]
metric = "bet_points"
also = ["win_rate", "margin", "seat0_win"]
chunk_size = 16
"""
TINY = (
    BASE
    + """
[[arms]]
name = "default"

[[arms]]
name = "eager"
strategies = ["heuristic:bet=0.3", "greedy"]
"""
)


def write(tmp_path: Path, text: str, name: str = "x.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(ExperimentError) as info:
        load_experiment(write(tmp_path, text))
    return str(info.value)


# ------------------------------------------------------------------ validation


def test_shipped_experiment_files_load() -> None:
    files = sorted((REPO / "experiments").glob("*.toml"))
    names = {f.stem for f in files}
    assert {"betting-thresholds", "bomb-timing", "scoring-rules", "players-2-vs-3"} <= names
    for f in files:
        exp = load_experiment(f)
        assert exp.name == f.stem
        assert len(exp.arms) >= 2
        assert all("mcts" not in s for arm in exp.arms for s in arm.strategies)


def test_unknown_top_level_key_is_refused(tmp_path: Path) -> None:
    msg = refused(tmp_path, BASE + "gmaes = 10\n")
    assert "unknown key 'gmaes'" in msg and "x.toml" in msg and "allowed keys" in msg


def test_unknown_arm_key_is_refused(tmp_path: Path) -> None:
    msg = refused(tmp_path, BASE + '[[arms]]\nname = "a"\nseed = 3\n')
    assert "arm 'a'" in msg and "unknown key 'seed'" in msg


def test_unknown_rule_flag_is_refused(tmp_path: Path) -> None:
    msg = refused(tmp_path, BASE + '[rule]\ncard_pionts = "per_card"\n')
    assert "unknown rule flag 'card_pionts'" in msg and "card_points" in msg
    msg = refused(tmp_path, BASE + '[[arms]]\nname = "a"\n[arms.rule]\nbomb = "x"\n')
    assert "arm 'a'" in msg and "unknown rule flag 'bomb'" in msg


def test_bad_flag_value_is_refused(tmp_path: Path) -> None:
    msg = refused(tmp_path, BASE + '[rule]\ncard_points = "double"\n')
    assert "card_points" in msg and "'double'" in msg


def test_unknown_strategy_and_bad_parameter_are_refused(tmp_path: Path) -> None:
    msg = refused(tmp_path, BASE.replace('"greedy"]', '"gredy"]'))
    assert "unknown strategy 'gredy'" in msg
    msg = refused(tmp_path, BASE + '[grid]\nparam = "bett"\nvalues = [0.4]\n')
    assert "[grid]" in msg and "bett" in msg


def test_bad_preset_metric_and_missing_key_are_refused(tmp_path: Path) -> None:
    msg = refused(tmp_path, BASE + 'rules = "modern"\n')
    assert "unknown rules preset 'modern'" in msg and "revised" in msg
    msg = refused(tmp_path, BASE.replace('"bet_points"', '"winrate"'))
    assert "unknown metric 'winrate'" in msg and "win_rate" in msg
    msg = refused(tmp_path, BASE.replace("games = 40\n", ""))
    assert "missing required key 'games'" in msg
    msg = refused(tmp_path, BASE + "[[arms]]\nname = 'a'\n[[arms]]\nname = 'a'\n")
    assert "two arms are named 'a'" in msg
    msg = refused(tmp_path, "name = [")
    assert "not valid TOML" in msg
    msg = refused(tmp_path, BASE + "deep = " + "[" * 40_000 + "]" * 40_000 + "\n")
    assert "nested too deeply" in msg  # once: a RecursionError traceback


def test_grid_builds_arms() -> None:
    import tomllib

    exp = parse_experiment(tomllib.loads(BASE + '[grid]\nparam = "bet"\nvalues = [0.4, 0.5]\n'))
    assert [a.name for a in exp.arms] == ["bet=0.4", "bet=0.5"]
    assert exp.arms[0].strategies[0].startswith("heuristic:bet=0.4,")
    exp = parse_experiment(
        tomllib.loads(BASE + '[grid]\nrule = "card_points"\nvalues = ["classic", "per_card"]\n')
    )
    assert [a.rules.card_points for a in exp.arms] == ["classic", "per_card"]


# ------------------------------------------------------------------ independent numbers


def per_game(run: Path) -> pl.DataFrame:
    """Per-game values recomputed with polars (2 players, entries 0 and 1)."""
    games = pl.read_parquet(run / "games" / "*.parquet")
    rounds = pl.read_parquet(run / "rounds" / "*.parquet")
    sums = rounds.group_by("game_id").agg(
        pl.col("bets_0").cast(pl.Float64).sum(),
        pl.col("bets_1").cast(pl.Float64).sum(),
        pl.col("cards_0").cast(pl.Float64).sum(),
        pl.col("cards_1").cast(pl.Float64).sum(),
        pl.col("total_0").cast(pl.Float64).sum(),
        pl.col("total_1").cast(pl.Float64).sum(),
    )
    g = games.join(sums, on="game_id").sort("game_id")
    own = pl.when(pl.col("entry_0") == 0).then(pl.col("bets_0")).otherwise(pl.col("bets_1"))
    other = pl.when(pl.col("entry_0") == 0).then(pl.col("bets_1")).otherwise(pl.col("bets_0"))
    score0 = pl.when(pl.col("entry_0") == 0).then(pl.col("score_0")).otherwise(pl.col("score_1"))
    return g.select(
        pl.col("game_id").cast(pl.Int64),
        pl.col("deal_id").cast(pl.Int64),
        "deal_seed",
        (pl.col("winner_entry") == 0).cast(pl.Float64).alias("win_rate"),
        (own - other).alias("bet_points"),
        (pl.col("score_0") - pl.col("score_1")).abs().cast(pl.Float64).alias("margin"),
        (pl.col("winner") == 0).cast(pl.Float64).alias("seat0_win"),
        pl.col("rounds").cast(pl.Float64).alias("rounds"),
        score0.cast(pl.Float64).alias("score"),
        ((pl.col("cards_0") + pl.col("cards_1")) / (pl.col("total_0") + pl.col("total_1"))).alias(
            "share_cards"
        ),
    )


def clustered(frame: pl.DataFrame, col: str) -> tuple[float, float, float]:
    """Mean and 95% interval with the standard error clustered by deal."""
    n = frame.height
    mean = frame[col].mean()
    assert isinstance(mean, float)
    per_deal = frame.group_by("deal_id").agg((pl.col(col) - mean).sum().alias("s"))
    m = per_deal.height
    se = math.sqrt(m / (m - 1) * float((per_deal["s"] ** 2).sum())) / n
    half = float(student_t.ppf(0.975, m - 1)) * se
    return mean, mean - half, mean + half


def paired(a: pl.DataFrame, b: pl.DataFrame, col: str) -> tuple[float, float, float]:
    j = a.select("game_id", "deal_id", pl.col(col).alias("a")).join(
        b.select("game_id", pl.col(col).alias("b")), on="game_id"
    )
    return clustered(j.with_columns((pl.col("b") - pl.col("a")).alias("d")), "d")


Z95 = 1.959963984540054  # two-sided 95% normal quantile
RATES = {"win_rate", "seat0_win"}  # 0/1 per game: Wilson intervals


def wilson_at(p: float, n: float) -> tuple[float, float]:
    """Wilson score interval of rate p over n (possibly fractional) trials."""
    z2n = Z95 * Z95 / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = Z95 / (1 + z2n) * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
    return (0.0 if p <= 0 else centre - half, 1.0 if p >= 1 else centre + half)


def rate_ci(frame: pl.DataFrame, col: str) -> tuple[float, float, float]:
    """A rate with its Wilson interval at the effective number of games that the
    deal-clustered standard error implies (the deals where it is undefined)."""
    n = frame.height
    p = frame[col].mean()
    assert isinstance(p, float)
    per_deal = frame.group_by("deal_id").agg((pl.col(col) - p).sum().alias("s"))
    m = per_deal.height
    se = math.sqrt(m / (m - 1) * float((per_deal["s"] ** 2).sum())) / n
    n_eff = min(n, p * (1 - p) / se**2) if 0 < p < 1 and se > 0 else m
    return (p, *wilson_at(p, n_eff))


def interval(frame: pl.DataFrame, col: str) -> tuple[float, float, float]:
    return rate_ci(frame, col) if col in RATES else clustered(frame, col)


def paired_interval(a: pl.DataFrame, b: pl.DataFrame, col: str) -> tuple[float, float, float]:
    """Paired difference; for a rate over fewer than 100 discordant games, widened to the
    exact sign-test interval (Clopper–Pearson on the share of discordant games b wins);
    for a rate whose paired differences have no spread, Newcombe's interval from the two
    Wilson intervals."""
    d, lo, hi = paired(a, b, col)
    j = a.select("game_id", pl.col(col).alias("a")).join(
        b.select("game_id", pl.col(col).alias("b")), on="game_id"
    )
    gains = int((j["b"] > j["a"]).sum())
    losses = int((j["b"] < j["a"]).sum())
    if col in RATES and 0 < gains + losses < 100:
        m, n = gains + losses, j.height
        pi_low = beta.ppf(0.025, gains, losses + 1) if gains else 0.0
        pi_high = beta.ppf(0.975, gains + 1, losses) if losses else 1.0
        exact = (m / n * (2 * pi_low - 1), m / n * (2 * pi_high - 1))
        return (
            d,
            min(lo, exact[0]) if hi > lo else exact[0],
            max(hi, exact[1]) if hi > lo else exact[1],
        )
    if col in RATES and not hi > lo:
        pa, la, ua = rate_ci(a, col)
        pb, lb, ub = rate_ci(b, col)
        lo = d - math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2)
        hi = d + math.sqrt((ub - pb) ** 2 + (pa - la) ** 2)
    return d, lo, hi


def close(x: float, y: float) -> bool:
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)


# ------------------------------------------------------------------ running


@pytest.fixture(scope="module")
def tiny_experiment(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("exp")
    exp = load_experiment(write(root, TINY, "tiny.toml"))
    out = root / "out"
    summary = run_experiment(exp, out, jobs=1, report=False)
    return out, summary


def test_experiment_arms_share_deals(tiny_experiment: tuple[Path, dict[str, Any]]) -> None:
    out, summary = tiny_experiment
    a = pl.read_parquet(out / "default" / "games" / "*.parquet").sort("game_id")
    b = pl.read_parquet(out / "eager" / "games" / "*.parquet").sort("game_id")
    assert a.height == b.height == 40
    assert a["game_id"].to_list() == b["game_id"].to_list()
    assert a["deal_seed"].to_list() == b["deal_seed"].to_list()
    assert a["deal_id"].to_list() == [g // 2 for g in range(40)]
    assert all(arm["paired_with_first"] for arm in summary["arms"])


def test_experiment_summary_matches_polars(tiny_experiment: tuple[Path, dict[str, Any]]) -> None:
    out, summary = tiny_experiment
    assert json.loads((out / "summary.json").read_text())["results"] == summary["results"]
    assert "| eager |" in (out / "summary.md").read_text()
    page = (out / "compare.html").read_text()
    assert page.count('<section class="compare">') == 1 and "paired by game id" in page
    frames = {name: per_game(out / name) for name in ("default", "eager")}
    for metric in ("bet_points", "win_rate", "margin", "seat0_win"):
        rows = {r["arm"]: r for r in summary["results"][metric]["rows"]}
        for name, frame in frames.items():
            mean, low, high = interval(frame, metric)
            r = rows[name]
            assert r["n"] == 40
            assert close(r["mean"], mean) and close(r["low"], low) and close(r["high"], high)
        d, lo, hi = paired_interval(frames["default"], frames["eager"], metric)
        v = rows["eager"]["vs_first"]
        assert v["paired"] and v["n"] == 40
        if math.isnan(lo):  # a constant difference: no spread, interval undefined
            assert close(v["diff"], d)
        else:
            assert close(v["diff"], d) and close(v["low"], lo) and close(v["high"], hi)
    best = summary["best"]
    means = {r["arm"]: r["mean"] for r in summary["results"]["bet_points"]["rows"]}
    assert best["arm"] == max(means, key=lambda k: means[k])
    assert best["runner_up"] == min(means, key=lambda k: means[k])


def test_experiment_rerun_skips_finished_arms(
    tiny_experiment: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    out, summary = tiny_experiment
    stamp = ledger.table_files(out / "default", "games")[0].stat().st_mtime_ns
    said: list[str] = []
    again = run_experiment(load_experiment(out / "experiment.toml"), out, log=said.append,
                           report=False)  # fmt: skip
    assert again["results"] == summary["results"]
    assert all("finished earlier" in s for s in said) and len(said) == 2
    assert ledger.table_files(out / "default", "games")[0].stat().st_mtime_ns == stamp
    fewer = TINY.replace("games = 40", "games = 38")
    with pytest.raises(ExperimentError, match="different games"):
        run_experiment(load_experiment(write(tmp_path, fewer)), out, report=False)


def test_more_games_in_the_file_extend_the_arms_to_the_fresh_run(
    tiny_experiment: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    import shutil

    out = tmp_path / "grown"
    shutil.copytree(tiny_experiment[0], out)
    more = TINY.replace("games = 40", "games = 44")
    said: list[str] = []
    grown = run_experiment(load_experiment(write(tmp_path, more)), out, jobs=1,
                           log=said.append, report=False)  # fmt: skip
    assert [s.split(" (")[0] for s in said[:2]] == [
        "arm default: extending 40 games to 44", "arm eager: extending 40 games to 44"
    ]  # fmt: skip
    fresh = run_experiment(load_experiment(write(tmp_path, more, "fresh.toml")),
                           tmp_path / "fresh", jobs=1, report=False)  # fmt: skip
    assert grown["results"] == fresh["results"]
    for arm in ("default", "eager"):
        assert (
            per_game(out / arm)
            .sort("game_id")
            .equals(per_game(tmp_path / "fresh" / arm).sort("game_id"))
        )


# ------------------------------------------------------------------ compare


def tiny_run(path: Path, seed: int, **flags: Any) -> Path:
    rules = Rules.preset("revised", players=2, **flags)
    config = RunConfig(
        strategies=["heuristic", "greedy"], games=40, rules=rules.as_dict(), seed=seed,
        chunk_size=20, jobs=1, log_moves=False,
    )  # fmt: skip
    execute(config, path)
    return path


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("cmp")
    a = tiny_run(root / "a", 9)
    b = tiny_run(root / "b", 9, card_points="per_card")
    c = tiny_run(root / "c", 10)
    return a, b, c


def test_compare_same_seed_is_paired_and_matches_polars(two_runs: tuple[Path, Path, Path]) -> None:
    a, b, _ = two_runs
    result = compare_runs(a, b)
    assert result.paired and "paired by game id" in result.note
    fa, fb = per_game(a), per_game(b)
    rows = {r.column: r for r in result.rows}
    assert {"win_rate_0", "win_rate_1", "score_0", "margin", "rounds", "seat0_win"} <= set(rows)
    assert {"share_going_out", "share_cards", "share_bets", "share_bonus"} <= set(rows)
    for col, mine in (("win_rate_0", "win_rate"), ("score_0", "score"), ("margin", "margin"),
                      ("rounds", "rounds"), ("seat0_win", "seat0_win"),
                      ("share_cards", "share_cards")):  # fmt: skip
        r = rows[col]
        assert close(r.a.mean, clustered(fa, mine)[0]) and close(r.b.mean, clustered(fb, mine)[0])
        d, lo, hi = paired_interval(fa, fb, mine)
        assert r.diff.paired and r.diff.n == 40
        assert close(r.diff.diff, d) and close(r.diff.low, lo) and close(r.diff.high, hi)
    html = compare_section_html(result)
    assert html.startswith('<section class="compare">') and "<table>" in html
    assert "per_card" in html and "win rate of #0" in html


def test_compare_different_seeds_is_unpaired(two_runs: tuple[Path, Path, Path]) -> None:
    a, _, c = two_runs
    result = compare_runs(a, c)
    assert not result.paired and "unpaired" in result.note and "seeds 9 vs 10" in result.note
    r = next(r for r in result.rows if r.column == "margin")
    assert not r.diff.paired and close(r.diff.diff, r.b.mean - r.a.mean)
    ea, ec = clustered(per_game(a), "margin"), clustered(per_game(c), "margin")
    assert close(r.a.low, ea[1]) and close(r.b.high, ec[2])


# ------------------------------------------------------------------ command line


def test_cli_experiment_errors_exit_2(tmp_path: Path) -> None:
    bad = write(tmp_path, BASE + "colour = 'red'\n")
    result = runner.invoke(app, ["experiment", str(bad), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "error:" in result.output and "unknown key 'colour'" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(app, ["experiment", str(tmp_path / "missing.toml")])
    assert result.exit_code == 2 and "does not exist" in result.output
    flag = write(tmp_path, BASE + "[rule]\nbomb_capture = 'never'\n", "flag.toml")
    result = runner.invoke(app, ["experiment", str(flag)])
    assert result.exit_code == 2 and "bomb_capture" in result.output


def test_cli_experiment_runs_with_report(tmp_path: Path) -> None:
    path = write(tmp_path, TINY.replace("games = 40", "games = 12"), "small.toml")
    out = tmp_path / "out"
    result = runner.invoke(app, ["experiment", str(path), "--out", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "best arm by bet_points" in result.output
    assert (out / "summary.json").is_file() and (out / "report" / "index.html").is_file()


def test_cli_compare(two_runs: tuple[Path, Path, Path], tmp_path: Path) -> None:
    a, b, _ = two_runs
    html = tmp_path / "cmp.html"
    result = runner.invoke(app, ["compare", str(a), str(b), "--html", str(html)])
    assert result.exit_code == 0, result.output
    assert "paired by game id" in result.output and "B − A" in result.output
    assert html.read_text().startswith("<section")
    result = runner.invoke(app, ["compare", str(a), str(tmp_path)])
    assert result.exit_code == 2 and "not a haggis-sim run folder" in result.output
