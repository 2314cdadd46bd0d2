"""The docs site: its generated pages follow the code, and its worked examples run.

``mkdocs build --strict`` (in ``.ci/run``) checks links, pages and included files; these
tests check what a build cannot: that the command reference and the log schema say what
the code does, and that the tutorial's experiment still runs as the tutorial tells it.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from cli_helpers import invoke
from docs_helpers import DOCS, ROOT, code_blocks, hooks, with_games

TUTORIAL_TOML = DOCS / "examples" / "haggis-to.toml"


def test_command_reference_has_every_command_and_option() -> None:
    """Every command registered in the app, and each of its options and arguments, is in
    the generated reference, with its help text."""
    import typer

    from haggis_sim.cli import app

    module = hooks()
    page = module.commands_markdown()
    root = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="haggis-sim")
    names = root.list_commands(ctx)
    assert {"run", "experiment", "play", "show", "study", "train"} <= set(names)
    for name in names:
        cmd = root.get_command(ctx, name)
        assert cmd is not None
        head = f"## `haggis-sim {name}`"
        assert head in page, name
        section = page.split(head, 1)[1].split("\n## ", 1)[0]
        assert f"haggis-sim {name} [OPTIONS]" in section
        for param in cmd.params:
            if param.name == "help":
                continue
            flag = (param.opts[0] if param.param_type_name == "option" else param.name) or ""
            assert flag in section, (name, flag)
            if getattr(param, "help", None):
                assert module._cell(str(param.help))[:40] in section, (name, flag)


def test_log_schema_page_documents_every_logged_column() -> None:
    """The schema tables are built from the frames the runner writes; every column of
    every table has a line (a new column without a description fails here)."""
    module = hooks()
    assert module.undocumented_columns() == {"games": set(), "rounds": set(), "moves": set()}
    tables = module.log_tables_markdown()
    for table in ("games", "rounds", "moves"):
        assert f"### `{table}`" in tables
    assert "| `type` | Enum |" in tables and "| `game_id` | UInt32 |" in tables


def test_repository_links_point_at_the_sites_copies() -> None:
    rewrite = hooks().rewrite_repo_links
    text = "[a](../reports/x/summary.md) [b](../experiments/y.toml) [c](../haggis_sim/z.py)"
    assert rewrite(text) == (
        "[a](reports/x/summary.md) [b](experiments/y.toml) [c](../haggis_sim/z.py)"
    )


def test_tutorial_shows_its_experiment_file_as_it_is() -> None:
    """The tutorial includes the TOML it runs (so the text shown is the file) and its
    command names that file; the file is a valid experiment with two rule variants."""
    from haggis_sim.experiment.spec import load_experiment

    page = (DOCS / "tutorial.md").read_text()
    assert '--8<-- "docs/examples/haggis-to.toml"' in page
    assert "haggis-sim experiment docs/examples/haggis-to.toml" in page
    exp = load_experiment(TUTORIAL_TOML)
    assert [a.name for a in exp.arms] == ["shepherd", "last-to-play"]
    assert exp.arms[0].rules.as_dict() != exp.arms[1].rules.as_dict()


def test_tutorial_ladder_step_places_each_line_where_it_loads(tmp_path: Path) -> None:
    """Step 6's TOML, placed as it says (``ladder = true`` above the first ``[[arms]]``, the
    populations at the end), loads as a ladder; appended at the end instead, TOML puts
    ``ladder`` into ``[arms.rule]`` and the file is refused."""
    from haggis_sim.experiment.spec import ExperimentError, load_experiment

    (block,) = [b for b in code_blocks(DOCS / "tutorial.md", "toml") if "[[populations]]" in b]
    assert "ladder = true" in block and "# at the end of the file:" in block
    populations = block.split("# at the end of the file:", 1)[1]
    base = TUTORIAL_TOML.read_text()
    placed = base.replace("[[arms]]", "ladder = true\n\n[[arms]]", 1) + populations
    exp = load_experiment(_write(tmp_path / "placed.toml", placed))
    assert exp.ladder and [p.name for p in exp.populations] == ["heuristic", "learned"]
    wrong = base + "ladder = true\n" + populations
    with pytest.raises(ExperimentError):
        load_experiment(_write(tmp_path / "wrong.toml", wrong))


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _tutorial_command() -> list[str]:
    line = next(
        ln
        for block in code_blocks(DOCS / "tutorial.md")
        for ln in block.splitlines()
        if ln.startswith("haggis-sim experiment ")
    )
    return shlex.split(line)[1:]


@pytest.mark.slow
def test_tutorial_experiment_runs_small(tmp_path: Path) -> None:
    """The tutorial's command on its file, with the game count reduced: the experiment
    plays both variants on the same deals and writes the page and the verdicts the
    tutorial reads."""
    args = _tutorial_command()
    assert args[:2] == ["experiment", "docs/examples/haggis-to.toml"]
    small = tmp_path / "haggis-to.toml"
    small.write_text(with_games(TUTORIAL_TOML.read_text(), 60))
    out = tmp_path / "out"
    res = invoke("experiment", str(small), *args[2:], "--out", str(out), "--jobs", "1")
    assert res.exit_code == 0, (res.stdout, res.stderr)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metric"] == "ahead_r1_win" and "balance" in summary
    assert [a["name"] for a in summary["arms"]] == ["shepherd", "last-to-play"]
    assert summary["arms"][1]["paired_with_first"]  # the same deals: paired differences
    assert summary["best"]["kind"] in ("best", "tied")  # the verdict the tutorial reads
    for name in ("index.html", "summary.md", "report/index.html", "fig-forest.png"):
        assert (out / name).is_file(), name
    assert "best arm by ahead_r1_win" in res.stdout


def test_the_observation_layout_page_lists_every_field_at_its_offset() -> None:
    """The RL page's observation table is generated from ``encode.FIELDS``: every field
    at the offset the compiled encoder writes it, and the page carries the mark."""
    from haggis_sim.env import encode as E

    table = hooks().observation_markdown()
    for name, size, _, _ in E.FIELDS:
        assert f"| {E.offsets()[name]} | {size} | `{name}` |" in table
    assert f"{E.SIZE} float32 entries" in table
    assert E.offsets()["seat_1"] - E.offsets()["seat_0"] == E.SEAT_SIZE
    assert "<!-- generated: observation layout -->" in (DOCS / "rl.md").read_text()


def test_the_action_layout_page_lists_every_id_column_and_feature_block() -> None:
    """The RL page's action tables are generated from ``haggis_sim.env.legal``: every id
    column, every kind, every feature block at its offset, every decision feature."""
    from haggis_sim.env import legal as LG
    from strategies.learned_features import FEATURES

    table = hooks().action_markdown()
    for k, (name, _) in enumerate(LG.ID_FIELDS):
        assert f"| {k} | `{name}` |" in table
    assert all(f"{k} {name}" in table for k, name in enumerate(LG.KINDS))
    at = 0
    for name, size, _ in LG.feature_fields():
        assert f"| {at} | {size} | `{name}` |" in table
        at += size
    assert at == LG.n_features() and f"{at} float32 entries per legal action" in table
    assert all(f"`{f}`" in table for f in FEATURES)
    assert "<!-- generated: action layout -->" in (DOCS / "rl.md").read_text()


def test_the_model_history_page_lists_every_indexed_model() -> None:
    """The Model history page's table of shipped models is generated from the model
    index: one row per entry with its file, SHA-256 prefix, teacher and strength."""
    from strategies.model_index import MODEL_INDEX

    table = hooks().model_index_markdown()
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) == len(MODEL_INDEX)
    for entry, row in zip(MODEL_INDEX, rows, strict=True):
        assert f"`{entry.file}`, `{entry.sha}`" in row and f"`{entry.teacher}`" in row
        if entry.strength:
            assert entry.strength.rate in row and entry.strength.row in row
        else:
            assert "no benchmark table kept" in row
    assert "<!-- generated: model index -->" in (DOCS / "models.md").read_text()


def test_quoted_compile_notes_are_what_a_first_run_says() -> None:
    """Every compile note the README and the docs quote (the note, or the live line's
    ``N s of about M s``) names the estimate a first run of those players gives before
    this installation has measured one (the development machine's figure)."""
    from haggis_sim.runner import warmup
    from strategies import make

    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    note = re.compile(
        r"compiling the engine and the strategy kernels for ([\w, ]+?)"
        r"(?: \(not yet cached for this version, about (\d+) s\)…|: \d+ s of about (\d+) s)"
    )
    quoted = 0
    for page in pages:
        text = " ".join(page.read_text().split())
        for match in note.finditer(text):
            names = match.group(1).split(", ")
            players = [make(name) for name in names]
            seconds = warmup.default_seconds(warmup.compile_unit(players))
            assert int(match.group(2) or match.group(3)) == round(seconds), (page.name, match[0])
            assert warmup.what_compiles(players).endswith(match.group(1)), match[0]
            quoted += 1
    assert quoted >= 3, quoted  # README's note, and cache.md's note and live line
