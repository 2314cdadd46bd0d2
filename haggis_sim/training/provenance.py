"""A trained model's provenance: how it was made (command, seed, data, fit, checks),
and the one line ``haggis-sim strategies`` shows of it."""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path
from typing import Any

import haggis_sim as hs
from strategies import make

from .environment import numeric_environment
from .fit import L2, L2_HIDDEN
from .positions import OPPONENTS, TRAIN_ALTERNATIVES, combos
from .split import SPLIT_RULE


def git_commit() -> str | None:
    """The repository's HEAD commit when the package runs from a git checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except OSError:
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def stamp() -> dict[str, Any]:
    """What every trained model's provenance ends with: when (UTC), from which commit and
    version, and in which numerical environment it was fitted."""
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git_commit": git_commit(),
        "haggis_sim_version": hs.__version__,
        "environment": numeric_environment(),
    }


def provenance(
    settings: dict[str, Any],
    stage1: dict[str, Any],
    stage2: dict[str, Any] | None,
    checks: dict[str, Any] | None,
) -> dict[str, Any]:
    """The provenance of a model trained with ``settings`` (command, seed, games, teacher,
    target, hidden), its stage 1 (decisions, fit, accuracies, seconds), stage 2 and checks
    (None where not run), stamped with the date, commit and version."""
    pairs = combos()
    hidden = settings["hidden"]
    return {
        "command": settings["command"],
        "seed": settings["seed"],
        "games": settings["games"],
        "teacher": make(settings["teacher"]).spec,
        "opponents": list(OPPONENTS),
        "presets": sorted({p for p, _ in pairs}),
        "players": sorted({n for _, n in pairs}),
        "split": SPLIT_RULE,
        "train_decisions": stage1["train_decisions"],
        "holdout_decisions": stage1["holdout_decisions"],
        "train_alternatives": TRAIN_ALTERNATIVES,
        "target": settings["target"],
        "hidden_units": hidden,
        "l2": L2_HIDDEN if hidden else L2,
        "fit": stage1["fit"],
        "holdout_top1_vs_teacher": stage1["holdout_top1_vs_teacher"],
        "heuristic_top1_vs_teacher": stage1["heuristic_top1_vs_teacher"],
        "stage1_fit_seconds": stage1["stage1_fit_seconds"],
        "stage2": stage2,
        "heldout_vs_heuristic": checks,
        **stamp(),
    }


def describe(provenance: dict[str, Any]) -> str:
    """One line of a model's provenance for ``haggis-sim strategies``."""
    keys = ("games", "seed", "teacher", "target", "hidden_units", "holdout_top1_vs_teacher",
            "heuristic_top1_vs_teacher", "date", "git_commit")  # fmt: skip
    out = {k: provenance.get(k) for k in keys}
    stage2 = provenance.get("stage2")
    if isinstance(stage2, dict):
        for players, info in stage2.items():
            if isinstance(info, dict) and players in ("2", "3"):
                check = info.get("heldout_vs_heuristic") or {}
                out[f"heldout_vs_heuristic_{players}p"] = check.get("win_rate")
        out["improve_iters"] = (stage2.get("both") or {}).get("iters")
    checks = provenance.get("heldout_vs_heuristic")  # a model with a hidden layer
    if isinstance(checks, dict):
        for players, check in checks.items():
            if isinstance(check, dict) and players in ("2", "3"):
                out[f"heldout_vs_heuristic_{players}p"] = check.get("win_rate")
    return json.dumps(out)
