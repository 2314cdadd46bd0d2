"""Counterfactual decision studies declared in an experiment file (``[[studies]]``).

After its arms are played, an experiment may study one arm's logged games with
:func:`haggis_sim.analytics.decisions.run_study`: at sampled bomb or bet opportunities,
every alternative is scored from the acting seat's information set. The study's table
by situation, its guidance lines and its population go into ``summary.json``,
``summary.md`` and the experiment page, and its table into ``study-<kind>-<arm>.csv``.

    [[studies]]
    kind = "bombs"            # or "bets"
    arm = "late-vs-greedy"    # default: the first arm
    population = "vs-greedy"  # with [[populations]]: default the first
    positions = 200           # opportunities sampled from the arm's games
    samples = 100             # search iterations per alternative
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STUDY_KEYS = ("kind", "arm", "population", "positions", "samples", "seed")
STUDY_KINDS = ("bombs", "bets")


@dataclass(frozen=True)
class StudySpec:
    """One declared study: which kind, over which arm's games, how hard to look."""

    kind: str
    arm: str
    population: str | None
    positions: int
    samples: int
    seed: int

    @property
    def label(self) -> str:
        """``kind`` over ``population/arm`` (or ``arm``): names its CSV file and headings."""
        where = f"{self.population}/{self.arm}" if self.population else self.arm
        return f"{self.kind} over {where}"

    @property
    def file_name(self) -> str:
        where = f"{self.population}-{self.arm}" if self.population else self.arm
        return f"study-{self.kind}-{where}.csv"


def parse_studies(
    value: Any,
    arm_names: list[str],
    population_names: list[str],
    log_moves: bool,
    seed: int,
    w: str,
    error: Callable[[str], Exception],
) -> list[StudySpec]:
    """Validate ``[[studies]]``; ``error(message)`` is raised for the first bad key."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise error(f"{w}'studies' must be an array of tables ([[studies]])")
    if value and not log_moves:
        raise error(f"{w}a study needs the arms' move logs: remove 'log_moves = false'")
    specs = []
    for i, table in enumerate(value):
        sw = f"{w}study {i + 1}: "
        unknown = sorted(set(table) - set(STUDY_KEYS))
        if unknown:
            raise error(f"{sw}unknown key {unknown[0]!r}; known: {', '.join(STUDY_KEYS)}")
        kind = table.get("kind")
        if kind not in STUDY_KINDS:
            raise error(f"{sw}'kind' must be one of {', '.join(STUDY_KINDS)}, got {kind!r}")
        arm = table.get("arm", arm_names[0])
        if arm not in arm_names:
            raise error(f"{sw}no arm named {arm!r}; arms: {', '.join(arm_names)}")
        population = None
        if population_names:
            population = table.get("population", population_names[0])
            if population not in population_names:
                raise error(
                    f"{sw}no population named {population!r}; "
                    f"populations: {', '.join(population_names)}"
                )
        elif "population" in table:
            raise error(f"{sw}'population' needs [[populations]] in the experiment")
        numbers = {}
        for key, default in (("positions", 200), ("samples", 100), ("seed", seed)):
            v = table.get(key, default)
            if isinstance(v, bool) or not isinstance(v, int) or (key != "seed" and v < 1):
                raise error(f"{sw}'{key}' must be a whole number >= 1, got {v!r}")
            numbers[key] = v
        specs.append(StudySpec(kind, arm, population, **numbers))
    return specs


def run_studies(
    specs: list[StudySpec],
    arm_dir: Callable[[StudySpec], Path],
    write: Callable[[str, str], None],
    say: Callable[[str], None],
) -> list[dict[str, Any]]:
    """Run each study over its arm's folder; ``write(name, text)`` stores its CSV table.

    Returns one JSON-ready result per study: its settings, guidance, population and table.
    """
    from .analytics.decisions import StudySettings, run_study

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


def studies_html(results: list[dict[str, Any]]) -> str:
    """The studies section of the experiment page: guidance first, the table folded."""
    if not results:
        return ""
    parts = ["<h2>Counterfactual decision studies</h2>"]
    for r in results:
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in r["columns"])
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(_shown(v))}</td>" for v in row) + "</tr>"
            for row in r["rows"]
        )
        items = "".join(f"<li>{html.escape(g)}</li>" for g in r["guidance"])
        parts.append(
            f"<h3>Study: {html.escape(r['label'])}</h3><ul>{items}</ul>"
            f"<p class='small'>Population: {html.escape(r['population'])}</p>"
            f"<details><summary>Table by situation ({html.escape(r['file'])})</summary>"
            f"<div class='scroll'><table><tr>{head}</tr>{body}</table></div></details>"
        )
    return "\n".join(parts)


def _shown(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
