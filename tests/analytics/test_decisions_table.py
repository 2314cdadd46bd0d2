"""A study's table under stratified sampling, its "too few positions" rule and its
guidance records (haggis_sim.analytics.decision_table), on constructed positions: no
search, no run, so these are in the fast subset."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

from haggis_sim.analytics import decision_table
from haggis_sim.stats import paired_mean_ci


def _bombs(n: int, rng: np.random.Generator, **fixed: Any) -> dict[str, list[Any]]:
    """``n`` bomb positions with random features (``fixed`` overrides a column)."""
    cols: dict[str, list[Any]] = {
        "value_diff": list(rng.normal(0.0, 0.05, n)),
        "trick_plus_bomb_points": list(rng.integers(0, 25, n)),
        "bomb_wilds": list(rng.choice([0, 2, 3], n)),
        "min_opponent_cards": list(rng.integers(1, 15, n)),
        "actor_cards": list(rng.integers(1, 15, n)),
        "actor_lead": list(rng.integers(-120, 120, n)),
    }
    cols.update({k: [v] * n if not isinstance(v, list) else v for k, v in fixed.items()})
    cols["margin_diff"] = [d * 100 for d in cols["value_diff"]]
    return cols


def _frame(*parts: dict[str, list[Any]]) -> pl.DataFrame:
    return pl.concat([pl.DataFrame(p) for p in parts], how="diagonal_relaxed")


def test_a_bin_below_min_per_bin_says_too_few_positions_and_gives_no_advice() -> None:
    rng = np.random.default_rng(1)
    strong = _bombs(12, rng, value_diff=list(0.2 + 0.001 * rng.standard_normal(12)))
    table = decision_table.summarize("bombs", _frame(strong))
    assert table["value_low"][0] > 0  # the interval excludes 0 clearly
    line = decision_table.guidance("bombs", table, min_per_bin=13)[0]
    assert line == "bomb or not (all positions): too few positions (12)"
    (record, *_) = decision_table.advice("bombs", table, min_per_bin=13)
    assert record.advice is None and record.positions == 12
    line = decision_table.guidance("bombs", table, min_per_bin=12)[0]
    assert line.startswith("bomb (all positions): +0.2")  # 12 positions are enough for 12


def test_all_positions_is_reweighted_to_the_strata_shares() -> None:
    """Stratum 0 is 90% of the opportunities (weight 9) with +0.1, stratum 1 10% with
    -0.1; each scored 10 times. The unweighted mean would be 0; the run's is +0.08."""
    rng = np.random.default_rng(2)
    a = _bombs(
        10, rng, value_diff=list(0.1 + 0.01 * rng.standard_normal(10)), stratum=0, weight=9.0
    )
    b = _bombs(
        10, rng, value_diff=list(-0.1 + 0.01 * rng.standard_normal(10)), stratum=1, weight=1.0
    )
    frame = _frame(a, b)
    row = decision_table.summarize("bombs", frame).row(0, named=True)
    assert row["factor"] == "all positions" and row["positions"] == 20
    y = frame["value_diff"].to_numpy()
    assert row["value_diff"] == pytest.approx((9 * y[:10].sum() + y[10:].sum()) / 100)
    assert 0.07 < row["value_low"] < row["value_diff"] < row["value_high"] < 0.09


def test_a_bin_inside_one_stratum_keeps_its_plain_interval() -> None:
    """The bin is part of one stratum (which holds other bins' positions too): its
    positions are a random sample of the bin, so no reweighting or domain variance."""
    rng = np.random.default_rng(3)
    a = _bombs(8, rng, bomb_wilds=0, stratum=0, weight=5.0)
    a2 = _bombs(6, rng, bomb_wilds=2, stratum=0, weight=5.0)
    b = _bombs(9, rng, bomb_wilds=3, stratum=1, weight=1.0)
    frame = _frame(a, a2, b)
    table = decision_table.summarize("bombs", frame)
    row = table.filter(pl.col("factor") == "wilds the bomb spends", pl.col("bin") == "no wild")
    plain = paired_mean_ci(frame["value_diff"].to_numpy()[:8])
    assert (row["value_diff"][0], row["value_low"][0], row["value_high"][0]) == pytest.approx(plain)


def test_reweighted_intervals_cover_the_run_mean() -> None:
    """Stratified samples of a known population: the reweighted 95% interval over all
    positions covers the population mean about 95% of the time, and so does a bin that
    spans strata (its mean computed over the population itself)."""
    rng = np.random.default_rng(4)
    sizes = (9000, 1000)
    values = (rng.normal(0.1, 0.05, 9000), rng.normal(-0.3, 0.05, 1000))
    cards = (rng.integers(1, 15, 9000), rng.integers(1, 4, 1000))
    truth_all = np.concatenate(values).mean()
    truth_near = np.concatenate([v[c <= 3] for v, c in zip(values, cards, strict=True)]).mean()
    stratum = np.repeat([0, 1], 30)
    weight = np.repeat([s / 30 for s in sizes], 30)
    hits_all = hits_near = 0
    reps = 400
    for _ in range(reps):
        picks = [rng.choice(s, 30, replace=False) for s in sizes]
        y = np.concatenate([v[p] for v, p in zip(values, picks, strict=True)])
        near = np.concatenate([c[p] for c, p in zip(cards, picks, strict=True)]) <= 3
        _, lo, hi = decision_table.bin_mean_ci(y, weight, stratum, np.ones(60, dtype=bool))
        hits_all += lo <= truth_all <= hi
        _, lo, hi = decision_table.bin_mean_ci(y, weight, stratum, near)
        hits_near += lo <= truth_near <= hi
    assert 0.9 * reps <= hits_all <= 0.99 * reps
    assert 0.9 * reps <= hits_near <= 0.99 * reps


def _matches(conditions: dict[str, list[float]], row: dict[str, Any]) -> bool:
    """The documented contract of a record's bin: low <= x <= high for every feature."""
    return all(lo <= row[column] <= hi for column, (lo, hi) in conditions.items())


@pytest.mark.parametrize("kind", ["bombs", "bets"])
def test_advice_records_match_the_lines_and_select_their_bins(kind: str) -> None:
    rng = np.random.default_rng(5)
    n = 400
    if kind == "bombs":
        frame = _frame(_bombs(n, rng, value_diff=list(rng.normal(-0.02, 0.05, n))))
    else:
        frame = _frame(
            _bombs(n, rng, value_diff=list(rng.normal(0.02, 0.05, n)), bet=15, settlement="split",
                   first_out=list(np.round(rng.uniform(0, 1, n), 1)))  # on the edges too
        )  # fmt: skip
    table = decision_table.summarize(kind, frame)
    lines = decision_table.guidance(kind, table, min_per_bin=30)
    records = decision_table.advice(kind, table, min_per_bin=30)
    assert [r.text for r in records] == lines
    said = {"bombs": ("bomb", "do not bomb"), "bets": ("bet", "no bet")}[kind]
    seen = set()
    rows = frame.to_dicts()
    for r, line, t in zip(records, lines, table.iter_rows(named=True), strict=True):
        seen.add(r.advice)
        if r.advice == said[0]:
            assert not line.startswith("do not") and "no clear answer" not in line
        elif r.advice == said[1]:
            assert line.startswith("do not ")
        else:
            assert "no clear answer" in line or "too few positions" in line
        assert r.positions == t["positions"] == sum(_matches(r.bin, x) for x in rows)
        assert r.value_diff == pytest.approx(t["value_diff"])
    assert said[1 if kind == "bombs" else 0] in seen and None in seen
    cross = [r for r in records if "×" in r.factor]
    assert cross and all(len(r.bin) == (3 if kind == "bombs" else 2) for r in cross)
