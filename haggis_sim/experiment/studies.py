"""Counterfactual decision studies declared in an experiment file (``[[studies]]``).

After its arms are played, an experiment may study one arm's logged games with
:func:`haggis_sim.analytics.decisions.run_study`: at sampled bomb or bet opportunities,
every alternative is scored from the acting seat's information set. The study's table
by situation, its guidance lines and its population go into ``summary.json``,
``summary.md`` and the experiment page, and its table into ``study-<kind>-<arm>.csv``.
The declarations are validated with the rest of the file (:func:`.spec.parse_studies`).

    [[studies]]
    kind = "bombs"            # or "bets"
    arm = "late-vs-greedy"    # default: the first arm
    population = "vs-greedy"  # with [[populations]]: default the first
    positions = 200           # opportunities sampled from the arm's games
    samples = 100             # search iterations per alternative
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .spec import StudySpec


def run_studies(
    specs: Sequence[StudySpec],
    arm_dir: Callable[[StudySpec], Path],
    write: Callable[[str, str], None],
    say: Callable[[str], None],
) -> list[dict[str, Any]]:
    """Run each study over its arm's folder; ``write(name, text)`` stores its CSV table.

    Returns one JSON-ready result per study: its settings, guidance, population and table.
    """
    from ..analytics.decisions import StudySettings, run_study

    results = []
    for spec in specs:
        say(f"study {spec.label}: {spec.positions} positions, {spec.samples} samples each")
        settings = StudySettings(positions=spec.positions, samples=spec.samples, seed=spec.seed)
        study = run_study(spec.kind, arm_dir(spec), settings)
        write(spec.file_name, study.table.write_csv())
        results.append(
            {
                "kind": spec.kind,
                "arm": spec.arm,
                "population_name": spec.population,
                "label": spec.label,
                "file": spec.file_name,
                "positions": spec.positions,
                "samples": spec.samples,
                "seed": spec.seed,
                "guidance": list(study.guidance),
                "population": study.population,
                "columns": study.table.columns,
                "rows": [[_cell(v) for v in row] for row in study.table.rows()],
            }
        )
    return results


def _cell(v: Any) -> Any:
    """A table cell as JSON can hold it (numbers stay numbers, NaN becomes None)."""
    if isinstance(v, float) and v != v:
        return None
    return v if isinstance(v, int | float | str) or v is None else str(v)


def studies_markdown(results: list[dict[str, Any]]) -> list[str]:
    """Markdown lines for the studies: per study its guidance and its population."""
    if not results:
        return []
    lines = ["## Counterfactual decision studies", ""]
    for r in results:
        lines += [f"### Study: {r['label']}", ""]
        lines += [f"- {g}" for g in r["guidance"]]
        lines += ["", f"Population: {r['population']}", "", f"Table: `{r['file']}`.", ""]
    return lines


def studies_for_page(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The studies as the experiment page shows them (its ``studies`` macro): each result
    with its table's cells as texts (floats to 4 significant digits, no value blank)."""
    return [{**r, "rows": [[_shown(v) for v in row] for row in r["rows"]]} for r in results]


def _shown(v: Any) -> str:
    """A study table's cell as the page shows it."""
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
