"""``haggis-sim train``'s run on a terminal: its progress bars and the lines it prints at
the end (the command's options and messages are :mod:`haggis_sim.cli.train`'s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import train as training
from .checks import check_line
from .settings import ImitationFit, Improvement, TrainingRun


def run_with_progress(
    out: Path,
    fit: ImitationFit,
    *,
    improvement: Improvement,
    run: TrainingRun,
    data: Path | None,
    quiet: bool,
) -> training.TrainResult:
    """:func:`~haggis_sim.training.train.run_training` with these settings, showing its
    stage 1 and stage 2 progress on stderr unless ``quiet``."""
    if quiet:
        return training.run_training(out, fit, improvement=improvement, run=run, data=data)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task("stage 1: teacher games", total=fit.games)
        task2 = progress.add_task("stage 2: play", total=improvement.iters + 3,
                                  visible=False)  # fmt: skip

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done)

        def on_improve(done: int, total: int, msg: str) -> None:
            progress.update(task2, completed=done, total=total, visible=True,
                            description=f"stage 2: {msg}")  # fmt: skip

        return training.run_training(out, fit, improvement=improvement, run=run, data=data,
                                     on_progress=on_progress, on_improve=on_improve)  # fmt: skip


def file_identity(path: Path | None) -> tuple[int, int, int] | None:
    """A file's (inode, size, mtime in ns), None when absent: tells whether a run wrote it
    (it is replaced atomically, so a new file means a new inode)."""
    try:
        st = path.stat() if path is not None else None
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns) if st else None


def interrupted_message(
    out: Path, data: Path | None, data_before: tuple[int, int, int] | None
) -> str:
    """What a Ctrl-C left: the model is written whole at the end, or not; the positions
    (``data``, identity ``data_before`` at the start) once stage 1's games are done."""
    if data is not None and file_identity(data) != data_before:  # after stage 1's games
        return (
            f"interrupted: {out} not written (it is as it was); the positions are "
            f"complete in {data}"
        )
    return f"interrupted: nothing written ({out} is as it was)"


def summary_lines(out: Path, p: dict[str, Any]) -> list[str]:
    """The lines printed once the model ``out`` with provenance ``p`` is written."""
    lines = [
        f"wrote {out}: {p['train_decisions']:,} training and {p['holdout_decisions']:,} "
        f"held-out decisions; held-out top-1 vs {p['teacher']}: "
        f"{p['holdout_top1_vs_teacher']:.1%} (heuristic: {p['heuristic_top1_vs_teacher']:.1%})"
    ]
    for players, h in (p.get("heldout_vs_heuristic") or {}).items():  # a hidden layer's
        lines.append(check_line(players, h))
    for players, s2 in (p.get("stage2") or {}).items():  # both counts, then each
        h = s2["heldout_vs_heuristic"]
        label = "both player counts" if players == "both" else f"{players} players"
        lines.append(
            f"stage 2, {label}: {s2['iters']} iterations of "
            f"{s2['games_per_candidate']} games per candidate ({s2['accepted_steps']} steps "
            f"accepted, start: {s2['start_chosen']}, kept: {s2['returned']}) in "
            f"{s2['seconds']:.0f} s; {check_line(players, h)} (before stage 2: "
            f"{h['start_win_rate']:.1%})"
        )
    return lines
