"""Declarative experiments: a TOML file of arms, run on common deals, summarized with intervals.

An experiment file (see ``experiments/README.md``) names a question, a base setup
(players, rules preset and flags, strategies, games, seed) and a list of *arms* that
each change some of it: explicit ``[[arms]]`` tables and/or a ``[grid]`` sweeping one
strategy parameter or one rule flag. Every arm is an ordinary run into
``<out>/<arm name>/`` with the experiment's seed, so arms with the same player count and
seating play the same deals and their differences are paired game by game.

The package has one module per job, lowest first:

- :mod:`.schema`: the file's tables as strict pydantic models, and their error sentences;
- :mod:`.spec`: the frozen records (:class:`Experiment`, :class:`Arm`,
  :class:`Population`, :class:`StudySpec`) and the loader that validates a file into them;
- :mod:`.folder`: the output folder, its marker and the files the experiment owns;
- :mod:`.verdicts`: the wording of results, and whether an answer holds across populations;
- :mod:`.summary`: the numbers (``summary.json``);
- :mod:`.studies`: counterfactual decision studies over an arm's games;
- :mod:`.markdown` and :mod:`.page`: ``summary.md``, ``index.html`` and ``compare.html``;
- :mod:`.play`: :func:`run_experiment`, which plays the arms and writes all of it.
"""

from __future__ import annotations

from .folder import MATCH_KEYS, arm_runs, check_experiment_out, check_population_dirs, own_files
from .markdown import populations_markdown, summary_markdown
from .page import (
    compare_page,
    experiment_page,
    forest_panels,
    population_page,
    populations_compare_page,
    write_experiment_page,
)
from .play import run_experiment
from .schema import ARM_NAME, GOALS, MARKER, OWN_FILES, RESERVED, ExperimentError
from .spec import (
    Arm,
    Experiment,
    Population,
    StudySpec,
    load_experiment,
    parse_experiment,
    parse_populations,
    population_experiment,
)
from .summary import summarize, summarize_populations
from .verdicts import (
    ROW_HEADER,
    arm_labels,
    best_line,
    cross_population,
    fair_sentence,
    result_rows,
    verdict_sentence,
)

__all__ = [
    "ARM_NAME",
    "GOALS",
    "MARKER",
    "MATCH_KEYS",
    "OWN_FILES",
    "RESERVED",
    "ROW_HEADER",
    "Arm",
    "Experiment",
    "ExperimentError",
    "Population",
    "StudySpec",
    "arm_labels",
    "arm_runs",
    "best_line",
    "check_experiment_out",
    "check_population_dirs",
    "compare_page",
    "cross_population",
    "experiment_page",
    "fair_sentence",
    "forest_panels",
    "load_experiment",
    "own_files",
    "parse_experiment",
    "parse_populations",
    "population_experiment",
    "population_page",
    "populations_compare_page",
    "populations_markdown",
    "result_rows",
    "run_experiment",
    "summarize",
    "summarize_populations",
    "summary_markdown",
    "verdict_sentence",
    "write_experiment_page",
]
