"""Generations (expert iteration), shared by ``haggis-sim train --generations K`` (the
search's prior) and ``haggis-sim train-value --generations K`` (its leaf value): each
generation learns a model from the self-play of the current champion, is gated against
it, and replaces it only when the gate shows the new search stronger
(:func:`~haggis_sim.training.gate.promotes`).

The loop (:func:`run_chain`) knows nothing of what a generation learns: the ``make``
of the caller's :class:`GenerationKind` plays, fits, gates and writes generation ``k``'s
file. The loop derives each generation's seed, keeps the champion, takes a generation
file whose recorded chain settings (``provenance["chain"]``) match as done (so an
interrupted chain resumes and a finished one can be extended), and at the end writes
``OUT`` as a byte copy of the last promoted generation (so the champion's pinned SHA-256
holds for it), or leaves it unwritten when none was promoted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from strategies import CompiledStrategy, StrategyError

from ..outputs import write_file_atomically
from .gate import MatchResult, promotes
from .model_io import check_output
from .positions import check_teacher

TAG_GENERATION = 16  # seed-sequence tag of generation seeds (the gate's is 15)
MAX_GENERATIONS = 50

Progress = Callable[[str, int, int], None]  # (stage, done, total)


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


#: ``make(number, path, champion, record, teachers)``: play, fit, gate and write
#: generation ``number`` to ``path`` (its provenance carrying ``record`` as ``"chain"`` and
#: the gates as ``"gate"``), learning from ``champion``; ``teachers[j]`` is the champion
#: that played generation ``j``'s self-play (``j`` up to ``number``). Returns the gates.
MakeGeneration = Callable[
    [int, Path, CompiledStrategy, dict[str, Any], dict[int, str]], list[MatchResult]
]


@dataclass(frozen=True)
class GenerationKind:
    """What a chain's generations are (what :func:`run_chain` needs to know of them):
    how one is made and read back, the search a promoted one makes, and the second
    file each one writes, if any."""

    make: MakeGeneration
    """Plays, fits, gates and writes one generation (:data:`MakeGeneration`)."""
    read_provenance: Callable[[Path], dict[str, Any]]
    """Reads a generation file's provenance (StrategyError when the file is not a model
    of this kind)."""
    promoted_spec: Callable[[CompiledStrategy, Path], str]
    """``promoted_spec(champion, path)``: the search a promoted generation's file makes."""
    companion: Callable[[Path], Path] | None = None
    """``companion(path)``: a second file each generation writes beside ``path``, copied
    beside ``OUT`` (before it) with the last promoted generation; None: no second file."""


@dataclass(frozen=True)
class ChainHooks:
    """Whom a chain tells what it is doing (both optional)."""

    on_progress: Progress | None = None
    """Hears ``(stage, done, total)`` of each stage: a generation's games, its gate."""
    on_generation: Callable[[Generation], None] | None = None
    """Hears of each generation once it is made, or taken as done from its file."""


#: a chain that tells no one
NO_HOOKS = ChainHooks()


def stage_progress(on_progress: Progress | None, stage: str) -> Callable[[int, int], None] | None:
    """``on_progress`` bound to one stage's name (None without one)."""
    if on_progress is None:
        return None
    report = on_progress
    return lambda done, total: report(stage, done, total)


def prefixed(on_progress: Progress | None, prefix: str) -> Progress | None:
    """``on_progress`` with ``prefix`` before every stage's name (None without one):
    ``prefixed(report, "generation 2: ")`` reports ``gate, 2 players`` as
    ``generation 2: gate, 2 players``."""
    if on_progress is None:
        return None
    report = on_progress
    return lambda stage, done, total: report(prefix + stage, done, total)


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


def check_chain(out: Path, generations: int, gate_games: int) -> list[Path]:
    """The generation files of a chain of ``generations`` beside ``out``, once the
    chain's own settings are known to run (StrategyError naming the option)."""
    if generations > MAX_GENERATIONS:
        raise StrategyError(f"--generations must be at most {MAX_GENERATIONS}, got {generations}")
    if generations < 2:  # the commands train one model without a chain for --generations 1
        raise StrategyError(f"a chain has 2 generations or more, got {generations}")
    if gate_games < 1:
        raise StrategyError("--generations needs a gate: give --gate-games (1 or more)")
    paths = [generation_path(out, k) for k in range(1, generations + 1)]
    for path in paths:
        check_output(path, "--out", True)  # in a folder that exists, outside runs
    return paths


def _gate_of(entry: dict[str, Any]) -> MatchResult:
    return MatchResult(entry["candidate"], entry["opponent"], int(entry["players"]),
                       int(entry["games"]), int(entry["wins"]))  # fmt: skip


def _done(
    path: Path,
    chain: dict[str, Any],
    read: Callable[[Path], dict[str, Any]],
    force: bool,
) -> tuple[str, list[MatchResult]] | None:
    """The champion a generation of this chain (same settings) at ``path`` learned from,
    and its gates; None when there is none (or ``force`` overwrites one of other
    settings); StrategyError for a file of something else without ``force``."""
    if not path.exists():
        return None
    try:
        prov = read(path)
    except StrategyError as exc:
        if force:
            return None
        raise StrategyError(f"{path} exists and is not a usable generation ({exc}); "
                            "pass --force to overwrite it") from None  # fmt: skip
    mine = prov.get("chain")
    if not isinstance(mine, dict):
        mine = {}
    extra = set(mine) - set(chain) - {"generation", "teacher"}  # settings this chain lacks
    ours = not extra and all(mine.get(k) == v for k, v in chain.items())
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


def run_chain(
    out: Path,
    paths: Sequence[Path],
    *,
    root: CompiledStrategy,
    chain: dict[str, Any],
    kind: GenerationKind,
    force: bool = False,
    on_generation: Callable[[Generation], None] | None = None,
) -> ChainResult:
    """Run the generations of ``kind`` whose files are ``paths`` from the champion
    ``root`` (module doc). ``chain``: the settings a generation file must record to be
    taken as done."""
    done = {}
    for k, path in enumerate(paths, 1):
        if (found := _done(path, chain, kind.read_provenance, force)) is not None:
            done[k] = found
    result = ChainResult(champion=root.spec)
    champion = root
    teachers: dict[int, str] = {}  # generation -> the champion that played its self-play
    for k, path in enumerate(paths, 1):
        teachers[k] = champion.spec
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
            record = {**chain, "generation": k, "teacher": champion.spec}
            gates = kind.make(k, path, champion, record, teachers)
            gen = Generation(k, path, champion.spec, gates, promotes(gates))
        result.generations.append(gen)
        if on_generation:
            on_generation(gen)
        if gen.promoted:
            champion = check_teacher(kind.promoted_spec(champion, path))
            result.champion, result.champion_number = champion.spec, k
    if result.champion_number:
        best = paths[result.champion_number - 1]
        if kind.companion is not None:
            companion = kind.companion
            write_file_atomically(companion(out), companion(best).read_bytes(), StrategyError, "")
        write_file_atomically(out, best.read_bytes(), StrategyError, "")
        result.written = out
    return result
