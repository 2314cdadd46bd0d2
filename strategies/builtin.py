"""The built-in strategies (each also runs wholly in compiled code)."""

from __future__ import annotations

from typing import Any

import numpy as np

import haggis_sim as hs
from haggis_sim import kernel as K

from . import kernels
from .base import InertParameterError, Param, Strategy, StrategyError
from .ismcts import VALUE_BASE
from .learned_model import (
    DEFAULT_LEARNED_MODEL,
    DEFAULT_VALUE_MODEL,
    MCTS_PRIOR_MODEL,
    MODELS_DIR,
    SHA_PREFIX,
    SHIPPED_MODELS,
    SHIPPED_VALUE_MODELS,
    LearnedModel,
    load_model,
    load_value_model,
    model_path,
)
from .model_index import MODEL_INDEX, lineage_help
from .simple_kernels import MCTS_QINIT_MOVES


class CompiledStrategy(Strategy):
    """A strategy whose decisions are a compiled kernel (driven through :meth:`act_array`).

    A subclass that overrides :meth:`act` is played step by step through that method
    instead (see :func:`is_compiled`).
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Reject a compiled strategy with no kernel and no ``act`` of its own."""
        super().__init_subclass__(**kwargs)
        if cls.compiled_id is None and cls.act is CompiledStrategy.act:
            raise TypeError(
                f"strategy class {cls.__qualname__} is a CompiledStrategy without a "
                "compiled_id: name one of the compiled kernels or override act()"
            )

    def act_array(self, obs: np.ndarray, rng_state: np.ndarray) -> int:
        """The kernel's action for an observation array and a splitmix64 stream."""
        if self.compiled_id is None:
            raise TypeError(f"{type(self).__qualname__} has no compiled kernel")
        buf = np.empty(K.MAX_MOVES, dtype=np.int64)
        act = kernels.dispatcher([self.compiled_id])
        return int(act(self.compiled_id, obs, self.param_array(), rng_state, buf))

    def act(
        self, observation: hs.Observation, legal: list[hs.Action], rng: np.random.Generator
    ) -> hs.Action:
        raise TypeError(
            f"{self.name} is compiled: drive it with act_array and its splitmix64 stream"
        )


class RandomStrategy(CompiledStrategy):
    name = "random"
    description = "Uniformly random over legal plays, passes and gives; bets at a set rate."
    params = (Param("bet", float, 0.1, "chance of betting at each chance to bet", 0.0, 1.0),)
    compiled_id = kernels.RANDOM_ID


class GreedyStrategy(CompiledStrategy):
    name = "greedy"
    description = (
        "Cheapest play that beats (no bombs or wilds while anything else beats, lowest rank); "
        "leads its weakest combination; never bets."
    )
    params = ()
    compiled_id = kernels.GREEDY_ID


class HeuristicStrategy(CompiledStrategy):
    name = "heuristic"
    description = (
        "Sheds cheaply (low ranks, many cards per lead, wilds spent as 'wild' allows), bets "
        "when its estimated chance that the bet succeeds (under the rules' bet_settlement) "
        "passes a threshold, bombs early, late (when cheap or to stop an opponent about to "
        "go out) or never."
    )
    params = (
        Param(
            "bet",
            float,
            0.55,
            "estimated success chance at which it makes a Little bet (15 points as published, "
            "the rules' bet_points); takes_all/split: the chance of going out first, "
            "threshold: of scoring the bet's points from going out and cards",
            0.0,
            1.01,
        ),
        Param(
            "big",
            float,
            0.6,
            "estimated success chance for a Big bet (30 points as published), as for bet; "
            "must exceed bet unless bet > 1 (never Little)",
            0.0,
            1.01,
        ),
        Param(
            "baby",
            float,
            0.5,
            "estimated success chance for a Baby bet (5 points as published), where the "
            "rules offer it",
            0.0,
            1.01,
        ),
        Param(
            "bomb",
            str,
            "late",
            "when nothing but a bomb beats the trick: early: always bomb; late: bomb when an "
            "opponent holds at most bomb_out cards, or when the bomb gives away at most "
            "bomb_give points; never (it still goes out with, or leads, a bomb when nothing "
            "else is left)",
            choices=("early", "late", "never"),
        ),
        Param(
            "bomb_out",
            int,
            3,
            "late bombing: bomb whatever it costs when an opponent holds at most this many "
            "cards (0: never for this reason)",
            0,
            17,
        ),
        Param(
            "bomb_give",
            int,
            4,
            "late bombing: bomb when the bomb's own card points plus 10 x (1 - wild) per "
            "J/Q/K it spends are at most this (the trick goes to an opponent either way)",
            -1,
            200,
        ),
        Param("wild", float, 0.5, "readiness to spend J/Q/K as wild cards (1: freely)", 0.0, 1.0),
    )
    compiled_id = kernels.HEURISTIC_ID

    # bet thresholds, largest bet first: (value, parameter, bet name)
    BETS = ((30, "big", "Big"), (15, "bet", "Little"), (5, "baby", "Baby"))

    def check_values(self) -> None:
        """Refuse ``bet`` >= ``big`` (with ``bet`` <= 1): it would never make a Little bet.

        Every rule set offers Little and Big bets. Under takes_all and split both succeed
        when the bettor goes out first, so they share one success chance, and a hand that
        reaches ``bet`` reaches ``big`` too and bets Big. Under threshold the chance falls
        with the value, so such a pair would ask more confidence for the smaller bet.
        ``bet`` > 1 (never Little) is accepted. ``baby`` >= ``bet`` is not refused here:
        Baby bets exist only under some rules (deluxe, aid), which a strategy does not
        know when it is made; an experiment sees the rules and flags it (inert_params).
        """
        bet, big = self.values.get("bet"), self.values.get("big")
        if bet is None or big is None:
            return  # a subclass without both thresholds
        if bet <= 1.0 and bet >= big:
            raise InertParameterError(
                f"heuristic: bet={bet} >= big={big} never makes a Little bet (a hand that "
                "reaches bet also reaches big and bets Big); set big above bet, or bet=1.01 "
                "for no Little bets"
            )

    def inert_params(self, rules: hs.Rules) -> dict[str, str]:
        """Parameters that cannot change a decision under ``rules``, with the reason.

        A bet threshold is inert when the rules do not offer that bet, when it is above 1
        (the success chance never reaches it), or, under takes_all and split (one success
        chance for every bet), when it is not below the threshold of a larger bet on offer
        (that bet is made first). ``bomb_out`` and ``bomb_give`` act only with bomb=late.
        """
        v = self.values
        out: dict[str, str] = {}
        one_chance = rules.bet_settlement != "threshold"
        larger: list[tuple[str, float]] = []  # thresholds of the larger bets on offer
        for value, name, label in self.BETS:
            if name not in v:
                continue  # a subclass without this threshold
            if value not in rules.bet_values:
                out[name] = f"the rules offer no {label} bet ({value})"
                continue
            if v[name] > 1.0:
                out[name] = f"{name}={v[name]} > 1: never a {label} bet"
            elif one_chance and any(v[name] >= t for _, t in larger):
                by = next(n for n, t in larger if v[name] >= t)
                out[name] = (
                    f"{name}={v[name]} >= {by}={v[by]}: never a {label} bet under "
                    f"{rules.bet_settlement}"
                )
            else:
                larger.append((name, v[name]))
        if v.get("bomb", "late") != "late":
            for name in ("bomb_out", "bomb_give"):
                out[name] = f"{name} acts only with bomb=late (bomb={v['bomb']})"
        return out


#: the mixed line of shipped models and the search that taught each, named in the help of
#: both ``model=`` parameters (from the model index: a new generation is one entry there)
MIXED_LINE_HELP = lineage_help("mix")
MODEL_PARAM = Param(
    "model",
    str,
    DEFAULT_LEARNED_MODEL,
    f"model file (.npz from haggis-sim train) or a shipped model's name; {DEFAULT_LEARNED_MODEL} "
    "by default; default and gen3: the third generation (gen1, gen2: the generations it "
    f"was trained from; {MIXED_LINE_HELP})",
)
MCTS_MODEL_PARAM = Param(
    "model",
    str,
    MCTS_PRIOR_MODEL,
    "with prior=learned, the prior's model file (.npz from haggis-sim train) or a shipped "
    f"model's name; {MCTS_PRIOR_MODEL} by default (gen2: the second generation; default and "
    f"gen3: the third; {MIXED_LINE_HELP})",
)
SHA_PARAM = Param(
    "sha",
    str,
    "",
    "SHA-256 prefix the model file must have (filled in from the file when empty, so a "
    "run's recorded spec refuses a model file that has changed since)",
)


VMODEL_PARAM = Param(
    "vmodel",
    str,
    DEFAULT_VALUE_MODEL,
    "with value=net, the value model file (.npz from haggis-sim train-value); default: "
    f"{DEFAULT_VALUE_MODEL}, the packaged first-generation value model",
)
VSHA_PARAM = Param(
    "vsha",
    str,
    "",
    "SHA-256 prefix the value model file must have (filled in from the file when empty)",
)

MIX_PARAM = Param(
    "mix",
    float,
    0.5,
    "with value=net, the weight of the value model's estimate at a leaf; the rest (1 - mix) "
    "is a rollout (rollout policy) valued as value=game. 1: no rollout",
    0.0,
    1.0,
)

QINIT_PARAM = Param(
    "qinit",
    float,
    3.0,
    "with value=net and prior=learned: each of the root's likeliest moves (the "
    f"{MCTS_QINIT_MOVES} with the highest prior) starts with this many virtual visits "
    "valued at the value model's estimate of the position after it, as the searcher sees "
    "it (0: none; docs/strategies.md)",
    0.0,
    1000.0,
)

HORIZON_PARAM = Param(
    "horizon",
    int,
    0,
    "with value=net and mix below 1: the rollout stops after this many moves, and a round "
    "not over by then is valued by the value model where it stopped (0: roll out to the "
    "end of the round; docs/strategies.md)",
    0,
    1000,
)

SURE_PARAM = Param(
    "sure",
    float,
    0.0,
    "with prior=learned: a decision whose prior gives one move at least this probability "
    "plays that move without searching (0: always search; docs/strategies.md)",
    0.0,
    1.0,
)


def bind_model(strategy: Strategy, value: bool = False) -> LearnedModel:
    """Load the model that ``strategy``'s ``model`` value names and pin it in the values
    (``value``: the value model of ``vmodel`` and ``vsha``).

    A path is recorded resolved, a shipped name as it is; ``sha`` gets the file's SHA-256
    prefix, and a ``sha`` given that differs from the file's is refused (StrategyError):
    a recorded spec must not silently play a model whose file changed. A shipped name
    recorded with the ``sha`` of another shipped file (a recorded ``model=default`` may
    pin the first generation's file) plays the file with that SHA-256 (the model index),
    under the name it recorded.
    """
    values = strategy.values
    key, sha_key = ("vmodel", "vsha") if value else ("model", "sha")
    shipped = SHIPPED_VALUE_MODELS if value else SHIPPED_MODELS
    path = model_path(values[key], shipped)
    if values[key] in shipped and values[sha_key]:
        kind = "value" if value else "policy"
        pinned = [e for e in MODEL_INDEX if e.kind == kind and e.sha == values[sha_key]]
        if pinned:
            path = MODELS_DIR / pinned[0].file
    model = (load_value_model if value else load_model)(path, strategy.name)
    if values[key] not in shipped:
        values[key] = str(path.resolve())
    actual = model.sha256[:SHA_PREFIX]
    wanted = values[sha_key]
    if wanted and wanted != actual:
        raise StrategyError(
            f"{strategy.name}: model file {path} has SHA-256 {actual}, not the {wanted} this "
            "spec was made with (the model changed since); use the original file or a new run"
        )
    values[sha_key] = actual
    return model


#: the rollout search (bare ``mcts`` played it until its defaults moved on evidence,
#: docs/models.md): its spec letter for letter as a run recorded it,
#: short of the SHA-256 prefix; the shipped studies' judge, the training commands' default
#: teacher and the figures published with it play it
ROLLOUT_MCTS = "mcts:iters=64,value=game,model=gen2"
#: the third-generation learned model, by the name its runs recorded
GEN3_LEARNED = "learned:model=default"

#: the value an inert mcts parameter takes (the one the search had before the parameter
#: existed, which changes nothing): a parameter that cannot act is set to it when left
#: unsaid and refused when given anything else, so one search has one recorded spec
MCTS_NEUTRAL: dict[str, Any] = {
    "model": "gen2",
    "sha": "",
    "vmodel": DEFAULT_VALUE_MODEL,
    "vsha": "",
    "mix": 1.0,
    "qinit": 0.0,
    "horizon": 0,
    "sure": 0.0,
}


class MctsStrategy(CompiledStrategy):
    name = "mcts"
    description = (
        "Information-set MCTS: a fresh deal of the unseen cards every iteration, the root's "
        "moves ranked by PUCT with the learned model as prior, UCB with availability counts "
        "below; a leaf is worth half the value model's estimate and half a rollout to the "
        "end of the round valued by the chance of winning the game from the totals after "
        "it, and the root's likeliest moves start from the value model's estimate (the "
        "rollout search by name: " + ROLLOUT_MCTS + "); bets by scoring each bet "
        "option under the rules in force."
    )
    params = (
        Param(
            "iters",
            int,
            24,
            "search iterations per decision (fewer when the most visited action can no "
            "longer be overtaken; none when only one action is legal)",
            1,
            100_000,
        ),
        Param(
            "c",
            float,
            0.7,
            "exploration constant of UCB (and of PUCT at the root with prior=learned)",
            0.0,
            10.0,
        ),
        Param("rollout", str, "greedy", "rollout policy", choices=("random", "greedy")),
        Param(
            "ms",
            float,
            0.0,
            "time budget per decision in ms, stopping before iters when reached (0: none; "
            "a budget makes decisions depend on machine speed, so runs are not reproducible)",
            0.0,
            60_000.0,
        ),
        Param(
            "value",
            str,
            "net",
            "what a leaf is worth: game (a rollout to the end of the round, then the chance "
            "of winning the game from the totals after it) or round (the round's score "
            "margin, squashed; no difference shown with 2 players, game stronger with 3: "
            "docs/models.md, How the search was built); net: no rollout, the value model's "
            "estimate of game's reward (vmodel), mixed with a rollout by mix",
            choices=("game", "round", "net"),
        ),
        Param(
            "bets",
            str,
            "search",
            "search: score not betting and each bet the rules allow (iters iterations "
            "shared), declare the best; never: do not bet",
            choices=("search", "never"),
        ),
        Param(
            "prior",
            str,
            "learned",
            "learned: the root's moves are searched by PUCT with the softmax of the learned "
            "model's scores as prior; none: UCB with progressive widening, no model",
            choices=("none", "learned"),
        ),
        MCTS_MODEL_PARAM,
        SHA_PARAM,
        VMODEL_PARAM,
        VSHA_PARAM,
        MIX_PARAM,
        QINIT_PARAM,
        HORIZON_PARAM,
        SURE_PARAM,
    )
    compiled_id = kernels.MCTS_ID

    def __init__(self, **values: Any) -> None:
        """With prior=learned, load the model, and with value=net the value model, and
        pin their paths and SHA-256 prefixes."""
        super().__init__(**values)
        self.model: LearnedModel | None = None
        self.value_model: LearnedModel | None = None
        if self.values["prior"] == "learned":
            self.model = bind_model(self)
        if self.values["value"] == "net":
            self.value_model = bind_model(self, value=True)

    def check_values(self) -> None:
        """Settle the parameters that cannot act, and refuse them when given otherwise.

        With prior=none no model is read (model, sha), nothing starts the root's
        moves (qinit) and no prior can be sure (sure); without value=net no value model
        is read (vmodel, vsha) and there is no estimate to mix (mix), to start moves from
        (qinit) or to end a cut rollout with (horizon); with mix=1 no rollout is played
        (horizon). Such a parameter takes its neutral value (:data:`MCTS_NEUTRAL`) when
        unsaid and is refused (InertParameterError) when given another. A spec recorded
        at an older spec version is lifted to today's parameters by
        :mod:`strategies.migrations`.
        """
        v = self.values
        inert: dict[str, tuple[str, str]] = {}  # name: (why, what makes it inert)
        if v["prior"] == "none":
            inert["model"] = inert["sha"] = ("no model is read", "prior=none")
            inert["qinit"] = ("it starts the moves PUCT ranks by the prior", "prior=none")
            inert["sure"] = ("there is no prior to be sure of", "prior=none")
        if v["value"] != "net":
            cause = f"value={v['value']}"
            inert["vmodel"] = inert["vsha"] = ("no value model is read", cause)
            inert["mix"] = ("no value estimate to mix with rollouts", cause)
            inert.setdefault("qinit", ("no value estimate to start the root's moves with", cause))
            inert["horizon"] = ("no value estimate to end a cut rollout with", cause)
        for name, (why, cause) in inert.items():
            self._settle(name, why, cause)
        if v["mix"] == 1.0 and "horizon" not in inert:
            self._settle("horizon", "no rollout is played", "mix=1")

    def _settle(self, name: str, why: str, cause: str) -> None:
        """Set inert parameter ``name`` to its neutral value, or refuse the value given."""
        neutral = MCTS_NEUTRAL[name]
        value = self.values[name]
        if name in self.given and value != neutral:
            remedy = {"prior=none": "set prior=learned", "mix=1": "set mix below 1"}
            raise InertParameterError(
                f"mcts: {name}={value} has no effect with {cause} ({why}); drop it or "
                f"{remedy.get(cause, 'set value=net')}"
            )
        self.values[name] = neutral

    def param_array(self) -> np.ndarray:
        """The named slots; the length of the value model's parameter array and, with
        value=net, that array; then, with prior=learned, the prior model's array
        (:func:`strategies.ismcts.value_params`, :func:`~strategies.ismcts.prior_params`)."""
        head = super().param_array()[:VALUE_BASE]
        if self.model is None and self.value_model is None:
            return head  # nothing follows: value_params and prior_params are empty
        vals = np.zeros(0) if self.value_model is None else self.value_model.param_array()
        parts = [head, np.array([float(len(vals))]), vals]
        if self.model is not None:
            parts.append(self.model.param_array())
        return np.concatenate(parts)


class LearnedStrategy(CompiledStrategy):
    name = "learned"
    description = (
        "A policy distilled from mcts (haggis-sim train): scores every legal play, pass, "
        "bet and give by features of the observation and the action (linearly, plus a "
        "small hidden layer in the default model), plays the best."
    )
    params = (MODEL_PARAM, SHA_PARAM)
    compiled_id = kernels.LEARNED_ID

    def __init__(self, **values: Any) -> None:
        """Load and check the model; record its path and SHA-256 prefix in the values."""
        super().__init__(**values)
        self.model: LearnedModel = bind_model(self)
        self._params = self.model.param_array()

    def param_array(self) -> np.ndarray:
        """The feature count and the model's weights (wider than other kernels' arrays)."""
        return self._params.copy()


def is_compiled(strategy: Strategy) -> bool:
    """Whether ``strategy`` runs in compiled code (a built-in whose ``act`` is not overridden)."""
    return isinstance(strategy, CompiledStrategy) and type(strategy).act is CompiledStrategy.act


BUILTIN: dict[str, type[Strategy]] = {
    cls.name: cls
    for cls in (RandomStrategy, GreedyStrategy, HeuristicStrategy, MctsStrategy, LearnedStrategy)
}
