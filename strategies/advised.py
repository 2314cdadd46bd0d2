"""``advised``: any base strategy, overridden only where a study's advice speaks.

``advised:base=learned,advice=bombs[bomb_wilds=0..0&min_opponent_cards=1..3]:bomb``
plays ``learned`` except at the decisions the advice records (:mod:`strategies.advice`)
cover. Why a wrapper: advice is tested in play by playing the advised player against the
same player without it (:mod:`haggis_sim.experiment.followed`), so nothing but the
advised decisions may differ.

* Bomb opportunities (the seat follows a trick and holds a bomb). Bomb features are those
  of a particular bomb, so a record's bin is checked per legal bomb. ``bomb``: if the
  base chose a bomb inside the bin it is kept; otherwise the seat plays the bomb inside
  the bin the base ranks highest (``learned``: its model's score; ``mcts``: its prior
  model's score; ``heuristic``: its own cost order, the cheapest). ``no-bomb``: if the
  base chose a bomb inside the bin, the seat plays the base's best non-bomb action, pass
  included (model bases: the best-scored non-bomb; ``heuristic``: itself with
  ``bomb=never``).
* Bet opportunities (the seat may still bet). A bet value: that bet, when the rules
  offer it (else the record is ignored). ``no-bet``: if the base chose a bet, its best
  action that is not a bet (``learned``: best-scored; ``heuristic``: itself with every
  bet threshold above 1; ``mcts``: itself with ``bets=never``). ``first_out`` is
  estimated only when a bets record's other conditions hold, by the studies' estimator
  (the no-bet alternative of :func:`strategies.analysis.analyze`) with ``samples``
  samples, seeded from the seat's generator: an estimate from the seat's own
  information.

The first record (in the order given) whose bin holds decides. The base draws from the
same splitmix64 stream the runner would give it (derived from the seed of the generator
the runner passes), so with no advice the games are those of the base, move for move.
Everything the wrapper reads is the observation it is handed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import haggis_sim as hs
from haggis_sim import kernel as K
from haggis_sim.position import action_from_code

from .advice import (
    BOMB,
    NO_BET,
    AdviceRecord,
    advice_text,
    bomb_features,
    parse_advice,
    situation_features,
)
from .analysis import NO_BET as KEEP
from .analysis import analyze
from .base import Param, Strategy, StrategyError, parse_spec
from .builtin import BUILTIN, CompiledStrategy, HeuristicStrategy, MctsStrategy
from .learned_features import score_actions
from .registry import register
from .simple_kernels import bomb_cost

BASES = ("heuristic", "learned", "mcts")
NEVER = 1.01  # a heuristic bet threshold that is never reached


def _base_of(text: str) -> CompiledStrategy:
    """The base strategy of a ``base`` value (its own parameters joined by ``;``)."""
    name, values = parse_spec(text.replace(";", ","))
    if name not in BASES:
        raise StrategyError(f"advised: base must be one of {', '.join(BASES)}, got {name!r}")
    base = BUILTIN[name](**values)
    assert isinstance(base, CompiledStrategy)
    if isinstance(base, MctsStrategy) and base.model is None:
        raise StrategyError(
            "advised: base mcts needs prior=learned (its prior model ranks the alternatives)"
        )
    if ";" in base.spec:
        raise StrategyError(f"advised: the base's parameters may not contain ';': {base.spec}")
    return base


def _runner_seed(rng: np.random.Generator) -> int:
    """The seed of the splitmix64 stream the runner gives a compiled strategy in the seat
    whose generator is ``rng`` (both come from one seed); any other generator: a draw."""
    seq = getattr(rng.bit_generator, "seed_seq", None)
    entropy = getattr(seq, "entropy", None)
    if isinstance(entropy, int) and 0 <= entropy < 2**64 and not getattr(seq, "spawn_key", ()):
        return int(np.array(entropy, dtype=np.uint64).view(np.int64))
    return int(rng.integers(-(2**63), 2**63 - 1))


@register
class AdvisedStrategy(Strategy):
    name = "advised"
    description = (
        "A base strategy (heuristic, learned, mcts) that follows a study's advice records "
        "at the bomb and bet decisions they cover and plays the base everywhere else."
    )
    params = (
        Param(
            "base",
            str,
            "learned",
            "the base strategy's spec, its own parameters joined by ';' "
            "(e.g. heuristic:bomb=early;wild=0.7)",
        ),
        Param(
            "advice",
            str,
            "",
            "advice records KIND[feature=LOW..HIGH&...]:ADVICE joined by ';' (docs/studies.md, "
            "advice); empty: play the base",
        ),
        Param("samples", int, 64, "samples of the first_out estimate (bets advice)", 1, 100_000),
    )

    def __init__(self, **values: Any) -> None:
        """Build the base and parse the advice; pin both in their canonical text."""
        super().__init__(**values)
        self.base = _base_of(self.values["base"])
        self.records: tuple[AdviceRecord, ...] = parse_advice(self.values["advice"])
        self.values["base"] = self.base.spec.replace(",", ";")
        self.values["advice"] = advice_text(self.records)
        self._streams: dict[int, tuple[np.random.Generator, np.ndarray]] = {}
        self._variants: dict[str, CompiledStrategy] = {}

    # --- the base ---------------------------------------------------------------------------

    def _stream(self, rng: np.random.Generator) -> np.ndarray:
        """The base's stream for the game whose seat draws from ``rng`` (kept per game)."""
        got = self._streams.get(id(rng))
        if got is None or got[0] is not rng:
            if len(self._streams) > 16:
                self._streams.clear()  # games long over
            got = (rng, K.new_stream(np.int64(_runner_seed(rng))))
            self._streams[id(rng)] = got
        return got[1]

    def _variant(self, what: str) -> CompiledStrategy:
        """The base with bombing (``"bombs"``) or betting (``"bets"``) switched off."""
        if what not in self._variants:
            v = dict(self.base.values)
            if isinstance(self.base, HeuristicStrategy):
                v.update({"bomb": "never"} if what == "bombs" else dict.fromkeys(
                    ("bet", "big", "baby"), NEVER))  # fmt: skip
            else:
                v["bets"] = "never"
            self._variants[what] = type(self.base)(**v)
        return self._variants[what]

    def _scores(self, arr: np.ndarray) -> dict[int, float] | None:
        """Model scores of every legal action (learned; mcts: its prior), or None."""
        model = getattr(self.base, "model", None)
        if model is None:
            return None
        buf = np.empty(K.MAX_MOVES, dtype=np.int64)
        scores = np.empty(K.MAX_MOVES)
        n = score_actions(arr, model.param_array(), buf, scores)
        return {int(buf[i]): float(scores[i]) for i in range(n)}

    # --- deciding ---------------------------------------------------------------------------

    def act(
        self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
    ) -> hs.Action:
        """The base's action, unless an advice record covers this decision."""
        arr = observation.array
        stream = self._stream(rng)
        code = int(self.base.act_array(arr, stream))
        codes = [a.code for a in legal]
        if self.records and observation.phase == "play":
            code = self._advised(observation, arr, codes, code, rng)
        return legal[codes.index(code)]

    def _advised(
        self,
        obs: hs.Observation,
        arr: np.ndarray,
        codes: Sequence[int],
        code: int,
        rng: np.random.Generator,
    ) -> int:
        bombs = [c for c in codes if K.move_type(np.int64(c)) == K.T_BOMB]
        if bombs and obs.top is not None:
            code = self._bomb_advice(obs, arr, codes, bombs, code)
        if any(K.move_type(np.int64(c)) == K.T_BET for c in codes):
            code = self._bet_advice(obs, arr, codes, code, rng)
        return code

    def _bomb_advice(
        self,
        obs: hs.Observation,
        arr: np.ndarray,
        codes: Sequence[int],
        bombs: list[int],
        code: int,
    ) -> int:
        """Follow the first bombs record whose bin holds for some legal bomb."""
        common = situation_features(obs)
        for rec in self.records:
            if rec.kind != "bombs":
                continue
            inside = [b for b in bombs if rec.matches({**common, **bomb_features(arr, b)})]
            if not inside:
                continue
            if rec.advice == BOMB:
                return code if code in inside else self._best_bomb(arr, inside)
            if code in inside:
                return self._best_other(arr, codes, "bombs", K.T_BOMB)
            return code
        return code

    def _best_bomb(self, arr: np.ndarray, bombs: list[int]) -> int:
        """The bomb the base ranks highest: model score, or the heuristic's cost order."""
        scores = self._scores(arr)
        if scores is not None:
            return max(bombs, key=lambda b: (scores[b], -b))
        p = self.base.param_array()
        return min(bombs, key=lambda b: (bomb_cost(arr, p, np.int64(b)), K.move_rank(b), b))

    def _best_other(self, arr: np.ndarray, codes: Sequence[int], what: str, kind: int) -> int:
        """The base's best legal action that is not of type ``kind`` (bomb or bet)."""
        scores = self._scores(arr)
        others = [c for c in codes if K.move_type(np.int64(c)) != kind]
        if scores is not None and not (what == "bets" and isinstance(self.base, MctsStrategy)):
            return max(others, key=lambda c: (scores[c], -c))
        chosen = int(self._variant(what).act_array(arr, K.new_stream(np.int64(0))))
        # the variants never pick ``kind`` where another action is legal; pass as a last resort
        return chosen if chosen in others else others[0]

    def _bet_advice(
        self,
        obs: hs.Observation,
        arr: np.ndarray,
        codes: Sequence[int],
        code: int,
        rng: np.random.Generator,
    ) -> int:
        """Follow the first bets record whose bin holds (``first_out`` estimated lazily)."""
        feats: dict[str, float] = situation_features(obs)
        for rec in self.records:
            if rec.kind != "bets" or not rec.matches(feats, ignore=("first_out",)):
                continue
            if "first_out" not in feats and any(n == "first_out" for n, _, _ in rec.bin):
                feats["first_out"] = self._first_out(obs, rng)
                if not rec.matches(feats):
                    continue
            if rec.advice == NO_BET:
                if K.move_type(np.int64(code)) == K.T_BET:
                    return self._best_other(arr, codes, "bets", K.T_BET)
                return code
            for c in codes:
                if K.move_type(np.int64(c)) == K.T_BET and _bet_value(obs.seat, c) == rec.advice:
                    return c
        return code

    def _first_out(self, obs: hs.Observation, rng: np.random.Generator) -> float:
        """The studies' estimate of going out first without betting now."""
        seed = int(rng.integers(0, 2**62))
        (keep,) = analyze(obs, [KEEP], samples=self.values["samples"], seed=seed)
        return keep.first_out


def _bet_value(seat: int, code: int) -> int:
    return action_from_code(seat, code).value
