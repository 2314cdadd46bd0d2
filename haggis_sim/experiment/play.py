"""Running an experiment: play every unfinished arm, then write the summary, the pages,
the studies and the report into the experiment's folder.

Every arm is an ordinary run (``RunConfig`` / ``execute``) into ``<out>/<arm name>/``
with the experiment's seed, so all arms with the same player count and seating play the
same deals and their differences are paired game by game. Finished arms are skipped when
the experiment is run again; unfinished ones resume.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..runner.run import execute
from .balance import balance_table
from .folder import arm_runs, arm_state, check_experiment_out, save_marker, write_own
from .markdown import summary_markdown
from .page import compare_page, populations_compare_page, write_experiment_page
from .schema import ExperimentError
from .spec import Experiment
from .studies import run_studies
from .summary import json_default, summarize, summarize_populations


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
        say(f"arm {label}: {'resuming' if state == 'resume' else 'playing'} "
            f"{sub.games:,} games ({', '.join(arm.strategies)}; {arm.rules.label}, "
            f"{arm.players} players)")  # fmt: skip
        execute(sub.run_config(arm, jobs), arm_dir, resume=state == "resume")
    summary = summarize_populations(exp, out) if exp.populations else summarize(exp, out)
    if exp.balance:
        summary["balance"] = balance_table(exp, out)
    with _writing(out):
        _write_summary(exp, out, marker, summary, say)
    if report:
        _write_report(out, [arm_dir for *_, arm_dir in runs], say)
        summary["report"] = str(out / "report")
    with _writing(out):
        if report:
            write_own(out, marker, "summary.json",
                      json.dumps(summary, indent=2, default=json_default))  # fmt: skip
        write_experiment_page(summary, out, marker, "report/index.html" if report else None)
    return summary


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
) -> None:
    """Run the studies (adding their results to ``summary``), then write ``summary.json``,
    ``summary.md`` and, with more than one arm, ``compare.html``."""
    if exp.studies:
        summary["studies"] = run_studies(
            exp.studies,
            lambda spec: out / spec.population / spec.arm if spec.population else out / spec.arm,
            lambda name, text: write_own(out, marker, name, text),
            say,
        )
    write_own(out, marker, "summary.json", json.dumps(summary, indent=2, default=json_default))
    write_own(out, marker, "summary.md", summary_markdown(summary))
    if exp.populations:
        write_own(out, marker, "compare.html", populations_compare_page(exp, out))
    elif len(exp.arms) > 1:
        write_own(out, marker, "compare.html", compare_page(exp, out))


def _write_report(out: Path, arm_dirs: list[Path], say: Callable[[str], None]) -> None:
    """The HTML report over every arm into ``out/report/``, saying each step as it starts."""
    from ..report import build_report

    def step(what: str, done: int, total: int) -> None:
        if done < total:
            say(f"report over the {len(arm_dirs)} arms: {what} ({done + 1}/{total})")

    build_report(arm_dirs, out / "report", "html", force=True, on_step=step)
