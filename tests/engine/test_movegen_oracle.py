"""Differential tests: the engine's combination classifier and move generator
against the independent brute-force oracle in ``tests/oracle.py`` (RULES.md 2).

Every random case uses a fixed seed derived from the test parameters, so a failure
reproduces exactly; the assertion message names the hand, the top play and the
missing / extra moves.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest
from oracle import (
    Move,
    Reading,
    full_deck,
    oracle_all_moves,
    oracle_beats,
    oracle_legal_plays,
    oracle_readings,
)

import haggis_sim as hs

PLAYERS = [2, 3]
FACES = ["J", "Q", "K"]


def nsuits_for(players: int) -> int:
    return 4 if players == 2 else 5


def rules_for(players: int) -> Any:
    return hs.Rules.preset("revised", players=players)


def reading_of(combo: Any) -> Reading:
    return (combo.kind, combo.width, combo.length, combo.rank)


def move_of(combo: Any) -> Move:
    return (frozenset(combo.cards), combo.kind, combo.width, combo.length, combo.rank)


def fmt_cards(cards: Iterable[str]) -> str:
    return str(hs.parse_cards(" ".join(cards)))


def fmt_moves(moves: Iterable[Move], limit: int = 40) -> str:
    rows = sorted(
        (fmt_cards(m[0]), m[1], m[2], m[3], m[4]) for m in moves
    )  # sorted for stable messages
    text = "\n    ".join(
        f"[{c}] {k} w={w} L={length} rank={r}" for c, k, w, length, r in rows[:limit]
    )
    more = f"\n    ... {len(rows) - limit} more" if len(rows) > limit else ""
    return "\n    " + text + more


def engine_readings(tokens: Iterable[str], players: int) -> list[Reading]:
    cards = hs.parse_cards(" ".join(tokens))
    return [reading_of(c) for c in hs.readings(cards, rules_for(players))]


# ------------------------------------------------------------------ handpicked cases

# (cards, players, expected readings).  These are also checked against the oracle,
# which pins the oracle itself to the worked examples of RULES.md / the rulebooks.
CORNER_CASES: list[tuple[str, int, set[Reading]]] = [
    # RULES.md 2.3: set of three 5s, or a run 3-4-5 / 4-5-6 / 5-6-7.
    (
        "5a J Q",
        3,
        {("set", 3, 1, 5), ("sequence", 1, 3, 5), ("sequence", 1, 3, 6), ("sequence", 1, 3, 7)},
    ),
    # J natural on top of 9-10; J wild as an 8.
    ("9a Ta J", 3, {("sequence", 1, 3, 11), ("sequence", 1, 3, 10)}),
    # Stair of pairs 10-J (J natural, Q wild) or 9-10, and a set of four 10s.
    ("Ta Tb J Q", 3, {("sequence", 2, 2, 11), ("sequence", 2, 2, 10), ("set", 4, 1, 10)}),
    ("Ta Tb J Q", 2, {("sequence", 2, 2, 11), ("sequence", 2, 2, 10), ("set", 4, 1, 10)}),
    ("3a 5b 7c 9d", 3, {("bomb", 0, 0, 1)}),
    ("3a 5b 7c 9d", 2, {("bomb", 0, 0, 1)}),
    ("3e 5b 7c 9d", 3, {("bomb", 0, 0, 1)}),
    ("3a 5a 7a 9a", 3, {("bomb", 0, 0, 6)}),
    ("3d 5d 7d 9d", 2, {("bomb", 0, 0, 6)}),
    ("3a 5b 7c 9d J", 3, set()),  # a face card spoils the bomb
    ("3a 5a 7a 9a K", 3, set()),
    ("3a 5a 7b 9b", 3, set()),  # suits neither all different nor all equal
    ("3a 5a 7a 9b", 2, set()),
    ("J Q", 3, {("bomb", 0, 0, 2)}),
    ("J K", 2, {("bomb", 0, 0, 3)}),
    ("Q K", 3, {("bomb", 0, 0, 4)}),
    ("J Q K", 3, {("bomb", 0, 0, 5)}),
    ("J", 3, {("set", 1, 1, 11)}),
    ("Q", 2, {("set", 1, 1, 12)}),
    ("K", 3, {("set", 1, 1, 13)}),
    ("2a", 2, {("set", 1, 1, 2)}),
    ("Te", 3, {("set", 1, 1, 10)}),
    ("2a 3a 4a", 3, {("sequence", 1, 3, 4)}),
    ("2a 3b 4a", 3, set()),  # a run of singles is in one suit
    ("2a 4a J", 3, {("sequence", 1, 3, 4)}),  # J wild as the 3
    ("2a 3a K", 3, {("sequence", 1, 3, 4)}),  # no wrap: nothing below 2
    ("2a 2b", 3, {("set", 2, 1, 2)}),
    ("2a 3a", 3, set()),  # two singles in a row are not a run
    ("2a 2b 3a 3b", 2, {("sequence", 2, 2, 3)}),
    ("2a 2b 3a 3c", 3, set()),  # each rank must use the same suits
    ("2a 2b 3a J", 3, {("sequence", 2, 2, 3)}),
    ("5a 5b 5c J", 3, {("set", 4, 1, 5)}),
    ("5a 5b J Q K", 3, {("set", 5, 1, 5)}),
    ("5a 5b 5c 5d 5e J Q K", 3, {("set", 8, 1, 5)}),
    ("5a 5b 5c 5d J Q K", 2, {("set", 7, 1, 5)}),
    # 10-J-Q-K: all three faces natural; lower runs with faces wild; a stair of pairs.
    (
        "Ta J Q K",
        3,
        {
            ("set", 4, 1, 10),
            ("sequence", 1, 4, 13),
            ("sequence", 1, 4, 12),
            ("sequence", 1, 4, 11),
            ("sequence", 1, 4, 10),
            ("sequence", 2, 2, 11),
            ("sequence", 2, 2, 10),
        },
    ),
    # J-Q-K runs above 10 need J natural, Q natural (a J cannot stand for a Q).
    ("9a Ta Q", 3, {("sequence", 1, 3, 10), ("sequence", 1, 3, 11)}),
    ("9a Ta K", 3, {("sequence", 1, 3, 10), ("sequence", 1, 3, 11)}),
    # 10-J-Q with K wild as the Q.
    (
        "Ta J K",
        3,
        {("sequence", 1, 3, 10), ("sequence", 1, 3, 11), ("sequence", 1, 3, 12)}
        | {("set", 3, 1, 10)},
    ),
    (
        "Ta Q K",
        3,
        {("sequence", 1, 3, 10), ("sequence", 1, 3, 11), ("sequence", 1, 3, 12)}
        | {("set", 3, 1, 10)},
    ),
    # Long run of singles over the whole rank range, faces natural.
    (
        "2a 3a 4a 5a 6a 7a 8a 9a Ta J Q K",
        3,
        {("sequence", 1, 12, 13)},
    ),
    # Stair of triples 9-10 with one face.
    ("9a 9b 9c Ta Tb K", 3, {("sequence", 3, 2, 10)}),
    ("9a 9b 9c Ta Tb K", 2, {("sequence", 3, 2, 10)}),
    # 3 pairs of 2-3-4 with a face filling anywhere.
    ("2a 2b 3a 3b 4a J", 3, {("sequence", 2, 3, 4)}),
    # A stair of width 5 only exists with five suits.
    ("4a 4b 4c 4d 4e 5a 5b 5c 5d 5e", 3, {("sequence", 5, 2, 5)}),
    ("4a 4b 4c 4d 5a 5b 5c 5d", 2, {("sequence", 4, 2, 5)}),
]


@pytest.mark.parametrize(("text", "players", "expected"), CORNER_CASES)
def test_oracle_corner_cases(text: str, players: int, expected: set[Reading]) -> None:
    """The oracle itself agrees with the worked examples."""
    assert oracle_readings(text.split(), nsuits_for(players)) == expected


@pytest.mark.parametrize(("text", "players", "expected"), CORNER_CASES)
def test_readings_corner_cases(text: str, players: int, expected: set[Reading]) -> None:
    got = engine_readings(text.split(), players)
    assert set(got) == expected, f"readings of [{text}] ({players}p): got {sorted(got)}"
    assert len(got) == len(set(got)), f"duplicate readings of [{text}]: {sorted(got)}"


@pytest.mark.parametrize("text", ["Qa", "1a", "5f", "Ta Ta", "J J", "Ka", "11a", "T", "5", "x"])
def test_parse_rejects_invalid(text: str) -> None:
    with pytest.raises(ValueError):
        hs.parse_cards(text)


def test_parse_canonical_order() -> None:
    cards = hs.parse_cards("Q 10b 5c K 5a J Ta")
    assert str(cards) == "5a 5c Ta Tb J Q K"
    assert list(cards) == ["5a", "5c", "Ta", "Tb", "J", "Q", "K"]
    assert len(cards) == 7


# ------------------------------------------------------------------ random card sets


def random_card_sets(players: int, count: int) -> list[list[str]]:
    """A seeded mix of arbitrary small card sets and sets drawn from a narrow
    rank/suit window (which are far more often valid combinations)."""
    nsuits = nsuits_for(players)
    suits = "abcde"[:nsuits]
    deck = full_deck(nsuits)
    rng = random.Random(1000 + players)
    out: list[list[str]] = []
    for i in range(count):
        mode = i % 4
        if mode == 0:  # anything at all
            pool = deck + FACES
            k = rng.randint(1, 7)
        elif mode == 1:  # narrow window: sets and short stairs
            lo = rng.randint(2, 10)
            hi = min(10, lo + rng.randint(0, 3))
            ss = rng.sample(suits, rng.randint(1, nsuits))
            pool = [f"{'23456789T'[r - 2]}{s}" for r in range(lo, hi + 1) for s in ss] + FACES
            k = rng.randint(1, min(8, len(pool)))
        elif mode == 2:  # long runs in one or two suits
            lo = rng.randint(2, 9)
            hi = rng.randint(lo + 1, 10)
            ss = rng.sample(suits, rng.randint(1, 2))
            pool = [f"{'23456789T'[r - 2]}{s}" for r in range(lo, hi + 1) for s in ss]
            pool += rng.sample(FACES, rng.randint(0, 3))
            k = rng.randint(2, min(12, len(pool)))
        else:  # around the bombs
            pool = [f"{r}{rng.choice(suits)}" for r in "3579"]
            if rng.random() < 0.5:
                s = rng.choice(suits)
                pool = [f"{r}{s}" for r in "3579"]
            extra = rng.sample(FACES, rng.randint(0, 2))
            out.append(pool + extra if rng.random() < 0.5 else pool)
            continue
        out.append(rng.sample(pool, k))
    return out


@pytest.mark.parametrize("players", PLAYERS)
def test_readings_random(players: int) -> None:
    nsuits = nsuits_for(players)
    cases = random_card_sets(players, 2000)
    failures = []
    n_valid = 0
    for tokens in cases:
        want = oracle_readings(tokens, nsuits)
        n_valid += bool(want)
        got = engine_readings(tokens, players)
        if set(got) != want:
            failures.append(
                f"[{fmt_cards(tokens)}]: missing {sorted(want - set(got))}, "
                f"extra {sorted(set(got) - want)}"
            )
    assert n_valid > 500  # the generator does produce many valid combinations
    assert not failures, f"{len(failures)}/{len(cases)} mismatches ({players}p):\n" + "\n".join(
        failures[:25]
    )


@pytest.mark.parametrize("players", PLAYERS)
def test_readings_combo_attributes(players: int) -> None:
    rules = rules_for(players)
    for tokens in random_card_sets(players, 400):
        cards = hs.parse_cards(" ".join(tokens))
        for c in hs.readings(cards, rules):
            assert frozenset(c.cards) == frozenset(tokens)
            assert c.size == len(tokens) == len(c.cards)
            if c.kind == "set":
                assert (c.width, c.length) == (c.size, 1)
            elif c.kind == "sequence":
                assert c.width * c.length == c.size
            else:
                assert (c.kind, c.width, c.length) == ("bomb", 0, 0)
                assert 1 <= c.rank <= 6


# ------------------------------------------------------------------ legal plays


# (suit cards, face cards); (14, 3) is a full starting hand (2**17 subsets for the oracle).
HAND_SHAPES = [(14, 3), (12, 3), (9, 0), (11, 2), (10, 1), (13, 2)]


def random_hand(players: int, index: int) -> list[str]:
    rng = random.Random(7919 * players + index)
    n_suit, n_face = HAND_SHAPES[index % len(HAND_SHAPES)]
    return rng.sample(full_deck(nsuits_for(players)), n_suit) + rng.sample(FACES, n_face)


def pick_tops(hand: list[str], source: list[str], nsuits: int, rng: random.Random) -> list[Move]:
    """Top plays taken from the oracle's move list of another hand: some of the
    same shape as the hand's own moves (so the comparison is not trivially empty),
    some arbitrary, and every bomb."""
    own_keys = {m[1:4] for m in oracle_all_moves(hand, nsuits)}
    src = sorted(oracle_all_moves(source, nsuits), key=lambda m: (sorted(m[0]), m[1:]))
    shared = [m for m in src if m[1:4] in own_keys and m[1] != "bomb"]
    seqs = [m for m in shared if m[1] == "sequence"]
    sets_ = [m for m in shared if m[1] == "set"]
    bombs = [m for m in src if m[1] == "bomb"]
    tops = rng.sample(seqs, min(4, len(seqs))) + rng.sample(sets_, min(4, len(sets_)))
    tops += rng.sample(src, min(2, len(src)))
    tops += bombs[:3]
    tops.append((frozenset({"J", "Q"}), "bomb", 0, 0, 2))
    tops.append((frozenset({"3a", "5a", "7a", "9a"}), "bomb", 0, 0, 6))
    return list(dict.fromkeys(tops))


def engine_top(move: Move, players: int) -> Any:
    """The engine Combo for an oracle move (its cards read with that exact reading)."""
    cards = hs.parse_cards(" ".join(sorted(move[0])))
    matches = [c for c in hs.readings(cards, rules_for(players)) if reading_of(c) == move[1:]]
    assert matches, f"engine has no reading {move[1:]} of [{fmt_cards(move[0])}]"
    return matches[0]


def compare_legal(hand: list[str], top: Move | None, players: int) -> None:
    nsuits = nsuits_for(players)
    top_reading = None if top is None else top[1:]
    want = oracle_legal_plays(hand, top_reading, nsuits)
    hs_top = None if top is None else engine_top(top, players)
    plays = hs.legal_plays(hs.parse_cards(" ".join(hand)), hs_top, rules_for(players))
    got_list = [move_of(c) for c in plays]
    got = set(got_list)
    where = f"hand [{fmt_cards(hand)}] ({players}p), top " + (
        "None" if top is None else f"[{fmt_cards(top[0])}] {top[1:]}"
    )
    assert got == want, (
        f"{where}: {len(want - got)} missing, {len(got - want)} extra"
        f"\n  missing:{fmt_moves(want - got)}\n  extra:{fmt_moves(got - want)}"
    )
    keys = [m[:4] for m in got_list]
    assert len(keys) == len(set(keys)), f"{where}: several moves per (cards, kind, w, L)"


@pytest.mark.parametrize("index", range(len(HAND_SHAPES)))
@pytest.mark.parametrize("players", PLAYERS)
def test_legal_plays_leading(players: int, index: int) -> None:
    compare_legal(random_hand(players, index), None, players)


@pytest.mark.parametrize("index", range(len(HAND_SHAPES)))
@pytest.mark.parametrize("players", PLAYERS)
def test_legal_plays_with_tops(players: int, index: int) -> None:
    nsuits = nsuits_for(players)
    hand = random_hand(players, index)
    source = random_hand(players, (index + 1) % len(HAND_SHAPES))
    rng = random.Random(31 * players + index)
    tops = pick_tops(hand, source, nsuits, rng)
    assert len(tops) >= 6
    for top in tops:
        compare_legal(hand, top, players)


@pytest.mark.parametrize("players", PLAYERS)
def test_legal_plays_small_hands_exhaustive_tops(players: int) -> None:
    """Small hands: every move of another small hand is used as the top play."""
    nsuits = nsuits_for(players)
    rng = random.Random(555 + players)
    deck = full_deck(nsuits)
    for _ in range(5):
        hand = rng.sample(deck, 7) + rng.sample(FACES, rng.randint(0, 3))
        source = rng.sample(deck, 6) + rng.sample(FACES, rng.randint(0, 2))
        compare_legal(hand, None, players)
        for top in sorted(oracle_all_moves(source, nsuits), key=lambda m: (sorted(m[0]), m[1:])):
            compare_legal(hand, top, players)


def test_legal_plays_accepts_text_hand() -> None:
    rules = rules_for(3)
    plays = hs.legal_plays("5a J Q", None, rules)
    got = {move_of(c) for c in plays}
    assert got == oracle_legal_plays(["5a", "J", "Q"], None, 5)


def test_legal_plays_highest_reading_only() -> None:
    """RULES.md 2.3 Decision: one move per (card set, kind, w, L), the highest reading."""
    plays = hs.legal_plays("5a J Q", None, rules_for(3))
    trio = [move_of(c) for c in plays if frozenset(c.cards) == {"5a", "J", "Q"}]
    assert sorted(trio, key=lambda m: m[1]) == [
        (frozenset({"5a", "J", "Q"}), "sequence", 1, 3, 7),
        (frozenset({"5a", "J", "Q"}), "set", 3, 1, 5),
    ]


# ------------------------------------------------------------------ beats


def combo_pool(players: int) -> list[Any]:
    rules = rules_for(players)
    pool = []
    for tokens in random_card_sets(players, 600):
        pool.extend(hs.readings(hs.parse_cards(" ".join(tokens)), rules))
    for text in ["J Q", "J K", "Q K", "J Q K", "3a 5b 7c 9d", "3a 5a 7a 9a", "J", "Q", "K"]:
        pool.extend(hs.readings(hs.parse_cards(text), rules))
    return pool


@pytest.mark.parametrize("players", PLAYERS)
def test_beats_random_pairs(players: int) -> None:
    pool = combo_pool(players)
    rng = random.Random(99 + players)
    # Same-shape pairs are the interesting ones: bias towards them.
    by_shape: dict[tuple[str, int, int], list[Any]] = {}
    for c in pool:
        by_shape.setdefault((c.kind, c.width, c.length), []).append(c)
    shapes = [v for v in by_shape.values() if len(v) >= 2]
    failures = []
    n = 0
    for i in range(4000):
        if i % 2:
            a, b = rng.choice(pool), rng.choice(pool)
        else:
            a, b = rng.sample(rng.choice(shapes), 2)
        n += 1
        if hs.beats(a, b) != oracle_beats(reading_of(a), reading_of(b)):
            failures.append(
                f"beats([{a.cards}] {reading_of(a)}, [{b.cards}] {reading_of(b)})"
                f" = {hs.beats(a, b)}"
            )
    for a in pool[:300]:
        n += 1
        if hs.beats(a, None) is not True:
            failures.append(f"beats([{a.cards}] {reading_of(a)}, None) is not True")
    assert not failures, f"{len(failures)}/{n} mismatches:\n" + "\n".join(failures[:25])


def test_beats_examples() -> None:
    rules = rules_for(3)

    def combo(text: str, reading: Reading) -> Any:
        (c,) = [c for c in hs.readings(hs.parse_cards(text), rules) if reading_of(c) == reading]
        return c

    ten = combo("Ta", ("set", 1, 1, 10))
    jack = combo("J", ("set", 1, 1, 11))
    assert hs.beats(jack, ten) and not hs.beats(ten, jack)
    run_8_10 = combo("8a 9a Ta", ("sequence", 1, 3, 10))
    run_9_j = combo("9b Tb J", ("sequence", 1, 3, 11))
    assert hs.beats(run_9_j, run_8_10)
    stair = combo("Ta Tb J Q", ("sequence", 2, 2, 11))
    stair_low = combo("9a 9b Ta Tb", ("sequence", 2, 2, 10))
    assert hs.beats(stair, stair_low)
    four_tens = combo("Ta Tb J Q", ("set", 4, 1, 10))
    assert not hs.beats(four_tens, stair_low) and not hs.beats(stair, four_tens)
    run6 = combo("2a 3a 4a 5a 6a 7a", ("sequence", 1, 6, 7))
    pairs3 = combo("2b 2c 3b 3c 4b 4c", ("sequence", 2, 3, 4))
    trip2 = combo("5b 5c 5d 6b 6c 6d", ("sequence", 3, 2, 6))
    for x in (run6, pairs3, trip2):
        for y in (run6, pairs3, trip2):
            assert not hs.beats(x, y)
    rainbow = combo("3a 5b 7c 9d", ("bomb", 0, 0, 1))
    jq = combo("J Q", ("bomb", 0, 0, 2))
    flush = combo("3e 5e 7e 9e", ("bomb", 0, 0, 6))
    assert hs.beats(rainbow, run6) and hs.beats(rainbow, jack) and not hs.beats(jack, rainbow)
    assert hs.beats(jq, rainbow) and hs.beats(flush, jq) and not hs.beats(rainbow, jq)
    assert not hs.beats(jq, jq)
