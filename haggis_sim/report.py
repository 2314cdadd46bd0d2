"""``haggis-sim report``: a self-contained folder (index.html, PNG figures, CSV tables).

Every number comes from a DuckDB aggregation in :mod:`.sections`; this module only
draws the figures (matplotlib, Agg), formats the tables and writes the folder, atomically:
it is built in a temporary folder next to ``out`` and renamed into place.

The report never deletes or overwrites what it did not write. Every report folder holds
a marker (:data:`MARKER`: tool version, creation time, and every file and folder the
report wrote); :func:`check_out` refuses any other existing ``out`` (a run folder, a
user's folder, a file, a path inside a run or report folder), and ``force`` replaces an
earlier report only when the folder holds nothing but what that report wrote.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Any, Literal

import duckdb
import polars as pl

from . import __version__
from .analytics import sections as S
from .errors import InputError
from .logs import ledger
from .logs.manifest import MANIFEST

Format = Literal["html", "png"]
OutState = Literal["new", "empty", "replace"]
MARKER = ".haggis-sim-report.json"


class ReportError(InputError):
    """Bad input to the report: a missing folder, or a folder that is not a run."""


def read_manifests(run_dirs: list[Path]) -> list[dict[str, Any]]:
    """Each run's manifest; ReportError naming the first folder that is not a run."""
    out = []
    for d in run_dirs:
        if not d.exists():
            raise ReportError(f"run folder {d} does not exist")
        if not d.is_dir() or not (d / MANIFEST).exists():
            raise ReportError(f"{d} is not a haggis-sim run folder (no {MANIFEST})")
        try:
            out.append(json.loads((d / MANIFEST).read_text()))
        except (OSError, json.JSONDecodeError) as exc:
            raise ReportError(f"{d / MANIFEST} cannot be read: {exc}") from None
    return out


def run_notices(run_dirs: list[Path], manifests: list[dict[str, Any]]) -> list[str]:
    """Plain-language warnings: unfinished runs and runs without logged games."""
    notes = []
    for d, m in zip(run_dirs, manifests, strict=True):
        if ledger.has_ledger(d):
            logged = ledger.games_logged(d)
        else:  # a run of an older version: count the games in its parts
            logged = sum(pl.scan_parquet(p).select(pl.len()).collect().item()
                         for p in ledger.table_files(d, "games"))  # fmt: skip
        total = int(m.get("games", 0) or 0)
        if m.get("status") != "complete":
            notes.append(
                f"Run {d} is unfinished (status {m.get('status')!r}): {logged:,} of {total:,} "
                "games are logged; the report covers only those games."
            )
        if logged == 0:
            notes.append(f"Run {d} has no games logged yet: nothing of it is in this report.")
    return notes


def build_tables(
    run_dirs: list[Path], manifests: list[dict[str, Any]] | None = None
) -> tuple[dict[str, pl.DataFrame], list[int]]:
    """Every section's tables over the runs, and the indices of the runs with games."""
    manifests = manifests if manifests is not None else read_manifests(run_dirs)
    tables: dict[str, pl.DataFrame] = {}
    try:
        con, included = S.connect_runs(run_dirs, manifests)
        try:
            if included:
                n_games = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
                if n_games > 0:
                    for fn in S.SECTIONS.values():
                        tables.update(fn(con))
        finally:
            con.close()
    except (RuntimeError, duckdb.Error) as exc:
        if is_interrupt(exc):  # DuckDB turns Ctrl-C into an error: give it back as one
            raise KeyboardInterrupt from None
        raise
    return tables, included


def is_interrupt(exc: BaseException) -> bool:
    """True for Ctrl-C, also in the form DuckDB raises it (``RuntimeError: Query interrupted``)."""
    if isinstance(exc, KeyboardInterrupt | duckdb.InterruptException):
        return True
    return isinstance(exc, RuntimeError) and "interrupted" in str(exc).lower()


# --- figures ---------------------------------------------------------------------------------


def _short(name: str, width: int = 28) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _figures(tables: dict[str, pl.DataFrame], folder: Path) -> dict[str, str]:
    """Draw one PNG per section into ``folder``; return {section: file name}."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files: dict[str, str] = {}

    def save(fig: Any, key: str) -> None:
        name = f"fig-{key}.png"
        fig.tight_layout()
        fig.savefig(folder / name, dpi=80)
        plt.close(fig)
        files[key] = name

    # results: win rate and margin per pairing
    pairs = tables["pairs"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.6 * max(len(pairs), 2) + 1.5))
    labels = [
        f"{_short(a, 18)} vs {_short(b, 18)} [{r}]"
        for r, a, b in zip(pairs["rules"], pairs["a"], pairs["b"], strict=True)
    ]
    y = list(range(len(pairs)))
    if len(pairs):
        rate = pairs["win_rate_a"].to_list()
        axes[0].errorbar(
            rate, y, fmt="o",
            xerr=[[r - lo for r, lo in zip(rate, pairs["win_low"], strict=True)],
                  [hi - r for r, hi in zip(rate, pairs["win_high"], strict=True)]],
        )  # fmt: skip
        m = pairs["margin"].fill_nan(None).fill_null(0.0).to_list()
        lo = pairs["margin_low"].fill_nan(None).to_list()
        hi = pairs["margin_high"].fill_nan(None).to_list()
        err = [
            [v - (a if a is not None else v) for v, a in zip(m, lo, strict=True)],
            [(b if b is not None else v) - v for v, b in zip(m, hi, strict=True)],
        ]
        axes[1].errorbar(m, y, xerr=err, fmt="o", color="tab:orange")
    else:
        for ax in axes:
            ax.text(0.5, 0.5, "no pairings: one strategy in every seat", ha="center",
                    va="center", transform=ax.transAxes)  # fmt: skip
    for ax, title in zip(axes, ("win rate of A vs B", "mean score margin A − B"), strict=True):
        ax.set_yticks(y, labels if ax is axes[0] else [""] * len(y))
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[0].set_xlim(0, 1)
    axes[0].axvline(0.5, color="grey", lw=0.8)
    axes[1].axvline(0.0, color="grey", lw=0.8)
    save(fig, "results")

    # seat and lead
    seat, lead = tables["seat"], tables["lead_game"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
    xl = [f"{r} {p}p seat {s}" for r, p, s in zip(seat["rules"], seat["players"], seat["seat"],
                                                  strict=True)]  # fmt: skip
    axes[0].bar(range(len(seat)), seat["win_rate"].to_list())
    axes[0].set_xticks(range(len(seat)), xl, rotation=30, ha="right", fontsize=8)
    axes[0].set_title("win rate by seat")
    ll = [
        f"{r} {p}p {'led' if x else 'did not lead'}"
        for r, p, x in zip(lead["rules"], lead["players"], lead["led_first"], strict=True)
    ]
    axes[1].bar(range(len(lead)), lead["win_rate"].to_list(), color="tab:green")
    axes[1].set_xticks(range(len(lead)), ll, rotation=30, ha="right", fontsize=8)
    axes[1].set_title("win rate by who led the first round")
    save(fig, "seat_lead")

    # points by source, stacked
    pts = tables["points"]
    fig, ax = plt.subplots(figsize=(10, 0.5 * max(len(pts), 2) + 1.5))
    left = [0.0] * len(pts)
    ylab = [f"{_short(s)} [{r}]" for r, s in zip(pts["rules"], pts["strategy"], strict=True)]
    for src in ("going_out", "cards", "bets", "bonus"):
        vals = pts[src].to_list()
        ax.barh(range(len(pts)), vals, left=left, label=src.replace("_", " "))
        left = [a + max(b, 0.0) for a, b in zip(left, vals, strict=True)]
    ax.set_yticks(range(len(pts)), ylab, fontsize=8)
    ax.set_xlabel("mean points per round")
    ax.legend(loc="lower right", fontsize=8)
    save(fig, "points")

    # bets: success rate by value and hand strength at the bet
    out = tables["bet_outcomes"]
    fig, ax = plt.subplots(figsize=(10, 3.8))
    if len(out):
        xl = [f"{_short(s, 14)} {v} [{k}]" for s, v, k in
              zip(out["strategy"], out["value"], out["strength"], strict=True)]  # fmt: skip
        ax.bar(range(len(out)), out["success_rate"].to_list(), color="tab:purple")
        ax.set_xticks(range(len(out)), xl, rotation=60, ha="right", fontsize=7)
    else:
        ax.text(0.5, 0.5, "no bets in these runs", ha="center", va="center")
    ax.set_ylim(0, 1)
    ax.set_title("bet success rate by strategy, value [hand strength at the bet, 0-100]")
    save(fig, "bets")

    # bombs: timing histograms
    timing = tables["bomb_timing"]
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.5))
    for ax, measure in zip(
        axes, ("trick", "bomber cards left", "opponent cards left"), strict=True
    ):
        sub = timing.filter(pl.col("measure") == measure)
        for strat in sorted(set(sub["strategy"].to_list())):
            s = sub.filter(pl.col("strategy") == strat).sort("value")
            ax.plot(s["value"].to_list(), s["bombs"].to_list(), marker=".", label=_short(strat, 20))
        ax.set_title(f"bombs by {measure}")
    if len(timing):
        axes[0].legend(fontsize=7)
    save(fig, "bombs")

    # game shape
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.5))
    for ax, (key, col, count) in zip(
        axes,
        (("shape_rounds", "rounds", "games"), ("shape_tricks", "tricks", "rounds"),
         ("shape_margins", "margin", "games")),
        strict=True,
    ):  # fmt: skip
        t = tables[key]
        for rules in sorted(set(t["rules"].to_list())):
            s = t.filter(pl.col("rules") == rules)
            ax.bar(s[col].to_list(), s[count].to_list(), alpha=0.6, label=rules)
        ax.set_title(f"{col} per {'game' if count == 'games' else 'round'}")
        ax.legend(fontsize=7)
    save(fig, "shape")
    return files


# --- HTML ------------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if value != value:
            return "–"
        return f"{value:.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return html.escape(str(value))


def table_html(frame: pl.DataFrame) -> str:
    """A plain HTML table of a small frame (floats to 4 significant digits)."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    rows = "".join(
        "<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>" for row in frame.rows()
    )
    body = f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    return f"<div style='overflow-x:auto'>{body}</div>"


SECTION_TEXT: list[tuple[str, str, list[str], str]] = [
    ("results", "Results", ["strategies", "pairs", "ratings"],
     "Win rate per strategy and per pairing with 95% Wilson intervals. In a pairing, A "
     "beats B in a game when A's seat won, or neither won and A scored more. The margin is "
     "A's final score minus B's; its 95% t-interval is taken over deals (games replaying one "
     "deal with rotated seats are averaged first; with fixed seats each game is a deal). "
     "Ratings (more than two strategies): Bradley–Terry fitted by MM over every pairwise "
     "game result, on the Elo scale (400 = 10:1 odds), centred on 0."),
    ("seat_lead", "Seat and lead advantage", ["seat", "lead_game", "lead_round"],
     "Win rate and final score by seat, and by whether the seat led the first round of the "
     "game; round points and the share of rounds it went out first by whether it led that "
     "round."),
    ("points", "Where points come from", ["points"],
     "Mean points per round by source — going out, captured cards, bets, bonus — per "
     "strategy and rules preset."),
    ("bets", "Bets", ["bet_rates", "bet_outcomes"],
     "How often each strategy bets each value (share of its rounds), and the outcome of "
     "its bets by the bettor's hand strength when it bet (the moves log's strength column: "
     "the heuristic's 0-100 estimate, in buckets of 5). A bet succeeded when the "
     "bettor's bet points for the round were positive; net points per bet are the bettor's "
     "bet points for the round (mean), next to its round total."),
    ("bombs", "Bombs", ["bombs", "bomb_timing"],
     "When bombs are played: trick number, cards left in the bomber's hand after the bomb, "
     "and the fewest cards in an opponent's hand at that moment. Trick points are the card "
     "points of every play in the bombed trick. A bomb counts as worth it when it took its "
     "trick and the bomber ended the round with more points than every opponent. Net "
     "points around a bomb: the bomber's round margin (its round total minus the best "
     "opponent's) in rounds where it bombed, against that strategy's rounds without a "
     "bomb."),
    ("shape", "Game shape", ["shape", "shape_rounds", "shape_tricks", "shape_margins"],
     "Rounds per game, tricks per round, and final margins (winner's score minus the next "
     "best)."),
]  # fmt: skip

IMAGE_CHECK = (
    "<script>window.addEventListener('load', function () {"
    " var imgs = Array.prototype.slice.call(document.images);"
    " document.body.dataset.images = String(imgs.length);"
    " document.body.dataset.imagesLoaded = String(imgs.filter(function (i) {"
    " return i.complete && i.naturalWidth > 0; }).length); });</script>"
)

CSS = (
    "body{font-family:sans-serif;margin:2em;max-width:1200px}"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.85em}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "th{background:#eee}.notice{background:#fff3cd;border:1px solid #e0c36a;padding:0.6em}"
    "img{max-width:100%}code{background:#f4f4f4}"
)


def _header(run_dirs: list[Path], manifests: list[dict[str, Any]]) -> str:
    parts = []
    for d, m in zip(run_dirs, manifests, strict=True):
        strategies = ", ".join(s.get("spec", "?") for s in m.get("strategies", []))
        rows = [
            ("command", m.get("command", "?")),
            ("rules", json.dumps(m.get("rules", {}))),
            ("strategies", strategies),
            ("seed", m.get("seed", "?")),
            ("games (planned)", m.get("games", "?")),
            ("status", m.get("status", "?")),
            ("package version", m.get("version", "?")),
        ]
        body = "".join(
            f"<tr><th>{html.escape(k)}</th><td style='text-align:left'><code>"
            f"{html.escape(str(v))}</code></td></tr>"
            for k, v in rows
        )
        parts.append(f"<h3>Run {html.escape(str(d))}</h3><table>{body}</table>")
    return "".join(parts)


def _page(
    run_dirs: list[Path],
    manifests: list[dict[str, Any]],
    notices: list[str],
    tables: dict[str, pl.DataFrame],
    figures: dict[str, str],
    games: int,
) -> str:
    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>haggis-sim report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>haggis-sim report</h1>",
        f"<p>Built by haggis-sim {html.escape(__version__)} on "
        f"{html.escape(time.strftime('%Y-%m-%d %H:%M:%S'))} from {len(run_dirs)} run(s), "
        f"{games:,} logged games.</p>",
    ]
    out += [f"<p class='notice'>{html.escape(n)}</p>" for n in notices]
    out.append(_header(run_dirs, manifests))
    if not tables:
        out.append("<p class='notice'>No games are logged in these runs: no sections.</p>")
    for key, title, names, text in SECTION_TEXT:
        if not tables:
            break
        out.append(f"<h2 id='{key}'>{html.escape(title)}</h2><p>{html.escape(text)}</p>")
        if key in figures:
            out.append(f"<img src='{figures[key]}' alt='{html.escape(title)}'>")
        for name in names:
            if name in tables:
                out.append(f"<h4>{html.escape(name)} "
                           f"(<a href='tables/{name}.csv'>csv</a>)</h4>")  # fmt: skip
                out.append(table_html(tables[name]))
    out.append(IMAGE_CHECK + "</body></html>")
    return "\n".join(out)


# --- where the report may write ---------------------------------------------------------------


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def tree(folder: Path) -> tuple[list[str], list[str]]:
    """Every file and every folder under ``folder`` (relative POSIX paths, sorted).

    Symbolic links are not followed: a link counts as a file.
    """
    files: list[str] = []
    folders: list[str] = []

    def walk(d: Path, prefix: str) -> None:
        with os.scandir(d) as entries:
            for e in entries:
                rel = prefix + e.name
                if e.is_dir(follow_symlinks=False):
                    folders.append(rel)
                    walk(Path(e.path), rel + "/")
                else:
                    files.append(rel)

    walk(folder, "")
    return sorted(files), sorted(folders)


def check_parents(out: Path, option: str, refuse: type[ValueError]) -> None:
    """Refuse (``refuse``) an ``out`` under a file, or inside a run or report folder.

    A run folder keeps only the run's own files and a report folder only what the report
    wrote (so ``--force`` can replace it), so no tool output goes inside either.
    """
    for p in out.parents:
        if p.exists() or p.is_symlink():
            if not p.is_dir():
                raise refuse(f"{option} {out}: {p} is a file, not a folder")
            break
    for p in out.parents:
        if _is_file(p / MANIFEST):
            raise refuse(
                f"{option} {out} is inside the run folder {p}; a run folder keeps only the "
                "run's own files: choose a path outside it"
            )
        if _is_file(p / MARKER):
            raise refuse(
                f"{option} {out} is inside the report folder {p}; a report folder keeps only "
                "the report's own files: choose a path outside it"
            )


def _some(folder: Path) -> str:
    names = sorted(os.listdir(folder))
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return shown


def read_marker(folder: Path) -> dict[str, Any]:
    """The report marker of ``folder``; ReportError when it cannot be read."""
    try:
        data = json.loads((folder / MARKER).read_text())
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise ValueError("no list of files")
    except (OSError, ValueError) as exc:
        raise ReportError(
            f"{folder / MARKER} is damaged ({exc}); cannot tell what the report wrote, "
            "so nothing is replaced: choose another --out"
        ) from None
    return data


def foreign(folder: Path, marker: dict[str, Any]) -> list[str]:
    """Files and folders in a report folder that its report did not write (per its marker)."""
    files, folders = tree(folder)
    own_files = {str(f) for f in marker.get("files", [])} | {MARKER}
    own_folders = {str(f) for f in marker.get("folders", [])}
    extra = [f for f in files if f not in own_files]
    extra += [d for d in folders if d not in own_folders]
    return sorted(extra)


def check_out(out: Path, force: bool = False) -> OutState:
    """How the report may write ``out``: ``new``, ``empty`` (an empty folder) or ``replace``.

    Raises ReportError for every other ``out``: a file or symbolic link, a path under a
    file or inside a run or report folder, a run folder, a non-empty folder that is not a
    report, an earlier report without ``force``, and (with ``force``) a report folder
    holding anything its report did not write. Changes nothing.
    """
    out = Path(os.path.abspath(out))
    try:
        return _check_out(out, force)
    except OSError as exc:  # e.g. a folder on the way that may not be read
        raise ReportError(f"cannot look at {exc.filename or out}: {exc.strerror or exc}") from None


def _check_out(out: Path, force: bool) -> OutState:
    if out.is_symlink():
        raise ReportError(f"--out {out} is a symbolic link; give the report a real folder")
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {out} is a file, not a folder")
    check_parents(out, "--out", ReportError)
    if not out.exists():
        return "new"
    if _is_file(out / MANIFEST):
        raise ReportError(
            f"--out {out} is a haggis-sim run folder; the report needs a folder of its own"
        )
    if not any(out.iterdir()):
        return "empty"
    if not (out / MARKER).exists():
        raise ReportError(
            f"--out {out} already exists and is not a report folder (it holds {_some(out)}); "
            "choose a new or empty folder"
        )
    if not force:
        raise ReportError(f"--out {out} holds an earlier report; add --force to replace it")
    extra = foreign(out, read_marker(out))
    if extra:
        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        raise ReportError(
            f"--out {out} holds {out / extra[0]}{more}, which the report did not write; "
            "--force replaces only a report's own files: move it away or choose another --out"
        )
    return "replace"


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return the folders created, outermost first."""
    missing = []
    for p in [folder, *folder.parents]:
        if p.exists():
            break
        missing.append(p)
    created: list[Path] = []
    for p in reversed(missing):
        p.mkdir()
        created.append(p)
    return created


def _sibling(out: Path, kind: str) -> Path:
    return out.parent / f".{out.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"


def _write_marker(folder: Path, run_dirs: list[Path], fmt: Format) -> None:
    files, folders = tree(folder)
    marker = {
        "tool": "haggis-sim",
        "kind": "report",
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "format": fmt,
        "runs": [str(Path(os.path.abspath(d))) for d in run_dirs],
        "files": files,
        "folders": folders,
    }
    (folder / MARKER).write_text(json.dumps(marker, indent=2) + "\n")


def _remove_own(folder: Path) -> bool:
    """Delete a replaced report: only the files and folders its marker lists, then the folder.

    Anything else found there is left in place (with the folder); returns False then.
    """
    try:
        marker = read_marker(folder)
        for name in marker["files"]:
            (folder / name).unlink(missing_ok=True)
        for name in sorted(marker.get("folders", []), key=lambda n: -n.count("/")):
            if (folder / name).is_dir():
                (folder / name).rmdir()
        (folder / MARKER).unlink()
        folder.rmdir()
    except (OSError, ReportError):
        return False
    return True


def _swap(tmp: Path, out: Path, state: OutState) -> None:
    """Move the finished report ``tmp`` to ``out`` (replacing an earlier report in ``replace``)."""
    if state != "replace":
        os.rename(tmp, out)  # fails, changing nothing, if out is no longer missing or empty
        return
    old = _sibling(out, "old")
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except BaseException:
        os.rename(old, out)
        raise
    if not _remove_own(old):  # someone added a file in the last instant: keep it, visibly
        os.rename(old, out.parent / f"{out.name}.old-{os.getpid()}")


def _write_files(
    tmp: Path, run_dirs: list[Path], manifests: list[dict[str, Any]], fmt: Format
) -> None:
    notices = run_notices(run_dirs, manifests)
    tables, _ = build_tables(run_dirs, manifests)
    figures = _figures(tables, tmp) if tables else {}
    if fmt == "html":
        (tmp / "tables").mkdir()
        for name, frame in tables.items():
            frame.write_csv(tmp / "tables" / f"{name}.csv")
        games = _count_games(tables)
        (tmp / "index.html").write_text(
            _page(run_dirs, manifests, notices, tables, figures, games), encoding="utf-8"
        )
    _write_marker(tmp, run_dirs, fmt)


def build_report(
    run_dirs: list[Path], out: Path, fmt: Format = "html", force: bool = False
) -> Path:
    """Write the report folder for ``run_dirs`` at ``out`` and return ``out``.

    ``fmt="html"``: index.html, its PNG figures and every table as ``tables/NAME.csv``;
    ``fmt="png"``: the figures only; either way plus the marker :data:`MARKER`. A run that
    is unfinished or has no games gives a notice in the page (and :func:`run_notices` for
    the terminal) rather than an error.

    ``out`` must be new, an empty folder, or (with ``force``) an earlier report holding
    only its own files (see :func:`check_out`). The report is built in a temporary folder
    next to ``out`` and renamed into place; on any failure or interruption the temporary
    folder and any parent folder this call created are removed and ``out`` is unchanged.

    Raises ReportError for a missing run folder, a folder that is not a run, an ``out``
    that may not be written, and a write the operating system refuses (saying what and
    where); KeyboardInterrupt for Ctrl-C, also when DuckDB reports it as an error.
    """
    if fmt not in ("html", "png"):
        raise ReportError(f"--format must be html or png, got {fmt!r}")
    manifests = read_manifests(run_dirs)
    out = Path(os.path.abspath(out))
    check_out(out, force)
    created: list[Path] = []
    tmp: Path | None = None
    doing = f"create the folder {out.parent}"
    try:
        created = _make_parents(out.parent)
        doing = f"create a folder in {out.parent}"
        tmp = _sibling(out, "tmp")
        tmp.mkdir()
        doing = f"write the report files into {tmp}"
        _write_files(tmp, run_dirs, manifests, fmt)
        state = check_out(out, force)  # again: out may have changed during the build
        doing = f"move the report into place at {out}"
        _swap(tmp, out, state)
    except BaseException as exc:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        for p in reversed(created):
            with contextlib.suppress(OSError):
                p.rmdir()
        if isinstance(exc, OSError):
            where = f" ({exc.filename})" if exc.filename and doing.startswith("write") else ""
            raise ReportError(f"cannot {doing}: {exc.strerror or exc}{where}") from None
        raise
    return out


def _count_games(tables: dict[str, pl.DataFrame]) -> int:
    if "shape" not in tables:
        return 0
    return int(tables["shape"]["games"].sum())
