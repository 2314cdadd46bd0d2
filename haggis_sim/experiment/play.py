"""Running an experiment: play every unfinished arm, then write the summary, the pages,
the studies and the report into the experiment's folder.

Every arm is an ordinary run (``RunConfig`` / ``execute``) into ``<out>/<arm name>/``
with the experiment's seed, so all arms with the same player count and seating play the
same deals and their differences are paired game by game. Finished arms are skipped when
the experiment is run again; unfinished ones resume.

With ``precision`` the games per arm are sized (:func:`size_arms`): ``games`` is the first
batch, and every arm of a population is extended to the same larger count (pairing needs
the same game ids) until the question's interval is as narrow as asked, or the budget is
spent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..analytics.compare import same_run
from ..inputs import read_text_regular
from ..logs.manifest import Manifest, load_manifest
from ..runner.run import execute, extend
from ..stats import games_for_half_width
from .arms import Arm
from .balance import balance_table
from .defaults import stale_defaults
from .folder import arm_runs, arm_state, check_experiment_out, save_marker, write_own
from .markdown import summary_markdown
from .page import compare_page, populations_compare_page, write_experiment_page
from .schema import ExperimentError
from .spec import Experiment
from .studies import run_studies
from .summary import (
    budget_games,
    deal_games,
    json_default,
    question_half_width,
    summarize,
    summarize_populations,
)

MAX_ROUNDS = 4  # extensions per population and run at most (each re-aims from the last)


def run_experiment(
    exp: Experiment,
    out: Path,
    jobs: int = 0,
    log: Callable[[str], None] | None = None,
    report: bool = True,
) -> dict[str, Any]:
    """Run every unfinished arm into ``out/<arm>/``, then summarize (see :func:`summarize`).

    Writes ``summary.json``, ``summary.md`` and ``compare.html`` (every arm against the
    first, see :func:`compare_section_html`) into ``out`` and, with ``report``, the HTML
    report over all arms into ``out/report/``. ``out`` must be new, empty, or this
    experiment's own folder (:func:`check_experiment_out`); ExperimentError otherwise,
    and for a write the operating system refuses.
    """
    say = log or (lambda _m: None)
    for warning in stale_defaults(exp):
        say(warning)
    try:
        marker = check_experiment_out(exp, out, report)
    except OSError as exc:  # e.g. a folder on the way that may not be read
        raise ExperimentError(f"cannot look at {exc.filename or out}: {exc.strerror}") from None
    runs = arm_runs(exp, out)
    states = {label: arm_state(sub, arm, arm_dir) for label, sub, arm, arm_dir in runs}
    with _writing(out):
        out.mkdir(parents=True, exist_ok=True)
        save_marker(out, marker)
        if exp.text:
            write_own(out, marker, "experiment.toml", exp.text)
    for label, sub, arm, arm_dir in runs:
        state = states[label]
        if state == "done":
            say(f"arm {label}: finished earlier, kept ({arm_dir})")
            continue
        if state == "extend":  # the file asks for more games than were played: keep them
            had = load_manifest(arm_dir).games
            who = f"{', '.join(arm.strategies)}; {arm.rules.label}, {arm.players} players"
            say(f"arm {label}: extending {had:,} games to {sub.games:,} ({who})")
            extend(sub.run_config(arm, jobs), arm_dir, on_note=say)
            continue
        # a resume plays on to the recorded count, which sizing may have grown
        games = load_manifest(arm_dir).games if state == "resume" else sub.games
        say(f"arm {label}: {'resuming' if state == 'resume' else 'playing'} "
            f"{games:,} games ({', '.join(arm.strategies)}; {arm.rules.label}, "
            f"{arm.players} players)")  # fmt: skip
        execute(sub.run_config(arm, jobs), arm_dir, resume=state == "resume", on_note=say)
    for sub, arms in _populations(runs):
        if sub.precision is not None:
            size_arms(sub, arms, jobs, say)
    summary = summarize_populations(exp, out) if exp.populations else summarize(exp, out)
    if exp.balance:
        summary["balance"] = balance_table(exp, out)
    with _writing(out):
        _write_summary(exp, out, marker, summary, say, jobs)
    if report:
        _write_report(out, [arm_dir for *_, arm_dir in runs], say)
        summary["report"] = str(out / "report")
    with _writing(out):
        if report:
            write_own(out, marker, "summary.json",
                      json.dumps(summary, indent=2, default=json_default))  # fmt: skip
        write_experiment_page(summary, out, marker, "report/index.html" if report else None)
    return summary


Runs = list[tuple[str, Arm, Path]]  # label, arm and folder of each arm of a population


def _populations(runs: list[tuple[str, Experiment, Arm, Path]]) -> list[tuple[Experiment, Runs]]:
    """The arms grouped by population: (its experiment, its arms); one group without."""
    grouped: dict[Path, tuple[Experiment, Runs]] = {}
    for label, sub, arm, arm_dir in runs:
        grouped.setdefault(arm_dir.parent, (sub, []))[1].append((label, arm, arm_dir))
    return list(grouped.values())


def size_arms(exp: Experiment, arms: Runs, jobs: int, say: Callable[[str], None]) -> None:
    """Grow the arms of one population (``exp``: its experiment, with ``precision``) until
    the question's interval is as narrow as asked.

    After the first batch, ``h`` is :func:`~.summary.question_half_width` (the widest
    half-width of the differences from the first arm; one arm: its level's). While ``h``
    exceeds the precision, every arm is extended to ``n = ceil(n0 · (h / precision)²)``
    games (``n0`` the games played; the half-width shrinks as ``1/√n``), rounded up to
    whole deals and capped at the budget in whole deals (:func:`~.summary.budget_games`),
    for at most :data:`MAX_ROUNDS` rounds. Arms left at different counts by an interrupted
    extension are first brought to the largest. Nothing is played once the precision is
    reached or the budget spent, so a re-run of a finished experiment plays nothing.
    """
    assert exp.precision is not None
    out = arms[0][2].parent
    step, cap = deal_games(exp), budget_games(exp)
    counts = [load_manifest(arm_dir).games for *_, arm_dir in arms]
    if len(set(counts)) > 1:
        _extend_all(exp, arms, max(counts), jobs, say, "to pair the arms again")
    games = max(counts)
    for _ in range(MAX_ROUNDS):
        half = question_half_width(exp, out)
        if half is None or half <= exp.precision or games >= cap:
            return
        target = min(cap, games_for_half_width(games, half, exp.precision, step))
        why = f"±{half:.4g} at {games:,} games, precision {exp.precision:g}"
        _extend_all(exp, arms, target, jobs, say, why)
        games = target


def _extend_all(
    exp: Experiment,
    arms: Runs,
    games: int,
    jobs: int,
    say: Callable[[str], None],
    why: str,
) -> None:
    """Extend every arm of one population that has fewer to ``games`` games (saying why)."""
    for label, arm, arm_dir in arms:
        if load_manifest(arm_dir).games >= games:
            continue
        say(f"arm {label}: extending to {games:,} games ({why})")
        extend(exp.run_config(arm, jobs, games=games), arm_dir, on_note=say)


@contextmanager
def _writing(out: Path) -> Iterator[None]:
    """Turn an OSError while writing into ``out`` into ExperimentError (the file's author
    sees which folder could not be written, not a traceback)."""
    try:
        yield
    except OSError as exc:
        raise ExperimentError(f"cannot write into {out}: {exc.strerror or exc}") from None


def _write_summary(
    exp: Experiment,
    out: Path,
    marker: dict[str, Any],
    summary: dict[str, Any],
    say: Callable[[str], None],
    jobs: int = 1,
) -> None:
    """Run the studies (adding their results to ``summary``; their advice followed in play
    on ``jobs`` worker processes; one finished earlier with the same settings over the same
    arm run is kept), then write ``summary.json``,
    ``summary.md`` and, with more than one arm, ``compare.html``."""
    if exp.studies:
        summary["studies"] = run_studies(
            exp.studies,
            lambda spec: out / spec.population / spec.arm if spec.population else out / spec.arm,
            lambda name, text: write_own(out, marker, name, text),
            say,
            jobs,
            lambda name: _earlier(out, marker, name),
        )
    write_own(out, marker, "summary.json", json.dumps(summary, indent=2, default=json_default))
    write_own(out, marker, "summary.md", summary_markdown(summary))
    if exp.populations:
        write_own(out, marker, "compare.html", populations_compare_page(exp, out))
    elif len(exp.arms) > 1:
        write_own(out, marker, "compare.html", compare_page(exp, out))


def _earlier(out: Path, marker: dict[str, Any], name: str) -> str | None:
    """The text of ``out/name`` if the experiment wrote it (listed in its marker), else
    None; a file that cannot be read is "" (a damaged result: its study runs again)."""
    if name not in marker["files"] or not (out / name).exists():
        return None
    try:
        return read_text_regular(out / name)
    except (OSError, UnicodeDecodeError):
        return ""


def distinct_runs(arm_dirs: list[Path], say: Callable[[str], None]) -> list[Path]:
    """``arm_dirs`` with every run that is the same run as an earlier one left out (by
    :func:`~haggis_sim.analytics.compare.same_run`, the rule the report refuses by).

    An arm that no population's swap changes (e.g. heuristic against random, with greedy
    swapped) plays the same games in every population with the same games per arm; the
    report counts each run once (it refuses a run given twice), so the copies are said
    and skipped."""
    keep: list[tuple[Path, Manifest]] = []
    for arm_dir in arm_dirs:
        manifest = load_manifest(arm_dir)
        twin = next((d for d, m in keep if same_run(d, m, arm_dir, manifest)), None)
        if twin is not None:
            say(f"report: {arm_dir} plays the same games as {twin}; counted once")
            continue
        keep.append((arm_dir, manifest))
    return [d for d, _ in keep]


def _write_report(out: Path, arm_dirs: list[Path], say: Callable[[str], None]) -> None:
    """The HTML report over every distinct arm run into ``out/report/``
    (:func:`distinct_runs`), saying each step as it starts."""
    from ..report import build_report

    runs = distinct_runs(arm_dirs, say)

    def step(what: str, done: int, total: int) -> None:
        if done < total:
            say(f"report over the {len(runs)} arms: {what} ({done + 1}/{total})")

    build_report(runs, out / "report", "html", force=True, on_step=step)
