"""Readable transcripts of games: every round, trick by trick."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from .position import Action, Game, RoundResult
from .rules import Rules


def seat_rng(seed: int, game_id: int, seat: int) -> np.random.Generator:
    """The random generator of one seat in one game: from (seed, game id, seat) only."""
    return np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32 & 0xFFFFFFFF, game_id, seat])


def random_action(actions: list[Action], rng: np.random.Generator, bet_rate: float) -> Action:
    """A uniformly random legal action; a bet is declared with probability ``bet_rate``.

    The policy of the engine's compiled ``random_action`` (the ``random`` strategy), but
    drawn from a numpy generator over typed actions, as a Python strategy draws: its
    draws, and so the transcripts of ``haggis-sim play``, differ from a compiled random
    player's for the same seed, and are kept as they are.
    """
    bets = [a for a in actions if a.type == "bet"]
    rest = [a for a in actions if a.type != "bet"]
    if bets and rng.random() < bet_rate:
        return bets[int(rng.integers(len(bets)))]
    return rest[int(rng.integers(len(rest)))]


def narrate(
    game: Game,
    next_action: Callable[[Game], Action | int],
    on_round: Callable[[RoundResult], None] | None = None,
) -> Iterator[str]:
    """Play ``game`` to its end with ``next_action`` and yield its transcript lines.

    ``on_round`` sees every finished round (a replay checks it against the log there).
    """
    n = game.players
    while not game.over:
        yield ""
        yield (
            f"Round {game.round_no + 1}: dealer seat {game.dealer}, "
            f"seat {game.first_leader} leads; totals {list(game.scores)}"
        )
        for s in range(n):
            yield f"  seat {s}: {game.hand(s)}"
        yield f"  Haggis: {game.haggis}"
        round_no = game.round_no
        trick_no = game.trick_no
        yield f"  Trick 1, seat {game.leader} leads"
        while game.round_no == round_no and not game.over:
            seat = game.to_act
            assert seat is not None
            before = [len(game.captured(s)) for s in range(n)]
            action = game.apply_action(next_action(game))
            yield f"    {action}"
            if game.round_no == round_no and action.type == "play" and game.hand_size(seat) == 0:
                most = max(game.hand_size(o) for o in range(n) if o != seat)
                yield f"    seat {seat} goes out: 5 x {most} = {5 * most} points"
            if game.round_no != round_no:
                result = game.rounds[-1]
                if on_round is not None:
                    on_round(result)
                yield from _round_lines(result, n)
            elif game.trick_no != trick_no:
                to = game.last_receiver
                got = len(game.captured(to)) - before[to] if to is not None else 0
                yield f"    -> trick to seat {to} ({got} cards)"
                trick_no = game.trick_no
                yield f"  Trick {trick_no + 1}, seat {game.leader} leads"
    yield ""
    yield (
        f"Game over after {game.round_no} rounds: seat {game.winner} wins, "
        f"totals {list(game.scores)}"
    )


def _round_lines(result: RoundResult, n: int) -> Iterator[str]:
    yield f"    -> final trick to seat {result.final_trick_to}"
    haggis = "nobody" if result.haggis_to is None else f"seat {result.haggis_to}"
    yield (
        f"  Round over: out order {list(result.out_order)}, "
        f"black sheep kept {result.black_sheep_left or 'nothing'}, Haggis to {haggis}"
    )
    for s in range(n):
        sc = result.scores[s]
        yield (
            f"    seat {s}: going out {sc['going_out']:3d}  cards {sc['cards']:3d}  "
            f"bets {sc['bets']:3d}  bonus {sc['bonus']:2d}  = {sc['total']:3d}"
            + (f"  (bet {result.bets[s]})" if result.bets[s] else "")
        )


def play_random_game(rules: Rules, seed: int, bet_rate: float = 0.1) -> Iterator[str]:
    """Play one game between random players and yield its transcript line by line."""
    game = Game(rules, seed=seed)
    rngs = [seat_rng(seed, 0, s) for s in range(rules.players)]
    yield (
        f"haggis-sim game: seed {seed}, rules {rules.preset_name}, {rules.players} players, "
        f"random players (bet rate {bet_rate:g})"
    )

    def choose(g: Game) -> Action:
        seat = g.to_act
        assert seat is not None
        return random_action(g.legal_actions(), rngs[seat], bet_rate)

    yield from narrate(game, choose)
