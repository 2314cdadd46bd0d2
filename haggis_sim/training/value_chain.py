"""Generations of the leaf value (``haggis-sim train-value --generations K``): each
generation's value is learned from the self-play of the current champion and gated
against it; the champion changes only when the gate shows the new search stronger.

Generation ``k`` plays ``games`` self-play games of the champion (at first the
``--teacher``; later the teacher's settings with ``value=net`` and the last promoted
generation's model), fits a value to the self-play of the last ``window`` generations,
writes it to ``OUT.genK.npz`` and gates the search with it against the champion with 2
and with 3 players (:func:`~haggis_sim.training.gate.promotes`). When no generation
before it was promoted, the data keep coming from the same champion, so a window of two
fits on twice the games. At the end ``OUT`` is a copy of the last promoted generation
(same bytes, so the champion's pinned SHA-256 holds for it), or is not written when no
generation was promoted.

Every game is fixed by the seed: generation 1 plays ``seed`` itself (it is what
``haggis-sim train-value`` without ``--generations`` writes), generation ``k > 1`` a seed
drawn from (seed, k). A generation file whose recorded chain settings match is taken as
done (``--force`` overwrites ``OUT`` and generation files of other settings, never
these), so an interrupted chain resumes where it stopped and a finished one can be
extended (the window's earlier self-play is played again, game for game, when a later
generation needs it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from strategies import StrategyError
from strategies.learned_model import load_value_model

from ..outputs import write_file_atomically
from .gate import MatchResult, promotes
from .model_io import check_output
from .positions import check_teacher
from .value_data import VALUE_UNITS, ValueRows, generate_values
from .value_train import (
    DEFAULT_VALUE_TEACHER,
    MAX_VALUE_GAMES,
    Progress,
    candidate_spec,
    check_settings,
    fit_and_gate,
    stage_progress,
)

TAG_GENERATION = 16  # seed-sequence tag of generation seeds (the gate's is 15)
MAX_GENERATIONS = 50
DEFAULT_WINDOW = 2
# the chain settings a generation file must share with the run to be taken as done
CHAIN_KEYS = ("seed", "games", "window", "units", "gate_games", "root_teacher")


@dataclass
class Generation:
    """One generation: its model file, the champion it learned from and was gated
    against, the gate, whether it was promoted and whether an earlier run made it."""

    number: int
    path: Path
    teacher: str
    gates: list[MatchResult]
    promoted: bool
    resumed: bool = False


@dataclass
class ChainResult:
    generations: list[Generation] = field(default_factory=list)
    champion: str = ""  # the spec of the strongest search shown
    champion_number: int = 0  # its generation (0: the --teacher itself)
    written: Path | None = None  # OUT, when a generation was promoted


def generation_path(out: Path, number: int) -> Path:
    """Generation ``number``'s model file beside ``out``: ``value.npz`` -> ``value.gen2.npz``."""
    return out.with_name(f"{out.stem}.gen{number}{out.suffix or '.npz'}")


def generation_seed(seed: int, number: int) -> int:
    """The seed of generation ``number``'s games: ``seed`` for the first, then one drawn
    from (seed, :data:`TAG_GENERATION`, number), in the runner's range [0, 2**63)."""
    if number == 1:
        return seed
    ss = np.random.SeedSequence([seed & (2**64 - 1), TAG_GENERATION, number])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def _gate_of(entry: dict[str, Any]) -> MatchResult:
    return MatchResult(entry["candidate"], entry["opponent"], int(entry["players"]),
                       int(entry["games"]), int(entry["wins"]))  # fmt: skip


def _done(path: Path, chain: dict[str, Any], force: bool) -> tuple[str, list[MatchResult]] | None:
    """The champion a generation of this chain (same settings) at ``path`` learned from,
    and its gates; None when there is none (or ``force`` overwrites one of other
    settings); StrategyError for a file of something else without ``force``."""
    if not path.exists():
        return None
    try:
        prov = load_value_model(path, "train-value").provenance
    except StrategyError as exc:
        if force:
            return None
        raise StrategyError(f"{path} exists and is not a usable generation ({exc}); "
                            "pass --force to overwrite it") from None  # fmt: skip
    mine = prov.get("chain")
    if not isinstance(mine, dict):
        mine = {}
    ours = all(mine.get(k) == chain[k] for k in CHAIN_KEYS)
    try:
        gates = [_gate_of(g) for g in prov["gate"]]
    except (KeyError, TypeError, ValueError):
        gates = []
    if ours and gates:
        return str(mine.get("teacher")), gates
    if force:
        return None
    if not ours:
        raise StrategyError(
            f"{path} exists and was made with other settings; pass --force to overwrite it "
            "or use another --out"
        )
    raise StrategyError(f"{path} exists without a readable gate; pass --force to overwrite it")


def train_value_chain(
    out: Path,
    *,
    generations: int,
    games: int,
    seed: int,
    teacher: str = DEFAULT_VALUE_TEACHER,
    units: int = VALUE_UNITS,
    gate_games: int,
    window: int = DEFAULT_WINDOW,
    jobs: int = 1,
    force: bool = False,
    command: str = "",
    on_progress: Progress | None = None,
    on_generation: Callable[[Generation], None] | None = None,
) -> ChainResult:
    """Run ``generations`` generations (module doc) and write ``OUT`` from the last
    promoted one. Refuses up front (StrategyError) what :func:`train_value` refuses, a
    chain without a gate, a window longer than the chain or with more games than one fit
    holds, and generation files of other settings (without ``force``)."""
    check_output(out, "--out", force)
    teach = check_settings(teacher, out, games, units, gate_games)
    if not 2 <= generations <= MAX_GENERATIONS:
        raise StrategyError(f"--generations must be 1 to {MAX_GENERATIONS}, got {generations}")
    if gate_games < 1:
        raise StrategyError("--generations needs a gate: give --gate-games (1 or more)")
    if not 1 <= window <= generations:
        raise StrategyError(f"--window must be 1 to --generations ({generations}), got {window}")
    if window * games > MAX_VALUE_GAMES:
        raise StrategyError(
            f"--window x --games must be at most {MAX_VALUE_GAMES:,} (one fit's games), "
            f"got {window * games:,}"
        )
    chain: dict[str, Any] = {"seed": seed, "games": games, "window": window, "units": units,
                             "gate_games": gate_games, "root_teacher": teach.spec}  # fmt: skip
    paths = [generation_path(out, k) for k in range(1, generations + 1)]
    for path in paths:
        check_output(path, "--out", True)  # in a folder that exists, outside runs
    done = {k: p for k, path in enumerate(paths, 1) if (p := _done(path, chain, force))}

    result = ChainResult(champion=teach.spec)
    champion = teach
    teachers: dict[int, str] = {}  # generation -> the champion that played its self-play
    rows: dict[int, ValueRows] = {}
    for k, path in enumerate(paths, 1):
        teachers[k] = champion.spec
        stage = f"generation {k}: "
        record = {**chain, "generation": k, "teacher": champion.spec}
        found = done.get(k)
        if found is not None and found[0] != champion.spec:
            if not force:
                raise StrategyError(f"{path} was learned from another champion; "
                                    "pass --force to play it again")  # fmt: skip
            found = None
        if found is not None:
            gates = found[1]
            gen = Generation(k, path, champion.spec, gates, promotes(gates), resumed=True)
        else:
            gen_seed = generation_seed(seed, k)
            t0 = time.monotonic()
            for j in range(max(1, k - window + 1), k + 1):
                if j not in rows:
                    rows[j] = generate_values(
                        games,
                        generation_seed(seed, j),
                        teachers[j],
                        jobs,
                        stage_progress(on_progress, f"generation {j}: self-play"),
                    )
            fit_rows = ValueRows.joined([rows[j] for j in sorted(rows) if j > k - window])
            res = fit_and_gate(path, fit_rows, champion, seed=gen_seed, games=games,
                               units=units, gate_games=gate_games, jobs=jobs, force=True,
                               command=command, play_seconds=round(time.monotonic() - t0, 1),
                               on_progress=on_progress, stage=stage,
                               extra={"chain": record})  # fmt: skip
            gen = Generation(k, path, champion.spec, res.gates, promotes(res.gates))
        for j in [j for j in rows if j <= k + 1 - window]:
            del rows[j]  # no later generation's window holds it
        result.generations.append(gen)
        if on_generation:
            on_generation(gen)
        if gen.promoted:
            champion = check_teacher(candidate_spec(champion, path))
            result.champion, result.champion_number = champion.spec, k
    if result.champion_number:
        best = paths[result.champion_number - 1]
        write_file_atomically(out, best.read_bytes(), StrategyError, "")
        result.written = out
    return result
