"""The package's layers import one way, through their front doors, and no module imports
itself round a cycle.

Every ``import`` statement is read from the source (also those inside functions: a lazy
import is still a dependency), resolved to the module it names, and checked:

- no cycle among modules, and none among ``haggis_sim``'s subpackages;
- each module imports only from its own layer or the layers below it (:data:`LAYERS`);
- a private package is imported only by the layers it serves (:data:`PRIVATE`: the
  compiled engine, whose door above the typed API is :mod:`haggis_sim.kernel`), and a
  layer with a front-door rule imports only through its doors (:data:`DOORS`: strategies
  use the public API, analytics reads logs);
- the package top names no module above the typed API, not even in a string
  (:func:`test_the_package_top_names_nothing_above_it`).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("haggis_sim", "strategies")

#: the typed API: the public modules over the compiled engine; ``haggis_sim`` is the
#: package itself (its ``__init__``, the public names), not every module under it
TYPED_API = (
    "haggis_sim",
    "haggis_sim.cards",
    "haggis_sim.combos",
    "haggis_sim.errors",
    "haggis_sim.kernel",  # the door for compiled code above the engine
    "haggis_sim.position",
    "haggis_sim.selfplay",
    "haggis_sim.rules",
    "haggis_sim.strategy_spec",
    "haggis_sim.transcript",
    "haggis_sim.presets",
    "haggis_sim.stats",
)

#: lowest first: a module may import from its own layer and the layers before it. Every
#: module is named by its own entry or a package's: ``haggis_sim`` covers the package's
#: ``__init__`` only, so a new module of ``haggis_sim`` has to be placed here
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "compiled engine",
        ("haggis_sim._cache", "haggis_sim._locator", "haggis_sim._lazy", "haggis_sim.engine"),
    ),
    ("typed API", TYPED_API),
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
    # decisions of logged games scored again with strategy code (studies, the game viewer's
    # alternatives): above strategies and analytics, so that analytics reads logs only
    ("counterfactual decisions", ("haggis_sim.counterfactual",)),
    # an experiment plays its arms (runner), compares them (analytics) and writes its
    # report (reports): it sits above all three
    ("reports", ("haggis_sim.report",)),
    ("experiments", ("haggis_sim.experiment",)),
    # a design search plays its candidates (runner) and confirms them as an experiment
    ("design search", ("haggis_sim.design",)),
    ("command line", ("haggis_sim.cli",)),
]

#: private packages and the layers allowed to import them; every other module goes
#: through a door of the layers named
PRIVATE: dict[str, tuple[str, ...]] = {
    # the compiled engine: code above the typed API uses haggis_sim's public names, the
    # typed API modules, or haggis_sim.kernel (the engine's compiled functions and
    # constants, the same objects)
    "haggis_sim.engine": ("compiled engine", "typed API"),
}

#: packages that import only through front doors: beside their own modules, only the
#: modules of these layers
DOORS: dict[str, tuple[str, ...]] = {
    # a strategy plugs into the public API (compiled ones through haggis_sim.kernel)
    "strategies": ("typed API", "input and output files"),
    # analytics reads logs: not strategies, the runner or the engine
    "haggis_sim.analytics": (
        "typed API",
        "input and output files",
        "log format",
        "page templates",
    ),
}


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


def nearest_module(name: str) -> str:
    """The project module ``name`` is or lies in (``pkg.mod.attr`` -> ``pkg.mod``; "" if
    none)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


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
    return [m for m in map(nearest_module, names) if m and m != importer]


@functools.cache
def _graph() -> dict[str, frozenset[str]]:
    graph: dict[str, frozenset[str]] = {}
    for mod, path in MODULES.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.update(resolve(mod, node))
        graph[mod] = frozenset(found)
    return graph


def import_graph() -> dict[str, set[str]]:
    """Each module's project imports (a fresh copy: a test may plant one)."""
    return {mod: set(deps) for mod, deps in _graph().items()}


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


def within(module: str, entry: str) -> bool:
    """``module`` is ``entry`` or lies inside it (``haggis_sim``: the package top only)."""
    return module == entry or (entry != "haggis_sim" and module.startswith(entry + "."))


def layer_of(module: str) -> int:
    best, best_len = -1, -1
    for i, (_, entries) in enumerate(LAYERS):
        for p in entries:
            if within(module, p) and len(p) > best_len:
                best, best_len = i, len(p)
    if best < 0:
        raise AssertionError(f"module {module} is in no layer: add it to LAYERS")
    return best


def layer_name(module: str) -> str:
    return LAYERS[layer_of(module)][0]


def door_violations(graph: dict[str, set[str]]) -> list[str]:
    """Each import that passes by a door: a private package imported from a layer it does
    not serve (:data:`PRIVATE`), or a package with doors importing past them (:data:`DOORS`)."""
    wrong = []
    for mod, deps in graph.items():
        for dep in sorted(deps):
            for private, served in PRIVATE.items():
                if within(dep, private) and layer_name(mod) not in served:
                    wrong.append(
                        f"{mod} imports {dep}: {private} is private to the {' and '.join(served)}"
                        " layers"
                    )
            for pkg, doors in DOORS.items():
                if within(mod, pkg) and not within(dep, pkg) and layer_name(dep) not in doors:
                    wrong.append(
                        f"{mod} imports {dep} ({layer_name(dep)}): {pkg} imports only from "
                        f"{', '.join(doors)}"
                    )
    return wrong


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


def test_imports_pass_through_the_doors() -> None:
    assert door_violations(import_graph()) == []


@pytest.mark.parametrize(
    ("source", "importer", "dep"),
    [
        (
            "from haggis_sim.engine.state import random_action\n",
            "strategies.simple_kernels",
            "haggis_sim.engine.state",
        ),
        (
            "from strategies.analysis import x\n",
            "haggis_sim.analytics.compare",
            "strategies.analysis",
        ),
        (
            "from ..engine import record as R\n",
            "haggis_sim.logs.schema",
            "haggis_sim.engine.record",
        ),
    ],
)
def test_the_door_check_sees_imports(source: str, importer: str, dep: str) -> None:
    """The door check itself: a planted import past a door is reported, though it points
    downwards (the direction check alone lets it through)."""
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.Import | ast.ImportFrom)
    assert dep in resolve(importer, node)
    assert layer_of(dep) <= layer_of(importer)  # not an upward import
    graph = import_graph()
    graph[importer].add(dep)
    assert [w for w in door_violations(graph) if w.startswith(f"{importer} imports {dep}")]


def named_modules(path: Path, package: str) -> set[str]:
    """The project modules the string literals of a module name (docstrings included):
    dotted names such as ``haggis_sim.runner.tournament`` or ``strategies.make``, names
    relative to ``package`` such as ``.runner``, and a literal that is a module's name."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        text = node.value
        names = {text.strip()} | set(re.findall(r"\b(?:haggis_sim|strategies)(?:\.\w+)+", text))
        names |= {package + m for m in re.findall(r"(?<![\w.])\.\w+(?:\.\w+)*", text)}
        found |= {m for m in map(nearest_module, names) if m and m != package}
    return found


def test_the_package_top_names_nothing_above_it() -> None:
    """haggis_sim/__init__.py imports nothing above the typed API, not even by a name it
    imports on first use: no string of it names a module of a higher layer."""
    top = layer_of("haggis_sim")
    above = {m for m in named_modules(MODULES["haggis_sim"], "haggis_sim") if layer_of(m) > top}
    assert above == set()


@pytest.mark.parametrize(
    "text", ['"haggis_sim.analytics.compare"', '".runner.tournament"', '"strategies.advice"']
)
def test_the_string_check_sees_names(text: str, tmp_path: Path) -> None:
    """The string check itself: a module named in a string, even relatively, is found."""
    source = tmp_path / "top.py"
    source.write_text(f'API = {{"x": {text}}}\n')
    (found,) = named_modules(source, "haggis_sim")
    assert layer_of(found) > layer_of("haggis_sim")


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


#: the most parameters a function takes; more travel as a record
MOST_PARAMETERS = 8
#: functions that take one parameter per option a person types: the CLI's commands, and
#: ``tournament``, the ``run`` command's Python form
OPTION_FUNCTIONS = ("haggis_sim.runner.tournament.tournament",)


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Every parameter a caller can pass (``self`` and ``cls`` not counted)."""
    a = node.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]
    return len([p for p in names if p.arg not in ("self", "cls")])


def long_signatures(path: Path, module: str) -> list[str]:
    """``module.function (N)`` for each function of ``path`` over :data:`MOST_PARAMETERS`
    that is neither compiled by numba (its arrays cannot travel as a record) nor a CLI
    command or :data:`OPTION_FUNCTIONS`."""
    if module.startswith("haggis_sim.cli."):
        return []
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        compiled = any("njit" in ast.unparse(d) for d in node.decorator_list)
        name = f"{module}.{node.name}"
        count = parameter_count(node)
        if count > MOST_PARAMETERS and not compiled and name not in OPTION_FUNCTIONS:
            found.append(f"{name} ({count})")
    return found


def test_functions_over_eight_parameters_take_a_record() -> None:
    long = [f for module, path in MODULES.items() for f in long_signatures(path, module)]
    assert long == []


def test_the_signature_check_counts_parameters(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "def nine(a, b, c, d, e, f, g, h, *, i): ...\n"
        "def eight(self, a, b, c, d, e, f, g, h): ...\n"
        "@njit(cache=True)\ndef kernel(a, b, c, d, e, f, g, h, i): ...\n"
    )
    assert long_signatures(path, "haggis_sim.m") == ["haggis_sim.m.nine (9)"]
    assert long_signatures(path, "haggis_sim.cli.m") == []
