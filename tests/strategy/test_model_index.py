"""The model index (strategies/models/index.toml) is the shipped models' lineage as data:
every entry matches its file (SHA-256, teacher, command, games, seed, day), every file
has an entry, every strength is the figure in the benchmark row it names, and the loader
and the help read their names and teachers from it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import strategies
from haggis_sim import UNVERSIONED, StrategySpec
from strategies import StrategyError
from strategies.builtin import MCTS_MODEL_PARAM, MODEL_PARAM
from strategies.learned_model import MODELS_DIR, load_model, load_value_model
from strategies.model_index import MODEL_INDEX, ModelEntry, load_index

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("entry", MODEL_INDEX, ids=lambda e: e.name)
def test_each_entry_is_what_its_file_records(entry: ModelEntry) -> None:
    load = load_value_model if entry.kind == "value" else load_model
    model = load(MODELS_DIR / entry.file)
    p = model.provenance
    assert model.sha256[:16] == entry.sha
    assert (p["games"], p["seed"], p["command"]) == (entry.games, entry.seed, entry.recipe)
    assert p["date"][:10] == entry.date
    # the same search: its parameters and its models (a recorded name may have moved:
    # gen2's teacher recorded gen1 as ``default``, pinned by its SHA-256)
    recorded = strategies.make(StrategySpec.parse(p["teacher"], UNVERSIONED))
    teacher = strategies.make(entry.teacher)
    assert np.array_equal(teacher.param_array(), recorded.param_array())
    assert {k: v for k, v in teacher.values.items() if k not in ("model", "vmodel")} == {
        k: v for k, v in recorded.values.items() if k not in ("model", "vmodel")
    }


def test_every_shipped_file_has_an_entry() -> None:
    assert {p.name for p in MODELS_DIR.glob("*.npz")} == {e.file for e in MODEL_INDEX}


@pytest.mark.parametrize("entry", [e for e in MODEL_INDEX if e.strength], ids=lambda e: e.name)
def test_each_strength_is_the_figure_of_its_benchmark_row(entry: ModelEntry) -> None:
    s = entry.strength
    assert s is not None
    lines = (ROOT / s.benchmark).read_text().splitlines()
    rows = [line for line in lines if line.startswith(f"| {s.row} |")]
    assert len(rows) == 1, (s.benchmark, s.row)
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert s.games in cells and s.rate in cells, rows[0]


def test_the_loader_and_the_help_read_the_index() -> None:
    for entry in MODEL_INDEX:
        if entry.kind != "policy":
            continue
        for name in entry.names:
            assert strategies.make(f"learned:model={name}").values["sha"] == entry.sha
    value = next(e for e in MODEL_INDEX if e.kind == "value")
    assert strategies.make(f"mcts:vmodel={value.name}").values["vsha"] == value.sha
    for entry in (e for e in MODEL_INDEX if e.name.startswith("mix")):
        taught = f"{entry.name}: taught by {entry.teacher}"
        assert taught in MODEL_PARAM.help and taught in MCTS_MODEL_PARAM.help


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('name = "gen2"', 'name = "gen1"'), "names 'gen1' twice"),
        (lambda t: t.replace('kind = "value"', 'kind = "prior"'), "kind must be one of"),
        (lambda t: t.replace("games = 600", "games = 600\ncolour = 1", 1), "unknown field"),
        (lambda t: t.replace("seed = 2", 'seed = "2"', 1), "needs 'seed' as a int"),
        (lambda t: t.replace("[[model]]", "[[model]", 1), "cannot be read"),
        (lambda t: re.sub(r"games = \"[0-9,]+\", ", "", t, count=1), "strength needs exactly"),
    ],
)
def test_a_damaged_index_is_one_line(edit: object, message: str, tmp_path: Path) -> None:
    from strategies.model_index import INDEX_PATH

    copy = tmp_path / "index.toml"
    copy.write_text(edit(INDEX_PATH.read_text()))  # type: ignore[operator]
    with pytest.raises(StrategyError, match=re.escape(message)) as caught:
        load_index(copy)
    assert "\n" not in str(caught.value)
