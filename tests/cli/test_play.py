"""``haggis-sim play --vs SPEC``: the prompt's parser, the screen, and whole games in a pty.

The end-to-end tests drive the real command in a pseudo-terminal (``pexpect``), answer
every prompt as a person would (moves page by page and numbers, typed cards, an ambiguous
and an illegal input, a hint, a bet), and check the logged run with ``replay`` and
``query``; the moves list (stable numbers, stale numbers refused, filters, pages) is also
driven in-process at the prompt, and once through a pipe.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pexpect  # the test extra installs it: these tests are never skipped
import pytest
from typer.testing import CliRunner

import haggis_sim as hs
from haggis_sim.cli import app
from haggis_sim.cli.play_input import action_text, ordered, parse_line
from haggis_sim.cli.play_screen import hand_text, plain, screen

ROOT = Path(__file__).resolve().parents[2]
RULES2 = hs.Rules.preset("revised", players=2)


def position(
    hands: list[str], haggis: str, plays: list[tuple[int, str]], leader: int = 0
) -> hs.Round:
    rnd = hs.Round(RULES2, hands=hands, haggis=haggis, leader=leader)
    for seat, cards in plays:
        if cards == "pass":
            rnd.pass_(seat)
        else:
            rnd.play(seat, cards)
    return rnd


def parse(rnd: hs.Round, line: str, shown: frozenset[int] = frozenset()):  # type: ignore[no-untyped-def]
    seat = rnd.to_act
    assert seat is not None
    return parse_line(line, rnd.observation(seat), rnd.legal_actions(), RULES2, shown)


# --- the parser ---------------------------------------------------------------------------


def test_typed_cards_play_the_one_legal_reading() -> None:
    rnd = position(["5a 5b 9c J Q K", "6a 6b 7c"], "", [])
    cmd = parse(rnd, "5a 5B")
    assert cmd.verb == "act" and str(cmd.actions[0].combo) == "set of 2 5s: 5a 5b"
    assert parse(rnd, "10c").verb == "error"  # not held: 9c is, Tc is not


def test_cards_read_several_ways_are_listed_to_choose() -> None:
    rnd = position(["5a 9c J Q K", "6a 6b 7c"], "", [])
    cmd = parse(rnd, "5a j q")
    assert cmd.verb == "choose"
    kinds = sorted(a.combo.kind for a in cmd.actions if a.combo)
    assert kinds == ["sequence", "set"], cmd.actions
    assert {a.combo.cards for a in cmd.actions if a.combo} == {hs.parse_cards("5a J Q")}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("7d", "not in your hand: 7d"),
        ("3a 9c", "not a combination"),
        ("2z", "bad card '2z'"),
        ("3a", "does not beat the single 6: 6a (seat 1)"),
        ("pass", None),  # legal here: following
        ("bet 15", "cannot bet: a bet must come before your first play"),
        ("give 1", "nothing to give now"),
        ("99", "no move 99"),
    ],
)
def test_illegal_input_is_one_readable_line(line: str, message: str | None) -> None:
    rnd = position(["3a 5a 9c 8d", "6a 6b 7c"], "", [(0, "5a"), (1, "6a")])
    cmd = parse(rnd, line)
    if message is None:
        assert cmd.verb == "act" and cmd.actions[0].type == "pass"
        return
    assert cmd.verb == "error" and message in cmd.text, cmd
    assert "\n" not in cmd.text


def test_leader_may_not_pass_and_bets_are_read() -> None:
    rnd = position(["3a 5a 9c", "6a 6b 7c"], "", [])
    assert "you must play" in parse(rnd, "pass").text
    cmd = parse(rnd, "bet 15")
    assert cmd.verb == "act" and cmd.actions[0].type == "bet" and cmd.actions[0].value == 15
    assert "the bets offered are 15, 30" in parse(rnd, "bet 7").text


def test_numbers_follow_the_moves_order_and_commands_are_known() -> None:
    rnd = position(["3a 5a 9c", "6a 6b 7c"], "", [(0, "5a")])
    listing = ordered(rnd.legal_actions())
    assert [a.type for a in listing] == ["pass", "bet", "bet", "play", "play", "play"]
    assert [str(a.combo.cards) for a in listing if a.combo] == ["6a", "6b", "7c"]
    every = frozenset(range(1, len(listing) + 1))
    for i, action in enumerate(listing, 1):
        assert parse(rnd, str(i), every).actions == (action,)
    words = ("hint", "help", "quit", "moves 6", "more", "")
    assert [parse(rnd, w).verb for w in words] == [
        "hint", "help", "quit", "moves", "more", "empty",
    ]  # fmt: skip


def test_a_number_not_listed_at_this_position_is_refused() -> None:
    """A number is played only if a list of this position showed it: one from an earlier
    position's list (or never listed) is one error line, not whatever it means now."""
    rnd = position(["3a 5a 9c", "6a 6b 7c"], "", [(0, "5a")])
    never = parse(rnd, "2")
    assert never.verb == "error" and "no moves listed at this position yet" in never.text
    assert "\n" not in never.text
    other = parse(rnd, "2", frozenset({1, 4}))
    assert other.verb == "error" and "move 2 is not on a list shown at this position" in other.text
    assert parse(rnd, "4", frozenset({1, 4})).actions == (ordered(rnd.legal_actions())[3],)
    assert "no move 9: the moves are numbered 1..6" in parse(rnd, "9", frozenset({1})).text


def test_moves_are_numbered_the_same_however_the_engine_lists_them() -> None:
    import random

    rnd = position(["2a 3a 4a 5a 6a 7a 7b 7c 8a 9a J Q K", "6b 6c 7d"], "", [])
    legal = rnd.legal_actions()
    shuffled = list(legal)
    random.Random(3).shuffle(shuffled)
    assert shuffled != legal and ordered(shuffled) == ordered(legal)


# --- the screen ---------------------------------------------------------------------------


def test_hand_is_sorted_and_grouped_by_rank() -> None:
    assert hand_text(hs.parse_cards("Tc 2c J 2a 5b K")) == "2a 2c  5b  Tc  J K"


def _screen(rnd: hs.Round, seat: int) -> str:
    obs = rnd.observation(seat)
    trick = [(a.seat, a) for a in rnd.history if a.type in ("play", "pass")]
    return plain(screen(obs, RULES2, ["you", "mcts"], 1, trick))


def test_screen_shows_the_table_from_the_seat() -> None:
    rnd = position(["3a 5a 9c J Q", "6a 6b 7c K"], "2b", [(0, "5a"), (1, "6a")])
    text = _screen(rnd, 0)
    assert "Your hand (4): 3a  9c  J Q" in text
    assert "To beat: single 6: 6a by seat 1 (mcts)" in text
    assert "seat 1 (mcts): single 6: 6a" in text and "you: single 5: 5a" in text
    assert re.search(r"seat 1 \(mcts\)\s+3\s+K\s", text), text  # hand size, faces held
    assert "Haggis: 8 cards, unseen" in text


def test_screen_never_shows_hidden_cards() -> None:
    """Another deal of the cards seat 0 has not seen, same public play: the same screen."""
    mine = "3a 5a 9c J Q"
    plays = [(0, "5a"), (1, "6a"), (0, "9c"), (1, "pass")]
    deals = [("6a 6b 7c 8d K", "2b 4c"), ("6a 4c 2b 8d K", "6b 7c")]
    screens = []
    for other, haggis in deals:
        rnd = position([mine, other], haggis, plays)
        screens.append(_screen(rnd, 0))
        hidden = (rnd.hand(1) | rnd.haggis).suits
        tokens = set(screens[-1].replace(":", " ").split())
        assert not {c for c in hs.Cards(hidden)} & tokens, screens[-1]
    assert screens[0] == screens[1]


def test_narration_of_a_bots_move_shows_none_of_its_cards() -> None:
    """The narrator is handed the bot's observation when the bot acts (it may be the first
    of a round): what it prints names the bot's play, never the cards the bot still holds."""
    import io

    from rich.console import Console

    from haggis_sim.cli.play_session import TerminalPlayer

    rnd = position(["3a 5a 9c J Q", "6a 6b 7c 8d K"], "2b 4c", [(0, "5a")])
    out = io.StringIO()
    table = TerminalPlayer(RULES2, 0, ["you", "mcts"], 1, 0, Console(file=out, width=200))
    move = next(a for a in rnd.legal_actions() if str(a.combo).endswith(": 6a"))
    table.record(rnd.observation(1), move)
    text = out.getvalue()
    assert "6a" in text, text
    tokens = set(text.replace(":", " ").split())
    assert not {"6b", "7c", "8d"} & tokens, text


# --- the moves list, its numbers and its filters, in a session at the prompt -------------

LEAD = ["2a 3a 4a 5a 7a 7b 7c 9a J", "6b 6c 7d 8b K"]  # 46 legal moves: 3 pages
LISTED = re.compile(r"^\s+(\d+)\. (.+)$", re.M)


class AtPrompt:
    """A person at the prompt of one game: the same :class:`TerminalPlayer` is asked at
    each position, as in ``play``; each decision's lines are scripted, then ``quit``."""

    def __init__(self, seat: int = 0) -> None:
        import io

        from rich.console import Console

        from haggis_sim.cli.play_session import TerminalPlayer

        self.out = io.StringIO()
        self.typed: list[str] = []
        names = ["you", "greedy"] if seat == 0 else ["greedy", "you"]
        console = Console(file=self.out, width=200, color_system=None)
        self.player = TerminalPlayer(RULES2, seat, names, 1, 0, console, read=self.read)

    def read(self, prompt: str) -> str:
        line = self.typed.pop(0)
        self.out.write(f"{prompt}{line}\n")
        return line

    def decide(self, rnd: hs.Round, lines: list[str]) -> tuple[hs.Action | None, str]:
        """The action taken at ``rnd`` after typing ``lines`` (None: they quit) and the
        transcript of that decision (the screen, each prompt with its line, the answers)."""
        from haggis_sim.cli.play_session import QuitGame

        self.typed = [*lines, "quit"]
        start = self.out.tell()
        seat = self.player.seat
        try:
            action = self.player.decide(rnd.observation(seat), rnd.legal_actions())
        except QuitGame:
            action = None
        return action, self.out.getvalue()[start:]


def at_prompt(rnd: hs.Round, lines: list[str]) -> tuple[hs.Action | None, str]:
    """One decision at ``rnd``: see :meth:`AtPrompt.decide`."""
    assert rnd.to_act is not None
    return AtPrompt(rnd.to_act).decide(rnd, lines)


def answers(transcript: str) -> list[str]:
    """What was printed after each prompt and the line typed there (the answer to it)."""
    return [a.partition("\n")[2] for a in transcript.split("your move> ")[1:]]


def listed(text: str) -> list[tuple[int, str]]:
    return [(int(m.group(1)), m.group(2)) for m in LISTED.finditer(text)]


def test_two_listings_of_a_position_number_its_moves_alike() -> None:
    rnd = position(LEAD, "", [])
    pages = ["moves", *["more"] * 10]
    _, first = at_prompt(rnd, pages)
    _, again = at_prompt(rnd, ["moves 2", *pages])  # a filtered list in between
    whole = [row for a in answers(first) for row in listed(a)]
    assert [row for a in answers(again)[1:] for row in listed(a)] == whole
    ranked = ordered(rnd.legal_actions())
    assert len(whole) == len(ranked) > 40
    assert whole == [(i, action_text(a)) for i, a in enumerate(ranked, 1)]
    twos = listed(answers(again)[0])
    assert twos and set(twos) <= set(whole)  # the filter keeps each move's number


def test_a_number_from_an_earlier_position_is_refused() -> None:
    """The report of #26: ``1`` twice bet 15, then played a single 2. Now the second ``1``,
    typed at the next position with no list shown there, is refused in one line."""
    rnd = position(LEAD, "", [])
    person = AtPrompt()
    action, text = person.decide(rnd, ["moves bet", "1"])
    assert action is not None and action.type == "bet" and action.value == 15, text
    rnd.bet(0, 15)
    action, text = person.decide(rnd, ["1"])
    assert action is None, action  # nothing played; the person then quit
    refusal = answers(text)[0].strip().splitlines()
    assert len(refusal) == 1 and refusal[0].startswith("error: no moves listed at this"), refusal
    action, text = at_prompt(rnd, ["moves bomb", "1", "moves 2", "1"])
    assert [a.strip() for a in answers(text)[1].splitlines()][0].startswith(
        "error: move 1 is not on a list shown at this position"
    ), text
    assert action is not None and str(action.combo) == "single 2: 2a", text


def test_moves_filters_by_rank_card_and_kind() -> None:
    rnd = position(LEAD, "", [])
    plays = [a for a in ordered(rnd.legal_actions()) if a.combo is not None]
    checks = {
        "moves 7": lambda a: any(c.startswith("7") for c in a.combo.cards),
        "moves 7s": lambda a: any(c.startswith("7") for c in a.combo.cards),
        "moves 2": lambda a: any(c.startswith("2") for c in a.combo.cards),  # not "set of 2"
        "moves 5": lambda a: any(c.startswith("5") for c in a.combo.cards),  # not "bet 15"
        "moves j": lambda a: "J" in a.combo.cards,
        "moves 7B": lambda a: "7b" in a.combo.cards,
        "moves pair 7": lambda a: a.combo.kind == "set" and a.combo.size == 2
        and any(c.startswith("7") for c in a.combo.cards),
        "moves run": lambda a: a.combo.kind == "sequence" and a.combo.width == 1,
        "moves bombs": lambda a: a.combo.kind == "bomb",
    }  # fmt: skip
    lines = [w for line in checks for w in (line, *["more"] * 6)]
    _, text = at_prompt(rnd, lines)
    got = answers(text)
    for k, (line, keep) in enumerate(checks.items()):
        shown = {t for page in got[7 * k : 7 * k + 7] for _, t in listed(page)}
        want = {action_text(a) for a in plays if keep(a)}
        assert want and shown == want, (line, shown ^ want)
    _, text = at_prompt(rnd, ["moves Pairs xyz"])
    (error,) = answers(text)[0].strip().splitlines()
    assert error.startswith("error: moves cannot filter by 'xyz': give a rank"), error
    _, text = at_prompt(rnd, ["moves 7 K"])
    assert answers(text)[0].strip() == "no legal move matches '7 K' (type moves for all of them)"


def test_a_long_list_is_paged() -> None:
    from haggis_sim.cli.play_session import PAGE

    rnd = position(LEAD, "", [])
    total = len(rnd.legal_actions())
    pages = -(-total // PAGE)
    _, text = at_prompt(rnd, ["moves", *["more"] * pages])
    got = answers(text)
    for k in range(pages):
        rows = listed(got[k])
        assert [n for n, _ in rows] == list(range(k * PAGE + 1, min(total, (k + 1) * PAGE) + 1))
        left = total - (k + 1) * PAGE
        hint = f"... {left} more: type more"
        assert (hint in got[k]) == (left > 0), got[k]
    assert got[pages].strip() == "error: nothing more to list: type moves"


def test_typed_lines_from_a_pipe_are_echoed_as_typed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A terminal echoes what is typed; piped input is echoed by the reader, unchanged."""
    from haggis_sim.cli.play_session import LineReader

    read_end, write_end = os.pipe()
    os.write(write_end, b"Moves  7B \n5a J\r\n")
    os.close(write_end)
    with os.fdopen(read_end) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        reader = LineReader(tick=0.01)
        assert [reader("your move> "), reader("your move> ")] == ["Moves  7B ", "5a J"]
    assert capsys.readouterr().out == "your move> Moves  7B \nyour move> 5a J\n"


# --- the game: played by the runner, bots as in a run -----------------------------------------


class FirstMove:
    """A scripted person: always the first action of the moves list."""

    def decide(self, observation: hs.Observation, legal: list[hs.Action]) -> hs.Action:
        return ordered(legal)[0]


def test_narrated_bots_play_as_the_runner_plays_them() -> None:
    """A narrated bot draws from the stream the runner gives it: the same game, logged."""
    import io

    import numpy as np
    from rich.console import Console

    from haggis_sim.cli.play_session import NarratedBot, TerminalPlayer
    from haggis_sim.runner.chunk import play_chunk
    from strategies import make
    from strategies.human import HumanStrategy, seated

    rules = hs.Rules.preset("revised", players=3, target_score=60)
    seed, ids = 11, np.array([0], dtype=np.int64)
    out = io.StringIO()
    with seated(FirstMove()):
        plain_run = play_chunk(
            rules.to_array(), [make("random:bet=0.5"), HumanStrategy(), make("mcts:iters=20")],
            ids, seed, "fixed",
        )  # fmt: skip
        table = TerminalPlayer(rules, 1, ["random", "you", "mcts"], seed, 0, Console(file=out))
        bots = [
            NarratedBot(make(spec), seat, seed, 0, table)
            for seat, spec in ((0, "random:bet=0.5"), (2, "mcts:iters=20"))
        ]
        narrated = play_chunk(rules.to_array(), [bots[0], HumanStrategy(), bots[1]], ids, seed,
                              "fixed")  # fmt: skip
    assert np.array_equal(plain_run.moves, narrated.moves)
    assert np.array_equal(plain_run.games, narrated.games)
    assert "seat 2 (mcts): " in out.getvalue() and "seat 0 (random): " in out.getvalue()


# --- errors before any game ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--vs", "nosuch"], "unknown strategy 'nosuch'"),
        (["--vs", "heuristic:bet=x"], "parameter bet takes float"),
        (["--vs", "human"], "you are the human seat"),
        (["--vs", "greedy", "--rules", "nosuch"], "nosuch"),
        (["--vs", "greedy", "--rule", "target_score=x"], "target_score takes an integer"),
        (["--vs", "greedy", "--seat", "2"], "--seat must be 0..1"),
        (["--vs", "greedy", "--vs", "greedy", "--players", "2"], "--players 2 needs 1"),
        (["--vs", "greedy", "--bet-rate", "0.5"], "--bet-rate is for watching"),
        (["--seat", "1"], "give --vs SPEC"),
    ],
)
def test_bad_options_are_one_error_line(args: list[str], message: str) -> None:
    res = CliRunner().invoke(app, ["play", *args])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


def test_an_occupied_out_folder_is_refused_before_the_deal(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    res = CliRunner().invoke(app, ["play", "--vs", "greedy", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "already exists" in res.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]
    assert "Your hand" not in res.stdout


def test_human_is_refused_by_run() -> None:
    res = CliRunner().invoke(app, ["run", "--strategies", "human,greedy", "--games", "2"])
    assert res.exit_code == 2 and "strategy human is a person at the terminal" in res.stderr


# --- whole games in a pseudo-terminal ------------------------------------------------------

PROMPT = "your move> "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def spawn(args: list[str], cwd: Path) -> pexpect.spawn:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", "PYTHONPATH": str(ROOT)}
    return pexpect.spawn(
        sys.executable,
        ["-m", "haggis_sim.cli", "play", *args],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=int(os.environ.get("PLAY_TUI_TIMEOUT", "600")),  # the first run may compile
        dimensions=(60, 120),
        # a test run in the background may ignore SIGINT; the player's Ctrl-C must not be
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def clean(text: str) -> str:
    return ANSI.sub("", text).replace("\r", "")


class Session:
    """A person at the prompt: reads each screen, answers, remembers what happened."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self.log: list[str] = []
        self.done: set[str] = set()

    def wait(self) -> tuple[int, str]:
        i = self.child.expect([PROMPT, pexpect.EOF])
        text = clean(self.child.before)
        self.log.append(text)
        return i, text

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def moves(self) -> list[tuple[int, str]]:
        """The whole list of this position's moves, page by page."""
        self.send("moves")
        rows: list[tuple[int, str]] = []
        while True:
            i, text = self.wait()
            assert i == 0
            rows += listed(text)
            if "more: type more" not in text:
                return rows
            self.send("more")

    def turn(self, screen: str) -> None:
        """Answer one prompt: the scripted firsts, then moves and a number (or typed cards)."""
        hand = re.findall(r"Your hand \(\d+\): (.*)", screen)
        cards = hand[-1].split() if hand else []
        leading = "You lead" in screen
        if "hint" not in self.done:
            self.done.add("hint")
            self.send("hint")
            i, text = self.wait()
            assert i == 0 and "the search would play #" in text and "value" in text, text
            self.done.add("hint ok")
        if "illegal" not in self.done:
            missing = next(c for c in ("2a", "3b", "4c", "6d", "8a") if c not in cards)
            self.send(missing)
            i, text = self.wait()
            assert i == 0 and f"error: not in your hand: {missing}" in text, text
            assert "you:" not in text  # nothing was played
            self.done.add("illegal")
        listing = self.moves()
        texts = dict(listing)
        bets = [n for n, t in listing if t.startswith("bet ")]
        if bets and "bet" not in self.done:
            self.done.add("bet")
            value = texts[bets[0]].split()[1]
            self.send(f"bet {value}")
            i, text = self.wait()
            assert i == 0 and f"you bet {value}" in text, text
            self.turn(text)
            return
        suits = [c for c in cards if c not in "JQK"]
        if leading and "J" in cards and "Q" in cards and suits and "ambiguous" not in self.done:
            self.done.add("ambiguous")
            self.send(f"{suits[0]} J Q")
            i, text = self.wait()
            assert i == 0 and "several ways" in text, text
            readings = listed(text)
            assert len(readings) > 1 and all(texts[n] == t for n, t in readings), text
            self.send(str(readings[0][0]))  # listed under its number in the moves list
            return
        plays = [(n, t) for n, t in listing if ":" in t]
        passes = [n for n, t in listing if t == "pass"]
        gives = [n for n, t in listing if t.startswith("give")]
        if gives:
            self.send(str(gives[0]))
        elif plays and (leading or len(self.log) % 3 == 0):
            n, text = plays[0]
            if "typed" in self.done:
                self.send(str(n))
            else:  # type the cards of the move once, as a person would
                self.done.add("typed")
                self.send(text.split(": ", 1)[1])
        else:
            self.send(str(passes[0]))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Session]:
    """One whole 2-round game against greedy, seat 1, logged to a run folder."""
    where = tmp_path_factory.mktemp("play")
    out = where / "game"
    child = spawn(
        ["--vs", "greedy", "--seat", "1", "--seed", "5", "--out", str(out),
         "--rule", "game_end=rounds", "--rule", "rounds=2"],
        where,
    )  # fmt: skip
    session = Session(child)
    while True:
        i, text = session.wait()
        if i == 1:
            break
        session.turn(text)
    child.close()
    assert child.exitstatus == 0, "\n".join(session.log)
    return out, "\n".join(session.log), session


@pytest.mark.pty
def test_a_whole_game_is_played_and_logged(played: tuple[Path, str, Session]) -> None:
    out, log, session = played
    assert {"hint ok", "illegal", "ambiguous", "typed", "bet"} <= session.done, session.done
    assert "Game over after 2 round(s)" in log and f"logged to {out}" in log
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["games"] == 1
    assert [s["name"] for s in manifest["strategies"]] == ["greedy", "human"]
    replay = subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", "replay", str(out), "0"],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stderr
    assert "seat 0: greedy, seat 1: human" in replay.stdout
    res = CliRunner().invoke(
        app,
        ["query", str(out), "SELECT strategy_1, rounds, (SELECT count(*) FROM moves "
         "WHERE seat = 1 AND type = 'bet') AS bets FROM games"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    row = res.stdout.strip().splitlines()[-2]
    assert re.search(r"│\s*human\s*│\s*2\s*│\s*1\s*│", row), res.stdout


@pytest.mark.pty
def test_a_played_game_cannot_be_resumed(played: tuple[Path, str, Session]) -> None:
    out = played[0]
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    res = CliRunner().invoke(app, ["run", "--resume", str(out)])
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "strategy human is a person at the terminal" in lines[0]
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


@pytest.mark.pty
@pytest.mark.parametrize(("how", "status"), [("quit", 0), ("ctrl-c", 130), ("eof", 130)])
def test_stopping_early_logs_nothing(tmp_path: Path, how: str, status: int) -> None:
    out = tmp_path / "game"
    child = spawn(["--vs", "greedy", "--out", str(out)], tmp_path)
    child.expect(PROMPT)
    child.sendline("moves")
    child.expect(PROMPT)
    if how == "quit":
        child.sendline("quit")
    elif how == "ctrl-c":
        child.sendintr()
    else:
        child.sendeof()
    child.expect(pexpect.EOF)
    rest = clean(child.before)
    child.close()
    assert child.exitstatus == status, rest
    assert "not logged (no files were written)" in rest
    assert "Traceback" not in rest
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.pty
def test_in_the_terminal_a_stale_number_is_refused_and_moves_filter(tmp_path: Path) -> None:
    """Typed as in #26: a list, its move 1, then ``1`` again at the next position."""
    child = spawn(["--vs", "greedy", "--seed", "5", "--out", str(tmp_path / "g")], tmp_path)
    session = Session(child)
    session.wait()
    first = session.moves()[0]
    session.send("1")
    _, text = session.wait()
    assert f"you: {first[1]}" in text or f"you bet {first[1].split()[-1]}" in text, text
    session.send("1")
    _, text = session.wait()
    refusal = [line for line in text.splitlines()[1:] if line.strip()]
    assert len(refusal) == 1 and refusal[0].startswith("error: no moves listed at this"), text
    session.send("MoVeS 7")
    _, text = session.wait()
    assert text.splitlines()[0] == "MoVeS 7"  # the terminal's echo, as typed
    sevens = listed(text)
    assert all(re.search(r": .*\b7[a-e]\b", t) for _, t in sevens), sevens
    session.send("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.slow
def test_piped_input_is_echoed_and_a_stale_number_refused(tmp_path: Path) -> None:
    """``printf 'moves\\n1\\n1\\nquit\\n' | haggis-sim play``: the output is a transcript."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", "PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        [sys.executable, "-m", "haggis_sim.cli", "play", "--vs", "greedy", "--seed", "5",
         "--out", str(tmp_path / "g")],
        input="moves bet\n1\n1\n  Quit\n", capture_output=True, text=True, env=env,
        cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for typed in ("moves bet", "1", "  Quit"):
        assert f"your move> {typed}\n" in out, out
    after = out.split("your move> 1\n")
    assert len(after) == 3 and "you bet 15" in after[1], out
    assert after[2].splitlines()[0].startswith("error: no moves listed at this"), after[2]
    assert not (tmp_path / "g").exists()
