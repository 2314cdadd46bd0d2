"""MkDocs hooks: the pages that are generated from the code, and the repository files the
docs link to.

- ``<!-- generated: commands -->`` in a page becomes the command reference, rendered from
  the ``haggis-sim`` click/typer application itself (each command's help text, usage and
  options), so the reference cannot drift from ``--help``.
- ``<!-- generated: log tables -->`` becomes one table per logged table (``games``,
  ``rounds``, ``moves``) with every column, its Parquet type (from the very functions
  that build the frames) and its meaning (``haggis_sim.logs.schema.SCHEMA_DOC``).
- ``<!-- generated: model index -->`` becomes the table of the shipped models, one row
  per entry of ``strategies/models/index.toml``.
- ``<!-- generated: observation layout -->`` becomes the RL environments' observation
  vector, field by field (offset, size, meaning), from ``haggis_sim.env.encode.FIELDS``.
- ``<!-- generated: action layout -->`` becomes the legal-slot actions' description: the
  abstract id's columns (``haggis_sim.env.legal.ID_FIELDS``), the kinds, and the blocks
  of a feature row (``feature_fields()``), with the decision features by name.
- Pages link to the shipped reports, experiment files and benchmark results as the files
  sit in the repository (``../reports/...`` from ``docs/``, right on GitHub too); the
  site copies those folders in as plain files and the links are rewritten to them, so
  ``mkdocs build --strict`` checks every one.

The rendering functions are plain functions of the code, tested in ``tests/test_docs.py``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPO_FOLDERS = ("reports", "experiments", "benchmarks/results")
"""Repository folders copied into the site as they are, for the pages' links into them."""

COMMANDS_MARK = "<!-- generated: commands -->"
LOG_TABLES_MARK = "<!-- generated: log tables -->"
OBSERVATION_MARK = "<!-- generated: observation layout -->"
ACTION_MARK = "<!-- generated: action layout -->"
MODEL_INDEX_MARK = "<!-- generated: model index -->"


def _plain(text: str) -> str:
    """Help text as literal Markdown: ``<time>`` is not an HTML tag, ``2**64`` not bold."""
    return text.replace("<", "&lt;").replace(">", "&gt;").replace("*", "\\*")


def _cell(text: str) -> str:
    """Help text fit for one Markdown table cell."""
    return _plain(" ".join(text.split())).replace("|", "\\|")


def _help_paragraphs(text: str) -> str:
    """A command's docstring as Markdown paragraphs (click's ``\\b`` markers dropped)."""
    paragraphs = [p.replace("\b", "").strip() for p in text.split("\n\n")]
    return "\n\n".join(_plain(" ".join(p.split())) for p in paragraphs if p)


def commands_markdown() -> str:
    """Every ``haggis-sim`` command, in ``--help`` order: help, usage and an options table."""
    import typer

    from haggis_sim.cli import app

    root = typer.main.get_command(app)  # a click group (typer's own copy of click)
    root_ctx = root.context_class(root, info_name="haggis-sim")
    parts = [f"{_help_paragraphs(root.help or '')}\n"]
    for name in root.list_commands(root_ctx):
        cmd = root.get_command(root_ctx, name)
        assert cmd is not None
        ctx = cmd.context_class(cmd, info_name=name, parent=root_ctx)
        usage = " ".join(["haggis-sim", name, *cmd.collect_usage_pieces(ctx)])
        rows = ["| argument or option | what it is |", "|---|---|"]
        for param in cmd.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None and record[0] != "--help":
                flags = " ".join(record[0].split()).replace("|", "\\|")  # literal in a code span
                rows.append(f"| `{flags}` | {_cell(record[1])} |")
        parts.append(
            f"## `haggis-sim {name}`\n\n{_help_paragraphs(cmd.help or '')}\n\n"
            f"```\n{usage}\n```\n\n" + "\n".join(rows) + "\n"
        )
    return "\n".join(parts)


def log_frames() -> dict[str, Any]:
    """An empty frame of each logged table, built by the functions that write the logs."""
    import numpy as np

    from haggis_sim.engine import record as R
    from haggis_sim.logs import schema as S

    def empty(columns: int) -> Any:
        return np.zeros((0, columns), dtype=np.int64)

    none = np.zeros(0, dtype=np.int64)
    return {
        "games": S.games_frame(empty(len(R.GAME_COLUMNS)), empty(3), none, none, ["x"], 3),
        "rounds": S.rounds_frame(empty(len(R.ROUND_COLUMNS))),
        "moves": S.moves_frame(empty(len(R.MOVE_COLUMNS))),
    }


def _documented_columns(key: str) -> list[str]:
    """The columns one ``SCHEMA_DOC`` key names: ``a, b`` lists them, ``x_k`` is per seat."""
    names: list[str] = []
    for name in (n.strip() for n in key.split(",")):
        names += [f"{name[:-2]}_{k}" for k in range(3)] if name.endswith("_k") else [name]
    return names


def _type_name(dtype: Any) -> str:
    text = str(dtype)
    return "Enum" if text.startswith("Enum") else text


def log_tables_markdown() -> str:
    """One table per logged table: every column with its type and meaning."""
    from haggis_sim.logs.schema import SCHEMA_DOC

    parts = []
    for table, frame in log_frames().items():
        rows = [f"### `{table}`\n", "| column | type | meaning |", "|---|---|---|"]
        for key, meaning in SCHEMA_DOC[table].items():
            columns = [c for c in _documented_columns(key) if c in frame.schema]
            types = sorted({_type_name(frame.schema[c]) for c in columns})
            rows.append(
                f"| {', '.join(f'`{k.strip()}`' for k in key.split(','))} | "
                f"{', '.join(types)} | {_cell(meaning)} |"
            )
        parts.append("\n".join(rows) + "\n")
    return "\n".join(parts)


def model_index_markdown() -> str:
    """The shipped models, one row per file of the model index
    (``strategies/models/index.toml``)."""
    from strategies.model_index import MODEL_INDEX

    rows = [
        "| model | kind | file, SHA-256 prefix | taught by | games, seed | made | strength |",
        "|---|---|---|---|---|---|---|",
    ]
    for e in MODEL_INDEX:
        names = " / ".join(f"`{n}`" for n in e.names)
        s = e.strength
        strength = (
            f"{s.rate} of {s.games} games against {_cell(s.against)} "
            f"([`{Path(s.benchmark).name}`]({s.benchmark}), row `{s.row}`)"
            if s
            else "no benchmark table kept"
        )
        rows.append(
            f"| {names} | {e.kind} | `{e.file}`, `{e.sha}` | `{e.teacher}` | "
            f"{e.games:,}, seed {e.seed} | {e.date} | {strength} |"
        )
    return "\n".join(rows) + "\n"


def undocumented_columns() -> dict[str, set[str]]:
    """Per table, the logged columns ``SCHEMA_DOC`` does not describe (empty: none)."""
    from haggis_sim.logs.schema import SCHEMA_DOC

    return {
        table: set(frame.columns)
        - {c for key in SCHEMA_DOC[table] for c in _documented_columns(key)}
        for table, frame in log_frames().items()
    }


def observation_markdown() -> str:
    """The environments' observation vector: every field with its offset, size and meaning,
    then the fields of each seat block."""
    from haggis_sim.env import encode as E

    rows = ["| offset | size | field | meaning |", "|---:|---:|---|---|"]
    for name, size, _, meaning in E.FIELDS:
        rows.append(f"| {E.offsets()[name]} | {size} | `{name}` | {_cell(meaning)} |")
    seat = ["| offset in the block | size | field | meaning |", "|---:|---:|---|---|"]
    at = 0
    for name, size, _, meaning in E.SEAT_FIELDS:
        seat.append(f"| {at} | {size} | `{name}` | {_cell(meaning)} |")
        at += size
    return (
        f"{E.SIZE} float32 entries:\n\n"
        + "\n".join(rows)
        + f"\n\nEach seat block (`seat_0`, `seat_1`, `seat_2`; {E.SEAT_SIZE} entries):\n\n"
        + "\n".join(seat)
        + "\n"
    )


def action_markdown() -> str:
    """The legal-slot actions' description: the abstract id's columns, the kinds, and the
    blocks of a feature row with their offsets (the decision features named)."""
    from haggis_sim.env import legal as LG
    from strategies.learned_features import FEATURES

    ids = ["| column | field | meaning |", "|---:|---|---|"]
    for k, (name, meaning) in enumerate(LG.ID_FIELDS):
        ids.append(f"| {k} | `{name}` | {_cell(meaning)} |")
    kinds = ", ".join(f"{k} {name}" for k, name in enumerate(LG.KINDS))
    rows = ["| offset | size | block | meaning |", "|---:|---:|---|---|"]
    at = 0
    for name, size, meaning in LG.feature_fields():
        rows.append(f"| {at} | {size} | `{name}` | {_cell(meaning)} |")
        at += size
    decision = ", ".join(f"`{f}`" for f in FEATURES)
    return (
        "Abstract action ids (`legal_action_ids()`, one row per legal action):\n\n"
        + "\n".join(ids)
        + f"\n\nKinds: {kinds}.\n\nFeature rows (`legal_action_features()`, "
        f"{LG.n_features()} float32 entries per legal action):\n\n"
        + "\n".join(rows)
        + f"\n\nThe decision block, in order: {decision}.\n"
    )


def tracked_files(folder: str) -> list[Path]:
    """The files of a repository folder that git tracks: the shipped reports, not the run
    folders an experiment leaves beside them (gitignored, hundreds of MB). Outside a git
    checkout (an unpacked source archive) every file of the folder."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--", folder],
            cwd=ROOT,
            capture_output=True,
            check=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return sorted((ROOT / folder).rglob("*"))
    return sorted(ROOT / name for name in out.split("\0") if name)


def rewrite_repo_links(markdown: str) -> str:
    """``](../reports/x)`` (right from ``docs/`` on GitHub) to ``](reports/x)`` (the copy
    in the site)."""
    folders = "|".join(re.escape(f) for f in REPO_FOLDERS)
    return re.sub(rf"\]\(\.\./((?:{folders})/)", r"](\1", markdown)


# --- MkDocs event hooks -------------------------------------------------------------------


def on_files(files: Any, config: Any) -> Any:
    """Copy the repository folders the pages link to into the site, as plain files."""
    from mkdocs.structure.files import File

    class _PlainFile(File):
        def is_documentation_page(self) -> bool:  # a summary.md stays a file, not a page
            return False

    for folder in REPO_FOLDERS:
        for path in tracked_files(folder):
            if path.is_file():
                rel = path.relative_to(ROOT).as_posix()
                files.append(
                    _PlainFile(rel, str(ROOT), config["site_dir"], config["use_directory_urls"])
                )
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Fill in the generated parts and point repository links at the site's copies."""
    if COMMANDS_MARK in markdown:
        markdown = markdown.replace(COMMANDS_MARK, commands_markdown())
    if LOG_TABLES_MARK in markdown:
        markdown = markdown.replace(LOG_TABLES_MARK, log_tables_markdown())
    if OBSERVATION_MARK in markdown:
        markdown = markdown.replace(OBSERVATION_MARK, observation_markdown())
    if ACTION_MARK in markdown:
        markdown = markdown.replace(ACTION_MARK, action_markdown())
    if MODEL_INDEX_MARK in markdown:
        markdown = markdown.replace(MODEL_INDEX_MARK, model_index_markdown())
    return rewrite_repo_links(markdown)
