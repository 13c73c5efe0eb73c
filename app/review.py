"""A move graded from what the player could see before it, never from the layout (DESIGN.md §1.5).

The exact solver knows, for every position a player saw, which cells were provably safe or mines, the
exact chance of a mine under every other covered cell, and the fewest numbers that prove a cell. A move
is graded against that:
- proven: a reveal of a provably safe cell, a flag on a proven mine, a chord whose cells were all safe
  (in a mode where a mine is a point: a reveal of a proven mine);
- best guess: a reveal when nothing was proven, its chance of a mine within BEST_GUESS_MARGIN of the
  lowest chance on the board (in a mode where a mine is a point: of the highest);
- inaccuracy: a guess that risked more than that, by how much;
- mistake: a reveal that risked a mine while a cell was provably safe (one such cell named, with its
  proof), a flag on a cell that could be safe (in a mode where a mine is a point: a guess while a proven
  mine was there to take, left for the opponent);
- first: the first click, which the rules make safe; noted: what is not a bet (a question mark, a flag
  taken off, undo, asking for help, the bomb); too complex: a position counting could not finish in time.

A game's story is its history: each undo record keeps the move it takes back (app.game.Turn), and
rewinding the game record by record gives the position before each. Nothing here is stored or shown yet:
the replay and its review are built on it (issue 25).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from app.game import FLAG, MARK_CYCLE, MARKS, Game, Move, rewound
from app.modes import get_mode
from solver import Analyzer, Budget, Interrupted, Status
from solver.analysis import Explanation
from solver.limits import Allowance
from solver.position import COVERED, Cell

# A guess is the best one when its chance of a mine is at most this much above the lowest chance on the
# board: two percentage points, less than a player can tell apart by eye on the probability overlay, and
# the page says so. Beyond it, the guess risked more than it had to: an inaccuracy, with the difference.
BEST_GUESS_MARGIN = Fraction(2, 100)

KINDS = ("first", "proven", "best", "inaccuracy", "mistake", "noted", "too_complex")


@dataclass(frozen=True)
class Grade:
    kind: str  # one of KINDS
    chance: Fraction | None = None  # a reveal's chance of a mine before it (a chord: its riskiest cell's)
    best: Fraction | None = None  # the best chance on the board then: the lowest (the highest where mines score)
    example: Cell | None = None  # a mistake's proven cell (safe, or a mine where mines score)
    proof: tuple[Cell, ...] = field(default_factory=tuple)  # the numbers that prove it
    uses_count: bool = False  # the proof needs the number of mines left

    @property
    def guessed(self) -> bool:
        """Whether the move bet on a cell whose content nothing proved."""
        return self.kind in ("best", "inaccuracy") or (self.kind == "mistake" and self.chance is not None)


def grade(before: Game, move: Move, allowance: Allowance | None = None) -> Grade:
    """The grade of `move` played on `before`, the game as the player saw it; past `allowance` the
    position is too complex to grade (never a guess at the grade)."""
    if before.status != "playing":
        return Grade("noted")
    action = move.action
    if action not in ("reveal", "chord", "flag"):
        return Grade("noted")
    index = before.index(move.x, move.y)
    scores = get_mode(before.mode).mines_score
    if action == "reveal" and before.started_at is None and not scores:
        return Grade("first")
    analyzer = Analyzer(before.position())
    try:
        with analyzer.limits(allowance):
            return _graded(before, analyzer, action, index, move.mark, scores, allowance)
    except Interrupted:
        return Grade("too_complex")


def _graded(
    game: Game,
    analyzer: Analyzer,
    action: str,
    index: int,
    mark: str | None,
    scores: bool,
    allowance: Allowance | None,
) -> Grade:
    statuses = analyzer.classify()
    cell = game.cell(index)
    if action == "flag":
        placed = MARKS.get(mark, "") if mark is not None else MARK_CYCLE[game.marks.get(index, "")]
        if placed != FLAG:
            return Grade("noted")
        if statuses[cell] is Status.MINE:
            return Grade("proven")
        return Grade("mistake", example=cell)
    cells = [cell] if action == "reveal" else [game.cell(target) for target in _chorded(game, index)]
    wanted = Status.MINE if scores else Status.SAFE
    if all(statuses[target] is wanted for target in cells):
        return Grade("proven")
    proven = [other for other, status in statuses.items() if status is wanted]
    chances = _chances(analyzer, allowance)
    if chances is None:
        return Grade("too_complex")
    # What the move risked: a reveal its cell's chance; a chord (which opens its cells at once) its
    # riskiest cell's, the least it risked. Where mines score, what it missed: its chance of a mine.
    risk = max(chances[target] for target in cells)
    open_cells = [chance for other, chance in chances.items() if statuses.get(other) is not Status.MINE or scores]
    best = max(open_cells) if scores else min(open_cells)
    if proven:
        example = _nearest(analyzer, proven, cell)
        explanation: Explanation = analyzer.explain(example)
        return Grade("mistake", risk, best, example, explanation.numbers, explanation.uses_count)
    behind = (best - risk) if scores else (risk - best)
    return Grade("best" if behind <= BEST_GUESS_MARGIN else "inaccuracy", risk, best)


def _chorded(game: Game, index: int) -> list[int]:
    """The cells a chord on `index` opens: its covered, unflagged neighbours (the rules refuse the rest)."""
    return [other for other in game.neighbours(index) if game.cells[other] == COVERED and game.marks.get(other) != FLAG]


def _chances(analyzer: Analyzer, allowance: Allowance | None) -> dict[Cell, Fraction] | None:
    counted = analyzer.probabilities(Budget(deadline=allowance.deadline if allowance else None))
    return counted.cells


def _nearest(analyzer: Analyzer, cells: list[Cell], to: Cell) -> Cell:
    """The proven cell a player would find: next to the numbers, nearest the move."""
    return min(
        cells,
        key=lambda c: (analyzer.is_outside(c), max(abs(c[0] - to[0]), abs(c[1] - to[1])), c[1], c[0]),
    )


@dataclass(frozen=True)
class Luck:
    """The chance that every guess of a game survived, and what it would have been with the best guess at
    each of those moments: "1 in N" each. None where the mode leaves nothing to luck."""

    survived: Fraction
    with_best: Fraction

    @staticmethod
    def of(grades: list[Grade]) -> Luck | None:
        survived = with_best = Fraction(1)
        for grade in grades:
            if grade.guessed and grade.chance is not None and grade.best is not None:
                survived *= 1 - grade.chance
                with_best *= 1 - grade.best
        return Luck(survived, with_best)


def story(game: Game) -> list[tuple[Game, Move | None]]:
    """Each action of the game as it stands, first to last: the game as the player saw it before the
    action, and the action (None in a record written before records kept their move). Actions taken back
    with undo are not in a game's history, nor here."""
    steps: list[tuple[Game, Move | None]] = []
    current = game
    while current.history:
        record = current.history[-1]
        before, _ = rewound(current)
        steps.append((before, Move.from_record(record["move"]) if "move" in record else None))
        current = before
    steps.reverse()
    return steps


@dataclass(frozen=True)
class Review:
    """Every move of a game with its grade, and what they add up to."""

    moves: list[tuple[Move, Grade]]
    luck: Luck | None  # None where the rules leave nothing to luck, or a mine is a point

    def count(self, kind: str) -> int:
        return sum(1 for _, grade in self.moves if grade.kind == kind)

    @property
    def accuracy(self) -> Fraction | None:
        """The share of the moves that bet on something (all but noted, first and too complex) that were
        proven or the best guess; None when there were none."""
        judged = [grade for _, grade in self.moves if grade.kind in ("proven", "best", "inaccuracy", "mistake")]
        if not judged:
            return None
        return Fraction(sum(1 for grade in judged if grade.kind in ("proven", "best")), len(judged))


def review(game: Game, allowance: Allowance | None = None) -> Review:
    """The grades of every recorded move of `game`, each from the position before it."""
    rules = get_mode(game.mode)
    moves = [(move, grade(before, move, allowance)) for before, move in story(game) if move is not None]
    luck = None if rules.luck_free or rules.mines_score else Luck.of([graded for _, graded in moves])
    return Review(moves, luck)
