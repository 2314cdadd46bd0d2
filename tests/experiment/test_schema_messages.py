"""The records an experiment file's tables are validated into (pydantic dataclasses) say
what is wrong in one-line sentences: the file, the table, the key, what was expected."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from haggis_sim.experiment import ExperimentError, load_experiment, parse_experiment
from haggis_sim.experiment.arms import Arm, Grid
from haggis_sim.experiment.populations import Population
from haggis_sim.experiment.spec import Experiment
from haggis_sim.experiment.studies_spec import StudySpec

BASE = """name = "x"
question = "q"
games = 10
strategies = ["heuristic", "greedy"]
metric = "bet_points"
"""
POPS = '[[populations]]\nname = "a"\n[[populations]]\nname = "b"\nswap = { greedy = "random" }\n'


@pytest.mark.parametrize("model", [Experiment, Arm, Grid, Population, StudySpec])
def test_every_key_is_named_in_the_unknown_key_sentence(model: type) -> None:
    assert sorted(model.SHOWN) == sorted(model.model_fields)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("gmaes = 10\nzz = 1\n", "unknown key 'gmaes'; allowed keys: name, question, games, "
         "seed, players, rules, rule, strategies, seats, metric, goal, entry, also, log_moves, "
         "chunk_size, precision, budget, arms, grid, populations, studies"),
        ("seed = true\n", "key 'seed' must be int, got True"),
        ("players = '2'\n", "'players' must be 2 or 3, got '2'"),
        ("seats = 1\n", "'seats' must be rotate or fixed, got 1"),
        ("also = 'win_rate'\n", "'also' must be a list of metrics, got 'win_rate'"),
        ("also = ['win_rate', 1]\n", "unknown metric 1 in 'also'; known: win_rate, "),
        ("log_moves = 'no'\n", "key 'log_moves' must be bool, got 'no'"),
        ("chunk_size = -1\n", "'chunk_size' must be 0 (automatic) or a positive number, got -1"),
        ("rule = [1]\n", "'rule' must be a table of FLAG = VALUE, got [1]"),
        ("arms = [1]\n", "'arms' must be an array of tables ([[arms]])"),
        ("[[arms]]\nseed = 3\n", "arm 1: unknown key 'seed'; allowed keys: name, strategies, "
         "rules, players, rule"),
        ("[[arms]]\nname = 3\n", "arm 3: key 'name' must be str, got 3"),
        ("[[arms]]\nname = 'a'\nstrategies = [1]\n",
         "arm 'a': key 'strategies' must be a non-empty list of strategy specs, got [1]"),
        ("grid = 3\n", "[grid]: must be a table"),
        ("[grid]\n", "[grid]: give exactly one of 'param' (strategy) or 'rule' (flag)"),
        ("[grid]\nparam = 'bet'\n", "[grid]: 'values' must be a non-empty list"),
        ("[grid]\nparam = 'bet'\nvalues = [0.4]\nentry = true\n",
         "[grid]: key 'entry' must be int, got True"),
        ("[grid]\nparam = 'bet'\nvalues = [0.4]\nzz = 1\n",
         "[grid]: unknown key 'zz'; allowed keys: param, rule, values, entry"),
        (POPS + "[[populations]]\nname = 'report'\n", "population 'report': 'name' must be "
         "letters, digits and . _ = + , - (100 at most) and not one of report, experiment.toml"),
        (POPS + "[[populations]]\nname = 'c'\ngames = 0\n",
         "population 'c': 'games' must be positive, got 0"),
        (POPS + "[[populations]]\nname = 'c'\nswap = 3\n",
         "population 'c': 'swap' must be a table of SPEC = SPEC, got 3"),
        ("[[studies]]\nkind = 'bets'\nzz = 1\naa = 2\n",
         "study 1: unknown key 'aa'; known: kind, arm, population, positions, min_per_bin, "
         "samples, value, prior, seed"),
        ("[[studies]]\n", "study 1: 'kind' must be one of bombs, bets, got None"),
        ("[[studies]]\nkind = 'bets'\nsamples = true\n",
         "study 1: 'samples' must be a whole number >= 1, got True"),
        ("[[studies]]\nkind = 'bets'\nseed = 'x'\n",
         "study 1: 'seed' must be a whole number >= 1, got 'x'"),
    ],
)  # fmt: skip
def test_a_bad_key_reads_as_one_sentence(extra: str, message: str) -> None:
    with pytest.raises(ExperimentError) as info:
        parse_experiment(tomllib.loads(BASE + extra), Path("x.toml"))
    assert str(info.value).startswith("x.toml: " + message)


def test_missing_keys_are_named_in_the_order_of_the_file_format() -> None:
    full = tomllib.loads(BASE)
    data: dict[str, object] = {}
    for key in ("name", "question", "games", "strategies", "metric"):
        with pytest.raises(ExperimentError, match=f"^missing required key '{key}'$"):
            parse_experiment(data)
        data[key] = full[key]
    parse_experiment(data)


ARMS_FILE = """
name = "x"
question = "q?"
games = 4
seed = 1
strategies = ["heuristic", "greedy"]
metric = "win_rate"

[[arms]]
name = "a"
"""


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ('\n[[arms]]\nname = "' + "b" * 101 + '"\n', "100 at most"),
        ('\n[[arms]]\nname = "b"\nlabel = "bad\\u0000label"\n', "control characters"),
        ('\n[[arms]]\nname = "b"\nlabel = "right\\u202eleft"\n', "U\\+202E"),
        ('\n[[arms]]\nname = "b"\nlabel = "one\\u2028two"\n', "U\\+2028"),
        ('\n[[arms]]\nname = "b"\nlabel = "' + "l" * 201 + '"\n', "at most 200 characters"),
    ],
)
def test_names_and_labels_that_cannot_be_shown_are_refused_before_play(
    tmp_path: Path, extra: str, words: str
) -> None:
    """A 300-character arm name was refused only after arm a was played; a NUL in a label
    was written raw into summary.md."""
    path = tmp_path / "x.toml"
    path.write_text(ARMS_FILE + extra)
    with pytest.raises(ExperimentError, match=words):
        load_experiment(path)


def test_a_byte_order_mark_is_read_past(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_bytes(b"\xef\xbb\xbf" + ARMS_FILE.encode())
    assert [a.name for a in load_experiment(path).arms] == ["a"]


@pytest.mark.parametrize(
    ("question", "words"),
    [("q\\u0000?", "U\\+0000"), ("\\u001b[31mred?", "U\\+001B"), ("q" * 2001, "at most 2,000")],
)
def test_a_question_that_cannot_be_shown_is_refused(
    tmp_path: Path, question: str, words: str
) -> None:
    """A NUL and an ANSI escape in the question were written raw into summary.md,
    index.html and the terminal."""
    path = tmp_path / "x.toml"
    path.write_text(ARMS_FILE.replace('question = "q?"', f'question = "{question}"'))
    with pytest.raises(ExperimentError, match=f"'question' .*{words}"):
        load_experiment(path)
    path.write_text(ARMS_FILE.replace('question = "q?"', 'question = """Two lines,\n\tfine?"""'))
    assert load_experiment(path).question.startswith("Two lines")
