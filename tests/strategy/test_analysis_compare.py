"""strategies.analysis additions: going out first, paired differences (compare), NO_BET."""

from __future__ import annotations

import math

import pytest

import haggis_sim as hs
from strategies.analysis import NO_BET, analyze, compare, describe

RULES2 = hs.Rules.preset("revised", players=2)


def _must_beat_or_lose() -> hs.Round:
    """Seat 0 (Ta Tb) follows seat 1's 5b; if it passes, seat 1 leads its last card and is
    out first; if it plays a ten it wins the trick and leads its last ten: out first."""
    rnd = hs.Round(RULES2, hands=["Ta Tb", "5b 7c"], leader=1)
    rnd.play(1, "5b")
    return rnd


def test_first_out_is_the_share_of_samples_the_actor_goes_out_first() -> None:
    by_name = {str(a.action): a for a in analyze(_must_beat_or_lose(), samples=30)}
    passing, ten = by_name["seat 0 passes"], by_name["seat 0 plays single 10: Ta"]
    assert (passing.first_out, passing.first_out_stderr) == (0.0, 0.0)
    assert (ten.first_out, ten.first_out_stderr) == (1.0, 0.0)
    mixed = hs.Round(RULES2, hands=["3a 5b 7c 9d 2a 2b Ta", "4a 6b 8c 9a"], leader=0)
    shares = [a.first_out for a in analyze(mixed, samples=40, seed=2)]
    assert any(0 < p < 1 for p in shares)
    for a in analyze(mixed, samples=40, seed=2):
        assert a.first_out_stderr == pytest.approx(math.sqrt(a.first_out * (1 - a.first_out) / 40))


def test_compare_differences_carry_the_exact_paired_standard_error() -> None:
    """Sample k's values are recovered from the prefix runs (samples=k is a prefix of n)."""
    rnd = hs.Round(RULES2, hands=["3a 5b 7c 9d 2a 2b Ta", "4a 6b 8c 9a"], leader=0)
    plays = [a for a in rnd.legal_actions() if a.type != "bet"][:3]
    n = 10
    cmp = compare(rnd, plays[0], plays[1:], samples=n, seed=7, rollout="random")
    assert cmp.baseline == analyze(rnd, plays[:1], samples=n, seed=7, rollout="random")[0]
    full = analyze(rnd, plays, samples=n, seed=7, rollout="random")
    assert [cmp.baseline, *cmp.alternatives] == full
    prefix = [analyze(rnd, plays, samples=k, seed=7, rollout="random") for k in range(1, n + 1)]
    for j, diff in enumerate(cmp.differences, start=1):
        assert diff.action == plays[j] and diff.baseline == plays[0]
        assert diff.value == pytest.approx(full[j].value - full[0].value)
        for field, se in (("value", diff.stderr), ("margin", diff.margin_stderr)):
            per_deal = []
            for k in range(1, n + 1):
                now = [getattr(prefix[k - 1][i], field) * k for i in (0, j)]
                was = [getattr(prefix[k - 2][i], field) * (k - 1) if k > 1 else 0 for i in (0, j)]
                per_deal.append((now[1] - was[1]) - (now[0] - was[0]))
            mean = sum(per_deal) / n
            sd = math.sqrt(sum((d - mean) ** 2 for d in per_deal) / (n - 1))
            assert getattr(diff, field) == pytest.approx(mean)
            assert se == pytest.approx(sd / math.sqrt(n), rel=1e-6, abs=1e-9)
        assert diff.stderr < math.hypot(full[j].stderr, full[0].stderr)  # common deals help


def test_no_bet_is_an_alternative_where_the_seat_may_bet() -> None:
    rnd = hs.Round(RULES2, hands=["Ta Tb", "5b 7c 9d"], leader=0)
    keep, fifteen = analyze(rnd, [NO_BET, rnd.legal_actions()[0]], samples=20)
    assert keep.action == hs.Action(0, "bet", NO_BET, value=0)
    assert describe(keep.action) == "seat 0 does not bet"
    assert describe(fifteen.action) == "seat 0 bets 15"
    assert keep.first_out > 0.5  # the play below "no bet" is searched: the pair goes out
    assert NO_BET not in {a.action.code for a in analyze(rnd, samples=5)}  # not by default
    played = _must_beat_or_lose()
    played.play(0, "Ta")
    played.pass_(1)  # seat 0 has played a card: it may not bet any more
    with pytest.raises(ValueError, match="NO_BET: seat 0 may not bet here"):
        analyze(played, [NO_BET])
    with pytest.raises(ValueError, match="no actions to compare"):
        compare(rnd, NO_BET, [])
