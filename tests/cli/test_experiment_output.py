"""What ``haggis-sim experiment`` prints after its tables: the summary's own sentences.

Two tiny experiments are run in this process through the command line (heuristic
against random, a few dozen games): one with two rungs of a ladder (random, then greedy
swapped in), balance and the top rung sized to a precision within a budget; one without
populations, sized, with balance. Every sentence the terminal gives is checked against
``summary.json`` (the terminal wraps long lines, so text is compared with whitespace
collapsed), and so is where it stands: after every table, the question's metric first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke

from haggis_sim.cli.experiment import closing_lines
from haggis_sim.experiment import best_line
from haggis_sim.experiment.markdown import sizing_line

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset

HEAD = """
question = "Does betting more eagerly win more against a weak opponent?"
games = 24
seed = 5
strategies = ["heuristic", "random"]
metric = "win_rate"
also = ["margin"]
chunk_size = 12
log_moves = false
balance = true
arms = [{ name = "default" }, { name = "eager", strategies = ["heuristic:bet=0.3", "random"] }]
"""
# two rungs: random, then greedy in its place, sized to ±5 points within 48 games per arm
POPULATIONS = """populations = [
  { name = "random" },
  { name = "greedy", swap = { random = "greedy" }, precision = 0.05, budget = 48 },
]
"""
LADDER = 'name = "cli-ladder"\nladder = true\n' + HEAD + POPULATIONS
PLAIN = 'name = "cli-plain"\nprecision = 0.05\nbudget = 48\n' + HEAD

LAST_TABLE_ROW = "└"  # rich's bottom-left corner: the end of a table


def flat(text: str) -> str:
    """``text`` with every run of whitespace one space (undoes the terminal's wrapping)."""
    return " ".join(text.split())


def run(tmp_path: Path, text: str) -> tuple[str, dict[str, Any], Path]:
    """The experiment ``text`` run by the command; its stdout (flattened), its summary
    and its folder."""
    path = tmp_path / "x.toml"
    path.write_text(text)
    out = tmp_path / "out"
    res = invoke("experiment", str(path), "--out", str(out), "--jobs", "1")
    assert res.exit_code == 0, (res.stdout, res.stderr, res.exception)
    return flat(res.stdout), json.loads((out / "summary.json").read_text()), out


def after_tables(stdout: str) -> str:
    """What the command printed after its last table."""
    return stdout[stdout.rindex(LAST_TABLE_ROW) :]


def in_order(text: str, parts: list[str]) -> None:
    """Every one of ``parts`` in ``text`` (flattened), each after the one before."""
    at = 0
    for part in parts:
        found = text.find(flat(part), at)
        assert found >= 0, (part, text[at:])
        at = found + len(flat(part))


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any], Path]:
    return run(tmp_path_factory.mktemp("ladder"), LADDER)


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any], Path]:
    return run(tmp_path_factory.mktemp("plain"), PLAIN)


def test_ladder_run_prints_sizing_convergence_cross_and_balance_after_the_tables(
    ladder: tuple[str, dict[str, Any], Path],
) -> None:
    stdout, summary, out = ladder
    pops = {p["name"]: p for p in summary["populations"]}
    assert "sizing" in pops["greedy"] and "sizing" not in pops["random"]
    sizing = f"population greedy: {sizing_line(pops['greedy']['sizing'], 'win_rate')}"
    verdicts = [
        f"{m}: {sentence}"
        for m in ("win_rate", "margin")
        for sentence in (summary["ladder"]["metrics"][m]["sentence"],
                         summary["cross"][m]["sentence"])
    ]  # fmt: skip
    in_order(
        after_tables(stdout),
        [sizing, "ladder, weakest rung first: random → greedy", *verdicts,
         "balance per rule variant:", "skill expression and luck share",
         f"see {out}/summary.md or {out}/index.html, section 'Balance per rule variant'"],
    )  # fmt: skip
    assert "population random: Sized" not in stdout
    for name, pop in pops.items():  # each population's best-arm line after its tables
        assert flat(f"{best_line(pop['summary'])} — population {name}") in stdout


def test_the_question_metric_comes_first_whatever_the_summary_order(
    ladder: tuple[str, dict[str, Any], Path],
) -> None:
    _, summary, out = ladder
    backwards = {**summary, "cross": dict(reversed(list(summary["cross"].items())))}
    lines = closing_lines(backwards, out)
    heads = [line.split(":")[0] for line in lines if line.split(":")[0] in summary["cross"]]
    assert heads == ["win_rate", "win_rate", "margin", "margin"]


def test_plain_run_prints_best_sizing_and_balance_without_population_verdicts(
    plain: tuple[str, dict[str, Any], Path],
) -> None:
    stdout, summary, out = plain
    assert summary["sizing"]["stopped_by"] in ("precision", "budget", "rounds")
    in_order(
        after_tables(stdout),
        [best_line(summary), sizing_line(summary["sizing"], "win_rate"),
         "balance per rule variant:", f"see {out}/summary.md"],
    )  # fmt: skip
    assert "skill expression" in stdout  # heuristic (entry 0) against random
    for absent in ("ladder", "across populations", "population"):
        assert absent not in after_tables(stdout)
