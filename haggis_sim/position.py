"""Playing a round or a game step by step from Python: a thin layer over the engine.

Every action is verified by the compiled ``check_action`` before the compiled
``apply_action`` runs, so an illegal action raises :class:`IllegalAction` and leaves the
state exactly as it was. An :class:`Action` is carried out only for the seat it was made
for (``Action.seat``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, cast

import numpy as np

from .cards import Cards, parse_cards
from .combos import Combo, beats, kind_type, readings
from .engine import layout as L
from .engine import state as S
from .errors import IllegalAction, InputError
from .rules import Rules

Phase = Literal["play", "give_trick", "give_haggis", "round_over", "game_over"]
# the engine's phase names, indexed by its PH_* codes (tests check they match ``Phase``)
PHASES = cast(tuple[Phase, ...], L.PHASES)

_MESSAGES = {
    S.E_OVER: "the round is over",
    S.E_PHASE: "that action is not possible now",
    S.E_NOT_HELD: "cards not held",
    S.E_NOT_COMBO: "not a combination",
    S.E_NO_BEAT: "does not beat the top play",
    S.E_LEAD_PASS: "the leader must play, not pass",
    S.E_BET_PLAYED: "cannot bet after having played a card",
    S.E_BET_TWICE: "a second bet is not allowed",
    S.E_BET_VALUE: "bet value not allowed by these rules",
    S.E_GIVE_TARGET: "must give to an opponent",
    S.E_BAD_ACTION: "malformed action",
}


@dataclass(frozen=True)
class Action:
    """One action in a round's history: a bet, a play, a pass or a give."""

    seat: int
    type: Literal["bet", "play", "pass", "give"]
    code: int
    combo: Combo | None = None
    value: int = 0  # bet value, or the seat given to

    def __str__(self) -> str:
        if self.type == "bet":
            return f"seat {self.seat} bets {self.value}"
        if self.type == "pass":
            return f"seat {self.seat} passes"
        if self.type == "give":
            return f"seat {self.seat} gives to seat {self.value}"
        return f"seat {self.seat} plays {self.combo}"


def action_from_code(seat: int, code: int) -> Action:
    """The :class:`Action` of a packed engine action."""
    t = (code >> L.TYPE_SHIFT) & 7
    if t == L.T_BET:
        return Action(seat, "bet", code, value=code & 255)
    if t == L.T_GIVE:
        return Action(seat, "give", code, value=code & 7)
    if t == L.T_PASS:
        return Action(seat, "pass", code)
    return Action(seat, "play", code, combo=Combo(code))


@dataclass(frozen=True)
class Observation:
    """What one seat knows (RULES.md section 9): its own hand and public information.

    Immutable and hashable: two observations are equal (and hash equal) exactly when
    they are of the same seat and every entry of their engine arrays is equal, so they
    can be compared, put in sets and used as dict keys (e.g. to cache decisions).

    Fields: ``seat``, ``players``, ``to_act`` (None outside play), ``leader``,
    ``trick_no``: ints; ``phase``: a :data:`Phase` name; ``hand``, ``trick_cards``:
    :class:`~haggis_sim.cards.Cards`; ``top``: the :class:`~haggis_sim.combos.Combo` on
    the table or None; ``top_seat``: its seat or None; per seat, in seat order:
    ``hand_sizes``, ``bets`` (0: none), ``scores`` (game points before this round) as
    ints, ``faces_held`` (e.g. ``"JK"``), ``has_played`` (bools), ``captured``
    (Cards); ``out_order``: seats in the order they went out. :attr:`array` is the
    engine's observation array (``haggis_sim.kernel.observe``) that compiled strategies
    receive; it is kept as bytes (``raw``) so that the observation stays immutable.
    """

    seat: int
    players: int
    phase: Phase
    to_act: int | None
    hand: Cards
    hand_sizes: tuple[int, ...]
    faces_held: tuple[str, ...]
    bets: tuple[int, ...]
    has_played: tuple[bool, ...]
    top: Combo | None
    top_seat: int | None
    leader: int
    trick_no: int
    trick_cards: Cards
    captured: tuple[Cards, ...]
    out_order: tuple[int, ...]
    scores: tuple[int, ...]
    raw: bytes = field(repr=False)  # the int64 observation array, native byte order

    @property
    def array(self) -> np.ndarray:
        """The engine's observation array (int64; a fresh copy, free to modify)."""
        return np.frombuffer(self.raw, dtype=np.int64).copy()

    @classmethod
    def from_array(cls, obs: np.ndarray, seat: int) -> Observation:
        """The observation of ``seat`` from an engine observation array (``observe``)."""
        n = int(obs[L.S_NP])
        phase = PHASES[int(obs[L.S_PHASE])]
        to_act = int(obs[L.S_TO_ACT])
        top = int(obs[L.S_TOP])
        top_seat = int(obs[L.S_TOP_SEAT])
        return cls(
            seat=seat,
            players=n,
            phase=phase,
            to_act=None if to_act < 0 or phase in ("round_over", "game_over") else to_act,
            hand=Cards.from_mask(int(obs[L.S_HAND + seat])),
            hand_sizes=tuple(int(obs[L.S_SIZE + s]) for s in range(n)),
            faces_held=tuple(
                "".join("JQK"[f] for f in range(3) if obs[L.S_HAND + s] >> (45 + 3 * s + f) & 1)
                for s in range(n)
            ),
            bets=tuple(int(obs[L.S_BET + s]) for s in range(n)),
            has_played=tuple(bool(obs[L.S_PLAYED + s]) for s in range(n)),
            top=Combo(top) if top else None,
            top_seat=None if top_seat < 0 else top_seat,
            leader=int(obs[L.S_LEADER]),
            trick_no=int(obs[L.S_TRICK_NO]),
            trick_cards=Cards.from_mask(int(obs[L.S_TRICK_CARDS])),
            captured=tuple(Cards.from_mask(int(obs[L.S_CAPT + s])) for s in range(n)),
            out_order=tuple(int(obs[L.S_OUT + i]) for i in range(int(obs[L.S_N_OUT]))),
            scores=tuple(int(obs[L.S_SCORE + s]) for s in range(n)),
            raw=np.ascontiguousarray(obs, dtype=np.int64).tobytes(),
        )

    @property
    def played_cards(self) -> Cards:
        """Every card played so far this round (captured piles and the current trick)."""
        total = self.trick_cards
        for pile in self.captured:
            total = total | pile
        return total


class _Position:
    """State shared by :class:`Round` and :class:`Game`: the engine array and its history."""

    rules: Rules
    _st: np.ndarray
    history: list[Action]

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._st = S.init_state(rules.to_array())
        self.history = []

    # --- reading the state -------------------------------------------------------------
    @property
    def state_array(self) -> np.ndarray:
        """A copy of the engine state (full information: for tests and tools)."""
        return self._st.copy()

    @property
    def phase(self) -> Phase:
        return PHASES[int(self._st[L.S_PHASE])]

    @property
    def to_act(self) -> int | None:
        """The seat to act (bet, play, pass or give), ``None`` when the round is over."""
        seat = int(self._st[L.S_TO_ACT])
        return None if seat < 0 or self.phase in ("round_over", "game_over") else seat

    @property
    def players(self) -> int:
        return self.rules.players

    def hand(self, seat: int) -> Cards:
        self._check_seat(seat)
        return Cards.from_mask(int(self._st[L.S_HAND + seat]))

    def hand_size(self, seat: int) -> int:
        self._check_seat(seat)
        return int(self._st[L.S_HAND + seat]).bit_count()

    def captured(self, seat: int) -> Cards:
        self._check_seat(seat)
        return Cards.from_mask(int(self._st[L.S_CAPT + seat]))

    @property
    def haggis(self) -> Cards:
        """The Haggis while nobody has captured it."""
        return Cards.from_mask(int(self._st[L.S_HAGGIS]))

    @property
    def trick_cards(self) -> Cards:
        return Cards.from_mask(int(self._st[L.S_TRICK_CARDS]))

    @property
    def top(self) -> Combo | None:
        code = int(self._st[L.S_TOP])
        return Combo(code) if code else None

    @property
    def top_seat(self) -> int | None:
        seat = int(self._st[L.S_TOP_SEAT])
        return None if seat < 0 else seat

    @property
    def leader(self) -> int:
        """The leader of the current trick."""
        return int(self._st[L.S_LEADER])

    @property
    def trick_no(self) -> int:
        return int(self._st[L.S_TRICK_NO])

    @property
    def bets(self) -> tuple[int, ...]:
        return tuple(int(self._st[L.S_BET + s]) for s in range(self.players))

    @property
    def out_order(self) -> tuple[int, ...]:
        return tuple(int(self._st[L.S_OUT + i]) for i in range(int(self._st[L.S_N_OUT])))

    @property
    def shepherd(self) -> int | None:
        order = self.out_order
        return order[0] if order else None

    @property
    def last_receiver(self) -> int | None:
        """Who received the last finished trick of this round."""
        seat = int(self._st[L.S_LAST_RECEIVER])
        return None if seat < 0 else seat

    @property
    def haggis_to(self) -> int | None:
        """Who captured the Haggis this round (None: nobody, or not yet)."""
        seat = int(self._st[L.S_HAGGIS_TO_SEAT])
        return None if seat < 0 else seat

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act (bets, plays, pass, gives)."""
        if self.to_act is None:
            return []
        out = np.empty(L.MAX_MOVES, dtype=np.int64)
        n = S.legal_actions(self._st, out, True)
        return [action_from_code(self.to_act, int(x)) for x in out[:n]]

    def observation(self, seat: int) -> Observation:
        """What ``seat`` knows now; never another player's suit cards or the Haggis."""
        self._check_seat(seat)
        return Observation.from_array(S.observe(self._st, seat), seat)

    # --- acting --------------------------------------------------------------------------
    def _check_seat(self, seat: int) -> None:
        if (
            not isinstance(seat, int | np.integer)
            or isinstance(seat, bool)
            or not 0 <= seat < self.players
        ):
            raise IllegalAction(f"bad seat {seat!r}: seats are 0..{self.players - 1}")

    def _check_turn(self, seat: int) -> None:
        self._check_seat(seat)
        if self.to_act is None:
            raise IllegalAction(f"seat {seat}: the round is over")
        if seat != self.to_act:
            raise IllegalAction(f"seat {seat} acted out of turn: seat {self.to_act} is to act")

    def _verify(self, seat: int, code: int, what: str) -> None:
        """The verify half: the compiled ``check_action`` for the seat to act; changes nothing."""
        err = int(S.check_action(self._st, np.int64(code)))
        if err:
            raise IllegalAction(f"seat {seat} cannot {what}: {_MESSAGES[err]}")

    def _apply(self, seat: int, code: int, what: str) -> Action:
        self._verify(seat, code, what)
        S.apply_action(self._st, np.int64(code))
        action = action_from_code(seat, code)
        self.history.append(action)
        self._after_action()
        return action

    def _after_action(self) -> None:
        """Hook: a game deals the next round when one ends."""

    def _resolve(self, action: Action | int) -> tuple[int, int]:
        """The seat to act and the packed code of ``action``, or IllegalAction.

        An :class:`Action` carries the seat it was made for (``legal_actions``,
        ``action_from_code``): it is accepted only at that seat's turn, so an action made
        for one seat is never carried out for another. A bare packed code has no seat and
        is taken for the seat to act.
        """
        seat = self.to_act
        if seat is None:
            raise IllegalAction("the round is over")
        if isinstance(action, Action):
            code = action.code
            if not isinstance(code, int | np.integer) or isinstance(code, bool):
                raise IllegalAction(f"malformed action {action!r}: its code is not an integer")
            self._check_seat(action.seat)
            if action.seat != seat:
                raise IllegalAction(
                    f"seat {action.seat} acted out of turn ({action}): seat {seat} is to act"
                )
            if action != action_from_code(seat, int(code)):
                raise IllegalAction(
                    f"malformed action {action!r}: its fields do not match its code"
                )
            return seat, int(code)
        if not isinstance(action, int | np.integer) or isinstance(action, bool):
            raise IllegalAction(f"not an action: {action!r} (an Action or a packed engine action)")
        return seat, int(action)

    def check_action(self, action: Action | int) -> None:
        """Verify ``action`` as :meth:`apply_action` would, without changing anything.

        Raises :class:`IllegalAction` saying why (an :class:`Action` made for another
        seat than the one to act included); returns quietly when the action is legal now.
        """
        seat, code = self._resolve(action)
        self._verify(seat, code, "do that")

    def apply_action(self, action: Action | int) -> Action:
        """Apply a legal action given as an :class:`Action` or a packed engine action.

        An :class:`Action` must be one made for the seat to act (its ``seat``); otherwise,
        as for any illegal action, :class:`IllegalAction` is raised and nothing changes.
        """
        seat, code = self._resolve(action)
        return self._apply(seat, code, "do that")

    def bet(self, seat: int, value: int) -> None:
        """Declare a bet of ``value`` points (before one's first play, at one's own turn):
        a Baby, Little or Big bet as the rules' ``bet_points`` score it; the turn stays."""
        self._check_turn(seat)
        if not isinstance(value, int | np.integer) or not 0 < value < 256:
            raise IllegalAction(f"seat {seat} cannot bet {value!r}: bet value not allowed")
        self._apply(seat, (L.T_BET << L.TYPE_SHIFT) | int(value), f"bet {value}")

    def pass_(self, seat: int) -> None:
        """Pass in the current trick."""
        self._check_turn(seat)
        self._apply(seat, 0, "pass")

    def give(self, seat: int, to_seat: int) -> None:
        """Answer a pending 'who receives' decision: a bombed trick or the Haggis."""
        self._check_turn(seat)
        self._check_seat(to_seat)
        self._apply(seat, (L.T_GIVE << L.TYPE_SHIFT) | int(to_seat), f"give to seat {to_seat}")

    def play(
        self,
        seat: int,
        cards: Cards | str,
        kind: str | None = None,
        rank: int | None = None,
        width: int | None = None,
        length: int | None = None,
    ) -> Combo:
        """Play ``cards`` as one of their readings; return the :class:`Combo` played.

        ``kind``, ``rank``, ``width`` and ``length`` pick a reading. Without them the
        highest reading that is legal now is played; when leading, cards that read as
        several kinds (or several shapes) need ``kind`` (and ``width``/``length``).
        """
        self._check_turn(seat)
        try:
            played = parse_cards(cards)
            ktype = None if kind is None else kind_type(kind)
        except ValueError as exc:
            raise IllegalAction(f"seat {seat} cannot play {cards!r}: {exc}") from None
        label = f"play {played}"
        if self.phase != "play":
            raise IllegalAction(f"seat {seat} cannot {label}: a give decision is pending")
        if (
            played.highest_suit >= self.rules.n_suits
            or max(played.jacks, played.queens, played.kings) > 1
            or not played.issubset(self.hand(seat))
        ):
            raise IllegalAction(f"seat {seat} cannot {label}: cards not held")
        if len(played) == 0:
            raise IllegalAction(f"seat {seat} cannot play no cards: not a combination")
        options = readings(played, self.rules)
        if not options:
            raise IllegalAction(f"seat {seat} cannot {label}: not a combination")
        for name, want in (("rank", rank), ("width", width), ("length", length)):
            if want is not None:
                options = [c for c in options if getattr(c, name) == want]
        if ktype is not None:
            options = [c for c in options if c.kind == kind]
        if not options:
            raise IllegalAction(f"seat {seat} cannot {label}: no such reading of these cards")
        top = self.top
        legal = [c for c in options if beats(c, top)]
        if not legal:
            raise IllegalAction(f"seat {seat} cannot {label}: does not beat the top play")
        shapes = {(c.kind, c.width, c.length) for c in legal}
        if len(shapes) > 1:
            listing = "; ".join(sorted({c.describe() for c in legal}))
            raise IllegalAction(
                f"seat {seat} cannot {label}: the cards read several ways ({listing}); "
                "name the kind (and width/length)"
            )
        choice = max(legal, key=lambda c: c.rank)
        self._apply(seat, choice.code, label)
        return choice

    # --- results -------------------------------------------------------------------------
    @property
    def round_over(self) -> bool:
        return self.phase in ("round_over", "game_over")

    def _round_scores(self) -> list[dict[str, int]]:
        st = self._st
        return [
            {
                "going_out": int(st[L.S_GO + s]),
                "cards": int(st[L.S_SC_CARDS + s]),
                "bets": int(st[L.S_SC_BETS + s]),
                "bonus": int(st[L.S_SC_BONUS + s]),
                "total": int(st[L.S_SC_TOTAL + s]),
            }
            for s in range(self.players)
        ]


class Round(_Position):
    """One round from any position: given hands, Haggis and leader.

    >>> import haggis_sim as hs
    >>> rules = hs.Rules.preset("revised", players=2)
    >>> rnd = hs.Round(rules, hands=["3a 4a 5a J", "9a 9b K"], haggis="2b 3b", leader=0)
    >>> rnd.play(0, "3a 4a 5a J").describe()
    'run to 6'
    >>> rnd.over, rnd.scores()[0]["going_out"]
    (True, 15)
    """

    def __init__(
        self,
        rules: Rules,
        hands: list[str] | list[Cards] | tuple[str | Cards, ...],
        haggis: str | Cards = "",
        leader: int = 0,
    ) -> None:
        super().__init__(rules)
        n = rules.players
        if len(hands) != n:
            raise InputError(f"{n} players need {n} hands, got {len(hands)}")
        if not isinstance(leader, int) or isinstance(leader, bool) or not 0 <= leader < n:
            raise InputError(f"bad leader {leader!r}: seats are 0..{n - 1}")
        parsed = [parse_cards(h) for h in hands]
        hag = parse_cards(haggis)
        if hag.n_faces:
            raise InputError("the Haggis holds suit cards only")
        seen = 0
        masks = np.zeros(3, dtype=np.int64)
        for seat, cards in enumerate([*parsed, hag]):
            if cards.highest_suit >= rules.n_suits:
                raise InputError(f"suit e is not in play with {n} players: {cards}")
            if cards.suits & seen:
                dup = Cards(cards.suits & seen)
                raise InputError(f"card(s) {dup} appear in more than one hand or the Haggis")
            seen |= cards.suits
            if seat < n:
                if len(cards) == 0:
                    raise InputError(f"seat {seat} has no cards")
                masks[seat] = cards.seat_mask(seat)
        S.start_round(self._st, masks, np.int64(hag.suits), leader, (leader + n - 1) % n)

    @property
    def over(self) -> bool:
        """Whether the round has ended (scores are final)."""
        return self.round_over

    def scores(self) -> list[dict[str, int]]:
        """One dict per seat: going_out, cards, bets, bonus, total (when the round is over)."""
        if not self.over:
            raise ValueError("the round is not over yet; scores are settled at its end")
        return self._round_scores()


@dataclass(frozen=True)
class RoundResult:
    """A finished round of a :class:`Game`."""

    number: int
    dealer: int
    leader: int
    out_order: tuple[int, ...]
    bets: tuple[int, ...]
    scores: tuple[dict[str, int], ...]
    history: tuple[Action, ...]
    captured: tuple[Cards, ...]
    final_trick_to: int
    haggis_to: int | None
    black_sheep_left: Cards


class Game(_Position):
    """A whole game dealt from a seed: rounds until the target score or round count.

    >>> import haggis_sim as hs
    >>> game = hs.Game(hs.Rules.preset("revised", players=2), seed=7)
    >>> game.round_no, game.over
    (0, False)
    """

    def __init__(self, rules: Rules, seed: int = 0, game_id: int = 0) -> None:
        super().__init__(rules)
        self.seed = int(seed)
        self.game_id = int(game_id)
        self.rounds: list[RoundResult] = []
        self._round_start = 0
        S.start_game(self._st, game_seed(self.seed, self.game_id))

    @property
    def round_no(self) -> int:
        """Number of finished rounds."""
        return int(self._st[L.S_ROUND_NO])

    @property
    def dealer(self) -> int:
        return int(self._st[L.S_DEALER])

    @property
    def first_leader(self) -> int:
        return int(self._st[L.S_FIRST_LEADER])

    @property
    def over(self) -> bool:
        return self.phase == "game_over"

    @property
    def winner(self) -> int | None:
        w = int(self._st[L.S_WINNER])
        return None if w < 0 else w

    @property
    def scores(self) -> tuple[int, ...]:
        """Game totals over the finished rounds."""
        return tuple(int(self._st[L.S_SCORE + s]) for s in range(self.players))

    def _after_action(self) -> None:
        if self.phase != "round_over":
            return
        self.rounds.append(
            RoundResult(
                number=self.round_no + 1,
                dealer=self.dealer,
                leader=self.first_leader,
                out_order=self.out_order,
                bets=self.bets,
                scores=tuple(self._round_scores()),
                history=tuple(self.history[self._round_start :]),
                captured=tuple(self.captured(s) for s in range(self.players)),
                final_trick_to=self.last_receiver if self.last_receiver is not None else -1,
                haggis_to=self.haggis_to,
                black_sheep_left=Cards.from_mask(int(self._st[L.S_BLACK_LEFT])),
            )
        )
        S.next_round(self._st)
        self._round_start = len(self.history)


def game_seed(seed: int, game_id: int) -> int:
    """The deal seed of game ``game_id`` of a run seeded ``seed``."""
    from .engine.rng import derive

    return int(derive(np.int64(seed), np.int64(game_id)))
