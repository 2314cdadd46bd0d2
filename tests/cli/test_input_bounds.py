"""Numbers with documented upper limits, checked where they are parsed, before any work;
experiment files checked whole before anything is written or announced; a long line at
the ``play`` prompt quoted back only in part.

Each case refuses in one ``error:`` line with exit status 2 and leaves nothing behind.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_helpers import one_line_error
from typer.testing import CliRunner

import haggis_sim as hs
from haggis_sim.cli import app
from haggis_sim.cli.play_input import parse_line

runner = CliRunner()
ECHO = 60  # characters of a refused line quoted back
BASE = """name = "bounds"
question = "q"
games = 4
strategies = ["heuristic", "greedy"]
metric = "win_rate"
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny logged run (the options below are refused before it is even opened)."""
    out = tmp_path_factory.mktemp("bounds") / "run"
    res = runner.invoke(app, ["run", "-s", "greedy,greedy", "-n", "2", "-q", "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


# --- numeric options ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--samples", "1000000000000"], ["--samples must be at most 100,000"]),
        (["--samples", "100001"], ["--samples must be at most 100,000, got 100,001"]),
    ],
)
def test_show_alternatives_samples_has_a_limit(
    run_dir: Path, tmp_path: Path, args: list[str], words: list[str]
) -> None:
    out = tmp_path / "g.html"
    res = runner.invoke(app, ["show", str(run_dir), "0", "--alternatives", *args,
                              "--out", str(out)])  # fmt: skip
    one_line_error(res, *words)
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--samples", "1000000000000"], ["samples must be at most 100,000"]),
        (["--positions", "1000000000000"], ["positions must be at most 1,000,000"]),
        (["--seed", str(2**64)], ["seed must be below 2**64"]),
    ],
)
def test_study_numbers_have_limits(
    run_dir: Path, tmp_path: Path, args: list[str], words: list[str]
) -> None:
    out = tmp_path / "s.csv"
    res = runner.invoke(app, ["study", "bombs", str(run_dir), *args, "--out", str(out)])
    one_line_error(res, *words)
    assert not out.exists() and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--games", "1e12"], ["--games must be at most 4,000"]),
        (["--games", "4001"], ["--games must be at most 4,000", "got 4,001"]),
        (["--hidden", "100000"], ["--hidden must be 0 to 256, got 100000"]),
    ],
)
def test_train_numbers_have_limits(tmp_path: Path, args: list[str], words: list[str]) -> None:
    res = runner.invoke(app, ["train", "--out", str(tmp_path / "m.npz"), *args])
    one_line_error(res, *words)
    assert not list(tmp_path.iterdir())


def test_the_train_hidden_limit_is_the_trainers() -> None:
    from haggis_sim.cli.train import MAX_HIDDEN
    from haggis_sim.training.train import MAX_HIDDEN as TRAINED

    assert MAX_HIDDEN == TRAINED


def test_the_train_value_units_limit_is_the_value_trainers() -> None:
    from haggis_sim.cli.train import MAX_VALUE_UNITS
    from haggis_sim.training.value_train import MAX_VALUE_UNITS as TRAINED

    assert MAX_VALUE_UNITS == TRAINED


def test_mcts_iters_and_run_games_have_limits(tmp_path: Path) -> None:
    res = runner.invoke(app, ["run", "-s", "mcts:iters=1000000000000,greedy", "-n", "2",
                              "--out", str(tmp_path / "r")])  # fmt: skip
    one_line_error(res, "iters must be in [1, 100000]")
    res = runner.invoke(app, ["run", "-s", "greedy,greedy", "-n", "1e12",
                              "--out", str(tmp_path / "r")])  # fmt: skip
    one_line_error(res, "--games must be at most 4,294,967,295")
    assert not (tmp_path / "r").exists()


# --- experiments: every check before the first file -----------------------------------------


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (
            '[[arms]]\nname = "report"\n[[arms]]\nname = "b"\nstrategies = ["greedy", "greedy"]\n',
            ["arm name 'report' is taken by the experiment's own files"],
        ),
        ('[[arms]]\nname = "summary.json"\n', ["arm name 'summary.json' is taken"]),
        ("seed = 99999999999999999999\n", ["'seed' must be a 64-bit integer"]),
        ("seed = -9223372036854775809\n", ["'seed' must be a 64-bit integer"]),
        ("games = 1000000000000\n", ["'games' must be at most 4,294,967,295"]),
        (
            '[[populations]]\nname = "a"\ngames = 1000000000000\n[[populations]]\nname = "b"\n'
            'swap = { greedy = "random" }\n',
            ["population 'a': 'games' must be at most"],
        ),
        (
            "[[studies]]\nkind = 'bombs'\nsamples = 1000000000000\n",
            ["study 1: 'samples' must be at most 100,000, got 1,000,000,000,000"],
        ),
        (
            "[[studies]]\nkind = 'bombs'\npositions = 1000000000000\n",
            ["study 1: 'positions' must be at most 1,000,000"],
        ),
        (
            "[[studies]]\nkind = 'bombs'\nseed = 18446744073709551616\n",
            ["study 1: 'seed' must be from 0 to 2**64 - 1"],
        ),
        (
            "seed = -3\n[[studies]]\nkind = 'bets'\n",
            ["study 1: the experiment's seed -3 is negative"],
        ),
    ],
)
def test_an_experiment_is_refused_before_anything_is_written(
    tmp_path: Path, extra: str, words: list[str]
) -> None:
    # the games line of BASE is replaced where the case gives its own
    text = BASE.replace("games = 4\n", "") if extra.startswith("games") else BASE
    path = tmp_path / "x.toml"
    path.write_text(text + extra)
    out = tmp_path / "out"
    res = runner.invoke(app, ["experiment", str(path), "--out", str(out)])
    one_line_error(res, *words)
    assert res.stdout == "" and not out.exists()


def test_an_experiment_path_says_what_it_is(tmp_path: Path) -> None:
    res = runner.invoke(app, ["experiment", str(tmp_path)])
    one_line_error(res, f"{tmp_path} is a folder, not an experiment file")
    res = runner.invoke(app, ["experiment", "/dev/zero"])
    one_line_error(res, "experiment file /dev/zero is not a regular file")
    fifo = tmp_path / "x.toml"
    os.mkfifo(fifo)
    res = runner.invoke(app, ["experiment", str(fifo)])  # not opened: would block
    one_line_error(res, "is not a regular file")
    res = runner.invoke(app, ["experiment", str(tmp_path / "missing.toml")])
    one_line_error(res, "missing.toml does not exist")


def test_a_non_utf8_experiment_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_bytes(BASE.encode() + b"# caf\xe9\n")
    res = runner.invoke(app, ["experiment", str(path), "--out", str(tmp_path / "o")])
    one_line_error(res, "not UTF-8 text")
    assert not (tmp_path / "o").exists()


# --- the play prompt ------------------------------------------------------------------------


def test_a_long_line_at_the_prompt_is_quoted_in_part() -> None:
    rules = hs.Rules.preset("revised", players=2)
    rnd = hs.Round(rules, hands=["5a 5b 9c J Q K", "6a 6b 7c"], haggis="", leader=0)
    obs, legal = rnd.observation(0), rnd.legal_actions()
    for line in ("x" * 1_500_000, "9" * 1_500_000, "moves " + "y" * 1_500_000):
        cmd = parse_line(line, obs, legal, rules)
        assert cmd.verb == "error", cmd.verb
        assert len(cmd.text) < 200 and "…" in cmd.text, cmd.text[:300]
        assert line.strip()[:ECHO] in cmd.text
    assert parse_line("5a 5b", obs, legal, rules).verb == "act"  # a normal line still plays
