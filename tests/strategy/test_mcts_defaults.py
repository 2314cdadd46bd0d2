"""The defaults that moved on evidence in 2026-12, and what keeps older specs replaying.

What is guarded: bare ``mcts`` is the candidate the benchmarks measured (24 iterations,
mix5 prior, mixed leaf value, qinit=3) and bare ``learned`` plays mix6; the players of
before stay reachable by name and are recorded letter for letter as they were; an inert
parameter takes its neutral value when unsaid and is refused when given another; a
recorded spec that predates mix, qinit or horizon replays the search it recorded; and
everything that must not move with the defaults (training teachers, the studies' judging
search, the shipped experiments) names the old players in full.
"""

from __future__ import annotations

import inspect
import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

import haggis_sim as hs
import strategies
from haggis_sim import SPEC_VERSION, UNVERSIONED, StrategySpec
from haggis_sim.cli.train import train as train_command
from haggis_sim.cli.train_value import train_value as train_value_command
from haggis_sim.experiment import load_experiment
from haggis_sim.logs.manifest import ManifestError
from haggis_sim.training.positions import DEFAULT_TEACHER
from haggis_sim.training.value_train import DEFAULT_VALUE_TEACHER
from strategies import analysis
from strategies.base import InertParameterError, parse_spec
from strategies.builtin import GEN3_LEARNED, MCTS_NEUTRAL, ROLLOUT_MCTS, MctsStrategy
from strategies.learned_model import MODELS_DIR, SHIPPED_MODELS, load_model
from strategies.migrations import migrate

ROOT = Path(__file__).resolve().parents[2]
#: the spec a run recorded for bare ``mcts`` before 2026-12 (a manifest of 2026-11-29)
OLD_DEFAULT_RECORDED = (
    "mcts:iters=64,c=0.7,rollout=greedy,ms=0.0,value=game,bets=search,prior=learned,"
    "model=gen2,sha=321ac0402874c213,vmodel=vgen1,vsha=,mix=1.0,qinit=0.0,horizon=0"
)
#: the candidate whose benchmarks moved the default (docs/models.md)
EVIDENCED = "mcts:model=mix5,value=net,mix=0.5,iters=24,qinit=3"


def spec(text: str) -> str:
    return strategies.make(text).spec


def test_bare_mcts_is_the_candidate_the_benchmarks_measured() -> None:
    assert spec("mcts") == spec(EVIDENCED)
    values = strategies.make("mcts").values
    assert (values["iters"], values["value"], values["model"]) == (24, "net", "mix5")
    assert (values["mix"], values["qinit"], values["horizon"]) == (0.5, 3.0, 0)


def test_the_rollout_search_is_recorded_as_the_old_default_was() -> None:
    """ROLLOUT_MCTS written out is, letter for letter, what bare mcts recorded before with
    the parameters added since at the values it played with (``sure=0.0``), and that
    recorded spec, read at its version, replays as the same strategy (same parameter
    array)."""
    recorded = StrategySpec.parse(OLD_DEFAULT_RECORDED, version=2)
    assert spec(ROLLOUT_MCTS) == OLD_DEFAULT_RECORDED + ",sure=0.0" == migrate(recorded).text
    assert strategies.make(recorded).spec == spec(ROLLOUT_MCTS)
    a, b = strategies.make(ROLLOUT_MCTS), strategies.make(recorded)
    assert np.array_equal(a.param_array(), b.param_array())
    assert not np.array_equal(a.param_array(), strategies.make("mcts").param_array())


def test_bare_learned_plays_mix6_and_the_third_generation_keeps_its_names() -> None:
    mix6 = load_model(MODELS_DIR / SHIPPED_MODELS["mix6"]).sha256[:16]
    gen3 = load_model(MODELS_DIR / SHIPPED_MODELS["default"]).sha256[:16]
    assert mix6 != gen3
    assert spec("learned") == f"learned:model=mix6,sha={mix6}"
    assert spec(GEN3_LEARNED) == f"learned:model=default,sha={gen3}"  # as its runs recorded
    assert spec("learned:model=gen3") == f"learned:model=gen3,sha={gen3}"


@pytest.mark.parametrize(
    ("text", "settled"),
    [
        ("mcts:value=game", {"mix": 1.0, "qinit": 0.0, "horizon": 0, "vsha": ""}),
        ("mcts:value=round", {"mix": 1.0, "qinit": 0.0, "horizon": 0}),
        ("mcts:prior=none", {"model": "gen2", "sha": "", "qinit": 0.0, "mix": 0.5, "sure": 0.0}),
        ("mcts:mix=1", {"horizon": 0, "qinit": 3.0}),
        ("mcts:value=game,mix=1.0,qinit=0.0,horizon=0", {"mix": 1.0, "qinit": 0.0}),
    ],
)
def test_an_inert_parameter_left_unsaid_takes_its_neutral_value(
    text: str, settled: dict[str, object]
) -> None:
    values = strategies.make(text).values
    assert {k: values[k] for k in settled} == settled
    assert all(MCTS_NEUTRAL[k] == v for k, v in settled.items() if k not in ("mix", "qinit"))


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("mcts:value=game,mix=0.5", "mix=0.5"),
        ("mcts:value=game,qinit=3", "qinit=3.0"),
        ("mcts:value=round,vmodel=vgen1x", "vmodel=vgen1x"),
        ("mcts:prior=none,model=mix5", "model=mix5"),
        ("mcts:prior=none,qinit=3", "qinit=3.0"),
        ("mcts:prior=none,sure=0.8", "sure=0.8"),
        ("mcts:mix=1,horizon=5", "horizon=5"),
        ("mcts:value=game,horizon=5", "horizon=5"),
    ],
)
def test_an_inert_parameter_given_another_value_is_refused(text: str, named: str) -> None:
    with pytest.raises(InertParameterError, match=f"^mcts: {named} has no effect"):
        strategies.make(text)


def test_a_spec_typed_today_takes_todays_defaults_even_naming_a_sha() -> None:
    values = strategies.make("mcts:value=net,model=mix2").values
    assert (values["mix"], values["qinit"], values["iters"]) == (0.5, 3.0, 24)
    prior = values["sha"]
    named = strategies.make(f"mcts:value=net,model=mix2,sha={prior}").values
    assert (named["mix"], named["qinit"], named["horizon"]) == (0.5, 3.0, 0)


def _recorded_head() -> str:
    prior = strategies.make("mcts:model=mix2").values["sha"]
    vsha = strategies.make("mcts").values["vsha"]
    return f"mcts:iters=64,value=net,prior=learned,model=mix2,sha={prior},vmodel=vgen1,vsha={vsha}"


def test_a_recorded_spec_older_than_mix_and_qinit_replays_its_search() -> None:
    """Specs recorded (spec version 1) with value=net before mix existed (it was 1 then)
    and with mix before qinit existed (0 then): the migration table sets the unsaid
    parameters to the values they played with, not today's defaults; given, they are
    kept."""
    head = _recorded_head()

    def recorded(text: str) -> dict[str, object]:
        return strategies.make(StrategySpec.parse(text, version=1)).values

    before_mix = recorded(head)
    assert (before_mix["mix"], before_mix["qinit"], before_mix["horizon"]) == (1.0, 0.0, 0)
    before_qinit = recorded(head + ",mix=0.5")
    assert (before_qinit["mix"], before_qinit["qinit"]) == (0.5, 0.0)
    assert recorded(head + ",mix=0.5,qinit=3")["qinit"] == 3.0
    today = strategies.make(StrategySpec.parse(head)).values
    assert (today["mix"], today["qinit"]) == (0.5, 3.0)


def test_a_run_recorded_before_spec_versions_resumes_with_its_search(tmp_path: Path) -> None:
    """A manifest without ``spec_version`` (every run before versions were recorded) reads
    its specs as version 1, so resuming it makes the search it played; one that names
    version 2 reads them as typed today."""
    from haggis_sim.logs.manifest import config_digest, parse_manifest
    from haggis_sim.runner.run import RunConfig

    rules = hs.Rules.preset(players=2)
    config = RunConfig(strategies=[_recorded_head(), "greedy"], games=4, rules=rules.as_dict())
    data = {
        "format": 3, "seating": "deal-block-v1", "command": "haggis-sim run",
        "version": "0", "created": "2026-11-29T00:00:00+0000", "config": config.as_dict(),
        "config_digest": config_digest(config.as_dict()), "rules": rules.as_dict(),
        "strategies": [], "players": 2, "seed": 0, "games": 4, "ledger": "parts.jsonl",
        "schema": {}, "status": "running",
    }  # fmt: skip
    old = parse_manifest(data, "old/manifest.json")
    assert [s.version for s in old.config.records] == [1, 1] and old.spec_version is None
    replayed = RunConfig(**old.config.field_values()).validate()[1][0]
    assert (replayed.values["mix"], replayed.values["qinit"]) == (1.0, 0.0)
    new = parse_manifest({**data, "spec_version": SPEC_VERSION}, "new/manifest.json")
    today = RunConfig(**new.config.field_values()).validate()[1][0]
    assert (today.values["mix"], today.values["qinit"]) == (0.5, 3.0)
    assert new.to_dict()["spec_version"] == SPEC_VERSION and "spec_version" not in old.to_dict()
    with pytest.raises(ManifestError, match="'spec_version' is 99, not a spec version"):
        parse_manifest({**data, "spec_version": 99}, "bad/manifest.json")


def test_every_spec_recorded_in_the_repository_replays_letter_for_letter() -> None:
    """Every spec the shipped reports recorded (each arm of each summary.json, which names
    no spec version: read as version 1) makes a strategy with each recorded parameter as
    recorded, letter for letter, and nothing else but what the migration table adds (the
    model files' teachers: test_model_index.py)."""
    seen = set()
    for path in sorted(ROOT.glob("reports/*/summary.json")):
        for specs in _recorded_strategies(json.loads(path.read_text())).values():
            seen.update(specs)
    assert len(seen) >= 20
    migrated = 0
    for text in sorted(seen):
        record = StrategySpec.parse(text, UNVERSIONED)
        made = StrategySpec.parse(strategies.make(record).spec)
        assert made.values() == migrate(record).values(), text
        migrated += made.values() != record.values()
    assert migrated >= 1  # the reports hold specs recorded before qinit and horizon


def test_training_and_the_studies_keep_the_rollout_search() -> None:
    """The default teachers of train and train-value, in the library and on the command
    line, and the studies' judging search, are the rollout search, not bare mcts."""
    assert DEFAULT_TEACHER == DEFAULT_VALUE_TEACHER == ROLLOUT_MCTS
    for command in (train_command, train_value_command):
        assert inspect.signature(command).parameters["teacher"].default == ROLLOUT_MCTS
    rollout = MctsStrategy(**parse_spec(ROLLOUT_MCTS)[1]).param_array()
    assert np.array_equal(analysis._prior_params(), rollout)


def _recorded_strategies(summary: dict[str, object]) -> dict[tuple[str, str], list[str]]:
    """(population, arm) -> the full specs the shipped summary recorded."""
    out = {}
    for pop in summary.get("populations") or [{"name": "", "summary": summary}]:  # type: ignore[attr-defined]
        for arm in pop["summary"]["arms"]:
            out[pop["name"], arm["name"]] = arm["strategies"]
    return out


@pytest.mark.slow  # plays every shipped experiment's players
def test_shipped_experiments_play_the_players_their_reports_recorded() -> None:
    """Every arm of every shipped experiment, as its file stands, plays exactly the
    strategies its report recorded, and every study is followed in play by the heuristic
    and a learned player named by its model, so the report replays whatever bare
    ``learned`` plays later."""
    checked = 0
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        exp = load_experiment(path)
        summary = json.loads((ROOT / "reports" / path.stem / "summary.json").read_text())
        recorded = _recorded_strategies(summary)
        for pop in exp.populations or (None,):
            for arm in exp.arms:
                played = pop.apply(arm) if pop is not None else arm
                key = (pop.name if pop is not None else "", arm.name)
                # a summary names no spec version: its specs are recorded ones (version 1)
                was = [strategies.make(StrategySpec.parse(s, 1)).spec for s in recorded[key]]
                assert [spec(s) for s in played.strategies] == was, (path.name, key)
                checked += 1
        for study in tomllib.loads(path.read_text()).get("studies", []):
            bases = [parse_spec(b) for b in study["followed_bases"]]
            assert [name for name, _ in bases] == ["heuristic", "learned"], path.name
            assert "model" in bases[1][1], path.name
    assert checked >= 40
