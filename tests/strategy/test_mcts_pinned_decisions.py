"""The MCTS speed work changes no decision: its games are pinned, table by table.

Small fixed runs with ``mcts`` (2 and 3 players, greedy and random rollouts, a preset
with bets) are played through the runner in one process and each logged table's content
digest (``tests/golden/regenerate.py``'s ``table_digest``: rows sorted by key, a fixed
text serialization) is compared with :data:`DIGESTS`.

How the digests were produced: this test's ``_digests`` run on the code of commit
d124337 (before any MCTS speed change), printed by running this file as a script
(``python tests/strategy/test_mcts_pinned_decisions.py``) and pasted as
DIGESTS_D124337; the pure speed commits passed this test against them,
row hash for row hash. Forced decisions and early stopping then changed how many random
numbers a decision draws (not the decision itself), so DIGESTS held the games of that
code. Bets chosen by search (and the optional game value) then changed the bet decisions
only: NO_BET_DIGESTS_687AA58 pins every other decision to the code before them. When the
game value became the default, the cases here named ``value=round`` explicitly (their
digests did not move) and the new default was pinned beside them. When the learned
prior became the default (2026-11-27, 64 iterations), every case here named the search
without it (``prior=none``, and the old default's ``iters=200``): the position digests,
the rounds and the moves did not move — the prior=none search is the search before it,
decision for decision — and only the games tables' digests changed, as they record each
strategy's full spec (now with ``prior``, ``model`` and ``sha``). The new default is
pinned beside them; its digests moved once more when the shipped model became the second
generation (the default's prior). When mcts's prior was pinned to that model by name
(``model=gen2``, so a new ``learned`` default does not move the search) the games
tables' digests changed once more (the spec text) and the rounds and moves did not. When
the learned leaf value arrived (``value=net``, its model named by ``vmodel`` and pinned
by ``vsha``), the games tables' digests changed again for the same reason (the spec now
lists ``vmodel`` and ``vsha``) and the rounds and moves did not. When the mixed leaf
value arrived (``mix``, 2026-11-28), the games tables' digests changed once more (the spec
lists ``mix=1.0``) and the rounds and moves did not; the ``value=net`` cases were added
then, their rounds and moves digests taken on da4df53 (before ``mix``) and reproduced
after it, so ``mix=1`` is the ``value=net`` search as it was. When ``qinit`` arrived
(2026-12-01) the games tables' digests changed once more (the spec lists ``qinit=0.0``)
and the rounds and moves did not, so ``qinit=0`` is the search as it was. When ``horizon``
arrived (2026-12-02) the games tables' digests changed once more (the spec lists
``horizon=0``) and the rounds and moves did not, so ``horizon=0`` (a rollout to the end
of the round) is the search as it was. When ``sure`` arrived the games tables' digests
changed once more (the spec lists ``sure=0.0``) and the rounds and moves did not, so
``sure=0`` is the search as it was. A deliberate change
must update DIGESTS and POSITION_DIGESTS with this comment.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
if sys.path[0] != str(ROOT):
    sys.path.insert(0, str(ROOT))

import haggis_sim as hs  # noqa: E402
from haggis_sim.logs import schema as logs  # noqa: E402
from haggis_sim.runner.run import RunConfig, execute  # noqa: E402


def _load_golden() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "golden" / "regenerate.py"
    spec = importlib.util.spec_from_file_location("golden_regenerate_speed", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


#: name -> (preset, players, strategies, games, seed)
CASES: dict[str, tuple[str, int, tuple[str, ...], int, int]] = {
    "greedy-mcts-2p": ("revised", 2, ("greedy", "mcts:iters=50,value=round,prior=none"), 8, 11),
    "mcts-heuristic-3p": (
        "revised",
        3,
        ("mcts:iters=50,value=round,prior=none", "heuristic", "greedy"),
        6,
        12,
    ),
    "mcts-random-rollout-aid-2p": (
        "aid",
        2,
        ("mcts:iters=40,rollout=random,value=round,prior=none", "random:bet=0.3"),
        6,
        13,
    ),
    # the learned leaf value as value=net was before 2026-12 (the gen2 prior, mix=1: no
    # rollout, no qinit)
    "value-net-2p": (
        "revised",
        2,
        ("mcts:iters=24,value=net,model=gen2,mix=1,qinit=0", "heuristic"),
        4,
        15,
    ),
    "value-net-3p": (
        "classic",
        3,
        ("mcts:iters=24,value=net,model=gen2,mix=1,qinit=0", "heuristic", "greedy"),
        3,
        16,
    ),
    # the default search since 2026-12 (mix5 prior, half value half rollout, qinit=3)
    "default-mcts-2p": ("revised", 2, ("mcts", "heuristic"), 4, 17),
    "default-mcts-3p": ("classic", 3, ("mcts", "heuristic", "greedy"), 3, 18),
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

#: The current games, regenerated by running this file as a script. Forced
#: decisions without a search and early stopping kept every single decision but consumed
#: fewer random numbers (later decisions see other streams); bets chosen by search then
#: changed the bet decisions (NO_BET_DIGESTS_687AA58 shows nothing else changed). A pure
#: refactor must keep these.
DIGESTS: dict[str, dict[str, str]] = {
    "greedy-mcts-2p": {
        "games": "924f894ebfa1ab5133a388954288a0c4e9c5733919c86f681588bfc6a93a7605",
        "rounds": "3df24629beb2a6fab5d916c7fd4588c11250d00685f7f128636a37dfe8daed69",
        "moves": "ab179805f5d92fe12a5adc82605ac27ebc1f5dac545da6f59a6f08eadeb6dc9a",
    },
    "mcts-heuristic-3p": {
        "games": "2c91f7b731df454bb80e38947ae1f99b5e46d58ca7cb66d1db539dd7e64cacfd",
        "rounds": "faddbf69044008326fad901a4b7f095364630ef6ac545e0e7d95f60788bdf8b0",
        "moves": "97feb7fe10a0b86b96023bfeb884984ac789a357eff6a2ae1acf84e4d2ed64d5",
    },
    "mcts-random-rollout-aid-2p": {
        "games": "e7c2d80b67ee4deed699482b4d8667059d7f558ba69262e26f7ae71618a43b0c",
        "rounds": "b144bea6aad47769106a564623d513ec852250ea937541566af3ad65e013f463",
        "moves": "6034f2441f031c94cabac47f52182673bb6f156c688c0461041910b516ff2a6c",
    },
    "value-net-2p": {
        "games": "32806e76645ca905c9892f79ce4734ae566914ec869e265a45fa5fd8a5d79c20",
        "rounds": "52c3522382bac71cfc1eab367aac052df95c75dbfab67cfaab6aadbf65e3846b",
        "moves": "60c13aed959887e7dc8b2c5cf0c88ce6b23bdec988fb28b5554050d836312cb7",
    },
    "value-net-3p": {
        "games": "5ad0e654d9dffc63cc29c5cad1b3f3adc518c5c1d2ed43381e63f4273d3a5e02",
        "rounds": "bf514b1c2a5b5963a538a2e0552ae49911b95b321a81d10415fdf1db36b2e30d",
        "moves": "f2d3494e1504fed0f27d11c68e3aa4beab53b29d636fbb1bc05980362eb910f6",
    },
    "default-mcts-2p": {
        "games": "28a3c7f8e6c39e95f1fd777c9af95c45aa30efd0f05ef68033006c3e82fd6672",
        "rounds": "71c687b393e7ef2c48e86d7f0d8878868eac81f8d2a520d7e545e3cf83a70c00",
        "moves": "3a8662c65dd5fcd30179f70afe85c6a2cc7d795a067a5c819cc0ba883032dda2",
    },
    "default-mcts-3p": {
        "games": "e80a6a818a071db3f907d6908e5a7aac88fcd7986462caf0ccec83ddf1a9d808",
        "rounds": "3bcd9941b3c469edcc8696e9e7c4949ff8bb23f6cefe5da06e2112970638e88c",
        "moves": "d2a48c386dab2788cf7432f57fcdada477c3564136eb5371c575bff60476db83",
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
#: checkout's tests/ and run there as a script with ``--positions``),
#: when its positions came from a heuristic game. The specs are d124337's; its mcts valued
#: rollouts by the round margin and bet by a threshold. Kept for the record: the bets by
#: search changed those, and the heuristic's new bomb gate changed the positions, which
#: now come from a greedy game (greedy's decisions are unchanged).
POSITION_DIGESTS_D124337 = {
    ("revised", 2, "mcts"): "119:92dfff546a17a41f",
    ("revised", 3, "mcts"): "94:abb5ce44622b752f",
    ("aid", 2, "mcts:iters=60,rollout=random,bet=0.3"): "122:9a5c3f4c04f3855e",
}

#: Seat 0's positions in one greedy game less those where it may bet, produced on 687aa58
#: (whose decisions equal d124337's) with the specs of POSITION_DIGESTS_D124337.
#: Today's mcts with ``value=round,bets=never`` must reproduce them: the game value and the
#: bet search were added without changing any other decision.
NO_BET_DIGESTS_687AA58 = {
    ("revised", 2, "mcts:iters=200,value=round,bets=never,prior=none"): "108:a52fba77c4e9f050",
    ("revised", 3, "mcts:iters=200,value=round,bets=never,prior=none"): "141:dab47ea5ff8cf3bd",
    ("aid", 2, "mcts:iters=60,rollout=random,value=round,bets=never,prior=none"): (
        "108:c70261dc0615dc84"
    ),
}

#: Today's decisions at every position (this file run as a script with ``--positions``).
#: The round-valued entries were the default until the game value became it; the
#: ``iters=200,prior=none`` ones (spelled with ``value=game`` since it stopped being the
#: default) until the learned prior did (2026-11-27); the rollout search (64 iterations,
#: PUCT with gen2) until 2026-12, and bare ``mcts``, the default since, beside them.
POSITION_DIGESTS = {
    ("revised", 2, "mcts:iters=200,value=round,prior=none"): "118:e71d3492bdba14c2",
    ("revised", 3, "mcts:iters=200,value=round,prior=none"): "150:9b96fdf71fe62380",
    ("aid", 2, "mcts:iters=60,rollout=random,value=round,prior=none"): "118:f2be92745bf4a67f",
    ("revised", 2, "mcts:iters=200,prior=none,value=game"): "118:b0294969e00de350",
    ("revised", 3, "mcts:iters=200,prior=none,value=game"): "150:2e57771d73f5cf4d",
    ("revised", 2, "mcts:iters=64,value=game,model=gen2"): "118:67df52286d330335",
    ("revised", 3, "mcts:iters=64,value=game,model=gen2"): "150:074df9c7ac38a336",
    ("revised", 2, "mcts"): "118:ac55d1622cc92de0",
    ("revised", 3, "mcts"): "150:f200a8a5f4adbb4b",
}


def _position_actions_digest(preset: str, players: int, spec: str, skip_bets: bool = False) -> str:
    """Digest of ``spec``'s actions at every position of seat 0 in one greedy game.

    Each decision gets a fresh stream seeded by its index, so unlike whole games (where a
    decision that consumes fewer random numbers shifts every later one) this pins each
    single decision: a speed change that keeps the chosen action keeps this digest.
    With ``skip_bets`` only positions where seat 0 may not bet count.
    """
    import hashlib

    import numpy as np

    import strategies
    from haggis_sim.engine import state as S
    from haggis_sim.engine.rng import new_stream
    from haggis_sim.selfplay import seat_positions

    strat = strategies.make(spec)
    player = strategies.make("greedy")  # its decisions have not changed since d124337
    assert isinstance(strat, strategies.CompiledStrategy)
    assert isinstance(player, strategies.CompiledStrategy)
    streams = [new_stream(np.int64(s)) for s in range(players)]
    rules = hs.Rules.preset(preset, players=players).to_array()
    seen = seat_positions(rules, 77, lambda seat, obs: player.act_array(obs, streams[seat]))
    actions = []
    for obs in seen:
        if not (skip_bets and S.can_bet(obs, 0)):
            actions.append(strat.act_array(obs, new_stream(np.int64(len(actions)))))
    return f"{len(actions)}:" + hashlib.sha256(repr(actions).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("preset", "players", "spec"), list(POSITION_DIGESTS))
def test_mcts_decisions_at_fixed_positions_unchanged(preset: str, players: int, spec: str) -> None:
    got = _position_actions_digest(preset, players, spec)
    assert got == POSITION_DIGESTS[(preset, players, spec)]


@pytest.mark.parametrize(("preset", "players", "spec"), list(NO_BET_DIGESTS_687AA58))
def test_round_valued_mcts_without_bets_decides_as_before(
    preset: str, players: int, spec: str
) -> None:
    got = _position_actions_digest(preset, players, spec, skip_bets=True)
    assert got == NO_BET_DIGESTS_687AA58[(preset, players, spec)]


def test_greedy_rollout_generator_makes_greedys_choice() -> None:
    """The rollout's cheap generator picks exactly greedy's move (so rollouts are unchanged)."""
    import numpy as np
    from strat_helpers import walk_mixed_games

    from haggis_sim.engine import layout as L
    from strategies.simple_kernels import greedy_act, greedy_rollout_act

    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    no_params = np.zeros(8)

    def decide(preset: str, g: int, st: np.ndarray, obs: np.ndarray, rng: np.ndarray) -> int:
        want = int(greedy_act(obs, no_params, rng, buf))
        assert greedy_rollout_act(obs, no_params, rng, buf) == want, (preset, g)
        return want

    assert walk_mixed_games(6, decide, random_bet=0.2) > 5000


@pytest.mark.parametrize("name", list(CASES))
def test_mcts_games_unchanged_by_speed_work(name: str, tmp_path: Path) -> None:
    assert _digests(name, tmp_path) == DIGESTS[name], (
        f"mcts games of case {name} changed: see this module's docstring"
    )


if __name__ == "__main__":
    import tempfile

    if "--positions" in sys.argv:
        for case in POSITION_DIGESTS:
            print(f"    {case!r}: {_position_actions_digest(*case)!r},")
        raise SystemExit(0)
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            print(f"    {case!r}: {_digests(case, Path(tmp))!r},")
