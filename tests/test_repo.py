"""The README (a landing page) and the docs: commands that run, links that resolve, and
.ci/run in step with the README's test command."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```\n(python3 -m venv .*?)\n```", text)


def test_ci_runs_exactly_the_readme_test_command() -> None:
    commands = readme_commands()
    assert len(commands) == 2, commands
    test_command = commands[1]
    assert "pytest" in test_command
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines


def test_readme_main_command_runs_a_tournament(tmp_path: Path) -> None:
    """The README's first command, as written, through the ``haggis-sim`` entry point:
    its arguments are accepted (the games count ``1e5`` parses to 100,000) and the
    tournament it starts plays and logs every game -- run with 20 games to stay fast."""
    import tomllib

    from typer.testing import CliRunner

    from haggis_sim import cli
    from haggis_sim.cli.common import parse_games

    script = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert script["haggis-sim"] == "haggis_sim.cli:main"  # main runs cli.app
    head, sep, tail = readme_commands()[0].rpartition(".venv/bin/haggis-sim ")
    assert sep and "pip install -e ." in head, readme_commands()[0]
    args = shlex.split(tail)
    assert args[:2] == ["run", "--strategies"] and "--out" not in args
    games = args.index("--games") + 1
    assert parse_games(args[games]) == 100_000
    args[games] = "20"
    out = tmp_path / "run"
    res = CliRunner().invoke(cli.app, [*args, "--out", str(out), "--jobs", "1", "-q"])
    assert res.exit_code == 0, (res.stdout, res.stderr)
    manifest = json.loads((out / "manifest.json").read_text())
    assert [s["name"] for s in manifest["strategies"]] == args[2].split(",")
    assert manifest["status"] == "complete" and manifest["games"] == 20
    games_logged = pl.read_parquet(out / "games" / "*.parquet")
    assert sorted(games_logged["game_id"].to_list()) == list(range(20))
    assert "20 games in" in res.stdout  # the summary table a user sees


def _python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.S)


def test_docs_python_examples_run(capsys) -> None:  # type: ignore[no-untyped-def]
    """The engine API example (docs/engine.md) and the decision analysis example
    (docs/strategies.md) run as printed, and print what their comments say."""
    blocks = _python_blocks("engine.md") + _python_blocks("strategies.md")
    assert len(blocks) >= 3
    for block in blocks:
        if "class LowBall" not in block:
            exec(compile(block, "docs", "exec"), {})
    printed = capsys.readouterr().out
    for line in re.findall(r"^print\(.*?\)  # (.*)$", "\n".join(blocks), flags=re.M):
        assert line in printed
    assert "['set of 4 10s', 'stair of 2 pairs to 10', 'stair of 2 pairs to J']" in printed


def test_docs_strategy_example_plays_through_the_runner() -> None:
    import numpy as np

    import haggis_sim as hs
    from haggis_sim.runner.chunk import play_chunk

    block = next(b for b in _python_blocks("strategies.md") if "LowBall" in b)
    code_lines = [ln for ln in block.splitlines() if ln.strip() and not ln.startswith("import")]
    assert len(code_lines) <= 25, "the docs promise a short example"
    namespace: dict[str, object] = {}
    exec(compile(block, "docs/strategies.md", "exec"), namespace)
    lowball = namespace["LowBall"](high=4)  # type: ignore[operator]
    from strategies import make

    logs = play_chunk(
        hs.Rules.preset("revised", players=2).to_array(),
        [lowball, make("greedy")],
        np.arange(4, dtype=np.int64),
        run_seed=3,
        seats="rotate",
    )
    assert len(logs.games) == 4 and (logs.games[:, 1] >= 0).all()
    assert len(logs.moves) > 100


def test_checked_in_reports_are_complete() -> None:
    """Every shipped experiment has a report whose page references only existing files."""
    names = sorted(p.stem for p in (ROOT / "experiments").glob("*.toml"))
    assert names == [
        "betting-thresholds", "bomb-timing", "players-2-vs-3", "scoring-rules", "scoring-skill"
    ]  # fmt: skip
    results = (DOCS / "results.md").read_text()
    for name in names:
        folder = ROOT / "reports" / name
        html = (folder / "index.html").read_text()
        refs = re.findall(r"(?:src|href)=[\"']([^\"'#:]+)[\"']", html)
        assert any(r.endswith(".png") for r in refs)
        for ref in refs:
            assert (folder / ref).is_file(), (name, ref)
        assert (folder / "summary.md").is_file()
        assert f"](../reports/{name}/" in results  # the results page links its report


def test_shipped_design_studies_are_complete() -> None:
    """Every shipped design study has its page, built from the design file as it stands,
    with every file its pages link, confirmed on deals other than the search's, and a
    line in the results page."""
    import html

    names = sorted(p.stem for p in (ROOT / "experiments" / "designs").glob("*.toml"))
    assert names == ["comebacks-3p", "fair-lead-2p"]
    results = (DOCS / "results.md").read_text()
    for name in names:
        folder = ROOT / "reports" / "designs" / name
        text = (ROOT / "experiments" / "designs" / f"{name}.toml").read_text()
        assert (folder / "design.toml").read_text() == text, name
        for page in (folder / "index.html", folder / "confirm" / "index.html"):
            refs = re.findall(r"(?:src|href)=[\"']([^\"'#:]+)[\"']", page.read_text())
            for ref in refs:
                assert (page.parent / ref).is_file(), (name, page, ref)
        result = json.loads((folder / "design.json").read_text())
        assert html.escape(result["headline"], quote=True) in (folder / "index.html").read_text()
        assert result["confirm"]["seed"] != tomllib.loads(text)["seed"]
        assert result["confirm"]["candidates"], name
        assert f"](../reports/designs/{name}/" in results, name


def _shipped_summaries() -> list[tuple[str, dict[str, object]]]:
    return [
        (p.parent.name, json.loads(p.read_text()))
        for p in sorted((ROOT / "reports").glob("*/summary.json"))
    ]


def test_shipped_summaries_come_from_their_experiment_files() -> None:
    """Each shipped summary was made from the experiment file as it stands: the copy in
    the report folder is the file, and every declared population and study is in it (a
    report built from an older file, e.g. before the strength ladders, fails here)."""
    for name, summary in _shipped_summaries():
        text = (ROOT / "experiments" / f"{name}.toml").read_text()
        assert (ROOT / "reports" / name / "experiment.toml").read_text() == text, name
        exp = tomllib.loads(text)
        pops = [p["name"] for p in summary.get("populations", [])]  # type: ignore[attr-defined]
        assert pops == [p["name"] for p in exp.get("populations", [])], name
        assert ("ladder" in summary) == bool(exp.get("ladder")), name
        assert len(summary.get("studies", [])) == len(exp.get("studies", [])), name  # type: ignore[arg-type]


@pytest.mark.slow  # reads every shipped report's runs
def test_shipped_skill_pairings_seat_the_stronger_player_once() -> None:
    """Where a shipped balance table reports skill expression (a stronger entry 0 against
    weaker ones), entry 0 fills one seat: the strategies list repeats around the table,
    so two entries at 3 players would seat the stronger player twice (as scoring-skill did
    before 2026-11-29) and its win rate would be a pair's, against a fair 2/3."""
    from haggis_sim.experiment import load_experiment
    from haggis_sim.experiment.balance import pairs_stronger
    from haggis_sim.runner.seating import base_entries

    checked = 0
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        exp = load_experiment(path)
        if not exp.balance:
            continue
        for pop in exp.populations or ():
            for arm in (pop.apply(a) for a in exp.arms):
                if pairs_stronger(arm):
                    seats = base_entries(len(arm.strategies), arm.players)
                    assert seats.count(0) == 1, (path.name, pop.name, arm.name, seats)
                    checked += 1
    assert checked >= 12  # scoring-skill: 3 pairings x 4 rule variants


def test_shipped_advice_was_followed_in_play_and_none_loses() -> None:
    """Every guidance line with advice in reports/ carries its followed-in-play result in
    at least two bases, including learned; a line shown as advice loses in no base."""
    studies = [(n, st) for n, s in _shipped_summaries() for st in s.get("studies", [])]  # type: ignore[attr-defined]
    assert studies, "the shipped experiments declare studies"
    for name, study in studies:
        assert study["followed_games"] >= 2000, name
        records = [r for r in study["advice"] if r.get("advice")]
        for rec in records:
            follow = rec["followed"]
            bases = [b["base"] for b in follow["bases"]]
            assert len(bases) >= 2 and any(b.startswith("learned") for b in bases), (name, bases)
            signs = [b["sign"] for b in follow["bases"]]
            assert follow["status"] != "advice" or (min(signs) >= 0 and max(signs) > 0), rec


def test_readme_is_a_landing_page_of_at_most_200_lines() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200, len(lines)
    text = "\n".join(lines)
    for page in ("docs/getting-started.md", "docs/tutorial.md", "docs/results.md", "docs/cli.md"):
        assert f"]({page})" in text, page


def _relative_links(text: str) -> list[str]:
    """Targets of Markdown links and images that are paths, not URLs or anchors."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # code blocks hold no links
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:|#", t)]


def test_readme_and_docs_links_resolve() -> None:
    """Every relative link and image of the README, and of every page in docs/, names a
    file that exists (as GitHub resolves it: relative to the page). mkdocs build --strict
    checks the site; this checks the pages as files, the README included."""
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    checked = 0
    for page in pages:
        for target in _relative_links(page.read_text()):
            assert (page.parent / target).exists(), (page.name, target)
            checked += 1
    assert checked > 50


#: a date: history lives in CHANGELOG.md, docs/models.md and the benchmark results the
#: docs include (each dated by its script), not in the pages that describe today
DATED = re.compile(r"\b20\d\d-[01]\d\b")


def test_guides_describe_today_without_dated_history() -> None:
    pages = [ROOT / "README.md", ROOT / "experiments" / "README.md", ROOT / "reports" / "README.md"]
    pages += DOCS.glob("*.md")
    dated = [
        f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
        for page in pages
        if page.name != "models.md"
        for number, line in enumerate(page.read_text().splitlines(), 1)
        if DATED.search(line)
    ]
    assert not dated, "\n".join(dated)


def test_strategy_guide_starts_with_choosing_and_writing_a_strategy() -> None:
    lines = (DOCS / "strategies.md").read_text().splitlines()
    headings = [number for number, line in enumerate(lines, 1) if line.startswith("## ")]
    assert lines[headings[0] - 1] == "## Choosing a strategy"
    writing = lines.index("## Writing a strategy") + 1
    assert writing <= 200, writing
    assert "(models.md)" in "\n".join(lines[: headings[1]])


def test_every_shipped_report_has_its_first_screen_in_the_docs() -> None:
    """docs/take_screenshots.py wrote a 1400 x 900 PNG per experiment file, and the docs
    show each one."""
    import struct

    shown = (DOCS / "experiments.md").read_text()
    for toml in sorted((ROOT / "experiments").glob("*.toml")):
        png = DOCS / "screenshots" / f"{toml.stem}.png"
        head = png.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n", png
        assert struct.unpack(">II", head[16:24]) == (1400, 900), png
        assert f"(screenshots/{toml.stem}.png)" in shown, toml.stem


def _imported_distributions() -> dict[str, str]:
    """The distribution of every third-party module a test file imports, by module name."""
    import ast
    import importlib.metadata
    import sys

    own = {"haggis_sim", "strategies", *(p.stem for p in (ROOT / "tests").rglob("*.py"))}
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    third = sorted(names - own - set(sys.stdlib_module_names))
    found = importlib.metadata.packages_distributions()
    return {name: found.get(name, [name])[0].lower() for name in third}


def declared_distributions() -> set[str]:
    """The distributions the package and its ``test`` extra declare (an extra such as
    ``dask[distributed]`` declares ``distributed`` too)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared: set[str] = set()
    for requirement in [*project["dependencies"], *project["optional-dependencies"]["test"]]:
        match = re.match(r"([A-Za-z0-9_.-]+)(?:\[([^\]]*)\])?", requirement)
        assert match, requirement
        declared.add(match.group(1).lower())
        declared.update(e.strip().lower() for e in (match.group(2) or "").split(",") if e)
    return declared


def test_every_module_the_tests_import_is_declared() -> None:
    """A test dependency that only arrives through another package's extras is one
    upgrade away from an ImportError in CI."""
    imported = _imported_distributions()
    assert {m: d for m, d in imported.items() if d not in declared_distributions()} == {}
