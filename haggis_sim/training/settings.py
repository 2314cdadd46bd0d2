"""The settings a training run is given, as records: what ``haggis-sim train`` fits
(:class:`ImitationFit`) and how stage 2 improves it (:class:`Improvement`), what
``haggis-sim train-value`` fits and gates (:class:`ValueFit`), and how either runs
(:class:`TrainingRun`); with the defaults they start from.

The records only carry settings: the functions that take them check them (StrategyError
naming the command's option) before any work. A caller that varies one setting passes
``dataclasses.replace(settings, field=value)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from strategies.builtin import ROLLOUT_MCTS

from .positions import DEFAULT_TEACHER
from .value_data import VALUE_UNITS

HIDDEN = 16  # hidden units of haggis-sim train's default model (0: linear, as gen1, gen2)
IMPROVE_GAMES = 600  # games per candidate per iteration
CHECK_GAMES = 2000  # held-out games vs the default heuristic at the end
#: generation 1's teacher of the value: the rollout mcts search (greedy rollouts)
DEFAULT_VALUE_TEACHER = ROLLOUT_MCTS


@dataclass(frozen=True)
class ImitationFit:
    """What stage 1 of ``haggis-sim train`` learns: a model imitating a teacher's
    self-play, and the held-out games that check it.

    >>> fit = ImitationFit(games=10, seed=3, hidden=0)
    >>> fit.target, fit.check_games
    ('visits', 2000)
    """

    games: int
    """Self-play games of the teacher (one in five held out)."""
    seed: int
    """Seed of the games, the sampling of alternatives and the fit's starting weights."""
    teacher: str = DEFAULT_TEACHER
    """Spec of the compiled strategy whose decisions the model imitates."""
    target: str = "visits"
    """What the fit imitates: ``visits`` (the search's visit shares where it searched)
    or ``chosen`` (the chosen action everywhere)."""
    hidden: int = HIDDEN
    """Hidden tanh units of the model (0: linear)."""
    check_games: int = CHECK_GAMES
    """Games against the default heuristic on fresh deals that check the result (a
    hidden layer's fit, and each phase of stage 2)."""


@dataclass(frozen=True)
class Improvement:
    """Stage 2 of ``haggis-sim train``: the evolution strategy that improves a linear
    model by play (0 iterations: no stage 2)."""

    iters: int = 0
    """Iterations of the search over the weights on both player counts (each count's
    refinement runs half as many)."""
    games: int = IMPROVE_GAMES
    """Games each candidate plays per iteration."""


@dataclass(frozen=True)
class ValueFit:
    """What ``haggis-sim train-value`` learns: a value model fitted to a teacher's
    self-play, and the gate that plays the search with it against the teacher.

    >>> ValueFit(games=10, seed=3).gate_games
    0
    """

    games: int
    """Self-play games of the teacher (one in five held out)."""
    seed: int
    """Seed of the games, the fit's starting weights and the gate's games."""
    teacher: str = DEFAULT_VALUE_TEACHER
    """The ``mcts`` spec whose self-play the value learns from, and which the gate plays."""
    units: int = VALUE_UNITS
    """Hidden tanh units of the value model."""
    gate_games: int = 0
    """Gate games with 2 players and as many with 3 (one against two); 0: no gate."""


@dataclass(frozen=True)
class TrainingRun:
    """How a training command runs, apart from what it learns."""

    jobs: int = 1
    """Processes playing games (the games and the model do not depend on it)."""
    force: bool = False
    """Overwrite the output files (and, in a chain, generation files of other settings)."""
    command: str = ""
    """The command line, recorded in the model's provenance."""


#: no stage 2 (the default of ``haggis-sim train``)
NO_IMPROVEMENT = Improvement()
#: one process, no overwriting, no command line recorded
DEFAULT_RUN = TrainingRun()
