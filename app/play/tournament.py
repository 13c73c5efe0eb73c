"""Flags matches between move programs (`kaboom tournament`): the KöMaL S.27 schedule, the referee, the score.

A program is any command that speaks the `kaboom move` protocol: a position on
stdin, `X Y` on stdout. It is started afresh for every move and must answer
within the limit; a late, failed or illegal answer loses the game (and is
reported). `builtin:LEVEL` plays a level of solver.flags in the referee's
own process, for quick measurements; its time is its thinking only.

The games are played by the Flags rules (app.modes.flags) without the bomb,
which KöMaL's game does not have. A game stops once one side cannot be caught,
which decides the same winner as uncovering the whole board (`uncover_all`
plays on, as KöMaL did, for the final scores).

The schedule: 20×20, 20×100 and 100×100 boards at mine densities 10 %, 12.5 %,
… 47.5 %, each board played twice so that each program starts once: 48 boards,
96 games. A set is one board size (32 games): a program wins it with at least
two thirds of its games (a draw counts half), otherwise the set is drawn; a set
won scores 3 points, a drawn set 1 for each (our reading of KöMaL's scoring).
"""

from __future__ import annotations

import random
import shlex
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from app.core.game import Game, Move
from app.modes.cruel_flags import CruelFlags
from app.modes.flags import Flags, FlagsOptions
from solver.cruel_flags import CRUEL_FLAGS_PLAYERS
from solver.flags import FLAGS_PLAYERS, FLAGS_SECONDS, FlagsChoice, FlagsView
from solver.position import COVERED, Position

ANSWER_SECONDS = 10.0
SIZES = ((20, 20), (20, 100), (100, 100))
DENSITIES = tuple(Fraction(100 + 25 * step, 1000) for step in range(16))  # 10 % to 47.5 %
QUICK_SIZES = ((20, 20),)
QUICK_DENSITIES = tuple(Fraction(100 + 75 * step, 1000) for step in range(6))  # 10 % to 47.5 %, every 7.5 points
SET_SHARE = Fraction(2, 3)
BUILTIN = "builtin:"
FLAGS = Flags()


@dataclass(frozen=True)
class Rules:
    """The rules a match is played by: Flags' own (a layout dealt at the start) or cruel Flags' (no layout:
    only a proven mine scores); the game's mode and the built-in players that know them."""

    name: str
    mode: Flags
    players: Mapping[str, Callable[[FlagsView, random.Random], FlagsChoice]]

    def new_game(self, board: ScheduledBoard, seed: int, uncover_all: bool) -> Game:
        """The board's game: the same for both starts (its layout, or its deals' seed, comes from the schedule)."""
        options = FlagsOptions(bomb=False, uncover_all=uncover_all)
        if isinstance(self.mode, CruelFlags):
            return self.mode.new_game(board.width, board.height, board.mines, options, rng=board.rng(seed))
        return self.mode.from_layout(board.width, board.height, board.layout(seed), options)


RULES = {
    "dealt": Rules("dealt", FLAGS, FLAGS_PLAYERS),
    "cruel": Rules("cruel", CruelFlags(), CRUEL_FLAGS_PLAYERS),
}


@dataclass(frozen=True)
class ScheduledBoard:
    width: int
    height: int
    mines: int
    number: int  # its place in the schedule: with the seed, what deals its layout

    @property
    def size(self) -> str:
        return f"{self.width}x{self.height}"

    def rng(self, seed: int) -> random.Random:
        """What deals the board (its layout, or its deals' seed), from the match's seed."""
        return random.Random(f"kaboom tournament|{seed}|{self.size}/{self.mines}|{self.number}")

    def layout(self, seed: int) -> frozenset[int]:
        return frozenset(self.rng(seed).sample(range(self.width * self.height), self.mines))

    def describe(self) -> str:
        return f"{self.size} with {self.mines} mines ({100 * self.mines / (self.width * self.height):.1f} %)"


def schedule(quick: bool = False, sizes: tuple[tuple[int, int], ...] | None = None) -> list[ScheduledBoard]:
    """The boards in order: each size at each density; `sizes` keeps only those sets of the schedule."""
    every, densities = (QUICK_SIZES, QUICK_DENSITIES) if quick else (SIZES, DENSITIES)
    boards: list[ScheduledBoard] = []
    for width, height in every:
        for density in densities:
            board = ScheduledBoard(width, height, round(width * height * density), len(boards))
            boards.append(board)
    return [board for board in boards if sizes is None or (board.width, board.height) in sizes]


@dataclass(frozen=True)
class Answer:
    cell: tuple[int, int] | None  # 0-based; None when the program failed
    seconds: float
    fault: str = ""  # why the answer loses the game: late, failed, illegal


@dataclass(frozen=True)
class Program:
    """A move program: a command started afresh for each move, or `builtin:LEVEL` (a player of the rules')."""

    command: str
    rules: Rules = RULES["dealt"]

    @property
    def name(self) -> str:
        return self.command

    def answer(self, position: Position, limit: float) -> Answer:
        text = position.format()
        started = time.monotonic()
        if self.command.startswith(BUILTIN):
            level = self.command[len(BUILTIN) :]
            choice = self.rules.players[level](
                FlagsView.of(position, started + min(limit, FLAGS_SECONDS)), random.Random(text)
            )
            return Answer(choice.cell, time.monotonic() - started)
        try:
            done = subprocess.run(shlex.split(self.command), input=text, capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            return Answer(None, time.monotonic() - started, f"late: no answer within {limit:g} s")
        except OSError as error:
            return Answer(None, time.monotonic() - started, f"failed to start: {error}")
        seconds = time.monotonic() - started
        if done.returncode != 0:
            said = (done.stderr.strip().splitlines() or [""])[-1][:200]
            return Answer(None, seconds, f"failed: exit status {done.returncode}{': ' + said if said else ''}")
        cell = parse_answer(done.stdout, position)
        if isinstance(cell, str):
            return Answer(None, seconds, cell)
        return Answer(cell, seconds)


def parse_answer(text: str, position: Position) -> tuple[int, int] | str:
    """The 0-based cell of an `X Y` answer (1-based), or why it is illegal."""
    fields = text.split()
    if len(fields) != 2 or not all(field.isascii() and field.isdigit() for field in fields):
        return f"illegal: expected 'X Y', got {text.strip()[:60]!r}"
    x, y = int(fields[0]) - 1, int(fields[1]) - 1
    if not (0 <= x < position.width and 0 <= y < position.height):
        return f"illegal: {x + 1} {y + 1} is off the {position.width}x{position.height} board"
    if position.rows[y][x] != ".":
        return f"illegal: {x + 1} {y + 1} is not covered"
    return (x, y)


def check_program(command: str, rules: Rules = RULES["dealt"]) -> Program:
    """A program named on the command line: `builtin:LEVEL` with a level the rules know, or a command that parses."""
    if command.startswith(BUILTIN):
        level = command[len(BUILTIN) :]
        if level not in rules.players:
            raise ValueError(
                f"unknown built-in player {level!r} for the {rules.name} rules: "
                f"expected one of {', '.join(rules.players)}"
            )
    else:
        try:
            if not shlex.split(command):
                raise ValueError("an empty command")
        except ValueError as error:
            raise ValueError(f"cannot read the command {command!r}: {error}") from None
    return Program(command, rules)


@dataclass
class GameRecord:
    board: ScheduledBoard
    first: int  # which program (0 = A, 1 = B) moved first
    scores: list[int]  # by program
    winner: int | None  # by program; None for a draw
    fault: str = ""  # the losing program's late, failed or illegal answer
    seconds: list[list[float]] = field(default_factory=lambda: [[], []])  # each program's answers' times


def play(
    board: ScheduledBoard,
    programs: tuple[Program, Program],
    first: int,
    seed: int,
    uncover_all: bool = False,
    limit: float = ANSWER_SECONDS,
    rules: Rules = RULES["dealt"],
) -> GameRecord:
    """One game by the rules: program `first` takes seat 0 (moves first)."""
    game = rules.new_game(board, seed, uncover_all)
    seated = (first, 1 - first)  # seat -> program
    record = GameRecord(board, first, [0, 0], None)
    analyzer = None
    rng = random.Random(0)
    while game.status == "playing":
        seat = game.state["turn"]
        program = seated[seat]
        position = Position(game.width, game.height, game.mines, tuple(game.board_rows()))
        answer = programs[program].answer(position, limit)
        record.seconds[program].append(answer.seconds)
        if answer.cell is None or answer.seconds > limit:
            record.fault = answer.fault or f"late: answered after {answer.seconds:.1f} s"
            record.winner = 1 - program
            break
        game, outcome = rules.mode.apply(
            game, Move("reveal", *answer.cell, seat=seat), rng=rng, now=0.0, analyzer=analyzer
        )
        analyzer = outcome.analyzer
    record.scores = [game.state["scores"][seated.index(program)] for program in (0, 1)]
    if not record.fault:
        winner = game.state["winner"]
        record.winner = None if winner is None else seated[winner]
    return record


def games(boards: list[ScheduledBoard]) -> list[tuple[ScheduledBoard, int]]:
    """Each board twice, A first then B first."""
    return [(board, first) for board in boards for first in (0, 1)]


@dataclass(frozen=True)
class SetResult:
    size: str
    games: int
    points: tuple[Fraction, Fraction]  # games won, a draw counting half
    winner: int | None  # None for a drawn set


def sets(records: list[GameRecord]) -> list[SetResult]:
    by_size: dict[str, list[GameRecord]] = {}
    for record in records:
        by_size.setdefault(record.board.size, []).append(record)
    results = []
    for size, played in by_size.items():
        won = [
            sum(
                (
                    Fraction(1) if r.winner == side else Fraction(1, 2) if r.winner is None else Fraction(0)
                    for r in played
                ),
                Fraction(0),
            )
            for side in (0, 1)
        ]
        needed = SET_SHARE * len(played)
        winner = 0 if won[0] >= needed else 1 if won[1] >= needed else None
        results.append(SetResult(size, len(played), (won[0], won[1]), winner))
    return results


def komal_points(results: list[SetResult]) -> tuple[int, int]:
    points = [0, 0]
    for result in results:
        if result.winner is None:
            points[0] += 1
            points[1] += 1
        else:
            points[result.winner] += 3
    return points[0], points[1]


def move_times(records: list[GameRecord], program: int) -> dict[str, tuple[float, float, int]]:
    """A program's answer times by board size: (median, max, answers)."""
    by_size: dict[str, list[float]] = {}
    for record in records:
        by_size.setdefault(record.board.size, []).extend(record.seconds[program])
    return {size: (statistics.median(times), max(times), len(times)) for size, times in by_size.items() if times}


def sample_position(width: int, height: int, mines: int, moves: int, seed: int) -> Position:
    """The position after `moves` random reveals of a seeded Flags game (fewer if it ended first): numbers
    scattered over the board, the hardest kind for the solver (tests and bench/flags.py)."""
    rng = random.Random(seed)
    game = FLAGS.new_game(width, height, mines, rng=rng)
    analyzer = None
    for _ in range(moves):
        covered = [index for index, symbol in enumerate(game.cells) if symbol == COVERED]
        if game.status != "playing" or not covered:
            break
        game, outcome = FLAGS.apply(
            game, Move("reveal", *game.cell(rng.choice(covered))), rng=rng, now=0.0, analyzer=analyzer
        )
        analyzer = outcome.analyzer
    # The position as it stood: the mines a finished game shows are no part of it.
    game.shown_mines = None
    return Position(width, height, mines, tuple(game.board_rows()))
