"""A first run with the search compiles it in a second process while this one compiles
the rest (``warmup.compile_engine``): when it does, with which argument types, and that an
interrupted warm-up leaves no second process behind."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import pytest

import haggis_sim.runner.chunk as chunk
import haggis_sim.runner.pool as pool
import haggis_sim.runner.warmup as warmup
from haggis_sim.rules import Rules
from haggis_sim.runner.run import RunConfig


class Side:
    """Stands in for the second process: records how it was started and how ended."""

    started: list[list[str]]

    def __init__(self, args: list[str], **_options: Any) -> None:
        Side.started.append(args)
        self.killed = False
        self.running = True
        Side.last = self

    def poll(self) -> int | None:
        return None if self.running else 0

    def wait(self) -> int:
        self.running = False
        return 0

    def kill(self) -> None:
        self.killed = True


@pytest.fixture
def side(monkeypatch: pytest.MonkeyPatch) -> type[Side]:
    Side.started = []
    monkeypatch.setattr(warmup.subprocess, "Popen", Side)
    monkeypatch.setattr(pool, "cores", lambda: 2)
    return Side


def config(specs: str, jobs: int = 0) -> RunConfig:
    rules = Rules.preset(players=2).as_dict()
    return RunConfig(strategies=specs.split(","), games=2, rules=rules, jobs=jobs)


def test_the_search_compiles_in_a_second_process_when_a_second_core_is_free(
    side: type[Side], monkeypatch: pytest.MonkeyPatch
) -> None:
    warmup.compile_engine(config("greedy,mcts"))
    assert len(side.started) == 1
    assert side.started[0][1:] == [
        "-c",
        "from haggis_sim.runner.warmup import compile_search; compile_search()",
    ]
    assert not side.last.running and not side.last.killed  # waited for, not killed
    warmup.compile_engine(config("greedy,heuristic"))  # no search: nothing beside
    warmup.compile_engine(config("greedy,mcts", jobs=1))  # one core asked for
    monkeypatch.setattr(pool, "cores", lambda: 1)
    warmup.compile_engine(config("greedy,mcts"))  # one core there
    assert len(side.started) == 1


def test_an_interrupted_warm_up_ends_the_second_process(
    side: type[Side], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*_args: Any, **_kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(chunk, "play_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        warmup.compile_engine(config("greedy,mcts"))
    assert side.last.killed


def test_the_search_compiles_with_the_types_the_dispatcher_calls_it_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The second process is of use only if the kernel it caches is the one the run's
    dispatcher links: the same argument types as a chunk's call (C-contiguous rows)."""
    import strategies.ismcts as ismcts

    seen: list[tuple[Any, ...]] = []
    monkeypatch.setattr(ismcts, "mcts_act", lambda *args: seen.append(args) or 0)
    warmup.compile_search()
    (args,) = seen
    wanted = [
        numba.types.Array(numba.int64, 1, "C"),  # the observation
        numba.types.Array(numba.float64, 1, "C"),  # a row of the run's parameter matrix
        numba.types.Array(numba.uint64, 1, "C"),  # a row of the seats' streams
        numba.types.Array(numba.int64, 1, "C"),  # the move buffer
    ]
    assert [numba.typeof(a) for a in args] == wanted
    params = np.zeros((2, args[1].shape[0]))
    assert numba.typeof(params[0]) == wanted[1]  # as the runner passes it
