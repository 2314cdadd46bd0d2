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
    positions = 600           # the cap: at most this many positions scored
    min_per_bin = 30          # each cell of the deciding factors' crossing should hold this
    samples = 100             # search iterations per alternative
    value = "game"            # the search's reward (default mcts's); or "round"
    prior = "learned"         # a bomb's alternatives chosen with the learned prior; or "none"

The result records the search (``search``: the settings in words, also in the
population text), and each guidance line both as text and as an ``advice`` record (kind,
bin as feature conditions, advice, value difference with interval, positions; see
:class:`haggis_sim.analytics.decision_table.Advice`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
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
        say(
            f"study {spec.label}: at most {spec.positions} positions, {spec.min_per_bin} per "
            f"cell, {spec.samples} samples each, value={spec.value}, prior={spec.prior}"
        )
        settings = StudySettings(
            positions=spec.positions,
            samples=spec.samples,
            seed=spec.seed,
            value=spec.value,
            prior=spec.prior,
            min_per_bin=spec.min_per_bin,
        )
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
                "min_per_bin": spec.min_per_bin,
                "samples": spec.samples,
                "value": spec.value,
                "prior": spec.prior,
                "seed": spec.seed,
                "search": settings.describe(),
                "guidance": list(study.guidance),
                "advice": [_record(a) for a in study.advice],
                "population": study.population,
                "columns": study.table.columns,
                "rows": [[_cell(v) for v in row] for row in study.table.rows()],
            }
        )
    return results


def _record(advice: Any) -> dict[str, Any]:
    """An :class:`~haggis_sim.analytics.decision_table.Advice` as JSON holds it."""
    return {k: v if isinstance(v, dict) else _cell(v) for k, v in asdict(advice).items()}


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
