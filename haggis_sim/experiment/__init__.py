"""Declarative experiments: a TOML file of arms, run on common deals, summarized with intervals.

An experiment file (see ``experiments/README.md``) names a question, a base setup
(players, rules preset and flags, strategies, games, seed) and a list of *arms* that
each change some of it: explicit ``[[arms]]`` tables and/or a ``[grid]`` sweeping one
strategy parameter or one rule flag. Every arm is an ordinary run into
``<out>/<arm name>/`` with the experiment's seed, so arms with the same player count and
seating play the same deals and their differences are paired game by game.

The package has one module per job, lowest first:

- :mod:`.schema`: how a file's table is validated into its record, and the one-line
  error sentences;
- :mod:`.labels`: short specs and labels of swapped players;
- :mod:`.arms`, :mod:`.populations`, :mod:`.studies_spec`: the records of an arm (and the
  grid), a population and a study, each one frozen pydantic dataclass that a table is
  validated into, with their checks across keys;
- :mod:`.spec`: the :class:`Experiment` record and the loader that validates a file
  into it;
- :mod:`.folder`: the output folder, its marker and the files the experiment owns;
- :mod:`.verdicts`: the wording of results, and whether an answer holds across populations;
- :mod:`.summary`: the numbers (``summary.json``);
- :mod:`.studies`: counterfactual decision studies over an arm's games;
- :mod:`.markdown` and :mod:`.page`: ``summary.md``, ``index.html`` and ``compare.html``;
- :mod:`.play`: :func:`run_experiment`, which plays the arms and writes all of it.
"""

from __future__ import annotations

from .arms import Arm
from .folder import check_experiment_out
from .markdown import summary_markdown
from .play import run_experiment
from .populations import Population
from .schema import MARKER, ExperimentError
from .spec import Experiment, load_experiment, parse_experiment
from .studies_spec import StudySpec
from .summary import summarize
from .verdicts import (
    ROW_HEADER,
    arm_labels,
    best_line,
    cross_population,
    fair_sentence,
    result_rows,
    verdict_sentence,
)

# what the command line and the tests use (the modules hold the rest)
__all__ = [
    "MARKER",
    "ROW_HEADER",
    "Arm",
    "Experiment",
    "ExperimentError",
    "Population",
    "StudySpec",
    "arm_labels",
    "best_line",
    "check_experiment_out",
    "cross_population",
    "fair_sentence",
    "load_experiment",
    "parse_experiment",
    "result_rows",
    "run_experiment",
    "summarize",
    "summary_markdown",
    "verdict_sentence",
]
