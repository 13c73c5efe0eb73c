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

A game's story is its history: each undo record keeps the move it takes back (app.core.game.Turn), and
what undo took back before it (app.core.game.undone_steps); rewinding the game record by record gives the
position before each move, and playing the undone steps forward from there the rest. A finished game's
grades are worked out once and kept with it (Review.kept, Game.review); the replay page and
GET /api/games/{id}/review show them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.core.game import FLAG, MARK_CYCLE, MARKS, Game, Move, put_back, restored, step_to
from app.modes import get_mode
from solver import Analyzer, Budget, Interrupted, Status
from solver.analysis import Explanation
from solver.limits import Allowance, Limits
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

    def to_json(self, width: int) -> dict[str, Any]:
        """As a game keeps it (app.core.stored._Grade): exact chances as "n/d", cells by index."""
        kept: dict[str, Any] = {"kind": self.kind}
        if self.chance is not None:
            kept["chance"] = _text(self.chance)
        if self.best is not None:
            kept["best"] = _text(self.best)
        if self.example is not None:
            kept["example"] = _index(self.example, width)
        if self.proof:
            kept["proof"] = [_index(cell, width) for cell in self.proof]
        if self.uses_count:
            kept["uses_count"] = True
        return kept

    @classmethod
    def from_json(cls, kept: dict[str, Any], width: int) -> Grade:
        return cls(
            kept["kind"],
            _fraction(kept.get("chance")),
            _fraction(kept.get("best")),
            _cell(kept["example"], width) if "example" in kept else None,
            tuple(_cell(index, width) for index in kept.get("proof", ())),
            kept.get("uses_count", False),
        )

    @property
    def guessed(self) -> bool:
        """Whether the move bet on a cell whose content nothing proved."""
        # A risky reveal's mistake has a proof of the safe cell it passed over; a flag's has none.
        risky_reveal = self.chance is not None or bool(self.proof) or self.uses_count
        return self.kind in ("best", "inaccuracy") or (self.kind == "mistake" and risky_reveal)


def grade(before: Game, move: Move, allowance: Allowance | None = None, analyzer: Analyzer | None = None) -> Grade:
    """The grade of `move` played on `before`, the game as the player saw it; past `allowance` the
    position is too complex to grade (never a guess at the grade). `analyzer`, if given, is of `before`'s
    position (a review's follows the game from move to move)."""
    if before.status != "playing":
        return Grade("noted")
    action = move.action
    if action not in ("reveal", "chord", "flag"):
        return Grade("noted")
    index = before.index(move.x, move.y)
    rules = get_mode(before.mode)
    scores = rules.mines_score
    if action == "reveal" and before.started_at is None and not scores:
        return Grade("first")
    analyzer = analyzer or Analyzer(before.position())
    try:
        with analyzer.limits(allowance):
            return _graded(before, analyzer, action, index, move.mark, scores, allowance, rules.luck_free)
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
    luck_free: bool = False,
) -> Grade:
    cell = game.cell(index)
    if action == "flag":
        placed = MARKS.get(mark, "") if mark is not None else MARK_CYCLE[game.marks.get(index, "")]
        if placed != FLAG:
            return Grade("noted")
        if analyzer.status(cell) is Status.MINE:
            return Grade("proven")
        return Grade("mistake", example=cell)
    chorded = game.board.covered_around(index, game.cells, game.marks) if action == "chord" else []
    cells = [cell] if action == "reveal" else [game.cell(target) for target in chorded]
    wanted = Status.MINE if scores else Status.SAFE
    # One cell's status at a time: most moves are proven, and a big board has thousands of covered cells.
    if all(analyzer.status(target) is wanted for target in cells):
        return Grade("proven")
    if scores:
        proven = [other for other, status in analyzer.classify().items() if status is Status.MINE]
    else:
        proven = analyzer.safe_cells()
    if scores and luck_free and not proven:
        # Cruel Flags: without a proven mine every cell opened is empty; nothing was bet, the turn passed.
        return Grade("noted")
    chances = _chances(analyzer, allowance)
    if chances is None and not proven:
        return Grade("too_complex")
    risk = best = None
    if chances is not None:
        # What the move risked: a reveal its cell's chance; a chord (which opens its cells at once) its
        # riskiest cell's, the least it risked. Where mines score, what it missed: its chance of a mine.
        risk = max(chances[target] for target in cells)
        # A chance of 1 is a proven mine: no cell to open where mines do not score.
        open_cells = [chance for chance in chances.values() if scores or chance < 1]
        best = max(open_cells) if scores else min(open_cells)
    if proven:
        # A mistake whatever its chance was (said without it when counting ran out of time).
        example = _nearest(analyzer, proven, cell)
        explanation: Explanation = analyzer.explain(example)
        return Grade("mistake", risk, best, example, explanation.numbers, explanation.uses_count)
    assert risk is not None and best is not None
    behind = (best - risk) if scores else (risk - best)
    return Grade("best" if behind <= BEST_GUESS_MARGIN else "inaccuracy", risk, best)


def _chances(analyzer: Analyzer, allowance: Allowance | None) -> Mapping[Cell, Fraction] | None:
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
    def of(grades: list[Grade]) -> Luck:
        survived = with_best = Fraction(1)
        for grade in grades:
            if grade.guessed and grade.chance is not None and grade.best is not None:
                survived *= 1 - grade.chance
                with_best *= 1 - grade.best
        return Luck(survived, with_best)


@dataclass(frozen=True)
class Step:
    """One step of a game's story as `walk` plays it: the game as the player saw it before and after (copies
    without history), and the move between."""

    before: Game
    move: Move | None  # None in a record kept before records kept their move
    after: Game
    changed: frozenset[int]  # the cells whose symbol or mark the step set
    taken_back: bool  # undone later, or an undo itself: a replay may skip it

    @property
    def played(self) -> Played:
        return Played(self.move, self.taken_back, self.before.status == "playing" and self.after.status == "lost")


@dataclass(frozen=True)
class Played:
    """What a review keeps of a step: the move, whether it was taken back, whether it lost the game."""

    move: Move | None
    taken_back: bool
    death: bool

    @property
    def undo(self) -> bool:
        return self.move is not None and self.move.action == "undo"


def walk(game: Game) -> Iterator[Step]:
    """Every step of the game, first to last, undone moves and the undos that took them back included, each
    with the game before and after it. One step at a time: a long game's positions are not all held at once."""
    current, steps = _forward(game)
    for values, taken_back in steps:
        after, changed = restored(current, values)
        yield Step(current, _move_of(values), after, frozenset(changed), taken_back)
        current = after


def frame_at(game: Game, step: int) -> Game | None:
    """The game as it stood after `step` steps of its story (0: before the first); None past its end."""
    if step < 0:
        return None
    current, steps = _forward(game)
    if step > len(steps):
        return None
    for values, _ in steps[:step]:
        put_back(current, values)
    return current


def steps_in(game: Game) -> int:
    return len(_forward(game)[1])


def story(game: Game) -> list[Step]:
    """`walk` as a list: for small games (a test's), as every position is held at once."""
    return list(walk(game))


def _forward(game: Game) -> tuple[Game, list[tuple[dict[str, Any], bool]]]:
    """The game before its first action (without history), and each step from there as the values it leads
    to, with whether it was taken back. Undo records hold the values before their action: rewinding the game
    once, in place, reads the values after each (app.core.game.step_to); what was undone before an action its
    record keeps already as steps forward (app.core.game.undone_steps), and what was undone since the last, the game."""
    current = game.copy()
    # Nothing of a step's position comes from the mode's secret (a grade never looks at the layout), and
    # each step copies what it keeps.
    current.history, current.undone, current.hidden = [], [], None
    live = []
    for record in reversed(game.history):
        live.append((record, step_to(current, record)))
        put_back(current, record)
    steps: list[tuple[dict[str, Any], bool]] = []
    for record, forward in reversed(live):
        steps += [(step, True) for step in record.get("undone", ())]
        steps.append((forward, False))
    steps += [(step, True) for step in game.undone]
    return current, steps


def _move_of(record: dict[str, Any]) -> Move | None:
    return Move.from_record(record["move"]) if "move" in record else None


@dataclass(frozen=True)
class Review:
    """Every step of a game's story with its grade, and what they add up to."""

    steps: list[Played]
    grades: list[Grade]  # one per step
    luck: Luck | None  # None where the rules leave nothing to luck, or a mine is a point
    width: int  # the board's, to keep cells by index
    # Some position was past the request's time: graded too complex here, it may be graded on another try.
    cut: bool = False
    # Whose moves the game's list and records sum up: the maker's seat in a game of several (None: every move).
    maker_seat: int | None = None

    @property
    def moves(self) -> list[tuple[Played, Grade]]:
        """The moves (every step but the undos and the moves a record kept without its move), with their grades."""
        steps = zip(self.steps, self.grades, strict=True)
        return [(step, graded) for step, graded in steps if step.move is not None and not step.undo]

    def count(self, kind: str, seat: int | None = None) -> int:
        return sum(1 for step, graded in self.moves if graded.kind == kind and _by(step, seat))

    def judged(self, seat: int | None = None) -> list[Grade]:
        """The grades of the moves that bet on something: proven, a guess, a mistake."""
        return [graded for step, graded in self.moves if graded.kind in JUDGED and _by(step, seat)]

    def guesses(self, seat: int | None = None) -> int:
        return sum(1 for graded in self.judged(seat) if graded.guessed)

    @property
    def deaths(self) -> int:
        return sum(1 for step in self.steps if step.death)

    def accuracy(self, seat: int | None = None) -> Fraction | None:
        """The share of the moves that bet on something that were proven or the best guess; None when none did."""
        return share(self.judged(seat), ("proven", "best"))

    def proven_share(self, seat: int | None = None) -> Fraction | None:
        return share(self.judged(seat), ("proven",))

    def kept(self) -> dict[str, Any]:
        """What a game keeps of its review (Game.review): the grades, and the accuracy for its list (the maker's)."""
        accuracy = self.accuracy(self.maker_seat)
        return {"grades": [graded.to_json(self.width) for graded in self.grades], "accuracy": _text(accuracy)}


# The kinds of moves that bet on something: what accuracy counts.
JUDGED = ("proven", "best", "inaccuracy", "mistake")


def share(grades: list[Grade], kinds: tuple[str, ...]) -> Fraction | None:
    return Fraction(sum(1 for graded in grades if graded.kind in kinds), len(grades)) if grades else None


def _by(step: Played, seat: int | None) -> bool:
    return seat is None or (step.move is not None and step.move.seat == seat)


def review(game: Game, limits: Limits | None = None) -> Review:
    """The grades of every step of `game`'s story, each from the position before it; each position may take
    what an overlay may (Limits.timed), within the request's one deadline. One analyzer follows the game
    from move to move, as during play; a step taken back is graded from a position of its own."""
    played, grades = [], []
    following: Analyzer | None = None  # of the position before the next step that stands
    for step in walk(game):
        # The first step starts from the position every step taken back returns to.
        following = following or Analyzer(step.before.position())
        if step.move is None:
            graded = Grade("noted")
        else:
            graded = grade(
                step.before, step.move, limits.timed() if limits else None, None if step.taken_back else following
            )
        if not step.taken_back:
            opened = {
                step.before.cell(index): step.after.cells[index]
                for index in step.changed
                if step.before.cells[index] == COVERED and step.after.cells[index] != COVERED
            }
            if opened:
                following.reveal(opened)
        played.append(step.played)
        grades.append(graded)
    return _summed(game, played, grades, cut=limits is not None and _past(limits) and "too_complex" in _kinds(grades))


def kept_review(game: Game) -> Review | None:
    """The review the game keeps (Game.review), with its story; None when it keeps none that fits its story."""
    if game.review is None:
        return None
    start, steps = _forward(game)
    kept = game.review["grades"]
    if len(kept) != len(steps) or any(graded["kind"] not in KINDS for graded in kept):
        return None
    played, status = [], start.status
    for values, taken_back in steps:
        played.append(Played(_move_of(values), taken_back, status == "playing" and values["status"] == "lost"))
        status = values["status"]
    return _summed(game, played, [Grade.from_json(graded, game.width) for graded in kept])


def _summed(game: Game, played: list[Played], grades: list[Grade], cut: bool = False) -> Review:
    rules = get_mode(game.mode)
    live = [graded for step, graded in zip(played, grades, strict=True) if not step.taken_back]
    luck = None if rules.luck_free or rules.mines_score else Luck.of(live)
    return Review(played, grades, luck, game.width, cut, 0 if rules.seat_count > 1 else None)


def _kinds(grades: list[Grade]) -> set[str]:
    return {graded.kind for graded in grades}


def _past(limits: Limits) -> bool:
    left = limits.left()
    return left is not None and left <= 0


def _text(value: Fraction | None) -> str | None:
    return None if value is None else f"{value.numerator}/{value.denominator}"


def _index(cell: Cell, width: int) -> int:
    return cell[1] * width + cell[0]


def _cell(index: int, width: int) -> Cell:
    return index % width, index // width


def _fraction(text: str | None) -> Fraction | None:
    return None if text is None else Fraction(text)
