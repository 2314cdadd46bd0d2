"""Counterfactual decision studies declared in an experiment file (``[[studies]]``).

After its arms are played, an experiment may study one arm's logged games with
:func:`haggis_sim.counterfactual.decisions.run_study`: at sampled bomb or bet opportunities,
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
    followed_games = 2000     # games per base each line with advice is followed in play
    followed_bases = ["heuristic", "learned"]  # at least two (unless followed_games = 0)

The result records the search (``search``: the settings in words, also in the
population text), and each guidance line both as text and as an ``advice`` record (kind,
bin as feature conditions, advice, value difference with interval, positions; see
:class:`haggis_sim.analytics.decision_table.Advice`).

Then every record that gives advice is followed in play (:func:`.followed.follow_records`:
``advised:base=X`` against ``X`` for each base, paired deals, rotated seats, under the
studied arm's rules) and gets ``followed``: its verdict and per base the edge in points
of games won. How the lines are shown follows from it (:func:`guidance_groups`): a line
is *advice* only where following it wins in some base and loses in none; one that loses
anywhere is a finding whose advice failed in play, with the failed test; one that
separates nowhere is "not confirmed in play". With ``followed_games = 0`` the page says,
in bold, that nothing was tested in play.

Each study's result is also kept in ``study-<kind>-<arm>.json`` (:func:`result_text`): run
again over the same folder, a study whose settings, followed settings and arm run are
unchanged is kept from it, so a finished experiment's pages are rebuilt in minutes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..inputs import json_value
from ..logs import ledger
from ..logs.manifest import config_digest, load_manifest, read_manifest
from .followed import ADVICE, FAILED, UNCONFIRMED, follow_records
from .studies_spec import StudySpec

RESULT_FORMAT = 1  # the layout of a study's kept result file (``study-...json``)


def run_studies(
    specs: Sequence[StudySpec],
    arm_dir: Callable[[StudySpec], Path],
    write: Callable[[str, str], None],
    say: Callable[[str], None],
    jobs: int = 1,
    earlier: Callable[[str], str | None] | None = None,
) -> list[dict[str, Any]]:
    """Run each study over its arm's folder; ``write(name, text)`` stores its CSV table
    and, last, its result file (:func:`result_name`). Then follow its advice in play on
    ``jobs`` worker processes (0: every core).

    ``earlier(name)`` gives the text of a result file an earlier run wrote (None if there
    is none): a study whose settings, followed settings and arm run (:func:`arm_identity`)
    are unchanged is kept from it, nothing searched or played; otherwise it runs again,
    saying why in one line (settings changed, the arm's run changed, the file damaged).

    Returns one JSON-ready result per study: its settings, guidance (each ``advice``
    record with its ``followed`` result), population and table.
    """
    results = []
    for spec in specs:
        key = study_key(spec, arm_dir(spec))
        text = earlier(result_name(spec)) if earlier is not None else None
        kept, why = kept_result(text, key)
        if kept is not None:
            say(f"study {spec.label}: finished earlier, kept ({result_name(spec)})")
            write(spec.file_name, kept["csv"])
            results.append(kept["result"])
            continue
        if why:
            say(f"study {spec.label}: {why}; running it again")
        result, csv = _run_study(spec, arm_dir(spec), say, jobs)
        write(spec.file_name, csv)
        write(result_name(spec), result_text(key, result, csv))
        results.append(result)
    return results


def _run_study(
    spec: StudySpec, arm_dir: Path, say: Callable[[str], None], jobs: int
) -> tuple[dict[str, Any], str]:
    """Run one study and follow its advice in play: its JSON-ready result and CSV table."""
    from ..counterfactual.decisions import StudySettings, run_study

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
    study = run_study(spec.kind, arm_dir, settings)
    records = [_record(a) for a in study.advice]
    rules = load_manifest(arm_dir).rules
    follows = follow_records(
        records, spec.followed_bases, spec.followed_games, rules, spec.seed, jobs, say,
        spec.label,
    )  # fmt: skip
    for rec, follow in zip(records, follows, strict=True):
        rec["followed"] = follow
    result = {
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
        "advice": records,
        "followed_games": spec.followed_games,
        "followed_bases": list(spec.followed_bases),
        "population": study.population,
        "columns": study.table.columns,
        "rows": [[_cell(v) for v in row] for row in study.table.rows()],
    }
    return result, study.table.write_csv()


# ---------------------------------------------------------------- kept on a re-run


def result_name(spec: StudySpec) -> str:
    """The study's result file in the experiment folder: its CSV's name, ending ``.json``."""
    return spec.file_name.removesuffix(".csv") + ".json"


def arm_identity(arm_dir: Path) -> dict[str, Any]:
    """What identifies the studied arm's games: its configuration's digest, its games and
    the digest of its ledger (which names every part's digest), so an arm played again or
    extended is another arm."""
    manifest = read_manifest(arm_dir)
    path = ledger.ledger_path(arm_dir)
    return {
        "config": config_digest(manifest.get("config", {})),
        "games": manifest.get("config", {}).get("games"),
        "ledger": ledger.file_digest(path) if path.exists() else None,
    }


def study_key(spec: StudySpec, arm_dir: Path) -> dict[str, Any]:
    """Everything a study's result depends on: its settings (followed settings included)
    and its arm run (:func:`arm_identity`), as JSON holds them."""
    key: dict[str, Any] = json.loads(
        json.dumps({"settings": asdict(spec), "arm_run": arm_identity(arm_dir)})
    )
    return key


def _digest(key: Any, result: Any, csv: str) -> str:
    text = json.dumps([key, result, csv], sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def result_text(key: dict[str, Any], result: dict[str, Any], csv: str) -> str:
    """A study's result file: its key, result and CSV table, and a digest over them (an
    edited file is not kept)."""
    result = json.loads(json.dumps(result))  # as it will be read back
    record = {"format": RESULT_FORMAT, "key": key, "result": result, "csv": csv,
              "digest": _digest(key, result, csv)}  # fmt: skip
    return json.dumps(record, indent=1) + "\n"


def kept_result(text: str | None, key: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """The earlier result file's record if it can be kept for ``key``, else None and why
    not in words ("" when there is no earlier result)."""
    if text is None:
        return None, ""
    try:
        record = json_value(text)
        intact = isinstance(record, dict) and record.get("format") == RESULT_FORMAT and (
            _digest(record["key"], record["result"], record["csv"]) == record["digest"]
        )  # fmt: skip
    except (ValueError, KeyError, TypeError):
        intact = False
    if not intact:
        return None, "its earlier result file is damaged or was edited"
    have, want = record["key"], key
    if have.get("arm_run") != want["arm_run"]:
        return None, "its arm's run changed since its earlier result (played again or extended)"
    changed = [k for k in want["settings"] if have["settings"].get(k) != want["settings"][k]]
    if changed:
        return None, f"{', '.join(changed)} changed since its earlier result"
    return record, ""


def _record(advice: Any) -> dict[str, Any]:
    """An :class:`~haggis_sim.analytics.decision_table.Advice` as JSON holds it."""
    return {k: v if isinstance(v, dict) else _cell(v) for k, v in asdict(advice).items()}


def _cell(v: Any) -> Any:
    """A table cell as JSON can hold it (numbers stay numbers, NaN becomes None)."""
    if isinstance(v, float) and v != v:
        return None
    return v if isinstance(v, int | float | str) or v is None else str(v)


def studies_markdown(results: list[dict[str, Any]]) -> list[str]:
    """Markdown lines for the studies: per study, right after its heading, its guidance
    with what following it in play showed (:func:`guidance_groups`), then its population."""
    if not results:
        return []
    lines = ["## Counterfactual decision studies", ""]
    for r in results:
        lines += [f"### Study: {r['label']}", ""]
        intro = tested_in_play(r)
        lines += [f"**{intro}**" if not r.get("followed_games") else intro, ""]
        for group in guidance_groups(r):
            lines += [f"{group['title']}:", "", *(f"- {g}" for g in group["lines"]), ""]
        lines += [f"Population: {r['population']}", "", f"Table: `{r['file']}`.", ""]
    return lines


def tested_in_play(result: dict[str, Any]) -> str:
    """How a study's advice was tested in play, and the rule that makes a line advice; with
    ``followed_games = 0`` (or a summary from before advice was followed) that it was not."""
    games = result.get("followed_games") or 0
    if not games:
        return (
            "Not tested in play (followed_games = 0): no line below was followed in play, "
            "so none of it is advice that has been shown to win."
        )
    played = max([_games(rec) for rec in result.get("advice", [])] or [games])
    return (
        f"Each line with advice was followed in play: the advised player "
        f"(advised:base=X) against X itself, on paired deals with rotated seats, "
        f"{played:,} games per base ({', '.join(result['followed_bases'])}), under the "
        "studied arm's rules. A line is advice only where following it wins in at least "
        "one base and loses in none; one that loses in any base is shown as a finding "
        "with its failed test."
    )


def _games(rec: dict[str, Any]) -> int:
    follow = rec.get("followed") or {}
    return int(follow.get("games", 0))


def guidance_groups(result: dict[str, Any]) -> list[dict[str, Any]]:
    """A study's guidance lines grouped by what following them in play showed (``title``,
    ``lines``; empty groups left out): advice, not confirmed, failed (each line with its
    followed results), and lines that give no advice (as the study wrote them). Not
    tested (``followed_games = 0``): one group, the lines as written."""
    guidance = list(result["guidance"])
    records = result.get("advice") or []
    if not result.get("followed_games") or len(records) != len(guidance):
        return [{"title": "Guidance (not tested in play)", "lines": guidance}]
    by_status: dict[str, list[str]] = {ADVICE: [], UNCONFIRMED: [], FAILED: [], "none": []}
    for line, rec in zip(guidance, records, strict=True):
        follow = rec.get("followed")
        if not follow or not follow["bases"]:
            by_status["none"].append(line)
            continue
        shown = "; ".join(b["text"] for b in follow["bases"])
        if follow["status"] == ADVICE:
            by_status[ADVICE].append(f"{line} — {shown}")
        else:  # quoted: the search's line, not an instruction to follow
            claim, colon, found = line.partition(": ")
            lost = "lost in play when followed: " if follow["status"] == FAILED else ""
            quoted = f"“{claim}”" + (f": {found}" if colon else "")
            by_status[follow["status"]].append(f"{quoted} — {lost}{shown}")
    games = max(_games(rec) for rec in records)
    titles = {
        ADVICE: "Advice (following it wins in at least one base and loses in none)",
        UNCONFIRMED: f"Not confirmed in play (not separable at {games:,} games per base)",
        FAILED: "Findings whose advice failed in play (following it loses in a base: not advice)",
        "none": "No advice (no clear answer, or too few positions)",
    }
    return [{"title": titles[k], "lines": v} for k, v in by_status.items() if v]


def studies_for_page(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The studies as the experiment page shows them (its ``studies`` macro): each result
    with its table's cells as texts (floats to 4 significant digits, no value blank), how
    its advice was tested in play (``tested``, ``untested``) and its guidance ``groups``."""
    return [
        {
            **r,
            "rows": [[_shown(v) for v in row] for row in r["rows"]],
            "tested": tested_in_play(r),
            "untested": not r.get("followed_games"),
            "groups": guidance_groups(r),
        }
        for r in results
    ]


def _shown(v: Any) -> str:
    """A study table's cell as the page shows it."""
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
