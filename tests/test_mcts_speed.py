"""The MCTS speed work changes no decision: its games are pinned, table by table.

Small fixed runs with ``mcts`` (2 and 3 players, greedy and random rollouts, a preset
with bets) are played through the runner in one process and each logged table's content
digest (``tests/golden/regenerate.py``'s ``table_digest``: rows sorted by key, a fixed
text serialization) is compared with :data:`DIGESTS`.

How the digests were produced: this test's ``_digests`` run on the code of commit
d124337 (before any MCTS speed change), printed with ``python tests/test_mcts_speed.py``
and pasted as DIGESTS_D124337; the pure speed commits passed this test against them,
row hash for row hash. Forced decisions and early stopping then changed how many random
numbers a decision draws (not the decision itself: see POSITION_DIGESTS), so DIGESTS now
holds the games of that code; a deliberate change must update them with this comment.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
if sys.path[0] != str(ROOT):
    sys.path.insert(0, str(ROOT))

import haggis_sim as hs  # noqa: E402
from haggis_sim.logs import schema as logs  # noqa: E402
from haggis_sim.runner.run import RunConfig, execute  # noqa: E402


def _load_golden() -> ModuleType:
    path = Path(__file__).resolve().parent / "golden" / "regenerate.py"
    spec = importlib.util.spec_from_file_location("golden_regenerate_speed", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


#: name -> (preset, players, strategies, games, seed)
CASES: dict[str, tuple[str, int, tuple[str, ...], int, int]] = {
    "greedy-mcts-2p": ("revised", 2, ("greedy", "mcts:iters=50"), 8, 11),
    "mcts-heuristic-3p": ("revised", 3, ("mcts:iters=50", "heuristic", "greedy"), 6, 12),
    "mcts-random-rollout-aid-2p": (
        "aid",
        2,
        ("mcts:iters=40,rollout=random,bet=0.3", "random:bet=0.3"),
        6,
        13,
    ),
}

#: d124337's digests, reproduced exactly by a6fc276, 3ddf475, a84dd07 and 4454c58 (root
#: moves cached, cheap greedy rollout generator, direct child legality, shared descent):
#: the identical-logs proof of the pure speed changes. Kept for the record.
DIGESTS_D124337: dict[str, dict[str, str]] = {
    "greedy-mcts-2p": {
        "games": "4a36c24c8c8b04ec0391a6e1e79b010643b86b8ca30487b4fff326fcf7da9817",
        "rounds": "bdc373658e5981fbbd132bbfee1afbcdd0ea4680d6ecbcc3b402f42f40479b71",
        "moves": "088100eb1928f1509c72da7b38f478ba704f2c8c54a0e06c6cd5af0ab3da8f04",
    },
    "mcts-heuristic-3p": {
        "games": "238444199d05d11d874941dcd64eccb8eaf51672b4a44011009ddbcbff4d6fb4",
        "rounds": "7fc269f4294df8649f6dd42c05e8ba407f1d22d084acea967bc3b13009ac4f78",
        "moves": "97d60500e5238fc3a033004cd4ec6155576ac296bfb5b811d40bed3fcea7110f",
    },
    "mcts-random-rollout-aid-2p": {
        "games": "6c5a8d5371d66151da16d8b5467174b0668e9289b279788f590bf09f45a972f2",
        "rounds": "3e49dcebf1c6fd96f0f946bd2c5116b21e50490c0c8cbe65815070414fb60064",
        "moves": "02be6e9b25f203939f20d6c3ad91270faab15b6158d4eb210874596f5134497d",
    },
}

#: The current games. Forced decisions without a search and early stopping keep every
#: single decision (POSITION_DIGESTS, still d124337's) but consume fewer random numbers,
#: so later decisions in a game see other streams: these were regenerated with
#: ``python tests/test_mcts_speed.py`` at that commit. A pure refactor must keep them.
DIGESTS: dict[str, dict[str, str]] = {
    "greedy-mcts-2p": {
        "games": "e08d240338f08e33615de3fcb0311972cdd4a948bcda702a23e285e86af88e0f",
        "rounds": "988cd32b6efbcc0c919a7c2818d61e3cb5396a5aaba1a64de2c6636fca7b9da4",
        "moves": "ac94e86d342122f7e98db66ac07bd3ce2bf753cad799c9ae38f32c0c5e51a40a",
    },
    "mcts-heuristic-3p": {
        "games": "b1e3808974bd4e921b51b2bd79e50f37197ce32fa2f12e4c57b61abaf53811e8",
        "rounds": "631281a9fae42a675ab56a0eb75fd56a321af73c49461ff58e53680ecf616b8d",
        "moves": "762983d2887a6692c061c2b44c4a40158647a4b5e92d52caf4fcfd050d81300c",
    },
    "mcts-random-rollout-aid-2p": {
        "games": "fcf591a94cf92a0dc61d70bbea88110888e240524503cc52927de7caaa365668",
        "rounds": "9d10417e88c300ce2c835bfe0c2b286a15cabae45fb99a1f7cbafa1e72762861",
        "moves": "814dd7065f0c686bfd3762797a63da9412393a43c4fcb3f06a967476e2b6b614",
    },
}


def _digests(name: str, work: Path) -> dict[str, str]:
    """Whole-table SHA-256 of each logged table of case ``name`` played in ``work``."""
    preset, players, strats, games, seed = CASES[name]
    config = RunConfig(
        strategies=list(strats),
        games=games,
        rules=hs.Rules.preset(preset, players=players).as_dict(),
        seed=seed,
        seats="rotate",
        chunk_size=games,
        log_moves=True,
        jobs=1,
        command="",
    )
    execute(config, work / name)
    golden = _load_golden()
    return {t: golden.table_digest(work / name, t)["sha256"] for t in logs.TABLES}


#: (preset, players, spec) -> SHA-256 prefix of the actions at fixed positions, produced
#: by running :func:`_position_actions_digest` on d124337 (this file copied into that
#: checkout's tests/ and run there with ``python tests/test_mcts_speed.py --positions``)
POSITION_DIGESTS = {
    ("revised", 2, "mcts"): "119:92dfff546a17a41f",
    ("revised", 3, "mcts"): "94:abb5ce44622b752f",
    ("aid", 2, "mcts:iters=60,rollout=random,bet=0.3"): "122:9a5c3f4c04f3855e",
}


def _position_actions_digest(preset: str, players: int, spec: str) -> str:
    """Digest of ``spec``'s actions at every position of seat 0 in one heuristic game.

    Each decision gets a fresh stream seeded by its index, so unlike whole games (where a
    decision that consumes fewer random numbers shifts every later one) this pins each
    single decision: a speed change that keeps the chosen action keeps this digest.
    """
    import hashlib

    import numpy as np

    import strategies
    from haggis_sim.engine import layout as L
    from haggis_sim.engine import state as S
    from haggis_sim.engine.rng import new_stream

    strat = strategies.make(spec)
    player = strategies.make("heuristic")
    assert isinstance(strat, strategies.CompiledStrategy)
    assert isinstance(player, strategies.CompiledStrategy)
    st = S.init_state(hs.Rules.preset(preset, players=players).to_array())
    S.start_game(st, np.int64(77))
    streams = [new_stream(np.int64(s)) for s in range(players)]
    actions = []
    while True:
        if st[L.S_PHASE] == L.PH_ROUND_OVER:
            if S.next_round(st):
                break
            continue
        seat = int(st[L.S_TO_ACT])
        obs = S.observe(st, seat)
        if seat == 0:
            actions.append(strat.act_array(obs, new_stream(np.int64(len(actions)))))
        S.apply_action(st, np.int64(player.act_array(obs, streams[seat])))
    return f"{len(actions)}:" + hashlib.sha256(repr(actions).encode()).hexdigest()[:16]


POSITION_CASES = [
    ("revised", 2, "mcts"),
    ("revised", 3, "mcts"),
    ("aid", 2, "mcts:iters=60,rollout=random,bet=0.3"),
]


@pytest.mark.parametrize(("preset", "players", "spec"), POSITION_CASES)
def test_mcts_decisions_at_fixed_positions_unchanged(preset: str, players: int, spec: str) -> None:
    got = _position_actions_digest(preset, players, spec)
    assert got == POSITION_DIGESTS[(preset, players, spec)]


def test_greedy_rollout_generator_makes_greedys_choice() -> None:
    """The rollout's cheap generator picks exactly greedy's move (so rollouts are unchanged)."""
    import numpy as np

    from haggis_sim.engine import layout as L
    from haggis_sim.engine import state as S
    from haggis_sim.engine.rng import new_stream
    from strategies.simple_kernels import greedy_act, greedy_rollout_act, random_act

    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    no_params = np.zeros(8)
    bet = np.array([0.2])
    seen = 0
    for preset in hs.PRESETS:
        for players in (2, 3):
            try:
                rules = hs.Rules.preset(preset, players=players).to_array()
            except ValueError:
                continue
            for g in range(6):
                st = S.init_state(rules)
                S.start_game(st, np.int64(g))
                rng = new_stream(np.int64(g))
                while True:
                    if st[L.S_PHASE] == L.PH_ROUND_OVER:
                        if S.next_round(st):
                            break
                        continue
                    obs = S.observe(st, int(st[L.S_TO_ACT]))
                    want = greedy_act(obs, no_params, rng, buf)
                    assert greedy_rollout_act(obs, no_params, rng, buf) == want, (preset, g)
                    seen += 1
                    # alternate greedy and random games: many shapes of hands and tricks
                    move = want if g % 2 else random_act(obs, bet, rng, buf)
                    S.apply_action(st, np.int64(move))
    assert seen > 5000


@pytest.mark.parametrize("name", list(CASES))
def test_mcts_games_unchanged_by_speed_work(name: str, tmp_path: Path) -> None:
    assert _digests(name, tmp_path) == DIGESTS[name], (
        f"mcts games of case {name} changed: see this module's docstring"
    )


if __name__ == "__main__":
    import tempfile

    if "--positions" in sys.argv:
        for case in POSITION_CASES:
            print(f"    {case!r}: {_position_actions_digest(*case)!r},")
        raise SystemExit(0)
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            print(f"    {case!r}: {_digests(case, Path(tmp))!r},")
