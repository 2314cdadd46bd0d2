"""``haggis-sim show RUN GAME_ID``: the game viewer page, its data, its browser behaviour,
and its errors.

The page's embedded JSON is parsed back and checked against the run's own tables and a
fresh deal of the engine; the page is then loaded in headless Chromium with a script
appended that presses keys and records what the page shows (as in
``tests/report/test_pages_in_browser.py``).
"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from browser_helpers import browser_check
from cli_helpers import invoke, one_line_error

import haggis_sim as hs
from haggis_sim.analytics.replay import LogCursor, load_game, start_game
from haggis_sim.cards import Cards
from haggis_sim.counterfactual.game_view import MCTS_NOTE, AltRequest, build_view
from haggis_sim.engine.rng import derive
from haggis_sim.logs import ledger
from strategies import shortlist

pytestmark = pytest.mark.slow  # end-to-end runs: not in the everyday fast subset


def make_run(out: Path, *args: str) -> Path:
    res = invoke("run", *args, "--out", str(out), "-q", "--jobs", "1")
    assert res.exit_code == 0, (res.stdout, res.stderr, res.exception)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("show-runs")
    return {
        "mcts": make_run(base / "mcts", "-s", "heuristic,mcts:iters=20", "-n", "4",
                         "--chunk-size", "2"),
        # 3 players, the bomber chooses who takes a bombed trick and the Haggis: gives
        "three": make_run(base / "three", "-s", "random:bet=0.3", "-p", "3", "-n", "6",
                          "--chunk-size", "3", "--seed", "22", "--rules", "aid",
                          "--rule", "haggis_to=last_to_play"),
    }  # fmt: skip


def page_data(page: Path) -> dict[str, Any]:
    found = re.search(
        r'<script type="application/json" id="game-data">(.*?)</script>',
        page.read_text(encoding="utf-8"),
        re.S,
    )
    assert found, "no embedded game data"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def table(run_dir: Path, name: str, game_id: int) -> pl.DataFrame:
    keys = {"games": ["game_id"], "rounds": ["round"], "moves": ["round", "turn"]}[name]
    frame = ledger.read_table(run_dir, name).filter(pl.col("game_id") == game_id).collect()
    return frame.sort(keys)


def show(run_dir: Path, game_id: int, out: Path, *extra: str) -> dict[str, Any]:
    res = invoke("show", str(run_dir), str(game_id), "--out", str(out), *extra)
    assert res.exit_code == 0, (res.stdout, res.stderr, res.exception)
    assert f"wrote {out}" in res.stdout
    return page_data(out)


# --- the page's data against the log and the engine ----------------------------------------


def check_against_log(run_dir: Path, game_id: int, data: dict[str, Any]) -> None:
    games = table(run_dir, "games", game_id).row(0, named=True)
    n = data["players"]
    final = [games[f"score_{k}"] for k in range(n)]
    assert data["final"] == final
    assert data["winner"] == games["winner"]
    assert data["frames"][-1]["kind"] == "game_end"
    assert data["frames"][-1]["totals"] == final
    assert data["strategies"] == [games[f"strategy_{k}"] for k in range(n)]

    # every logged move, in order, as the page shows it
    moves = table(run_dir, "moves", game_id).to_dicts()
    acts = [f for f in data["frames"] if f["kind"] == "action"]
    assert len(acts) == len(moves)
    for f, m in zip(acts, moves, strict=True):
        where = (m["round"], m["turn"])
        a = f["act"]
        assert (f["round"], a["turn"], f["seat"]) == (m["round"], m["turn"], m["seat"]), where
        assert (f["trick"]) == m["trick"], where
        assert (a["kind"] if a["type"] == "play" else a["type"]) == m["type"], where
        assert a["cards"] == list(Cards.from_mask(m["cards"] or 0)), where
        if m["type"] in ("bet", "give"):
            assert a["value"] == m["value"], where
        if a["type"] == "play":  # on the table now, as the trick's latest play
            assert f["trick_plays"][-1]["seat"] == f["seat"], where
            assert f["trick_plays"][-1]["cards"] == a["cards"], where
            assert f["trick_plays"][-1]["text"] == a["reading"], where
        assert len(f["hands"][f["seat"]]) == m["hand_after"], where

    # the hands and the Haggis dealt at the start are the engine's deal of this game
    rules = hs.Rules(
        **{**data["rule_flags"], "bet_values": tuple(data["rule_flags"]["bet_values"])}
    )
    game = hs.Game(rules, seed=data["seed"], game_id=games["deal_id"])
    first = data["frames"][0]
    assert first["kind"] == "deal"
    assert first["hands"] == [list(game.hand(s)) for s in range(n)]
    assert first["haggis"] == list(game.haggis)
    assert sum(len(h) for h in first["hands"]) + len(first["haggis"]) == (
        42 if n == 2 else 54
    )  # suit cards and J Q K each

    # round scores by source and running totals, as the rounds table has them
    rounds = table(run_dir, "rounds", game_id).to_dicts()
    assert len(data["rounds"]) == len(rounds) == games["rounds"]
    totals = [0] * n
    ends = [f for f in data["frames"] if f["kind"] == "round_end"]
    for r, shown, end in zip(rounds, data["rounds"], ends, strict=True):
        for s in range(n):
            for key in ("going_out", "cards", "bets", "bonus", "total"):
                assert shown["scores"][s][key] == r[f"{key}_{s}"], (r["round"], s, key)
            totals[s] += r[f"total_{s}"]
        assert shown["totals"] == totals
        assert end["totals"] == totals


def to_fixed(x: float, digits: int) -> str:
    """JavaScript's ``x.toFixed(digits)``: the float's exact value rounded half away from
    zero (Python's format rounds an exact tie such as 0.0625 to even: 0.062, not 0.063)."""
    from decimal import ROUND_HALF_UP, Decimal

    return str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def test_page_data_equals_the_log_and_the_deal(runs: dict[str, Path], tmp_path: Path) -> None:
    for game_id in range(4):
        data = show(runs["mcts"], game_id, tmp_path / f"g{game_id}.html")
        check_against_log(runs["mcts"], game_id, data)
        assert data["notes"] == [MCTS_NOTE]  # said once, not invented


def test_three_players_gives_and_captures(runs: dict[str, Path]) -> None:
    gives: list[str] = []
    for game_id in range(6):
        data = build_view(runs["three"], game_id)
        check_against_log(runs["three"], game_id, data)
        assert data["notes"] == []  # no mcts seat
        for f in data["frames"]:
            if f["kind"] == "action" and f["act"]["type"] == "give":
                gives.append(f["head"])
                if "bombed trick" in f["head"]:
                    to = f["act"]["value"]
                    assert f"bomb wins the trick: seat {to} takes it" in f["notes"][-1], f
    assert any("gives the bombed trick to seat" in g for g in gives), gives


def test_page_is_self_contained(runs: dict[str, Path], tmp_path: Path) -> None:
    page = tmp_path / "g.html"
    show(runs["mcts"], 1, page)
    text = page.read_text(encoding="utf-8")
    for needle in ("http://", "https://", "src=", "<link", "@import", "url(", "//cdn"):
        assert needle not in text.lower(), needle
    assert text.count("<script") == 2  # the data and the viewer, both inline


class Header(HTMLParser):
    """The page's ``<header>``: the text of its meta lines and its folds; and the title of
    every strategy label on the page (the header's and the seat boxes')."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str]] = []  # (tag, class) from <header> in
        self.meta: list[str] = []  # what the lines naming the seats and the result show
        self.folded: list[str] = []
        self.titles: dict[str, list[str]] = {}  # class -> title of each span, in order

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "header" or self.stack:
            self.stack.append((tag, a.get("class") or ""))
        if tag == "span" and a.get("class") in ("spec", "who"):  # "who": the seat boxes
            self.titles.setdefault(a.get("class") or "", []).append(a.get("title") or "")

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack.pop() == ("p", "meta"):
            self.meta.append("\n")  # the lines apart

    def handle_data(self, data: str) -> None:
        if any(tag == "details" for tag, _ in self.stack):
            self.folded.append(data)
        elif ("p", "meta") in self.stack:
            self.meta.append(data)


def test_header_names_each_seat_once_short_with_the_full_spec_on_hover(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """#26: the header repeated the full mcts spec three times. Now each seat's strategy
    is named once, short; its full spec is the label's title and in a fold."""
    page = tmp_path / "g.html"
    data = show(runs["mcts"], 1, page)
    specs = data["strategies"]
    names = [spec.partition(":")[0] for spec in specs]
    assert sorted(names) == ["heuristic", "mcts"] and all(len(s) > 60 for s in specs), specs
    head = Header()
    head.feed(page.read_text(encoding="utf-8"))
    visible = " ".join("".join(head.meta).split())
    assert f"seat 0: {names[0]}; seat 1: {names[1]}" in visible, visible
    for name in ("heuristic", "mcts"):
        assert len(re.findall(rf"\b{name}\b", visible)) == 1, visible  # once, not 3 times
    assert "=" not in visible, visible  # no parameter in sight
    assert head.titles["spec"] == specs  # hover: the full spec, seat by seat
    assert head.titles["who"] == specs  # the seat boxes' labels too
    folded = "".join(head.folded)
    assert all(f"seat {k}: {spec}" in folded for k, spec in enumerate(specs)), folded


# --- in the browser ------------------------------------------------------------------------

DRIVE = """<script>window.addEventListener('load', function () {
  function key(k) {
    document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
  }
  function seen() {
    var hands = [], totals = [];
    for (var s = 0; document.getElementById('hand-' + s); s++) {
      hands.push(Array.prototype.map.call(document.querySelectorAll('#hand-' + s + ' .card'),
        function (c) { return c.textContent; }));
      totals.push(document.getElementById('total-' + s).textContent);
    }
    return {pos: document.getElementById('pos').textContent, hands: hands, totals: totals,
            head: document.getElementById('event-head').textContent};
  }
  var out = {steps: [seen()]};
  KEYS.forEach(function (k) { key(k); out.steps.push(seen()); });
  out.result = document.getElementById('result').textContent;
  // after all the stepping: nothing in the page that could load a file or reach a network
  out.loaders = document.querySelectorAll(
    '[src], [href], link, iframe, object, embed, img, video, audio, source').length;
  var pre = document.createElement('pre');
  pre.id = 'browser-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});</script>"""

KEYS = ["ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft", "ArrowDown", "ArrowDown", "ArrowUp",
        "PageDown", "ArrowRight", "ArrowRight", "PageUp", "PageUp", "Home", "ArrowDown",
        "ArrowDown", "ArrowDown", "End", "ArrowLeft", "ArrowUp", "Home"]  # fmt: skip


def drive(page: Path, tmp: Path, script: str | None = None) -> dict[str, Any]:
    """Load a copy of ``page`` with the key-pressing script appended; what it recorded."""
    copy = tmp / "driven.html"
    script = script or DRIVE.replace("KEYS", json.dumps(KEYS))
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", script + "</body>"))
    return browser_check(copy, tmp)


def expected_indices(frames: list[dict[str, Any]]) -> list[int]:
    """The frame each press of KEYS should show, by the viewer's documented rules: a step,
    the next trick's first frame, back to this trick's start (or the previous trick's)."""
    seg = [f["segment"] for f in frames]
    start = [min(j for j in range(len(seg)) if seg[j] == seg[i]) for i in range(len(seg))]
    last = len(frames) - 1
    i, out = 0, [0]
    for k in KEYS:
        if k == "ArrowRight":
            i = min(i + 1, last)
        elif k == "ArrowLeft":
            i = max(i - 1, 0)
        elif k in ("ArrowDown", "PageDown"):
            i = next((j for j in range(i, len(seg)) if seg[j] != seg[i]), last)
        elif k in ("ArrowUp", "PageUp"):
            i = start[i] if i > start[i] else (start[i - 1] if i else 0)
        elif k == "Home":
            i = 0
        elif k == "End":
            i = last
        out.append(i)
    return out


@pytest.mark.browser
def test_page_steps_in_the_browser(runs: dict[str, Path], tmp_path: Path) -> None:
    page = tmp_path / "g.html"
    data = show(runs["mcts"], 1, page)
    frames = data["frames"]
    got = drive(page, tmp_path)
    want = expected_indices(frames)
    assert len(set(want)) > 6, want  # the keys really move around the game
    assert len(got["steps"]) == len(want)
    for press, (shown, i) in enumerate(zip(got["steps"], want, strict=True)):
        f = frames[i]
        what = (["start", *KEYS][press], i, shown["pos"])
        assert shown["pos"].startswith(f"step {i + 1} / {len(frames)} "), what
        assert shown["hands"] == f["hands"], what
        assert shown["totals"] == [str(t) for t in f["totals"]], what
        assert shown["head"] == f["head"], what
    # the final screen (End) shows the logged final scores
    end = got["steps"][KEYS.index("End") + 1]
    games = table(runs["mcts"], "games", 1).row(0, named=True)
    assert end["pos"].endswith("game over")
    assert end["totals"] == [str(games[f"score_{k}"]) for k in range(2)]
    assert "final scores " + " – ".join(end["totals"]) in " ".join(got["result"].split())
    assert got["loaders"] == 0  # nothing that fetches (Resource Timing does not list file://)


# --- errors for people ---------------------------------------------------------------------


def test_ctrl_c_while_building_says_so_and_writes_nothing(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import haggis_sim.counterfactual.game_view as game_view

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(game_view, "build_view", interrupted)
    res = invoke("show", str(runs["mcts"]), "1", "--out", str(tmp_path / "page.html"))
    assert res.exit_code == 130, (res.stdout, res.stderr)
    assert res.stderr.strip().splitlines() == ["interrupted: nothing written"]
    assert list(tmp_path.iterdir()) == []


def test_errors_write_nothing(runs: dict[str, Path], tmp_path: Path) -> None:
    src = runs["mcts"]
    out = tmp_path / "page.html"

    one_line_error(invoke("show", str(src), "99", "--out", str(out)), "game 99")
    one_line_error(invoke("show", str(tmp_path), "0", "--out", str(out)), "not a haggis-sim run")
    one_line_error(invoke("show", str(src), "0", "--out", str(tmp_path / "p.htm")), ".html")
    one_line_error(invoke("show", str(src), "0", "--out", str(src / "p.html")), "run folder")
    one_line_error(invoke("show", str(src), "0", "--out", str(tmp_path / "no" / "p.html")),
                   "does not exist")  # fmt: skip

    bare = make_run(tmp_path / "bare", "-s", "greedy,random", "-n", "2", "--no-log-moves")
    one_line_error(invoke("show", str(bare), "0", "--out", str(out)), "made with --no-log-moves")

    cut = tmp_path / "cut"
    shutil.copytree(src, cut)
    part = ledger.table_files(cut, "moves")[0]
    part.write_bytes(part.read_bytes()[:-200])
    one_line_error(invoke("show", str(cut), "0", "--out", str(out)), "damaged log file")

    # a play with a card its player never held: the engine refuses it, no page
    bad = tampered_run(src, tmp_path / "bad", "moves", extra_card)
    one_line_error(invoke("show", str(bad), "0", "--out", str(out)), "disagrees", "game 0")
    # a round the rounds table lost: named, not a traceback
    lost = tampered_run(src, tmp_path / "lost", "rounds", last_round_lost)
    one_line_error(invoke("show", str(lost), "0", "--out", str(out)), "disagrees", "no row")
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".html" or ".tmp" in p.name] == []


def extra_card(frame: pl.DataFrame) -> pl.DataFrame:
    """Game 0's first play with one more card, one its player never held."""
    plays = frame.with_row_index().filter((pl.col("game_id") == 0) & (pl.col("n_cards") > 0))
    i, seat = int(plays["index"][0]), int(plays["seat"][0])
    foreign = frame.filter((pl.col("game_id") == 0) & (pl.col("round") == 0)
                           & (pl.col("seat") != seat) & (pl.col("n_cards") > 0))  # fmt: skip
    card = int(foreign["cards"][0]) & ((1 << 45) - 1)
    card &= -card
    at = pl.int_range(pl.len()) == i
    return frame.with_columns(
        pl.when(at).then(pl.col("cards") | card).otherwise(pl.col("cards")).alias("cards")
    )


def last_round_lost(frame: pl.DataFrame) -> pl.DataFrame:
    """The rounds table without game 0's last round."""
    last = frame.filter(pl.col("game_id") == 0)["round"].max()
    return frame.filter((pl.col("game_id") != 0) | (pl.col("round") != last))


def tampered_run(src: Path, dst: Path, table: str, edit: Any) -> Path:
    """A copy of ``src`` with the first part of ``table`` edited and its ledger line forged
    to match, so only the engine can tell."""
    shutil.copytree(src, dst)
    part = ledger.table_files(dst, table)[0]
    frame = edit(pl.read_parquet(part))
    frame.write_parquet(part)
    data = part.read_bytes()
    entries, _ = ledger.read_entries(dst)
    ledger.rewrite(dst, [
        e if e.name != part.name else ledger.Entry(e.start, e.stop, {
            **e.files, table: ledger.PartFile(frame.height, len(data), ledger.digest(data))})
        for e in entries
    ])  # fmt: skip
    return dst


def test_existing_out_needs_force(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "mine.html"
    out.write_text("my own notes")
    one_line_error(invoke("show", str(runs["mcts"]), "0", "--out", str(out)), "--force")
    assert out.read_text() == "my own notes"
    data = show(runs["mcts"], 0, out, "--force")
    assert data["game_id"] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["mine.html"]  # no temporary left


def test_default_out_is_named_after_run_and_game(
    runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    res = invoke("show", str(runs["mcts"]), "2")
    assert res.exit_code == 0, (res.stdout, res.stderr, res.exception)
    page = tmp_path / "mcts-game-2.html"
    assert page_data(page)["game_id"] == 2
    one_line_error(invoke("show", str(runs["mcts"]), "2"), "already exists")
    # run from inside the run folder: the default would land there, and is refused
    monkeypatch.chdir(runs["mcts"])
    one_line_error(invoke("show", ".", "2"), "inside the run folder")
    assert not list(runs["mcts"].glob("*.html"))


# --- --alternatives: the decision analysis of each decision ---------------------------------


def legal_counts(run_dir: Path, game_id: int) -> list[tuple[int, int]]:
    """(seat, number of legal actions) of every logged action of the game, in order: the
    game walked through the engine from its log, independently of the viewer."""
    logged = load_game(run_dir, game_id)
    game, cursor = start_game(logged), LogCursor(logged)
    out = []
    while not game.over:
        seat = game.to_act
        assert seat is not None
        out.append((seat, len(game.legal_actions())))
        game.apply_action(cursor.next_action(game))
    return out


def check_alternatives(run_dir: Path, game_id: int, data: dict[str, Any], seats: set[int]) -> int:
    """Every decision of ``seats`` with 2+ legal actions has scored alternatives (the played
    move among them, one best, values in [0, 1]); no other step has any. How many."""
    acts = [f for f in data["frames"] if f["kind"] == "action"]
    counts = legal_counts(run_dir, game_id)
    assert len(acts) == len(counts)
    scored = 0
    for f, (seat, legal) in zip(acts, counts, strict=True):
        assert f["seat"] == seat
        if seat not in seats or legal < 2:
            assert "alts" not in f, f["head"]
            continue
        rows = f["alts"]["rows"]
        scored += 1
        assert 2 <= len(rows) <= legal, f["head"]
        played = [r for r in rows if r["played"]]
        assert len(played) == 1, f["head"]
        a = f["act"]
        want = {
            "play": f"{a['reading']}: {' '.join(a['cards'])}",
            "pass": "pass",
            "bet": f"bet {a['value']}",
            "give": f"give to seat {a['value']}",
        }[a["type"]]
        assert played[0]["text"] == want, (played[0], f["head"])
        best = [r for r in rows if r["best"]]
        assert len(best) == 1 and best[0]["value"] == max(r["value"] for r in rows)
        assert all(0.0 <= r["value"] <= 1.0 and r["stderr"] >= 0 for r in rows), rows
    assert all("alts" not in f for f in data["frames"] if f["kind"] != "action")
    return scored


def test_alternatives_of_the_mcts_seat(runs: dict[str, Path], tmp_path: Path) -> None:
    """Default seats: only the mcts seat's decisions are scored, every one with a choice."""
    src = runs["mcts"]
    for game_id in (0, 1):  # the mcts seat is seat 1 in one game and seat 0 in the other
        data = show(src, game_id, tmp_path / f"a{game_id}.html", "--alternatives",
                    "--samples", "8")  # fmt: skip
        mcts = {k for k, s in enumerate(data["strategies"]) if s.startswith("mcts")}
        assert len(mcts) == 1
        assert data["alternatives"]["seats"] == sorted(mcts)
        n = check_alternatives(src, game_id, data, mcts)
        assert n == data["alternatives"]["decisions"] > 10
        assert "8 samples per alternative" in data["notes"][0]
        assert "not the search's own visit counts" in data["notes"][0]
        check_against_log(src, game_id, data)  # the rest of the page is unchanged


def test_alternatives_are_reproducible_and_seated(runs: dict[str, Path], tmp_path: Path) -> None:
    """Two builds give the same data; --seats picks the seats; the seed is run, game, index."""
    request = AltRequest(samples=8, seats="all")
    one = build_view(runs["mcts"], 2, request)
    two = build_view(runs["mcts"], 2, request)
    assert one == two
    check_alternatives(runs["mcts"], 2, one, {0, 1})
    seeds = [f["alts"]["seed"] for f in one["frames"] if "alts" in f]
    assert len(set(seeds)) == len(seeds)  # a seed per decision
    acts = [f for f in one["frames"] if f["kind"] == "action"]
    base = derive(np.int64(one["seed"]), np.int64(2))  # as play's hint: seed, game, index
    assert seeds == [int(derive(base, i)) for i, f in enumerate(acts) if "alts" in f]
    other = build_view(runs["mcts"], 3, request)  # another game: other seeds
    assert not set(seeds) & {f["alts"]["seed"] for f in other["frames"] if "alts" in f}
    data = show(runs["mcts"], 2, tmp_path / "s.html", "--alternatives", "--samples", "8",
                "--seats", "0")  # fmt: skip
    check_alternatives(runs["mcts"], 2, data, {0})
    seat0 = [f["alts"] for f in one["frames"] if f["seat"] == 0 and "alts" in f]
    assert seat0 == [f["alts"] for f in data["frames"] if "alts" in f]  # same numbers


def test_alternatives_pre_rank_keeps_the_played_move(
    runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the budget only the pre-ranking's best are scored fully: the played move too."""
    monkeypatch.setattr(shortlist, "FULL_BUDGET", 8 * 3)  # any decision of 4+ alternatives
    data = build_view(runs["mcts"], 1, AltRequest(samples=8))
    pre = [f for f in data["frames"] if "alts" in f and "pre-ranked" in f["alts"]["note"]]
    assert len(pre) > 5
    dropped = 0
    for f in pre:
        rows = f["alts"]["rows"]
        assert sum(r["played"] for r in rows) == 1, f["head"]
        assert len(rows) <= shortlist.TOP + 1
        dropped += len(rows) == shortlist.TOP + 1  # the played move was not in the best 12
    assert dropped > 0


def test_alternatives_see_only_the_acting_seat(
    runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every position given to the analysis is the acting seat's own Observation."""
    seen: list[int] = []
    real = shortlist.analyze

    def spy(position: Any, actions: Any, **kw: Any) -> Any:
        assert isinstance(position, hs.Observation), type(position)
        assert position.seat == position.to_act
        seen.append(position.seat)
        return real(position, actions, **kw)

    monkeypatch.setattr(shortlist, "analyze", spy)
    data = build_view(runs["mcts"], 0, AltRequest(samples=4, seats="all"))
    scored = [f["seat"] for f in data["frames"] if "alts" in f]
    assert seen == scored  # one call per decision, by the seat that acted


def test_alternatives_errors_write_nothing(runs: dict[str, Path], tmp_path: Path) -> None:
    src = runs["mcts"]
    out = tmp_path / "page.html"
    alt = ("show", str(src), "0", "--out", str(out), "--alternatives")
    one_line_error(invoke(*alt, "--samples", "0"), "--samples must be at least 1")
    one_line_error(invoke(*alt, "--seats", "one"), "--seats takes mcts, all or seat numbers")
    one_line_error(invoke(*alt, "--seats", "0,2"), "seat 2 is not in this 2-player game")
    one_line_error(invoke("show", str(src), "0", "--out", str(out), "--samples", "8"),
                   "go with --alternatives")  # fmt: skip
    one_line_error(invoke("show", str(runs["three"]), "0", "--out", str(out), "--alternatives"),
                   "no mcts seat")  # fmt: skip
    assert list(tmp_path.iterdir()) == []


ALT_DRIVE = """<script>window.addEventListener('load', function () {
  var out = [];
  document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Home', bubbles: true}));
  for (var i = 0; i < STEPS; i++) {
    out.push({note: document.getElementById('alts-note').textContent,
              rows: Array.prototype.map.call(document.querySelectorAll('#alts tr'),
                function (tr) { return Array.prototype.map.call(tr.children,
                  function (td) { return td.textContent; }); })});
    document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
  }
  var pre = document.createElement('pre');
  pre.id = 'browser-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});</script>"""


@pytest.mark.browser
def test_alternatives_panel_in_the_browser(runs: dict[str, Path], tmp_path: Path) -> None:
    page = tmp_path / "g.html"
    data = show(runs["mcts"], 1, page, "--alternatives", "--samples", "8")
    frames = data["frames"][:60]
    shown: list[dict[str, Any]] = drive(
        page, tmp_path, ALT_DRIVE.replace("STEPS", str(len(frames)))
    )  # type: ignore[assignment]
    assert len(shown) == len(frames)
    assert any("alts" in f for f in frames) and any("alts" not in f for f in frames)
    for i, (f, got) in enumerate(zip(frames, shown, strict=True)):
        if "alts" not in f:
            assert got["note"].startswith("not scored ("), (i, got)
            assert got["rows"] == [], i
            continue
        rows = f["alts"]["rows"]
        assert got["note"].startswith(f"seat {f['seat']} chose this step's move from "), i
        assert got["rows"][0] == ["#", "action", "value", "round margin", ""]
        assert [r[1] for r in got["rows"][1:]] == [r["text"] for r in rows], i
        assert [r[2] for r in got["rows"][1:]] == [
            f"{to_fixed(r['value'], 3)} ± {to_fixed(r['stderr'], 3)}" for r in rows
        ], i
        marks = [r[4] for r in got["rows"][1:]]
        assert sum("played" in m for m in marks) == 1 and sum("best" in m for m in marks) == 1
    # without --alternatives there is no panel
    plain = show(runs["mcts"], 1, tmp_path / "plain.html")
    assert "alternatives" not in plain and all("alts" not in f for f in plain["frames"])
    assert 'id="alts-box"' not in (tmp_path / "plain.html").read_text(encoding="utf-8")
