"""The rules of a game, as plain Python: a move goes in, a new game and an outcome come out.

Nothing here knows about the web or the store. A cruel-but-fair game keeps
only what the player has seen; every reveal asks the solver what the player
could have known (DESIGN.md §1.1) and deals a layout uniformly among those
consistent with the decision. A refused move raises Refused and changes
nothing: moves work on a copy.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from dataclasses import dataclass, field
from typing import Any

from solver import Analyzer, Budget, Inconsistent, OutOfTime, Position, Status, describe
from solver.position import COVERED, MINE

PRESETS = {
    "beginner": (9, 9, 10),
    "intermediate": (16, 16, 40),
    "expert": (30, 16, 99),
}
MAX_SIDE = 100
FLAG = "F"
QUESTION = "?"
MARK_CYCLE = {"": FLAG, FLAG: QUESTION, QUESTION: ""}
ACTIONS = ("reveal", "flag", "chord", "undo")


class Refused(Exception):
    """A move the rules do not allow; `status` is the HTTP status that fits (409 or 422)."""

    status = 409

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class Invalid(Refused):
    """A move that makes no sense on this board (bad coordinates, unknown action)."""

    status = 422


@dataclass
class Options:
    allow_outside: bool = False  # "allow guessing anywhere"
    debug_overlay: bool = False
    safe_mode: bool = False  # double-click to reveal
    countdown: bool = False  # numbers show mines still missing
    undo: bool = True

    NAMES = ("allow_outside", "debug_overlay", "safe_mode", "countdown", "undo")


def board_size(width: int, height: int, mines: int | None = None, percent: float | None = None) -> tuple[int, int, int]:
    """Validate a custom board; mines as a count or a percentage of the cells."""
    if not (isinstance(width, int) and isinstance(height, int)):
        raise Invalid("width and height must be whole numbers")
    if not (2 <= width <= MAX_SIDE and 2 <= height <= MAX_SIDE):
        raise Invalid(f"width and height must be between 2 and {MAX_SIDE}, not {width}x{height}")
    cells = width * height
    if (mines is None) == (percent is None):
        raise Invalid("give the mines either as a count or as a percentage")
    if percent is not None:
        if not 0 < percent < 100:
            raise Invalid(f"the mine percentage must be above 0 and below 100, not {percent:g}")
        mines = max(1, round(cells * percent / 100))
    if not 1 <= mines <= cells - 1:
        raise Invalid(f"a {width}x{height} board holds between 1 and {cells - 1} mines, not {mines}")
    return width, height, mines


@dataclass
class Move:
    action: str
    x: int | None = None
    y: int | None = None
    mark: str | None = None  # for "flag": set this mark ("flag", "question", "none") instead of cycling


@dataclass
class Outcome:
    """What a move did, for the caller to show."""

    changed: set[int] = field(default_factory=set)  # cells whose symbol or mark changed
    message: str = ""
    forced_guess: bool = False
    # The analyzer for the new game, or None when the caller must build a
    # fresh one (after undo, or when none was handed in).
    analyzer: Analyzer | None = None


@dataclass
class Game:
    width: int
    height: int
    mines: int
    mode: str = "cruel"
    options: Options = field(default_factory=Options)
    cells: list[str] = field(default_factory=list)  # '.' covered, '0'-'8' revealed
    marks: dict[int, str] = field(default_factory=dict)  # covered cell -> 'F' or '?'
    status: str = "playing"  # playing, won, lost
    exploded: int | None = None
    layout: list[int] | None = None  # where the mines were, once the game is over
    forced_guesses: int = 0
    hints: int = 0
    started_at: float | None = None
    finished_at: float | None = None
    last_cell: int | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # what each action changed, for undo
    moves: int = 0  # version: every applied move adds one

    def copy(self) -> Game:
        """A copy that moves can change; history records are never changed once written."""
        return dataclasses.replace(
            self, options=copy.copy(self.options), cells=list(self.cells), marks=dict(self.marks), history=list(self.history)
        )

    @classmethod
    def new(cls, width: int, height: int, mines: int, options: Options | None = None) -> Game:
        width, height, mines = board_size(width, height, mines)
        return cls(width, height, mines, options=options or Options(), cells=[COVERED] * (width * height))

    # ----- geometry ---------------------------------------------------

    def index(self, x: Any, y: Any) -> int:
        if not (isinstance(x, int) and isinstance(y, int)) or isinstance(x, bool) or isinstance(y, bool):
            raise Invalid("x and y must be whole numbers")
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise Invalid(f"({x}, {y}) is off the {self.width}x{self.height} board (x and y count from 0)")
        return y * self.width + x

    def cell(self, index: int) -> tuple[int, int]:
        return index % self.width, index // self.width

    def neighbours(self, index: int) -> list[int]:
        x, y = self.cell(index)
        return [
            ny * self.width + nx
            for ny in range(max(0, y - 1), min(self.height, y + 2))
            for nx in range(max(0, x - 1), min(self.width, x + 2))
            if (nx, ny) != (x, y)
        ]

    # ----- views ------------------------------------------------------

    def position(self) -> Position:
        """What the player has seen, as the solver reads it (flags are notes, not knowledge)."""
        rows = tuple("".join(self.cells[y * self.width : (y + 1) * self.width]) for y in range(self.height))
        return Position(self.width, self.height, self.mines, rows)

    def board_rows(self) -> list[str]:
        """The position alphabet with flags; after the end '*' marks the mines of the dealt layout."""
        mines = set(self.layout or ())
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                index = y * self.width + x
                if index in mines:
                    row.append(MINE)
                elif self.cells[index] == COVERED and self.marks.get(index) == FLAG:
                    row.append(FLAG)
                else:
                    row.append(self.cells[index])
            rows.append("".join(row))
        return rows

    @property
    def covered(self) -> int:
        return self.cells.count(COVERED)

    def flags(self) -> int:
        return sum(1 for mark in self.marks.values() if mark == FLAG)

    def elapsed(self, now: float) -> float:
        if self.started_at is None:
            return 0.0
        return (self.finished_at or now) - self.started_at

    # ----- storage ----------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The state without its history: stores keep history records apart, each written once."""
        data = {name: getattr(self, name) for name in SCALARS + ("width", "height", "mines", "mode", "hints", "moves")}
        data["options"] = {name: getattr(self.options, name) for name in Options.NAMES}
        data["cells"] = "".join(self.cells)
        data["marks"] = {str(index): mark for index, mark in self.marks.items()}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], history: list[dict[str, Any]]) -> Game:
        """Rebuild a stored game; anything malformed raises ValueError."""
        try:
            options = Options(**{name: bool(data["options"][name]) for name in Options.NAMES})
            game = cls(
                width=int(data["width"]),
                height=int(data["height"]),
                mines=int(data["mines"]),
                mode=str(data["mode"]),
                options=options,
                cells=list(data["cells"]),
                marks={int(index): str(mark) for index, mark in data["marks"].items()},
                status=str(data["status"]),
                exploded=None if data["exploded"] is None else int(data["exploded"]),
                layout=None if data["layout"] is None else [int(i) for i in data["layout"]],
                forced_guesses=int(data["forced_guesses"]),
                hints=int(data["hints"]),
                started_at=data["started_at"],
                finished_at=data["finished_at"],
                last_cell=data["last_cell"],
                history=list(history),
                moves=int(data["moves"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"stored game is malformed: {error!r}") from None
        if len(game.cells) != game.width * game.height or game.status not in ("playing", "won", "lost"):
            raise ValueError("stored game is malformed: board does not match its size")
        if not all(isinstance(record, dict) and {"cells", "marks", *SCALARS} <= record.keys() for record in game.history):
            raise ValueError("stored game is malformed: an undo record is incomplete")
        game.position()  # checks the alphabet and the size
        return game


# ----- moves ------------------------------------------------------------


@dataclass
class _Turn:
    """One move being applied: the game copy, the analyzer and the undo record."""

    game: Game
    analyzer: Analyzer
    rng: random.Random
    budget: Budget
    now: float
    undo: dict[str, Any] = field(default_factory=lambda: {"cells": {}, "marks": {}})
    outcome: Outcome = field(default_factory=Outcome)

    def set_cell(self, index: int, symbol: str) -> None:
        self.undo["cells"].setdefault(str(index), self.game.cells[index])
        self.game.cells[index] = symbol
        self.outcome.changed.add(index)

    def set_mark(self, index: int, mark: str) -> None:
        self.undo["marks"].setdefault(str(index), self.game.marks.get(index, ""))
        if mark:
            self.game.marks[index] = mark
        else:
            self.game.marks.pop(index, None)
        self.outcome.changed.add(index)


SCALARS = ("status", "exploded", "layout", "forced_guesses", "started_at", "finished_at", "last_cell")


def apply_move(
    game: Game,
    move: Move,
    *,
    rng: random.Random,
    now: float,
    analyzer: Analyzer | None = None,
    budget: Budget | None = None,
) -> tuple[Game, Outcome]:
    """Apply a move to a copy of `game`. `analyzer` must match the game's position; it is updated in place."""
    if move.action not in ACTIONS:
        raise Invalid(f"unknown action {move.action!r}: expected one of {', '.join(ACTIONS)}")
    if move.action == "undo":
        return _undo(game)
    if game.status != "playing":
        raise Refused(f"the game is {game.status}: start a new game or undo")
    index = game.index(move.x, move.y)
    turn = _Turn(game.copy(), analyzer or Analyzer(game.position()), rng, budget or Budget(), now)
    turn.undo.update({name: getattr(game, name) for name in SCALARS})
    # One time limit for the whole move, a chord included: past it each
    # reveal is decided as a guess (see _reveal).
    with turn.analyzer.time_limit(turn.budget.seconds):
        if move.action == "flag":
            _flag(turn, index, move.mark)
        elif move.action == "reveal":
            if game.cells[index] != COVERED:
                raise Refused(f"{describe(game.cell(index))} is already revealed")
            if game.marks.get(index) == FLAG:
                raise Refused(f"{describe(game.cell(index))} is flagged: remove the flag to reveal it")
            _reveal(turn, index)
        else:
            _chord(turn, index)
    new = turn.game
    new.last_cell = index
    new.history.append(turn.undo)
    new.moves += 1
    turn.outcome.analyzer = turn.analyzer
    return new, turn.outcome


def _flag(turn: _Turn, index: int, mark: str | None) -> None:
    game = turn.game
    if game.cells[index] != COVERED:
        raise Refused(f"{describe(game.cell(index))} is revealed: only covered cells take flags")
    marks = {"flag": FLAG, "question": QUESTION, "none": ""}
    if mark is None:
        new_mark = MARK_CYCLE[game.marks.get(index, "")]
    elif mark in marks:
        new_mark = marks[mark]
    else:
        raise Invalid(f"unknown mark {mark!r}: expected flag, question or none")
    turn.set_mark(index, new_mark)


def _chord(turn: _Turn, index: int) -> None:
    game = turn.game
    symbol = game.cells[index]
    if symbol == COVERED:
        raise Refused(f"{describe(game.cell(index))} is covered: chording works on a revealed number")
    around = game.neighbours(index)
    flags = sum(1 for n in around if game.cells[n] == COVERED and game.marks.get(n) == FLAG)
    if flags != int(symbol):
        raise Refused(f"the {symbol} at {describe(game.cell(index))} has {flags} flag{'s' * (flags != 1)} around it")
    targets = [n for n in around if game.cells[n] == COVERED and game.marks.get(n) != FLAG]
    if not targets:
        raise Refused(f"nothing left to open around the {symbol} at {describe(game.cell(index))}")
    for target in targets:
        # One by one, each under the rules as they stand after the ones before.
        if game.cells[target] == COVERED and game.status == "playing":
            _reveal(turn, target)


def _judge(game: Game, analyzer: Analyzer, cell: tuple[int, int]) -> tuple[bool, bool]:
    """(safe, forced guess) for a click on a covered cell, by the rules of DESIGN.md §1.1."""
    status = analyzer.status(cell)
    if status is Status.SAFE:
        return True, False
    if status is Status.MINE:
        return False, False
    if not analyzer.frontier_exists():
        # Rule 1: nothing to reason from, so nothing to punish.
        return True, game.started_at is not None
    if not analyzer.is_outside(cell):
        # Rule 2: a risky frontier cell is safe only when no safe cell exists anywhere.
        safe = not analyzer.safe_cell_exists()
        return safe, safe
    if analyzer.every_frontier_cell_is_a_mine():
        # Rule 3: the player has nowhere else to go.
        return True, True
    # Rule 3 (strict) refuses the guess; rule 4 allows it when no safe cell exists.
    safe = game.options.allow_outside and not analyzer.safe_cell_exists()
    return safe, safe


def _reveal(turn: _Turn, index: int) -> None:
    """Reveal one covered cell under the cruel-but-fair rules (DESIGN.md §1.1)."""
    game, analyzer = turn.game, turn.analyzer
    cell = game.cell(index)
    first = game.started_at is None
    hurried = False
    try:
        safe, forced = _judge(game, analyzer, cell)
    except OutOfTime:
        # The solver ran out of time before it knew this position. The fair
        # reading: no safe cell is known, so the click is a guess, and a guess
        # is safe when the cell can be safe. What was proven already still counts.
        proven = analyzer.proven(cell)
        safe, forced, hurried = proven is not Status.MINE, proven is Status.UNKNOWN, True
        turn.outcome.message = "The position was too complex to judge in time: this click counted as a guess."
    if first:
        game.started_at = turn.now
    if not safe:
        _explode(turn, index)
        return
    try:
        layout = analyzer.sample_layout(turn.rng, force=(cell, False), budget=turn.budget)
    except Inconsistent:
        if not hurried:
            raise
        # In a hurry the cell turned out to be a mine in every layout.
        _explode(turn, index)
        return
    if forced:
        game.forced_guesses += 1
        turn.outcome.forced_guess = True
    mines = {y * game.width + x for x, y in layout.mines}
    revealed = {}
    queue = [index]
    while queue:
        current = queue.pop()
        if current in revealed or game.cells[current] != COVERED or game.marks.get(current) == FLAG:
            continue
        number = sum(1 for n in game.neighbours(current) if n in mines)
        revealed[current] = str(number)
        if number == 0:
            queue.extend(game.neighbours(current))
    for current, symbol in revealed.items():
        turn.set_cell(current, symbol)
        if current in game.marks:
            turn.set_mark(current, "")
    analyzer.reveal({game.cell(current): symbol for current, symbol in revealed.items()})
    if game.covered == game.mines:
        game.status = "won"
        game.layout = [i for i, symbol in enumerate(game.cells) if symbol == COVERED]
        game.finished_at = turn.now
        turn.outcome.message = "Cleared: every safe cell is open."


def _explode(turn: _Turn, index: int) -> None:
    game = turn.game
    cell = game.cell(index)
    layout = turn.analyzer.sample_layout(turn.rng, force=(cell, True), budget=turn.budget)
    game.status = "lost"
    game.exploded = index
    game.layout = sorted(y * game.width + x for x, y in layout.mines)
    game.finished_at = turn.now
    turn.outcome.message = f"Boom: {describe(cell)} was a mine."


def _undo(game: Game) -> tuple[Game, Outcome]:
    if not game.options.undo:
        raise Refused("undo is turned off for this game")
    if not game.history:
        raise Refused("nothing to undo")
    new = game.copy()
    record = new.history.pop()
    outcome = Outcome(message="Undone.")
    for key, symbol in record["cells"].items():
        new.cells[int(key)] = symbol
        outcome.changed.add(int(key))
    for key, mark in record["marks"].items():
        if mark:
            new.marks[int(key)] = mark
        else:
            new.marks.pop(int(key), None)
        outcome.changed.add(int(key))
    for name in SCALARS:
        setattr(new, name, record[name])
    # The dealt layout was shown everywhere; it goes with the undo too.
    outcome.changed.update(game.layout or ())
    new.moves += 1
    return new, outcome


def set_options(game: Game, changes: dict[str, bool]) -> Game:
    """Change a game's settings; not an action, so undo does not step over it."""
    unknown = set(changes) - set(Options.NAMES)
    if unknown:
        raise Invalid(f"unknown setting {sorted(unknown)[0]!r}: expected one of {', '.join(Options.NAMES)}")
    new = game.copy()
    for name, value in changes.items():
        if not isinstance(value, bool):
            raise Invalid(f"setting {name!r} must be true or false")
        setattr(new.options, name, value)
    new.moves += 1
    return new


@dataclass
class Hint:
    kind: str  # safe, guess, outside, wrong_flag, start
    message: str
    cell: tuple[int, int] | None = None
    proof: list[tuple[int, int]] = field(default_factory=list)
    uses_count: bool = False


def hint(game: Game, analyzer: Analyzer) -> Hint:
    """What the player could know now: the messages of DESIGN.md §1.1, and one proven-safe cell with its proof."""
    if game.status != "playing":
        raise Refused(f"the game is {game.status}: no hints after the end")
    statuses = analyzer.classify()
    for index, mark in sorted(game.marks.items()):
        if mark == FLAG and statuses[game.cell(index)] is not Status.MINE:
            return Hint("wrong_flag", "You flagged a cell that could be empty", game.cell(index))
    if game.started_at is None:
        return Hint("start", "Click anywhere: the first click is always safe")
    safe = [cell for cell, status in statuses.items() if status is Status.SAFE]
    if safe:
        # A cell next to the numbers, near the last click, has the proof a player can follow.
        last = game.cell(game.last_cell) if game.last_cell is not None else (0, 0)
        cell = min(
            safe,
            key=lambda c: (analyzer.is_outside(c), max(abs(c[0] - last[0]), abs(c[1] - last[1])), c[1], c[0]),
        )
        explanation = analyzer.explain(cell)
        return Hint("safe", "There are safe cells", cell, list(explanation.numbers), explanation.uses_count)
    if analyzer.every_frontier_cell_is_a_mine():
        return Hint("outside", "Every frontier cell is a mine: play outside")
    return Hint("guess", "No safe cells: you may guess")


def count_hint(game: Game) -> Game:
    """Asking for a hint is recorded (the status line shows how many), but is not an action to undo."""
    new = game.copy()
    new.hints += 1
    new.moves += 1
    return new
