"""Playing one chunk of games: wholly compiled, or step by step for Python strategies.

Both drivers record through :mod:`haggis_sim.engine.record`, so a game's log does not
depend on which one played it. The compiled driver stops starting new games when its
buffers run low and is called again, so chunk size does not bound memory per game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from strategies import CompiledStrategy, Strategy, is_compiled
from strategies.kernels import act_tagged, dispatcher_tag
from strategies.simple_kernels import hand_strength

from .. import kernel as K  # the game's steps: init_state, start_game, next_round, ...
from .._cache import njit
from ..kernel import layout as L
from ..kernel import new_stream
from ..kernel import record as R
from ..position import Action, Observation, action_from_code
from .seating import deal_seeds, seat_entries, strategy_seed

MOVE_ROWS = 262_144
ROUND_ROWS = 16_384
ROW_MARGIN = 20_000  # move rows kept free before starting another game (one game's worth)
ROUND_MARGIN = 200  # round rows kept free before starting another game


@njit(cache=True)
def _room_for_a_game(
    moves: np.ndarray, rounds: np.ndarray, cursor: np.ndarray, log_moves: bool
) -> bool:
    """Whether the buffers can take one more whole game."""
    if log_moves and cursor[R.C_MOVE] > moves.shape[0] - ROW_MARGIN:
        return False
    return bool(cursor[R.C_ROUND] <= rounds.shape[0] - ROUND_MARGIN)


@njit(cache=True)
def _seat_to_act(
    st: np.ndarray,
    gid: int | np.int64,
    rounds: np.ndarray,
    cursor: np.ndarray,
    log_rounds: bool = True,
) -> int:
    """Log every round that has ended (unless not ``log_rounds``) and deal the next; the
    seat to act, -1 at game end."""
    while st[L.S_PHASE] == L.PH_ROUND_OVER:
        if log_rounds:
            R.record_round(st, gid, rounds, cursor)
        if K.next_round(st):
            return -1
    return int(st[L.S_TO_ACT])


@njit(cache=True)
def _commit(
    st: np.ndarray,
    action: int,
    obs: np.ndarray,
    seat: int,
    gid: int | np.int64,
    moves: np.ndarray,
    cursor: np.ndarray,
    log_moves: bool,
) -> None:
    """Apply and log the chosen action; a bet is logged with the bettor's hand strength."""
    strength = np.int64(-1)
    if log_moves and (action >> L.TYPE_SHIFT) == L.T_BET:
        strength = np.int64(hand_strength(obs, seat) * 100.0 + 0.5)
    R.step_recorded(st, np.int64(action), gid, moves, cursor, log_moves, strength)


# inlined into its callers: a function compiled on its own re-optimises every kernel it
# calls (seconds of a first run's compile)
@njit(cache=True, inline="always")
def play_one_game(
    st: np.ndarray,
    deal_seed: int,
    rngs: np.ndarray,
    sids: np.ndarray,
    params: np.ndarray,
    seat_entries: np.ndarray,
    gid: int,
    log: bool,
    log_moves: bool,
    moves: np.ndarray,
    rounds: np.ndarray,
    cursor: np.ndarray,
    buf: np.ndarray,
    tag: np.ndarray,
) -> None:
    """Play one whole game on ``st`` (from ``init_state``), dealt from ``deal_seed``:
    seat ``s`` plays strategy entry ``seat_entries[s]`` (kernel ``sids[e]``, parameters
    ``params[e]``, called through the dispatcher ``tag`` names:
    ``strategies.kernels.dispatcher_tag``) drawing from its stream ``rngs[s]``.

    The one compiled game loop: the runner calls it with ``log`` on, recording rounds (and
    with ``log_moves`` moves) as game ``gid``; training plays without logs (``log`` and
    ``log_moves`` off, the buffers then unused). The game itself is the same either way.
    """
    K.start_game(st, deal_seed)
    while True:
        seat = _seat_to_act(st, gid, rounds, cursor, log)
        if seat < 0:
            break
        obs = K.observe(st, seat)
        e = seat_entries[seat]
        a = act_tagged(tag, sids[e], obs, params[e], rngs[seat], buf)
        _commit(st, a, obs, seat, gid, moves, cursor, log and log_moves)


@njit(cache=True)
def _play_compiled(
    rules: np.ndarray,
    sids: np.ndarray,
    params: np.ndarray,
    entries: np.ndarray,
    seeds: np.ndarray,
    game_ids: np.ndarray,
    start: int,
    run_seed: int,
    log_moves: bool,
    moves: np.ndarray,
    rounds: np.ndarray,
    games: np.ndarray,
    cursor: np.ndarray,
    tag: np.ndarray,
) -> int:
    """Play games ``start..`` until done or the buffers run low, the kernels called
    through the dispatcher ``tag`` names; return the next index."""
    st = K.init_state(rules)
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    n = rules[L.R_PLAYERS]
    rngs = np.empty((3, 1), dtype=np.uint64)
    i = start
    while i < game_ids.shape[0] and _room_for_a_game(moves, rounds, cursor, log_moves):
        gid = game_ids[i]
        for s in range(n):
            rngs[s, 0] = new_stream(strategy_seed(run_seed, gid, s))[0]
        play_one_game(st, seeds[i], rngs, sids, params, entries[i], gid, True, log_moves,
                      moves, rounds, cursor, buf, tag)  # fmt: skip
        R.record_game(st, gid, games, cursor)
        i += 1
    return i


@dataclass
class ChunkLogs:
    """Raw log matrices of one chunk (int64, one row per record)."""

    moves: np.ndarray
    rounds: np.ndarray
    games: np.ndarray
    entries: np.ndarray  # (games, 3) strategy entry per seat
    deal_seeds: np.ndarray


class StrategyActionError(RuntimeError):
    """A strategy returned an action that is not legal."""


@dataclass(frozen=True)
class LogBuffers:
    """The buffers a game is logged into: move and round rows, one row per game, and
    the cursor that says where the next rows go (``engine.record``'s layout)."""

    moves: np.ndarray
    rounds: np.ndarray
    games: np.ndarray
    cursor: np.ndarray


def _python_game(
    rules_arr: np.ndarray,
    strategies: Sequence[Strategy],
    entries_row: np.ndarray,
    seed: int,
    game_id: int,
    run_seed: int,
    log_moves: bool,
    logs: LogBuffers,
) -> None:
    moves, rounds, games, cursor = logs.moves, logs.rounds, logs.games, logs.cursor
    n = int(rules_arr[L.R_PLAYERS])
    st = K.init_state(rules_arr)
    K.start_game(st, np.int64(seed))
    streams, gens = seat_streams(run_seed, game_id, n)
    buf = np.empty(L.MAX_MOVES, dtype=np.int64)
    while True:
        seat = int(_seat_to_act(st, np.int64(game_id), rounds, cursor))
        if seat < 0:
            break
        obs = K.observe(st, seat)
        strat = strategies[int(entries_row[seat])]
        code = seat_action(strat, st, obs, seat, streams[seat], gens[seat], buf, game_id)
        _commit(st, code, obs, seat, np.int64(game_id), moves, cursor, log_moves)
    R.record_game(st, np.int64(game_id), games, cursor)


def seat_streams(
    run_seed: int, game_id: int, players: int
) -> tuple[list[np.ndarray], list[np.random.Generator]]:
    """The random streams of every seat of game ``game_id``: a splitmix64 stream for a
    compiled strategy and a numpy generator for one written in Python, both seeded from
    (run seed, game id, seat)."""
    seeds = [int(strategy_seed(run_seed, game_id, s)) for s in range(players)]
    streams = [new_stream(np.int64(sd)) for sd in seeds]
    gens = [np.random.default_rng(sd & 0xFFFFFFFFFFFFFFFF) for sd in seeds]
    return streams, gens


def seat_action(
    strat: Strategy,
    st: np.ndarray,
    obs: np.ndarray,
    seat: int,
    stream: np.ndarray,
    gen: np.random.Generator,
    buf: np.ndarray,
    game_id: int,
) -> int:
    """The action ``strat`` takes for ``seat`` (to act at ``st``, seeing ``obs``), as the
    runner asks it: a compiled kernel from its stream, a Python strategy through
    :meth:`~strategies.Strategy.act` with the legal actions and its generator.
    StrategyActionError when a Python strategy answers with an illegal action."""
    if is_compiled(strat):
        assert isinstance(strat, CompiledStrategy)
        return strat.act_array(obs, stream)
    k = K.legal_actions(st, buf, True)
    legal = [action_from_code(seat, int(x)) for x in buf[:k]]
    chosen = strat.act(Observation.from_array(obs, seat), legal, gen)
    if isinstance(chosen, Action):
        # an Action carries its seat: one made for another seat is not legal here
        code = chosen.code if chosen in legal else -1
    elif isinstance(chosen, int | np.integer) and not isinstance(chosen, bool):
        code = int(chosen)
    else:
        code = -1
    if code not in {a.code for a in legal}:
        raise StrategyActionError(
            f"strategy {strat.spec} chose an illegal action {chosen!r} "
            f"(game {game_id}, seat {seat})"
        )
    return code


def kernel_arrays(strategies: Sequence[CompiledStrategy]) -> tuple[np.ndarray, np.ndarray]:
    """The kernel ids and the parameter rows of compiled ``strategies``, one row each,
    zero-padded to the widest (a learned model's is wider): what the compiled game loop
    calls them with."""
    sids = np.array([s.compiled_id for s in strategies], dtype=np.int64)
    arrays = [s.param_array() for s in strategies]
    params = np.stack([np.pad(a, (0, max(map(len, arrays)) - len(a))) for a in arrays])
    return sids, params


def play_chunk(
    rules_arr: np.ndarray,
    strategies: Sequence[Strategy],
    game_ids: np.ndarray,
    run_seed: int,
    seats: str,
    log_moves: bool = True,
    kernels: Sequence[int] = (),
) -> ChunkLogs:
    """Play the games ``game_ids`` and return their log matrices. When every strategy is
    compiled, the game loop calls them through the smallest kernel dispatcher that holds
    their kernels and ``kernels`` (the warm-up's quick stand-ins compile the dispatcher
    of the run's own players that way)."""
    players = int(rules_arr[L.R_PLAYERS])
    entries = seat_entries(game_ids, seats, players, len(strategies))
    seeds = deal_seeds(run_seed, game_ids, seats, players, len(strategies))
    parts_m, parts_r = [], []
    games = np.zeros((len(game_ids), R.N_GAME_COLUMNS), dtype=np.int64)
    cursor = np.zeros(R.N_CURSOR, dtype=np.int64)
    cursor[R.C_TOP_ROW] = -1
    all_compiled = all(is_compiled(s) for s in strategies)
    if all_compiled:
        sids, params = kernel_arrays([s for s in strategies if isinstance(s, CompiledStrategy)])
        tag = dispatcher_tag([*(int(x) for x in sids), *kernels])  # only the kernels used
        i = 0
        while i < len(game_ids):
            moves = np.empty((MOVE_ROWS if log_moves else 1, R.N_MOVE_COLUMNS), dtype=np.int64)
            rounds = np.empty((ROUND_ROWS, R.N_ROUND_COLUMNS), dtype=np.int64)
            cursor[R.C_MOVE] = 0
            cursor[R.C_ROUND] = 0
            nxt = _play_compiled(
                rules_arr, sids, params, entries, seeds, game_ids, i, run_seed,
                log_moves, moves, rounds, games, cursor, tag,
            )  # fmt: skip
            if nxt == i:
                raise RuntimeError(f"game {game_ids[i]} does not fit the log buffers")
            parts_m.append(moves[: cursor[R.C_MOVE]] if log_moves else moves[:0])
            parts_r.append(rounds[: cursor[R.C_ROUND]])
            i = nxt
    else:
        moves = np.empty((MOVE_ROWS, R.N_MOVE_COLUMNS), dtype=np.int64)
        rounds = np.empty((ROUND_ROWS, R.N_ROUND_COLUMNS), dtype=np.int64)
        for i, gid in enumerate(game_ids):
            if not _room_for_a_game(moves, rounds, cursor, True):
                parts_m.append(moves[: cursor[R.C_MOVE]].copy())
                parts_r.append(rounds[: cursor[R.C_ROUND]].copy())
                cursor[R.C_MOVE] = 0
                cursor[R.C_ROUND] = 0
            _python_game(
                rules_arr, strategies, entries[i], int(seeds[i]), int(gid), run_seed,
                log_moves, LogBuffers(moves, rounds, games, cursor),
            )  # fmt: skip
        parts_m.append(moves[: cursor[R.C_MOVE]] if log_moves else moves[:0])
        parts_r.append(rounds[: cursor[R.C_ROUND]])
    return ChunkLogs(
        moves=np.concatenate(parts_m) if parts_m else np.empty((0, R.N_MOVE_COLUMNS), np.int64),
        rounds=np.concatenate(parts_r),
        games=games,
        entries=entries,
        deal_seeds=seeds,
    )
