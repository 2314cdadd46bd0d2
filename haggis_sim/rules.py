"""Rule flags and the six presets of RULES.md section 8.

>>> r = Rules.preset("revised", players=3)
>>> r.card_points, r.bet_values, r.first_out_bonus
('classic', (15, 30), 0)
>>> Rules.preset("classic", players=3, bomb_capture="tournament").bomb_capture
'tournament'
>>> Rules.preset("classic", players=3).first_out_bonus
5
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

import numpy as np

from .engine import layout as L
from .errors import InputError
from .presets import PRESETS

DEFAULT_PRESET = "revised"

# the value names of each choice flag, defined once in the engine's layout: the engine
# stores a value as its index there (the BC_*, HT_*, CP_*, BS_*, LT_*, GE_* constants)
CHOICES: dict[str, tuple[str, ...]] = {
    "bomb_capture": L.BOMB_CAPTURE,
    "haggis_to": L.HAGGIS_TO,
    "card_points": L.CARD_POINTS,
    "bet_settlement": L.BET_SETTLEMENT,
    "lead_tiebreak": L.LEAD_TIEBREAK,
    "game_end": L.GAME_END,
}
#: the bets by their published points, Baby 5, Little 15, Big 30: the names bet_values
#: offers them by, whatever points bet_points gives them
ALLOWED_BETS = L.BET_VALUES  # (5, 15, 30)
#: the numeric scoring knobs and their published values (RULES.md sections 4-6: 5 points
#: a card to a player going out; a captured J 2, Q 3, K 5 under card_points classic; a
#: Baby, Little and Big bet 5, 15 and 30)
PUBLISHED_KNOBS: dict[str, Any] = {
    "out_points": 5,
    "face_points": (2, 3, 5),
    "bet_points": ALLOWED_BETS,
}
#: the flags whose value is a tuple (a list in a JSON or TOML record)
LISTED_FLAGS = ("bet_values", "face_points", "bet_points")
_BET_NAMES = ("Baby", "Little", "Big")

_PRESET_FLAGS: dict[str, dict[str, Any]] = {
    "classic": {"first_out_bonus": "5 with 3 players"},
    "revised": {},
    "revised-split": {"bet_settlement": "split"},
    "deluxe": {
        "bet_values": (5, 15, 30),
        "card_points": "per_card",
        "lead_tiebreak": "left_of_previous_leader",
    },
    "aid": {"bet_values": (5, 15, 30), "bet_settlement": "threshold", "haggis_to": "last_to_play"},
    "haggish": {"haggis_to": "nobody"},
}
_PRESET_PLAYERS = {"revised-split": (3,), "haggish": (2,)}


@dataclass(frozen=True)
class Rules:
    """One complete set of rule flags (RULES.md); build it with :meth:`preset`.

    ``bet_values`` says which bets the rules offer, each named by its published points
    (5 Baby, 15 Little, 30 Big); ``bet_points`` says what the Baby, Little and Big bets
    score (strictly increasing, so a bet's points name its kind). A bet declared in a
    game carries its points under ``bet_points``.
    """

    players: int = 3
    preset_name: str = DEFAULT_PRESET
    bomb_capture: str = "winner_chooses"
    haggis_to: str = "shepherd"
    card_points: str = "classic"
    first_out_bonus: int = 0
    bet_values: tuple[int, ...] = (15, 30)
    bet_settlement: str = "takes_all"
    lead_tiebreak: str = "left_of_dealer"
    game_end: str = "target"
    target_score: int = 250
    rounds: int = 6
    out_points: int = 5
    face_points: tuple[int, int, int] = (2, 3, 5)
    bet_points: tuple[int, int, int] = (5, 15, 30)

    def __post_init__(self) -> None:
        if self.players not in (2, 3):
            raise InputError(f"players must be 2 or 3, not {self.players!r}")
        for flag, allowed in CHOICES.items():
            value = getattr(self, flag)
            if value not in allowed:
                raise InputError(
                    f"rule flag {flag} must be one of {', '.join(allowed)}; got {value!r}"
                )
        bets = self.bet_values
        if not isinstance(bets, tuple) or any(b not in ALLOWED_BETS for b in bets):
            raise InputError(f"bet_values must be a subset of 5, 15, 30; got {bets!r}")
        if len(set(bets)) != len(bets):
            raise InputError(f"bet_values repeats a value: {bets!r}")
        for name, lo, hi in (
            ("first_out_bonus", 0, 100),
            ("target_score", 1, 100000),
            ("rounds", 1, 1000),
            ("out_points", 0, 100),
        ):
            v = getattr(self, name)
            if not _is_int(v) or not lo <= v <= hi:
                raise InputError(f"rule flag {name} must be an integer {lo}..{hi}; got {v!r}")
        faces = self.face_points
        if not _three_ints(faces, 0, 100):
            raise InputError(
                f"face_points must be three integers 0..100 (a J, Q and K); got {faces!r}"
            )
        if faces != PUBLISHED_KNOBS["face_points"] and self.card_points != "classic":
            raise InputError(
                "face_points count under card_points=classic only (per_card scores 1 a "
                f"card); got face_points={_flag_text(faces)} with card_points={self.card_points}"
            )
        self._check_bet_points()

    def _check_bet_points(self) -> None:
        """``bet_points``: three whole numbers 1..255 (a bet move carries them in 8 bits),
        strictly increasing (a bet's points name its kind), the published value for a
        bet the rules do not offer (it would be silently ignored)."""
        points = self.bet_points
        if not _three_ints(points, 1, 255):
            raise InputError(
                "bet_points must be three integers 1..255 (a Baby, Little and Big bet); "
                f"got {points!r}"
            )
        if not points[0] < points[1] < points[2]:
            raise InputError(
                "bet_points must be strictly increasing (Baby < Little < Big); got "
                f"bet_points={_flag_text(points)}"
            )
        for name, published, v in zip(_BET_NAMES, ALLOWED_BETS, points, strict=True):
            if v != published and published not in self.bet_values:
                offered = _flag_text(self.bet_values) or "(none)"
                raise InputError(
                    f"bet_points gives the {name} bet {v} points, but bet_values={offered} "
                    f"does not offer it (its name there is {published}): keep its points at "
                    f"{published} or add {published} to bet_values"
                )

    @classmethod
    def flag_names(cls) -> tuple[str, ...]:
        """Names accepted as keyword overrides by :meth:`preset`."""
        return tuple(f.name for f in fields(cls) if f.name not in ("players", "preset_name"))

    @classmethod
    def preset(cls, name: str = DEFAULT_PRESET, players: int = 3, **overrides: Any) -> Rules:
        """The named preset for ``players`` players, with rule flags overridden by keyword.

        Raises ValueError for an unknown preset, flag or value, or a player count the
        preset does not allow.
        """
        if name not in PRESETS:
            raise InputError(f"unknown rules preset {name!r}; known: {', '.join(PRESETS)}")
        if players not in (2, 3):
            raise InputError(f"players must be 2 or 3, not {players!r}")
        if players not in _PRESET_PLAYERS.get(name, (2, 3)):
            raise InputError(f"preset {name!r} is for {_PRESET_PLAYERS[name][0]} players only")
        known = cls.flag_names()
        for key in overrides:
            if key not in known:
                raise InputError(f"unknown rule flag {key!r}; known: {', '.join(known)}")
        flags: dict[str, Any] = dict(_PRESET_FLAGS[name])
        if name == "classic":
            flags["first_out_bonus"] = 5 if players == 3 else 0
        flags.update(overrides)
        for listed in LISTED_FLAGS:
            if isinstance(flags.get(listed), list):
                flags[listed] = tuple(flags[listed])
        return cls(players=players, preset_name=name, **flags)

    def with_flags(self, **overrides: Any) -> Rules:
        """A copy with some flags changed (validated like :meth:`preset`)."""
        known = self.flag_names()
        for key in overrides:
            if key not in known:
                raise InputError(f"unknown rule flag {key!r}; known: {', '.join(known)}")
        return replace(self, **overrides)

    @property
    def label(self) -> str:
        """The preset name plus every flag changed from it: ``classic card_points=per_card``."""
        base = Rules.preset(self.preset_name, players=self.players).as_dict()
        mine = self.as_dict()
        diff = [f"{k}={_flag_text(v)}" for k, v in mine.items() if base.get(k) != v]
        return " ".join([self.preset_name, *diff])

    @property
    def n_suits(self) -> int:
        """Suits in play: 4 (a-d) with 2 players, 5 (a-e) with 3."""
        return 4 if self.players == 2 else 5

    def as_dict(self) -> dict[str, Any]:
        """All flags as plain values (for manifests and logs); a numeric knob of
        :data:`PUBLISHED_KNOBS` at its published value is left out, so a record of the
        published rules holds the flags the sources name, and its digest is theirs
        (:meth:`preset` and the constructor fill the knob in again)."""
        d = asdict(self)
        d["bet_values"] = list(self.bet_values)
        for name, published in PUBLISHED_KNOBS.items():
            if d[name] == published:
                del d[name]
            elif isinstance(published, tuple):
                d[name] = list(d[name])
        return d

    def to_array(self) -> np.ndarray:
        """The flags as the engine's int64 rules array."""
        a = np.zeros(L.N_RULES, dtype=np.int64)
        a[L.R_PLAYERS] = self.players
        a[L.R_BOMB_CAPTURE] = CHOICES["bomb_capture"].index(self.bomb_capture)
        a[L.R_HAGGIS_TO] = CHOICES["haggis_to"].index(self.haggis_to)
        a[L.R_CARD_POINTS] = CHOICES["card_points"].index(self.card_points)
        a[L.R_BONUS] = self.first_out_bonus
        a[L.R_BET_MASK] = sum(1 << ALLOWED_BETS.index(b) for b in self.bet_values)
        a[L.R_SETTLEMENT] = CHOICES["bet_settlement"].index(self.bet_settlement)
        a[L.R_LEAD_TIEBREAK] = CHOICES["lead_tiebreak"].index(self.lead_tiebreak)
        a[L.R_GAME_END] = CHOICES["game_end"].index(self.game_end)
        a[L.R_END_VALUE] = self.target_score if self.game_end == "target" else self.rounds
        a[L.R_OUT_POINTS] = self.out_points
        a[L.R_FACE_POINTS : L.R_FACE_POINTS + 3] = self.face_points
        a[L.R_BET_POINTS : L.R_BET_POINTS + 3] = self.bet_points
        return a


def _three_ints(value: Any, lo: int, hi: int) -> bool:
    """``value`` is a tuple of three whole numbers, each from ``lo`` to ``hi``."""
    return (
        isinstance(value, tuple)
        and len(value) == 3
        and all(_is_int(v) and lo <= v <= hi for v in value)
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _flag_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)
