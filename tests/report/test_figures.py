"""The run report's figures as a designer reads them: short distinct labels (also for the
shipped experiments' specs), whole-number ticks on counts, one panel per pairing where
pooling would mix opponents, and the win-rate overview first on the page.

The figures are inspected as matplotlib objects (tick values, panels, labels); the runs
are small (a few hundred games, one process), two pairings sharing a strategy plus their
head-to-head, so pooling across pairings would show.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from haggis_sim import StrategySpec
from haggis_sim.experiment.spec import load_experiment, population_experiment
from haggis_sim.logs.manifest import load_manifest
from haggis_sim.report import build_report, build_tables, short_specs
from haggis_sim.report.figures import FIGURES, Names
from haggis_sim.report.labels import MAX_LABEL
from haggis_sim.rules import Rules
from haggis_sim.runner.run import RunConfig, execute

EXPERIMENTS = sorted((Path(__file__).parents[2] / "experiments").glob("*.toml"))
LATE, EARLY = "heuristic:bomb=late", "heuristic:bomb=early"
PAIRINGS = [[LATE, "greedy"], [EARLY, "greedy"], [EARLY, LATE]]


# --- labels --------------------------------------------------------------------------------------


def _spec_sets(path: Path) -> list[list[str]]:
    """The strategy specs of each report an experiment makes (one per population, or the
    arms as written), plus all of them together."""
    exp = load_experiment(path)
    plays = [population_experiment(exp, p) for p in exp.populations] or [exp]
    sets = [[s for arm in e.arms for s in arm.strategies] for e in plays]
    return [*sets, [s for specs in sets for s in specs]]


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.stem)
def test_labels_are_short_distinct_and_named_for_the_shipped_experiments(path: Path) -> None:
    for specs in _spec_sets(path):
        labels = short_specs(specs)
        assert set(labels) == set(specs)
        assert len(set(labels.values())) == len(labels), labels
        for spec, label in labels.items():
            assert len(label) <= MAX_LABEL, (spec, label)
            # real specs need no letters: the label is the spec's name and what differs
            record = StrategySpec.parse(spec)
            name, params = record.name, record.values()
            assert label.split(":")[0] == name, (spec, label)
            for item in label.partition(":")[2].split(",") if ":" in label else []:
                assert params[item.split("=")[0]] == item.split("=")[1], (spec, label)


def test_bomb_timing_labels_name_only_the_policy_that_changes() -> None:
    specs = _spec_sets(Path(__file__).parents[2] / "experiments" / "bomb-timing.toml")[0]
    labels = set(short_specs(specs).values())
    assert {"heuristic", "heuristic:bomb=early", "heuristic:bomb=never", "heuristic:bomb_out=1",
            "heuristic:bomb_give=15"} <= labels  # fmt: skip


def test_labels_still_long_become_letters_and_alike_specs_stay_apart() -> None:
    wide = [f"mcts:iters={i}00,depth={i},rollout=policy{i},prior=learned{i}" for i in (1, 2)]
    assert short_specs([*wide, "greedy"]) == {wide[0]: "A", wide[1]: "B", "greedy": "greedy"}
    # written differently but parsed alike: the full specs keep them apart
    same = ["heuristic:bomb=late", "heuristic:bomb=late,"]
    assert short_specs(same) == {s: s for s in same}


# --- figures of real runs ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    base = tmp_path_factory.mktemp("runs")
    out = []
    for i, strategies in enumerate(PAIRINGS):
        rules = Rules.preset("revised", players=2).as_dict()
        cfg = RunConfig(strategies=strategies, games=160, seed=11 + i, chunk_size=80, jobs=1,
                        rules=rules, command="test")  # fmt: skip
        execute(cfg, base / f"run{i}")
        out.append(base / f"run{i}")
    return out


@pytest.fixture(scope="module")
def tables(runs: list[Path]) -> dict[str, pl.DataFrame]:
    return build_tables(runs)[0]


@pytest.fixture(scope="module")
def report(runs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_report(runs, tmp_path_factory.mktemp("rep") / "report")


def _draw(key: str, tables: dict[str, pl.DataFrame]) -> Any:
    fig = FIGURES[key](tables, Names.of(tables))
    assert fig is not None
    return fig


def _panels(fig: Any) -> list[Any]:
    return [ax for ax in fig.axes if ax.axison]


def _bets_in_logs(run: Path) -> dict[str, int]:
    """Bets per strategy in one run, counted from its logs."""
    games = pl.read_parquet(run / "games" / "part-*.parquet")
    rounds = pl.read_parquet(run / "rounds" / "part-*.parquet").join(games, on="game_id")
    counts: dict[str, int] = {}
    for k in range(2):
        bets = rounds.filter(pl.col(f"bet_{k}") > 0)
        for strat, n in bets.group_by(pl.col(f"strategy_{k}").cast(pl.String)).len().iter_rows():
            counts[strat] = counts.get(strat, 0) + n
    return counts


@pytest.mark.slow
def test_bets_are_one_panel_per_strategy_and_pairing_never_pooled(
    runs: list[Path], tables: dict[str, pl.DataFrame]
) -> None:
    by = tables["bet_outcomes_by_pairing"].join(tables["pairings"], on="pairing")
    for run in runs:
        mine = by.filter(pl.col("field") == " vs ".join(load_manifest(run).specs))
        got = dict(mine.group_by("strategy").agg(pl.col("bets").sum()).iter_rows())
        assert got == _bets_in_logs(run)
    fig = _draw("bets", tables)
    expected = {(f, s) for f, s in by.select("field", "strategy").iter_rows()}
    assert len(expected) == 4  # the two heuristics in each of their two pairings
    assert len(_panels(fig)) == len(expected)
    titles = [ax.get_title().replace("\n", " ") for ax in _panels(fig)]
    assert "heuristic:bomb=early's bets vs greedy" in titles
    assert "heuristic:bomb=early's bets vs heuristic:bomb=late" in titles


@pytest.mark.slow
def test_bombs_are_a_row_of_panels_per_pairing_with_whole_number_ticks(
    tables: dict[str, pl.DataFrame],
) -> None:
    fig = _draw("bombs", tables)
    _whole_number_ticks(fig)
    # few distinct counts (0-3 cards, tricks) is where a default axis ticks at halves
    narrow = tables["bomb_timing_by_pairing"].filter(pl.col("value") <= 3)
    _whole_number_ticks(_draw("bombs", {**tables, "bomb_timing_by_pairing": narrow}))
    pairings = tables["bomb_timing_by_pairing"]["pairing"].unique()
    assert len(pairings) == len(PAIRINGS)
    panels = _panels(fig)
    assert len(panels) == 3 * len(PAIRINGS)
    rows = [ax.get_ylabel().replace("\n", " ") for ax in panels[::3]]
    assert rows == [f"{' vs '.join(p)} share of bombs" for p in PAIRINGS]
    for ax in panels:
        assert len(ax.get_lines()) <= 2  # the pairing's own strategies, nobody else's


def _whole_number_ticks(fig: Any) -> None:
    for ax in _panels(fig):
        lo, hi = ax.get_xlim()
        ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks


@pytest.mark.slow
def test_game_shape_counts_have_whole_number_ticks(tables: dict[str, pl.DataFrame]) -> None:
    _whole_number_ticks(_draw("shape", tables))
    narrow = {k: tables[k].filter(pl.col("tricks") <= 3) for k in ("shape_tricks",)}
    _whole_number_ticks(_draw("shape", {**tables, **narrow}))


@pytest.mark.slow
def test_points_are_a_row_per_strategy_and_pairing(tables: dict[str, pl.DataFrame]) -> None:
    fig = _draw("points", tables)
    labels = [t.get_text().replace("\n", " ") for t in fig.axes[0].get_yticklabels()]
    assert labels == [
        "greedy vs heuristic:bomb=late", "heuristic:bomb=late vs greedy",
        "greedy vs heuristic:bomb=early", "heuristic:bomb=early vs greedy",
        "heuristic:bomb=early vs heuristic:bomb=late",
        "heuristic:bomb=late vs heuristic:bomb=early",
    ]  # fmt: skip


@pytest.mark.slow
def test_overview_win_rate_per_pairing_comes_first(
    report: Path, tables: dict[str, pl.DataFrame]
) -> None:
    fig = _draw("overview", tables)
    ax = fig.axes[0]
    pairs = tables["pairs"]
    labels = [t.get_text().replace("\n", " ") for t in ax.get_yticklabels()]
    short = short_specs(pairs["a"].to_list() + pairs["b"].to_list())
    assert labels == [f"{short[a]} vs {short[b]}" for a, b in pairs.select("a", "b").iter_rows()]
    shown = [float(t.get_text().split("%")[0]) / 100 for t in ax.texts]
    assert shown == pytest.approx(pairs["win_rate_a"].to_list(), abs=5.1e-4)  # shown to 0.1%
    page = (report / "index.html").read_text()
    images = re.findall(r"<img src='([^']+)'", page)
    assert images[0] == "fig-overview.png" and (report / images[0]).exists()
    assert page.index("fig-overview.png") < page.index("<h2")
    legend = page[page.index("<table id='legend'>") : page.index("<h2")]
    for spec in ("heuristic:bet=0.55", "greedy"):
        assert spec in legend
