"""Running a design: the folder, the search, the confirmation and the written results.

The folder holds ``search/`` (one run per candidate), ``confirm/`` (the confirmation
experiment), ``design.toml`` (the file as given), ``design.json`` and ``design.md``. It
carries a marker naming the design; a folder that is not new, empty or this design's is
refused before anything is played. Everything resumes: run the same command again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from .. import __version__, outputs
from ..experiment.schema import ExperimentError
from ..experiment.summary import json_default, markdown_table
from .confirm import confirm, front, headline, players_words
from .page import (
    FIGURE,
    check_table,
    confirmed_table,
    design_page,
    front_figure,
    search_table,
    write_candidates,
)
from .search import Candidate, Say, candidate_name, losses, search
from .spec import Design, json_flags

MARKER = ".haggis-sim-design.json"
OWN_FILES = ("design.toml", "design.json", "design.md", "index.html", FIGURE)


def check_design_out(design: Design, out: Path) -> dict[str, Any]:
    """The marker to keep in ``out``; ExperimentError for a folder the design may not use:
    a file or link, a path inside a run, report or experiment folder, or a non-empty
    folder that is not this design's."""
    if out.is_symlink():
        raise ExperimentError(f"--out {out} is a symbolic link; give the design a real folder")
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"--out {out} is a file, not a folder")
    outputs.check_outside(out, "--out", ExperimentError)
    fresh = {"tool": "haggis-sim", "kind": "design", "name": design.name, "version": __version__,
             "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "files": list(OWN_FILES)}  # fmt: skip
    try:
        if not out.exists() or not any(out.iterdir()):
            return fresh
    except OSError as exc:
        raise ExperimentError(f"cannot look at {out}: {exc.strerror}") from None
    if not (out / MARKER).exists():
        raise ExperimentError(
            f"--out {out} already exists and is not a design folder (it holds "
            f"{outputs.some(out)}); choose a new or empty folder"
        )
    try:
        marker = outputs.marker_data(out / MARKER)
    except (OSError, ValueError) as exc:
        raise ExperimentError(
            f"{out / MARKER} is damaged ({exc}); cannot tell what the design wrote: choose "
            "another --out"
        ) from None
    if marker.get("name") != design.name:
        raise ExperimentError(
            f"--out {out} holds the design {marker.get('name')!r}, not {design.name!r}: "
            "choose another --out"
        )
    return marker


def run_design(design: Design, out: Path, jobs: int = 0, log: Say | None = None) -> dict[str, Any]:
    """Search, confirm and write the results into ``out``; the result (``design.json``;
    its ``seconds`` are this sitting's: a resumed design reads what it had played)."""
    say = log or (lambda _m: None)
    marker = check_design_out(design, out)
    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    outputs.replace_file(out / MARKER, json.dumps(marker, indent=2) + "\n")
    if design.text:
        outputs.replace_file(out / "design.toml", design.text)
    knobs = ", ".join(k.flag for k in design.knobs)
    say(f"searching {knobs}: {design.budget.trials} settings of at most "
        f"{design.budget.games:,} games each, on common deals")  # fmt: skip
    played, _ = search(design, out, jobs, say)
    searched = time.perf_counter() - t0
    chosen = front(design, played)
    today = candidate_name(design.base_flags)
    base = next((c for c in played if c.name == today and c.full), None)
    result: dict[str, Any] = {
        "name": design.name, "question": design.question, "players": design.players,
        "rules": design.rules, "strategies": list(design.strategies),
        "search": {"trials": design.budget.trials, "candidates": [_row(design, c) for c in played],
                   "games": sum(c.games for c in played), "seconds": round(searched, 1),
                   "base": base.name if base else None},
    }  # fmt: skip
    if not chosen:
        result["headline"] = "No candidate was played in full; raise the budget's trials."
    else:
        say(f"confirming {len(chosen)} candidate(s) on fresh deals beside the base rules")
        t1 = time.perf_counter()
        result["confirm"] = confirm(design, chosen, base, out, jobs, say)
        result["confirm"]["seconds"] = round(time.perf_counter() - t1, 1)
        result["headline"] = headline(design, result["confirm"])
    result["version"] = __version__
    replays = write_candidates(design, chosen, base, out) if chosen else []
    outputs.replace_file(out / "design.json", json.dumps(result, indent=2, default=json_default))
    outputs.replace_file(out / "design.md", design_markdown(design, result))
    figure = front_figure(design, result, out / FIGURE)
    outputs.replace_file(out / "index.html", design_page(design, result, figure, replays))
    return result


def _row(design: Design, cand: Candidate) -> dict[str, Any]:
    return {
        "name": cand.name, "flags": json_flags(cand.flags), "games": cand.games,
        "pruned": cand.pruned,
        "estimates": {k: {"mean": e.mean, "low": e.low, "high": e.high}
                      for k, e in cand.estimates.items()},
        "losses": [v for v, _, _ in losses(design, cand)],
    }  # fmt: skip


def design_markdown(design: Design, result: dict[str, Any]) -> str:
    """``design.md``: the answer in words, the confirmation table, then the search (the
    page's tables, :func:`.page.confirmed_table` and :func:`.page.search_table`)."""
    lines = [f"# {design.name}", "", design.question.strip(), "", f"**{result['headline']}**", ""]
    conf = result.get("confirm")
    if conf:
        header, rows = confirmed_table(design, conf)
        lines += [
            f"## Confirmed on fresh deals ({conf['games']:,} games per arm, seed {conf['seed']})",
            "",
            "Each figure with its 95% interval; Δ is the candidate minus today's rules, paired "
            "deal by deal. Only these games are results: the search's own figures favour the "
            "candidates it picked.",
            "",
            *markdown_table(header, [row["cells"] for row in rows]),
        ]
        if "check" in conf:
            who = players_words(conf["check"]["strategies"])
            lines += ["", f"### The same candidates with {who}", "",
                      *markdown_table(*check_table(design, conf))]  # fmt: skip
        lines += ["", "Replay: `haggis-sim experiment confirm/experiment.toml`", ""]
    search = result["search"]
    lines += [
        f"## The search ({len(search['candidates'])} settings, {search['games']:,} games)",
        "",
        "On common deals; a setting stopped early could not reach the front.",
        "",
        *markdown_table(*search_table(design, search)),
    ]
    return "\n".join(lines) + "\n"
