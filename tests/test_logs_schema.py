"""The games table names the rules; the README documents every logged column."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

import haggis_sim as hs
from haggis_sim.runner.run import RunConfig, execute

ROOT = Path(__file__).resolve().parent.parent


def test_games_rows_carry_the_rules_label_and_readme_lists_every_column(tmp_path: Path) -> None:
    rules = hs.Rules.preset("deluxe", players=3, card_points="classic", bomb_capture="tournament")
    config = RunConfig(
        strategies=["greedy", "random"], games=12, rules=rules.as_dict(), seed=4, chunk_size=6,
        jobs=1, command="test",
    )  # fmt: skip
    execute(config, tmp_path / "run")
    readme = (ROOT / "README.md").read_text()
    schema = readme[readme.index("### Log schema") :]
    for table in ("games", "rounds", "moves"):
        frame = pl.read_parquet(tmp_path / "run" / table / "*.parquet")
        if table == "games":
            assert set(frame["rules"].cast(pl.String)) == {
                "deluxe bomb_capture=tournament card_points=classic"
            }
        row = next(ln for ln in schema.splitlines() if ln.startswith(f"| `{table}` |"))
        documented: set[str] = set()
        for name in re.findall(r"`([\w.]+)`", row):
            stem = re.sub(r"_(k|0\.\.2)$", "", name)
            documented |= {f"{stem}_{k}" for k in range(3)} if stem != name else {name}
        assert set(frame.columns) <= documented, set(frame.columns) - documented
