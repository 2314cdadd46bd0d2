"""The package's layers import one way, and no module imports itself round a cycle.

Every ``import`` statement is read from the source (also those inside functions: a lazy
import is still a dependency), resolved to the module it names, and checked:

- no cycle among modules, and none among ``haggis_sim``'s subpackages;
- each module imports only from its own layer or the layers below it (:data:`LAYERS`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("haggis_sim", "strategies")

#: lowest first: a module may import from its own layer and the layers before it
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("compiled engine", ("haggis_sim._cache", "haggis_sim._lazy", "haggis_sim.engine")),
    (
        "typed API",
        (
            "haggis_sim",  # the package itself: the public API
            "haggis_sim.cards",
            "haggis_sim.combos",
            "haggis_sim.errors",
            "haggis_sim.kernel",
            "haggis_sim.position",
            "haggis_sim.selfplay",
            "haggis_sim.rules",
            "haggis_sim.transcript",
            "haggis_sim.presets",
            "haggis_sim.stats",
        ),
    ),
    # writing a user-visible output and reading a user's file safely (stdlib only): below
    # strategies, whose model writer and loader use them
    ("input and output files", ("haggis_sim.outputs", "haggis_sim.inputs")),
    ("strategies", ("strategies",)),
    ("log format", ("haggis_sim.logs",)),
    ("simulation", ("haggis_sim.runner",)),
    # the RL environments drive the engine; the Gymnasium wrapper's opponents are asked as
    # the runner asks strategies (haggis_sim.runner.chunk.seat_action)
    ("rl environments", ("haggis_sim.env",)),
    # training plays its games in the runner's compiled loop: it sits above the runner
    ("training", ("haggis_sim.training",)),
    # the HTML pages' templates and their environment (jinja2 only): below every page writer
    ("page templates", ("haggis_sim.pages",)),
    ("analytics", ("haggis_sim.analytics",)),
    # an experiment plays its arms (runner), compares them (analytics) and writes its
    # report (reports): it sits above all three
    ("reports", ("haggis_sim.report",)),
    ("experiments", ("haggis_sim.experiment",)),
    ("command line", ("haggis_sim.cli",)),
]


def module_files() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


MODULES = module_files()


def is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def resolve(importer: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The project modules an import statement depends on."""
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = importer.split(".")
            if not is_package(importer):
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        # ``from pkg import sub`` depends on the submodule; ``from pkg import name`` on pkg
        subs = [f"{prefix}.{a.name}" for a in node.names if f"{prefix}.{a.name}" in MODULES]
        names = subs if len(subs) == len(node.names) else [prefix, *subs]
    out = []
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != importer:
            out.append(name)
    return out


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for mod, path in MODULES.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                graph[mod].update(resolve(mod, node))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer_of(module: str) -> int:
    best, best_len = -1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best_len:
                best, best_len = i, len(p)
    if best < 0:
        raise AssertionError(f"module {module} is in no layer: add it to LAYERS")
    return best


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_no_import_cycle_among_modules() -> None:
    assert cycles(import_graph()) == []


def test_no_import_cycle_among_subpackages() -> None:
    def pkg(m: str) -> str:
        return ".".join(m.split(".")[:2]) if m.startswith("haggis_sim.") else m.split(".")[0]

    graph: dict[str, set[str]] = {}
    for mod, deps in import_graph().items():
        if mod == "haggis_sim":
            continue  # the package's __init__ re-exports the API; its own layer is checked
        graph.setdefault(pkg(mod), set()).update(
            pkg(d) for d in deps if pkg(d) != pkg(mod) and d != "haggis_sim"
        )
    for deps in graph.values():
        deps.intersection_update(graph)
    assert cycles(graph) == []


def test_layers_import_downwards_only() -> None:
    wrong = []
    for mod, deps in import_graph().items():
        for dep in deps:
            if layer_of(dep) > layer_of(mod):
                wrong.append(
                    f"{mod} ({LAYERS[layer_of(mod)][0]}) imports {dep} ({LAYERS[layer_of(dep)][0]})"
                )
    assert wrong == []


@pytest.mark.parametrize(
    ("source", "edge"),
    [
        ("from .. import runner\n", ("haggis_sim.analytics.sections", "haggis_sim.runner")),
        ("import haggis_sim.cli\n", ("haggis_sim.engine.bits", "haggis_sim.cli")),
    ],
)
def test_the_checker_sees_imports(source: str, edge: tuple[str, str]) -> None:
    """The checker itself: a planted upward import is an edge it finds."""
    mod, dep = edge
    tree = ast.parse(source)
    node = tree.body[0]
    assert isinstance(node, ast.Import | ast.ImportFrom)
    assert dep in resolve(mod, node)
    graph = import_graph()
    graph[mod].add(dep)
    graph[dep].add(mod)
    assert any(mod in c and dep in c for c in cycles(graph))


def test_help_loads_neither_the_engine_nor_the_data_libraries() -> None:
    """``haggis-sim --help`` (and the CLI's import) must not pay for numba, polars, DuckDB."""
    import subprocess
    import sys

    code = (
        "import sys; from haggis_sim.cli import app; "
        "print(sorted(m for m in ('numba', 'numpy', 'polars', 'duckdb', 'scipy', "
        "'matplotlib', 'haggis_sim.engine', 'strategies') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
    res = subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", "--help"], capture_output=True, text=True
    )
    assert res.returncode == 0 and "experiment" in res.stdout and "compare" in res.stdout


@pytest.mark.slow  # a fresh interpreter plays a run
def test_a_runs_worker_loads_neither_scipy_stats_nor_dask() -> None:
    """A worker process plays chunks: it must not pay the second or two that importing
    scipy.stats and distributed takes (the run's summary needs a quantile, from
    scipy.special, in the main process only)."""
    import subprocess
    import sys

    code = (
        "import sys, dataclasses; import haggis_sim as hs; "
        "from haggis_sim.runner.run import RunConfig, run_chunk; "
        "rules = dataclasses.asdict(hs.Rules.preset(players=2)); "
        "cfg = RunConfig(strategies=['random', 'random'], games=2, rules=rules); "
        "res = run_chunk(cfg.as_dict(), None, 0, 2); assert res.worker.startswith('process'); "
        "print(sorted(m for m in ('scipy.stats', 'scipy.special', 'distributed', 'dask') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
