"""One logged game rebuilt through the engine as the frames of a step-through viewer.

:func:`build_view` deals the game again (the run's rules, the game's deal seed), feeds
it the logged actions one by one through :class:`~haggis_sim.analytics.replay.LogCursor`
(each checked against the engine, every round's scores too; a disagreement raises
:class:`~haggis_sim.analytics.replay.ReplayMismatch`) and records a *frame* after every
step: all hands (the viewer is an after-the-fact view, so hidden cards are shown), the
trick on the table, bets, captured piles, game totals and what just happened. The result
is plain JSON-ready data; :mod:`.game_page` turns it into the self-contained HTML page.

With an :class:`AltRequest`, each decision of the chosen seats that had two or more
legal actions is also scored by the decision analysis (:mod:`strategies.shortlist`, as
``haggis-sim play``'s hint) from the acting seat's observation only, seeded from the run
seed, the game id and the action's index in the game: the frame of that action carries
the scored alternatives. These are scored when the page is built, not what the search
weighed at play time (``run`` does not log that).

Frames come in *segments*, the units the viewer steps by trick: a round's deal, each
trick (its bets, plays, passes and gives), the round's end, and the game's end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..analytics.replay import LogCursor, LoggedGame, load_game, start_game
from ..cards import Cards
from ..combos import Combo, rank_name
from ..errors import InputError
from ..kernel import S_CAPT, card_points, derive
from ..logs.manifest import load_manifest
from ..position import Action, Game, Observation, RoundResult
from ..strategy_spec import StrategySpec

SCORE_KEYS = ("going_out", "cards", "bets", "bonus", "total")
#: said on the page for mcts seats: the search's alternatives are not in the logs
MCTS_NOTE = (
    "mcts seats: the alternatives the search considered are not logged by haggis-sim run, "
    "so only the moves played are shown."
)


@dataclass(frozen=True)
class AltRequest:
    """Score the alternatives of the chosen seats' decisions while building the view.

    ``seats``: ``"mcts"`` (the seats whose strategy is mcts), ``"all"``, or seat numbers.
    """

    samples: int = 100
    seats: str | tuple[int, ...] = "mcts"


def parse_seats(text: str) -> str | tuple[int, ...]:
    """``--seats``: ``mcts``, ``all`` or seat numbers like ``0,2``; InputError otherwise."""
    t = text.strip().lower()
    if t in ("mcts", "all"):
        return t
    parts = [p.strip() for p in t.split(",")]
    if not t or not all(p.isdigit() for p in parts):
        raise InputError(f"--seats takes mcts, all or seat numbers like 0,2; got {text!r}")
    return tuple(sorted({int(p) for p in parts}))


def _label(samples: int) -> str:
    return (
        f"Alternatives: scored when this page was built by the decision analysis ({samples} "
        "samples per alternative, the acting seat's information only) — not the search's own "
        "visit counts at play time."
    )


@dataclass
class _Decision:
    """A decision to score: the action frame it belongs to and what the seat knew."""

    frame: int
    index: int  # the action's index in the game (0 = its first action)
    observation: Observation
    legal: list[Action]
    played: Action


def build_view(
    run_dir: Path,
    game_id: int,
    alternatives: AltRequest | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The viewer's data for game ``game_id`` of a run logged with moves.

    With ``alternatives``, the chosen seats' decisions are scored too (see the module
    docstring); ``on_progress(done, total)`` is called as decisions are scored.
    InputError (one line for people) for a folder that is not a run, a run without move
    log, an unknown game, a damaged log part, ``samples`` < 1 or seats not in the game;
    ReplayMismatch where the log and the engine disagree.
    """
    if alternatives is not None and alternatives.samples < 1:
        raise InputError(f"--samples must be at least 1, got {alternatives.samples}")
    if not load_manifest(run_dir).config.log_moves:
        raise InputError(
            f"run {run_dir} has no move log (made with --no-log-moves): the viewer rebuilds "
            "the game from its moves; play the run again without --no-log-moves"
        )
    logged = load_game(run_dir, game_id)
    builder = _Builder(logged)
    if alternatives is not None:
        builder.scored_seats = _chosen_seats(alternatives.seats, logged)
    view = builder.build()
    if alternatives is not None:
        _score(builder, alternatives.samples, on_progress)
        view["notes"] = [_label(alternatives.samples)]
        view["alternatives"] = {
            "samples": alternatives.samples,
            "seats": sorted(builder.scored_seats),
            "decisions": len(builder.decisions),
            "label": _label(alternatives.samples),
        }
    return view


def _chosen_seats(seats: str | tuple[int, ...], logged: LoggedGame) -> set[int]:
    """The seats whose decisions are scored; InputError if none, or one not in the game."""
    n = logged.rules.players
    strategies = [str(logged.row[f"strategy_{k}"]) for k in range(n)]
    if seats == "all":
        return set(range(n))
    if seats == "mcts":
        chosen = {k for k, s in enumerate(strategies) if StrategySpec.parse(s).name == "mcts"}
        if not chosen:
            raise InputError(
                f"game {logged.game_id} has no mcts seat ({', '.join(strategies)}): "
                "give --seats all or seat numbers to score other seats"
            )
        return chosen
    assert isinstance(seats, tuple)
    bad = [k for k in seats if k >= n]
    if bad:
        raise InputError(f"--seats: seat {bad[0]} is not in this {n}-player game (seats 0-{n - 1})")
    return set(seats)


def seat_labels(specs: list[str]) -> list[str]:
    """A short label per seat's strategy spec, for the page's header and seat boxes.

    The strategy's name, plus only the parameters in which its spec differs from another
    seat's spec of the same name: ``mcts`` against ``heuristic``, ``mcts:iters=100`` against
    ``mcts:iters=400`` (the full spec, a line of a dozen parameters, goes on hover and in a
    fold). Where that would not tell two different specs apart, the full specs.
    """
    parsed = [(r.name, r.values()) for r in map(StrategySpec.parse, specs)]
    labels = []
    for name, params in parsed:
        alike = [other for n, other in parsed if n == name]
        keys = [k for k in params if len({other.get(k) for other in alike}) > 1]
        labels.append(name + (":" + ",".join(f"{k}={params[k]}" for k in keys) if keys else ""))
    if len(set(labels)) < len(set(specs)):
        return list(specs)
    return labels


def _alt_text(action: Action) -> str:
    """An alternative without its seat: ``pass``, ``bet 15``, ``give to seat 2``, a play."""
    if action.type == "play":
        return str(action.combo)
    if action.type == "bet":
        return f"bet {action.value}"
    if action.type == "give":
        return f"give to seat {action.value}"
    return "pass"


def _score(builder: _Builder, samples: int, on_progress: Callable[[int, int], None] | None) -> None:
    """Score each recorded decision and put its alternatives in its action frame."""
    from strategies.shortlist import score_shortlist

    logged = builder.logged
    base = derive(np.int64(logged.manifest.seed), np.int64(logged.game_id))
    total = len(builder.decisions)
    if on_progress is not None:
        on_progress(0, total)
    for done, d in enumerate(builder.decisions, 1):
        seed = int(derive(base, d.index))  # as play's hint: run seed, game id, action index
        scored = score_shortlist(
            d.observation, d.legal, samples=samples, seed=seed, keep=[d.played]
        )
        best = scored.alternatives[0].action.code
        builder.frames[d.frame]["alts"] = {
            "seed": seed,
            "note": scored.note,
            "rows": [
                {
                    "text": _alt_text(a.action),
                    "value": round(a.value, 4),
                    "stderr": round(a.stderr, 4),
                    "margin": round(a.margin, 2),
                    "margin_stderr": round(a.margin_stderr, 2),
                    "played": a.action.code == d.played.code,
                    "best": a.action.code == best,
                }
                for a in scored.alternatives
            ],
        }
        if on_progress is not None:
            on_progress(done, total)


def _tokens(cards: Cards) -> list[str]:
    """Cards in the notation of :mod:`haggis_sim.cards`, sorted (suit cards by rank, then J Q K)."""
    return list(cards)


def _without(hand: list[str], played: list[str]) -> list[str]:
    gone = set(played)
    return [c for c in hand if c not in gone]


class _Builder:
    """Walks the logged game through the engine and collects its frames."""

    def __init__(self, logged: LoggedGame) -> None:
        self.logged = logged
        self.rules = logged.rules
        self.n = logged.rules.players
        self.game: Game = start_game(logged)
        self.cursor = LogCursor(logged)
        self.frames: list[dict[str, Any]] = []
        self.segment = -1
        self.trick: list[dict[str, Any]] = []
        self.scored_seats: set[int] = set()  # seats whose decisions are recorded to score
        self.decisions: list[_Decision] = []
        self.actions = 0  # actions taken in the game so far

    # --- state ---------------------------------------------------------------------------
    def _captured(self) -> list[list[int]]:
        st = self.game.state_array
        return [
            [len(self.game.captured(s)), int(card_points(st, np.int64(st[S_CAPT + s])))]
            for s in range(self.n)
        ]

    def _frame(self, kind: str, head: str, **fields: Any) -> None:
        g = self.game
        frame: dict[str, Any] = {
            "kind": kind,
            "segment": self.segment,
            "round": g.round_no,
            "trick": g.trick_no,
            "head": head,
            "notes": [],
            "seat": None,
            "act": None,
            "to_act": g.to_act,
            "hands": [_tokens(g.hand(s)) for s in range(self.n)],
            "trick_plays": list(self.trick),
            "bets": list(g.bets),
            "captured": self._captured(),
            "totals": list(g.scores),
            "haggis": _tokens(g.haggis),
            "out": list(g.out_order),
        }
        frame.update(fields)
        self.frames.append(frame)

    # --- the walk ------------------------------------------------------------------------
    def build(self) -> dict[str, Any]:
        g = self.game
        while not g.over:  # every action is checked legal by the cursor before it is applied
            self._deal()
            round_no = g.round_no
            while g.round_no == round_no:
                self._step()
        self.cursor.finish(g)
        self.segment += 1
        winner = g.winner
        self._frame(
            "game_end",
            f"Game over after {g.round_no} rounds: seat {winner} wins",
            round=g.round_no - 1,
            notes=[f"final totals: {', '.join(f'seat {s} {t}' for s, t in enumerate(g.scores))}"],
            hands=self.frames[-1]["hands"],
            captured=self.frames[-1]["captured"],
            haggis=self.frames[-1]["haggis"],
            out=self.frames[-1]["out"],
        )
        return self._game_data()

    def _deal(self) -> None:
        g = self.game
        self.segment += 1
        self.trick = []
        self._frame(
            "deal",
            f"Round {g.round_no + 1}: dealer seat {g.dealer}, seat {g.first_leader} leads",
            notes=[f"totals before the round: {list(g.scores)}"],
        )
        self.segment += 1  # the first trick

    def _step(self) -> None:
        g = self.game
        seat = g.to_act
        assert seat is not None
        phase = g.phase
        round_no, trick_no = g.round_no, g.trick_no
        hands_before = [_tokens(g.hand(s)) for s in range(self.n)]
        legal = g.legal_actions() if seat in self.scored_seats else []
        observation = g.observation(seat) if len(legal) > 1 else None
        action = g.apply_action(self.cursor.next_action(g))
        if observation is not None:  # its action frame is the next one appended
            self.decisions.append(_Decision(len(self.frames), self.actions, observation, legal,
                                            action))  # fmt: skip
        self.actions += 1
        row = self.cursor.row
        ended = g.round_no != round_no
        result = g.rounds[-1] if ended else None
        act, text = self._describe(action, phase)
        notes: list[str] = []
        if act["cards"]:
            self.trick.append({"seat": seat, "text": act["reading"], "kind": act["kind"],
                               "cards": act["cards"]})  # fmt: skip
        elif action.type == "pass":
            self.trick.append({"seat": seat, "text": "pass", "kind": "pass", "cards": []})
        if result is not None:
            hands = [list(h) for h in hands_before]
            hands[seat] = _without(hands[seat], act["cards"])
        else:
            hands = [_tokens(g.hand(s)) for s in range(self.n)]
        if action.type == "play" and not hands[seat]:
            most = max(len(hands[o]) for o in range(self.n) if o != seat)
            notes.append(f"seat {seat} goes out: 5 × {most} = {5 * most} points")
        if result is not None or g.trick_no != trick_no:
            notes.append(self._capture_note(result))
        fields: dict[str, Any] = {
            "round": round_no,
            "trick": trick_no,
            "seat": seat,
            "act": {**act, "turn": row["turn"]},
            "notes": notes,
            "hands": hands,
            "trick_plays": list(self.trick),
        }
        if result is not None:
            self.cursor.check_round(result)  # the logged round scores shown are the engine's
            fields.update(self._round_fields(result, round_no))
            fields["to_act"] = None
        self._frame("action", text, **fields)
        if result is not None:
            self._round_end(result, hands)
        elif g.trick_no != trick_no:
            self.trick = []
            self.segment += 1

    def _describe(self, action: Action, phase: str) -> tuple[dict[str, Any], str]:
        """The action as data, and its headline."""
        s = action.seat
        act: dict[str, Any] = {"type": action.type, "kind": action.type, "reading": "",
                               "rank": "", "cards": [], "value": action.value}  # fmt: skip
        if action.type == "play":
            combo = action.combo
            assert isinstance(combo, Combo)
            act.update(kind=combo.kind, reading=combo.describe(), cards=_tokens(combo.cards))
            act["rank"] = f"order {combo.rank}" if combo.is_bomb else rank_name(combo.rank)
            return act, f"seat {s} plays {combo.describe()}: {combo.cards}"
        if action.type == "bet":
            return act, f"seat {s} bets {action.value}"
        if action.type == "pass":
            return act, f"seat {s} passes"
        what = "the Haggis" if phase == "give_haggis" else "the bombed trick"
        return act, f"seat {s} gives {what} to seat {action.value}"

    def _capture_note(self, result: RoundResult | None) -> str:
        """Who takes the trick that just ended, and why (a bomb gives it away)."""
        plays = [p for p in self.trick if p["cards"]]
        winner = plays[-1]["seat"] if plays else None
        cards = sum(len(p["cards"]) for p in plays)
        to = result.final_trick_to if result is not None else self.game.last_receiver
        final = "final trick" if result is not None else "trick"
        if plays and plays[-1]["kind"] == "bomb" and to != winner:
            return f"seat {winner}'s bomb wins the {final}: seat {to} takes it ({cards} cards)"
        return f"{final} to seat {to} ({cards} cards)"

    def _round_fields(self, result: RoundResult, round_no: int) -> dict[str, Any]:
        logged = self.logged.rounds[round_no]
        return {
            "captured": [[len(result.captured[s]), logged[f"cards_{s}"]] for s in range(self.n)],
            "bets": list(result.bets),
            "out": list(result.out_order),
            "totals": [t - logged[f"total_{s}"] for s, t in enumerate(self.game.scores)],
            "haggis": self._round_haggis(round_no),
        }

    def _round_end(self, result: RoundResult, hands: list[list[str]]) -> None:
        g = self.game
        round_no = result.number - 1
        self.segment += 1
        self.trick = []
        order = ", ".join(f"seat {s}" for s in result.out_order)
        notes = [f"out in order: {order}"]
        left = _tokens(result.black_sheep_left)
        black = [s for s in range(self.n) if s not in result.out_order]
        if left and black:
            notes.append(f"black sheep seat {black[0]} was left holding {' '.join(left)}")
        if result.haggis_to is None:
            notes.append("nobody captures the Haggis")
        else:
            notes.append(f"seat {result.haggis_to} captures the Haggis")
        logged = self.logged.rounds[round_no]
        for s in range(self.n):
            parts = ", ".join(f"{k.replace('_', ' ')} {logged[f'{k}_{s}']}" for k in SCORE_KEYS)
            notes.append(f"seat {s}: {parts}")
        fields = self._round_fields(result, round_no)
        fields["totals"] = list(g.scores)
        self._frame(
            "round_end",
            f"Round {round_no + 1} over: seat {result.out_order[0]} went out first",
            round=round_no,
            trick=self.frames[-1]["trick"],
            notes=notes,
            to_act=None,
            hands=hands,
            **fields,
        )

    def _round_haggis(self, round_no: int) -> list[str]:
        """The round's Haggis: the deal frame of the round shows it."""
        for f in reversed(self.frames):
            if f["kind"] == "deal" and f["round"] == round_no:
                return list(f["haggis"])
        return []

    # --- the game's data -----------------------------------------------------------------
    def _game_data(self) -> dict[str, Any]:
        logged, g = self.logged, self.game
        row = logged.row
        strategies = [str(row[f"strategy_{k}"]) for k in range(self.n)]
        totals = [0] * self.n
        rounds = []
        for r in logged.rounds:
            scores = [{k: r[f"{k}_{s}"] for k in SCORE_KEYS} for s in range(self.n)]
            totals = [t + sc["total"] for t, sc in zip(totals, scores, strict=True)]
            rounds.append(
                {
                    "round": r["round"],
                    "dealer": r["dealer"],
                    "leader": r["leader"],
                    "shepherd": r["shepherd"],
                    "haggis_to": r["haggis_to"],
                    "bets": [r[f"bet_{s}"] for s in range(self.n)],
                    "scores": scores,
                    "totals": totals,
                }
            )
        return {
            "run": str(logged.run_dir),
            "game_id": logged.game_id,
            "deal_id": row["deal_id"],
            "players": self.n,
            "rules": self.rules.label,
            "rule_flags": self.rules.as_dict(),
            "seed": logged.manifest.seed,
            "strategies": strategies,
            "winner": g.winner,
            "final": [row[f"score_{k}"] for k in range(self.n)],
            "rounds": rounds,
            "notes": [MCTS_NOTE]
            if any(StrategySpec.parse(s).name == "mcts" for s in strategies)
            else [],
            "frames": self.frames,
        }
