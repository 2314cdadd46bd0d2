"""Advice records and the position features they are conditioned on.

A study (``haggis-sim study bombs|bets``) ends in guidance lines; each line is also a
record: a *kind* (``"bombs"`` or ``"bets"``), a *bin* (conditions ``feature -> [low,
high]``, both ends included) and the *advice* (bombs: bomb / do not bomb; bets: a bet
value / no bet). The ``advised`` strategy (:mod:`strategies.advised`) follows such
records in play, so the features are computed here, in the strategies layer, from the
acting seat's observation only, with the definitions of the studies
(:func:`haggis_sim.counterfactual.decisions.situation` and ``score_bomb``):

* ``actor_cards``: cards in the acting seat's hand;
* ``min_opponent_cards``: fewest cards any opponent still holding cards holds (0 when
  every opponent is out);
* ``actor_lead``: the acting seat's game score minus the best opponent's, before the
  round (``Observation.scores``);
* ``bomb_wilds`` (bombs): J/Q/K the bomb spends (0, 2 or 3);
* ``trick_plus_bomb_points`` (bombs): card points of the trick on the table plus the
  bomb's own cards, under the rules in force (the observation carries the rules);
* ``first_out`` (bets): the estimated chance that the seat goes out first if it does not
  bet now, from :func:`strategies.analysis.analyze` of the "no bet" alternative (the
  studies' estimator); the strategy computes it only where the other conditions of a
  bets record already hold.

Inline text form (what a strategy spec carries, so a runner's workers can rebuild the
strategy from its spec): records joined by ``;``, each ``KIND[COND&COND...]:ADVICE`` with
``COND`` = ``feature=LOW..HIGH``; ``ADVICE`` is ``bomb`` or ``no-bomb`` for bombs and a
bet value (``15``) or ``no-bet`` for bets. Example::

    bombs[bomb_wilds=0..0&min_opponent_cards=1..3]:bomb;bets[first_out=0..0.4]:no-bet
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

import haggis_sim as hs
from haggis_sim import kernel as K

from .base import StrategyError

KINDS = ("bombs", "bets")
SITUATION = ("actor_cards", "min_opponent_cards", "actor_lead")
#: the features a record of each kind may be conditioned on
FEATURES: dict[str, tuple[str, ...]] = {
    "bombs": (*SITUATION, "bomb_wilds", "trick_plus_bomb_points"),
    "bets": (*SITUATION, "first_out"),
}
BOMB, NO_BOMB, NO_BET = "bomb", "no-bomb", "no-bet"
_RECORD = re.compile(r"^\s*(\w+)\s*\[(.*)\]\s*:\s*(.+?)\s*$")


@dataclass(frozen=True)
class AdviceRecord:
    """One guidance line as a rule: inside ``bin`` (feature -> (low, high), inclusive),
    do ``advice`` (bombs: :data:`BOMB` / :data:`NO_BOMB`; bets: a bet value or
    :data:`NO_BET`)."""

    kind: str
    bin: tuple[tuple[str, float, float], ...]
    advice: str | int

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise StrategyError(f"advice kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        known = FEATURES[self.kind]
        for name, low, high in self.bin:
            if name not in known:
                raise StrategyError(
                    f"{self.kind} advice cannot be conditioned on {name!r} "
                    f"(features: {', '.join(known)})"
                )
            if not (math.isfinite(low) and math.isfinite(high)) or low > high:
                raise StrategyError(f"advice condition {name}={low}..{high} is not a range")
        if len({name for name, _, _ in self.bin}) != len(self.bin):
            raise StrategyError(f"advice {self.text()!r} names a feature twice")
        allowed = (BOMB, NO_BOMB) if self.kind == "bombs" else (NO_BET,)
        if not (self.advice in allowed or self.kind == "bets" and _is_bet(self.advice)):
            want = "bomb or no-bomb" if self.kind == "bombs" else "a bet value or no-bet"
            raise StrategyError(f"{self.kind} advice must be {want}, got {self.advice!r}")

    def matches(self, features: Mapping[str, float], ignore: tuple[str, ...] = ()) -> bool:
        """Whether every condition holds for ``features`` (a missing feature: no), the
        features named in ``ignore`` left unchecked."""
        for name, low, high in self.bin:
            if name in ignore:
                continue
            v = features.get(name)
            if v is None or not low <= v <= high:
                return False
        return True

    def text(self) -> str:
        """The record in the inline form :func:`parse_advice` reads."""
        conds = "&".join(f"{n}={_num(lo)}..{_num(hi)}" for n, lo, hi in self.bin)
        return f"{self.kind}[{conds}]:{self.advice}"

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> AdviceRecord:
        """A record from its structured form (a study's JSON guidance record):
        ``{"kind": "bombs", "bin": {"bomb_wilds": [0, 0], ...}, "advice": "do not bomb"}``;
        for bets ``"advice"`` is ``"no bet"``, a value (``15``, ``"bet 15"``), or ``"bet"``
        with the value under ``"bet"``."""
        kind = str(record.get("kind", ""))
        conds = tuple(
            (str(name), float(rng[0]), float(rng[1]))
            for name, rng in dict(record.get("bin", {})).items()
        )
        return cls(kind, conds, _advice(kind, record.get("advice"), record.get("bet")))


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _is_bet(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def _advice(kind: str, advice: Any, bet: Any = None) -> str | int:
    """Normalize the spellings of an advice: ``do not bomb`` -> no-bomb, ``bet 15`` -> 15."""
    text = str(advice).strip().lower().replace("_", " ").replace("-", " ")
    if kind == "bombs":
        return {"bomb": BOMB, "no bomb": NO_BOMB, "do not bomb": NO_BOMB}.get(text, text)
    if text in ("no bet", "do not bet"):
        return NO_BET
    if text == "bet" and bet is not None:
        text = str(bet)
    text = text.removeprefix("bet ").strip()
    return int(text) if text.isdigit() else text


def parse_advice(text: str) -> tuple[AdviceRecord, ...]:
    """The records of an inline advice text (module docstring); StrategyError when bad."""
    out = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        m = _RECORD.match(part)
        if m is None:
            raise StrategyError(
                f"advice {part!r} is not KIND[feature=LOW..HIGH&...]:ADVICE "
                "(e.g. bombs[bomb_wilds=0..0]:bomb)"
            )
        kind, body, advice = m.groups()
        conds = []
        for cond in filter(None, (c.strip() for c in body.split("&"))):
            name, eq, rng = cond.partition("=")
            low, dots, high = rng.partition("..")
            try:
                if not eq or not dots:
                    raise ValueError
                conds.append((name.strip(), float(low), float(high)))
            except ValueError:
                raise StrategyError(
                    f"advice condition {cond!r} is not feature=LOW..HIGH (e.g. bomb_wilds=0..0)"
                ) from None
        out.append(AdviceRecord(kind, tuple(conds), _advice(kind, advice)))
    return tuple(out)


def advice_text(records: Iterable[AdviceRecord | Mapping[str, Any]]) -> str:
    """Inline text of records (structured ones converted): the ``advice`` of a spec."""
    return ";".join(
        (r if isinstance(r, AdviceRecord) else AdviceRecord.from_record(r)).text() for r in records
    )


def situation_features(obs: hs.Observation) -> dict[str, float]:
    """``actor_cards``, ``min_opponent_cards`` and ``actor_lead`` of the acting seat."""
    seat, n = obs.seat, obs.players
    opponents = [(seat + k) % n for k in range(1, n)]
    still_in = [obs.hand_sizes[o] for o in opponents if obs.hand_sizes[o] > 0]
    return {
        "actor_cards": obs.hand_sizes[seat],
        "min_opponent_cards": min(still_in) if still_in else 0,
        "actor_lead": obs.scores[seat] - max(obs.scores[o] for o in opponents),
    }


def bomb_features(arr: np.ndarray, code: int) -> dict[str, float]:
    """``bomb_wilds`` and ``trick_plus_bomb_points`` of bomb ``code`` in observation ``arr``."""
    cards = K.move_cards(np.int64(code))
    trick = K.card_points(arr, arr[K.S_TRICK_CARDS])
    return {
        "bomb_wilds": int(cards >> K.FACE_SHIFT).bit_count(),
        "trick_plus_bomb_points": int(trick + K.card_points(arr, cards)),
    }
