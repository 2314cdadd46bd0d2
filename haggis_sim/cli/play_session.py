"""The terminal side of ``haggis-sim play``: narrate every action, ask the person for theirs.

:class:`TerminalPlayer` is the controller of the human seat (``strategies.human``): when
the seat is to act it prints the table (:mod:`.play_screen`) and reads lines until one is
a legal action (:mod:`.play_input`). :class:`NarratedBot` wraps each bot so that its
action is printed the moment it is chosen; it draws the bot's decisions from the same
random stream the runner gives a compiled strategy, so a logged game is what that bot
plays. Every line printed is public information (actions, hand sizes, scores).
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

import haggis_sim as hs
from haggis_sim import kernel as K
from haggis_sim.position import action_from_code
from strategies import CompiledStrategy, Strategy, is_compiled

from ..kernel import derive, new_stream
from ..kernel import record as R
from ..runner.seating import strategy_seed
from .play_input import Command, action_text, numbered, ordered, parse_line
from .play_screen import screen, seat_label

HINT_SAMPLES = 100  # search iterations per alternative in a hint (strategies.shortlist)
HINT_ROWS = 10
PAGE = 20  # moves listed at a time; ``more`` lists the next ones

HELP = f"""\
Type one of:
  cards, e.g. 5a 5b or 10c J   play them (if they read several ways, each is listed
                               with its number: type the number)
  pass                         pass in this trick
  bet 15                       bet before your first play (values the rules offer)
  give 2                       who receives your bombed trick or the Haggis
  moves                        the legal moves, numbered, {PAGE} at a time
  moves WORDS                  only the moves matching every word: a rank (moves 7,
                               moves 10, moves J), a card (moves 7a), or a kind: single
                               pair triple set run stair bomb pass bet give
                               (moves pair 7: the pairs holding a 7)
  more                         the next {PAGE} moves of the list
  a number                     play that move. A move keeps its number at this position
                               (a filtered list too); a number not listed at this
                               position (by moves, more or hint) is refused
  hint                         the search's scores of your alternatives
  help                         this text
  quit                         stop now: the game is not logged
Cards: rank 2-9, T or 10, then suit a-e; face cards J Q K."""


class LineReader:
    """Lines typed at the terminal, read so that Ctrl-C always stops the wait at once.

    Libraries loaded for the game (polars, numba) start threads, and the kernel may hand
    SIGINT to one of them: Python then only raises KeyboardInterrupt when the main thread
    runs again, which a blocking ``input()`` never does. So the wait is a ``select`` that
    wakes every ``tick`` seconds, and the bytes are read from the file descriptor with
    their own buffer (a buffered ``readline`` could hold typed-ahead lines ``select``
    cannot see). Without a file descriptor (a test's fake stdin) ``input()`` is used.

    A terminal echoes what is typed; input from a pipe or a file is echoed here, exactly
    as it was read, after the prompt, so the transcript of a session shows every line the
    person gave (``printf 'moves\\n1\\n' | haggis-sim play ... | tee game.txt``).
    """

    def __init__(self, tick: float = 0.1) -> None:
        self.tick = tick
        self.pending = b""

    def __call__(self, prompt: str) -> str:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            return self.echo(input(prompt), sys.stdin.isatty())
        sys.stdout.write(prompt)
        sys.stdout.flush()
        while b"\n" not in self.pending:
            if not select.select([fd], [], [], self.tick)[0]:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                if self.pending:
                    break
                raise EOFError
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return self.echo(line.decode(errors="replace").rstrip("\r"), os.isatty(fd))

    @staticmethod
    def echo(line: str, terminal: bool) -> str:
        """``line``, written after the prompt too unless a terminal has echoed it already."""
        if not terminal:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        return line


class QuitGame(Exception):
    """The person typed ``quit``."""


class TerminalPlayer:
    """Controller of the human seat, and narrator of every action of the game."""

    def __init__(
        self,
        rules: hs.Rules,
        seat: int,
        names: Sequence[str],
        seed: int,
        game_id: int,
        console: Console,
        read: Callable[[str], str] = input,
    ) -> None:
        self.rules = rules
        self.seat = seat
        self.names = list(names)
        self.seed = seed
        self.game_id = game_id
        self.console = console
        self.read = read
        self.actions = 0  # actions taken in the game so far (all seats)
        self.round_no = -1  # engine round number of the last observation seen
        self.trick_no = -1
        self.trick: list[tuple[int, hs.Action]] = []
        self.last: hs.Observation | None = None
        self.shown: set[int] = set()  # move numbers listed at the position now to act
        self.rest: list[tuple[int, hs.Action]] = []  # the list's moves ``more`` would show

    # --- narration ----------------------------------------------------------------------
    def label(self, seat: int) -> str:
        return seat_label(seat, self.seat, self.names)

    def verb(self, seat: int, verb: str) -> str:
        """``verb`` for the person (``you bet``), ``verbs`` for a bot (``seat 1 bets``)."""
        return verb if seat == self.seat else verb + "s"

    def say(self, text: str, style: str | None = None) -> None:
        self.console.print(text, style=style, markup=False, highlight=False)

    def catch_up(self, obs: hs.Observation) -> None:
        """Print what ended since the last observation: a trick, someone going out, a round."""
        round_no = int(obs.array[K.S_ROUND_NO])
        prev = self.last
        if prev is not None and round_no != self.round_no:
            self.round_over(prev.scores, obs.scores, round_no)
        elif prev is not None:
            for s in obs.out_order:
                if s not in prev.out_order:
                    self.say(f"  {self.label(s)} went out")
            if obs.trick_no != self.trick_no:
                got = [len(obs.captured[s]) - len(prev.captured[s]) for s in range(obs.players)]
                to = max(range(obs.players), key=lambda s: got[s])
                self.say(f"  trick {self.trick_no + 1} goes to {self.label(to)}")
        if round_no != self.round_no:
            # a bot's observation may be the first of the round: its hand is not the
            # person's to see (their own hand is on the screen at their first decision)
            mine = f"; your hand: {obs.hand}" if obs.seat == self.seat else ""
            self.say(
                f"\nRound {round_no + 1}: {self.label(obs.leader)} "
                f"{self.verb(obs.leader, 'lead')}{mine}",
                style="bold",
            )
        if round_no != self.round_no or obs.trick_no != self.trick_no:
            self.trick = []
        self.round_no, self.trick_no, self.last = round_no, obs.trick_no, obs

    def round_over(self, before: Sequence[int], after: Sequence[int], next_round: int) -> None:
        """One line: each seat's points in the round that ended, and the totals."""
        gained = ", ".join(
            f"{self.label(s)} {after[s] - before[s]:+d}" for s in range(self.rules.players)
        )
        totals = " : ".join(str(x) for x in after)
        self.say(f"Round {next_round} over: {gained}; totals {totals}", style="bold")

    def record(self, obs: hs.Observation, action: hs.Action) -> None:
        """Narrate ``action``, taken by ``obs.seat`` at ``obs`` (any seat)."""
        self.catch_up(obs)
        who = self.label(action.seat)
        if action.type == "give":
            what = "the Haggis" if obs.phase == "give_haggis" else "the trick"
            give = self.verb(action.seat, "give")
            self.say(f"  {who} {give} {what} to {self.label(action.value)}")
        elif action.type == "bet":
            self.say(f"  {who} {self.verb(action.seat, 'bet')} {action.value}", style="bold")
        else:
            self.trick.append((action.seat, action))
            self.say(f"  {who}: {action_text(action)}")
        self.actions += 1

    def finish(self, game_row: np.ndarray) -> None:
        """The last round's points and the result, from the game's log row."""
        n = self.rules.players
        totals = [int(game_row[R.GC_SCORE + s * R.GC_SEAT_STRIDE]) for s in range(n)]
        rounds = int(game_row[R.GC_ROUNDS])
        if self.last is not None:
            self.round_over(self.last.scores, totals, rounds)
        winner = int(game_row[R.GC_WINNER])
        verdict = "you win" if winner == self.seat else f"{self.label(winner)} wins"
        self.say(f"Game over after {rounds} round(s): {verdict}.", style="bold")

    # --- the person's decisions ---------------------------------------------------------
    def decide(self, observation: hs.Observation, legal: list[hs.Action]) -> hs.Action:
        """Show the table and read lines until one names a legal action."""
        self.catch_up(observation)
        self.shown, self.rest = set(), []  # a new position: no number of it listed yet
        self.console.print()
        self.console.print(
            screen(observation, self.rules, self.names, self.round_no + 1, self.trick)
        )
        while True:
            line = self.read("your move> ")
            cmd = parse_line(line, observation, legal, self.rules, self.shown)
            action = self.answer(cmd, observation, legal)
            if action is not None:
                self.record(observation, action)
                return action

    def answer(self, cmd: Command, obs: hs.Observation, legal: list[hs.Action]) -> hs.Action | None:
        """Carry out one command; the action it chose, or None to ask again."""
        if cmd.verb == "act":
            return cmd.actions[0]
        if cmd.verb == "choose":
            self.readings(cmd.actions, legal)
        elif cmd.verb == "error":
            self.say(f"error: {cmd.text}", style="red")
        elif cmd.verb == "moves":
            self.show_moves(legal, cmd.text)
        elif cmd.verb == "more":
            self.more()
        elif cmd.verb == "hint":
            self.hint(obs, legal)
        elif cmd.verb == "help":
            self.say(HELP)
        elif cmd.verb == "quit":
            raise QuitGame
        return None

    def readings(self, options: Sequence[hs.Action], legal: Sequence[hs.Action]) -> None:
        """The cards read several legal ways: list each reading under its move number."""
        number = {a.code: i for i, a in enumerate(ordered(legal), 1)}
        self.say("These cards can be played several ways; type the number of the one you mean:")
        self.list_moves([(number[a.code], a) for a in options])

    def show_moves(self, legal: Sequence[hs.Action], words: str) -> None:
        """The legal actions matching ``words``, numbered, the first :data:`PAGE` of them."""
        found = numbered(legal, words)
        if not found:
            self.say(f"no legal move matches {words!r} (type moves for all of them)")
            return
        self.rest = found
        self.more()

    def more(self) -> None:
        """The next :data:`PAGE` moves of the last list, and how many are left."""
        if not self.rest:
            self.say("error: nothing more to list: type moves", style="red")
            return
        page, self.rest = self.rest[:PAGE], self.rest[PAGE:]
        self.list_moves(page)
        if self.rest:
            self.say(
                f"  ... {len(self.rest)} more: type more, or narrow the list "
                "(moves 7, moves pair, moves bomb; help says how)"
            )

    def list_moves(self, moves: Sequence[tuple[int, hs.Action]]) -> None:
        """Print ``(number, action)`` lines; those numbers may now be typed at this position."""
        for i, a in moves:
            self.say(f"  {i:3d}. {action_text(a)}")
            self.shown.add(i)

    def hint(self, obs: hs.Observation, legal: Sequence[hs.Action]) -> None:
        """Score the alternatives from this seat's observation only, and print the table."""
        from strategies.shortlist import score_shortlist

        seed = int(derive(derive(np.int64(self.seed), np.int64(self.game_id)), self.actions))
        listing = ordered(legal)
        number = {a.code: i for i, a in enumerate(listing, 1)}
        scored = score_shortlist(obs, listing, samples=HINT_SAMPLES, seed=seed)
        alts = scored.alternatives
        table = Table(title=f"hint ({scored.note}; seed {seed})", title_justify="left")
        for col in ("#", "action", "value", "round margin", "out first"):
            table.add_column(col, justify="left" if col == "action" else "right")
        for a in alts[:HINT_ROWS]:
            table.add_row(
                str(number[a.action.code]),
                action_text(a.action),
                f"{a.value:.3f} ± {a.stderr:.3f}",
                f"{a.margin:+.1f} ± {a.margin_stderr:.1f}",
                f"{100 * a.first_out:.0f}%",
            )
            self.shown.add(number[a.action.code])
        self.console.print(table)
        if len(alts) > HINT_ROWS:
            self.say(f"({len(alts) - HINT_ROWS} more scored, not shown)")
        top = alts[0]
        self.shown.add(number[top.action.code])
        line = f"the search would play #{number[top.action.code]} {action_text(top.action)}"
        # the next best that scores differently (5a and 5b alike are one choice)
        nxt = next((a for a in alts if (a.value, a.margin) != (top.value, top.margin)), None)
        if nxt is None:
            line += ": all the alternatives scored score the same"
        else:
            line += (
                f": {top.value - nxt.value:+.3f} value ({top.margin - nxt.margin:+.1f} points "
                f"of round margin) over #{number[nxt.action.code]} {action_text(nxt.action)}"
            )
            self.shown.add(number[nxt.action.code])
        self.say(line, style="bold")
        self.say(
            "value: the round's score margin squashed to 0..1 (0.5 even), mean over deals of "
            "the unseen cards consistent with what you have seen; ± one standard error"
        )


class NarratedBot(Strategy):
    """A bot whose every action is printed as it is chosen (its decisions unchanged).

    A compiled bot draws from the splitmix64 stream the runner would give it in this seat
    (``strategy_seed(run seed, game id, seat)``); a Python bot from the runner's generator.
    """

    name = "narrated"
    description = "a bot of haggis-sim play, narrated"

    def __init__(
        self, inner: Strategy, seat: int, seed: int, game_id: int, table: TerminalPlayer
    ) -> None:
        super().__init__()
        self.inner = inner
        self.table = table
        self.stream = new_stream(np.int64(int(strategy_seed(seed, game_id, seat))))

    @property
    def spec(self) -> str:
        return self.inner.spec

    def act(self, observation: hs.Observation, legal: list[hs.Action], rng: Any) -> hs.Action:
        """The bot's action, printed before it is returned."""
        if is_compiled(self.inner):
            assert isinstance(self.inner, CompiledStrategy)
            code = self.inner.act_array(observation.array, self.stream)
            action = action_from_code(observation.seat, code)
        else:
            action = self.inner.act(observation, legal, rng)
        self.table.record(observation, action)
        return action
