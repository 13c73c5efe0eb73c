"""The Flags computer's move choice: its levels, the KöMaL S.27 move adviser and where to drop the bomb.

Minesweeper Flags (DESIGN.md §1.3, §3): in Flags a mine is a point and another move, and any other
reveal hands the turn over with what it shows. So a move is worth its chance of a mine, less what a
safe reveal gives the opponent: the mines its number proves, the best guess it leaves them, and a
zero's flood, which shows them a whole region. The rules (app/modes/flags.py) are not here: the bomb's
square is theirs, and comes in as its side.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from solver.analysis import Analyzer, Status
from solver.counting import Budget, BudgetExceeded
from solver.limits import Allowance, Interrupted
from solver.local import deduce
from solver.lookahead import Frontier
from solver.position import COVERED, FLAG, MINE, Cell, Position, neighbour_table, reading_order
from solver.strategy import approximate_chances

FLAGS_SECONDS = 3.0  # the adviser's thinking time; `kaboom move` adds its start and the answer within 10 s
FLAGS_STEPS = 20_000_000  # counting work for the position and the reveals looked at
FLAGS_LOOKAHEAD = 12  # cells whose reveal is looked at number by number
# What a zero and its flood are taken to hand the opponent, in mines (the flood shows a region they
# play first); a number counts what it would prove and the guess it would leave. Measured against the
# normal level over 96 games of 20x20 (3 seeds of the 16 KöMaL densities, each side first once): hard
# won 64.6 % at 1, 66.7 % at 2, 76.0 % at 3.5, 80.7 % at 5, 79.2 % at 8 and 82.3 % at 12 (margins
# +5.1, +7.6, +9.8, +11.4, +11.4, +11.0 mines a game).
ZERO_GIFT = 5.0
# The scorer's penalty for a chance of opening a field, as Minesweeper Flags Extreme's AIs weigh it:
# small beside the chance of a mine.
SCORER_ZERO_PENALTY = 2.0
# The 2007 winners' defence: a cell more likely than this to open an area is not taken while another is.
LIKELY_ZERO = 0.2


@dataclass(frozen=True)
class FlagsView:
    """A Flags position as the player to move sees it (the KöMaL S.27 format, `*` a found mine), and when
    the answer is due (time.monotonic() seconds; None for no limit)."""

    width: int
    height: int
    mines: int
    symbols: tuple[str, ...]  # by index (y * width + x); 'F' is read as covered
    deadline: float | None = None

    @classmethod
    def of(cls, position: Position, deadline: float | None = None) -> FlagsView:
        symbols = tuple(COVERED if symbol == FLAG else symbol for row in position.rows for symbol in row)
        return cls(position.width, position.height, position.mines, symbols, deadline)

    @property
    def covered(self) -> list[int]:
        return [index for index, symbol in enumerate(self.symbols) if symbol == COVERED]

    def cell(self, index: int) -> Cell:
        return (index % self.width, index // self.width)

    def analyzer(self) -> Analyzer:
        rows = tuple("".join(self.symbols[y * self.width : (y + 1) * self.width]) for y in range(self.height))
        return Analyzer(Position(self.width, self.height, self.mines, rows))

    def seconds_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()


@dataclass(frozen=True)
class FlagsChoice:
    """The cell to reveal, its chance of a mine as the level saw it (None when it did not count), and why."""

    cell: Cell
    mine_probability: float | None
    reason: str


def flags_random(view: FlagsView, rng: random.Random) -> FlagsChoice:
    """The easy computer: any covered cell."""
    return FlagsChoice(view.cell(rng.choice(view.covered)), None, "a cell at random")


def flags_local(view: FlagsView, rng: random.Random) -> FlagsChoice:
    """The normal computer, after the 2007 winners: the mines the local rules prove; else the likeliest
    mine by the Java bot's estimate that is not a likely zero, next to a found mine where that ties."""
    counted = _flags_estimate(view)
    if isinstance(counted, FlagsChoice):
        return counted
    return _flags_best(view, counted.chances, rng, defend=True, near_mines=True)


def flags_greedy(view: FlagsView, rng: random.Random) -> FlagsChoice:
    """A sparring partner: the exact solver's likeliest mine, with no thought for what a reveal gives away."""
    counted = _flags_counted(view)
    if isinstance(counted, FlagsChoice):
        return counted
    return _flags_best(view, counted.chances, rng, defend=False)


def flags_scorer(view: FlagsView, rng: random.Random) -> FlagsChoice:
    """A sparring partner after Minesweeper Flags Extreme's AIs: exact mine chances, less a penalty
    for the chance of opening a field."""
    counted = _flags_counted(view)
    if isinstance(counted, FlagsChoice):
        return counted
    return _flags_best(view, counted.chances, rng, defend=False, zero_gift=SCORER_ZERO_PENALTY)


def flags_adviser(view: FlagsView, rng: random.Random) -> FlagsChoice:
    """The hard computer and `kaboom move`: proven mines first (each a point and another move); else,
    over the best candidates, the chance of a mine against what a safe reveal would give the opponent,
    counted number by number: the mines it would prove for them and the best guess it would leave
    them; a zero's flood counts as ZERO_GIFT mines."""
    counted = _flags_counted(view)
    if isinstance(counted, FlagsChoice):
        return counted
    chances, frontier = counted.chances, counted.frontier
    if frontier is None:  # estimated: nothing to look ahead with
        return _flags_best(view, chances, rng, defend=True)
    budget = Budget(FLAGS_STEPS, view.deadline)
    zero = {index: _zero_chance(view, chances, index) for index in chances}
    cheap = {index: chances[index] - (1 - chances[index]) * ZERO_GIFT * zero[index] for index in chances}
    # Outside cells are alike but for their neighbours: the cheap score keeps the few that stand for them.
    ranked = sorted(chances, key=lambda index: (cheap[index], rng.random()), reverse=True)
    # Measured and left out: weighing a mine's extra move by the next guess's chance (it lost 10 points
    # of games against the normal level), and proven-safe cells that pass the turn as candidates.
    best, best_value = ranked[0], None
    for index in ranked[:FLAGS_LOOKAHEAD]:
        try:
            gift = _flags_gift(frontier, index, budget)
        except BudgetExceeded:
            break
        value = chances[index] - (1 - chances[index]) * gift
        if best_value is None or value > best_value:
            best, best_value = index, value
    return FlagsChoice(view.cell(best), chances[best], "the best chance of a mine for what it gives away")


@dataclass(frozen=True)
class _Counted:
    chances: dict[int, float]  # every covered cell not proven a mine
    frontier: Frontier | None  # None when the chances are the estimate


def _flags_counted(view: FlagsView) -> _Counted | FlagsChoice:
    """Every covered cell's exact chance of a mine, or a proven mine to take; past the time or counting
    budget, the local rules' mines and the Java bot's estimate instead."""
    analyzer = view.analyzer()
    try:
        with analyzer.limits(Allowance(deadline=view.deadline)):
            statuses = analyzer.classify()
            mines = reading_order(cell for cell, status in statuses.items() if status is Status.MINE)
            if mines:
                return FlagsChoice(mines[0], 1.0, "a proven mine")
            frontier = analyzer.frontier(Budget(FLAGS_STEPS, view.deadline))
    except (Interrupted, BudgetExceeded):
        return _flags_estimate(view)
    chances = frontier.chances()
    chances.update(dict.fromkeys(frontier.safe, 0.0))
    return _Counted(chances, frontier)


def _flags_estimate(view: FlagsView) -> _Counted | FlagsChoice:
    found = deduce(view.width, view.height, view.symbols)
    if found.mines:
        return FlagsChoice(view.cell(found.mines[0]), 1.0, "a mine the numbers next to it prove")
    chances = approximate_chances(view.width, view.height, view.symbols, view.mines, set())
    chances.update(dict.fromkeys(found.safe, 0.0))
    return _Counted(chances, None)


def _zero_chance(view: FlagsView, chances: dict[int, float], index: int) -> float:
    """The chance that the cell shows a zero, its neighbours taken as independent; none next to a shown
    number's mine or a found mine."""
    chance = 1 - chances[index]
    for neighbour in neighbour_table(view.width, view.height)[index]:
        symbol = view.symbols[neighbour]
        if symbol == MINE:
            return 0.0
        if symbol == COVERED:
            chance *= 1 - chances.get(neighbour, 0.0)
    return chance


def _flags_best(
    view: FlagsView,
    chances: dict[int, float],
    rng: random.Random,
    *,
    defend: bool,
    near_mines: bool = False,
    zero_gift: float = 0.0,
) -> FlagsChoice:
    """The likeliest mine (less `zero_gift` times its chance of a zero); with `defend`, not a likely zero
    while another cell is not one; with `near_mines`, next to a found mine where that ties."""
    neighbours = neighbour_table(view.width, view.height)
    zero = {index: _zero_chance(view, chances, index) for index in chances}
    pool = [index for index in chances if not defend or zero[index] <= LIKELY_ZERO] or list(chances)

    def score(index: int) -> tuple[float, bool, float, float]:
        chance = chances[index] - (1 - chances[index]) * zero_gift * zero[index]
        beside = near_mines and any(view.symbols[n] == MINE for n in neighbours[index])
        return (round(chance, 9), beside, -zero[index], rng.random())

    best = max(pool, key=score)
    return FlagsChoice(view.cell(best), chances[best], "the likeliest mine")


def _flags_gift(frontier: Frontier, index: int, budget: Budget) -> float:
    """What revealing the cell hands the opponent when it is safe, in expected points: for each number it
    could show, the mines that number proves and their best guess after; a zero's flood, ZERO_GIFT."""
    outcomes = frontier.outcomes(index, budget)
    weights = [after.layouts for _, after in outcomes]
    total = sum(weights)
    if not total:
        return 0.0
    gift = 0.0
    for (value, after), weight in zip(outcomes, weights, strict=True):
        share = weight / total  # layout counts outgrow floats on big boards; their quotient does not
        if value == 0:
            gift += share * ZERO_GIFT
            continue
        after_chances = after.chances()
        proven = sum(1 for chance in after_chances.values() if chance >= 1.0)
        guess = max((chance for chance in after_chances.values() if chance < 1.0), default=0.0)
        gift += share * (proven + guess)
    return gift


# Mines the bomb's square must be expected to hold for the hard computer to drop its bomb there (after
# Minesweeper Flags Extreme's "bomb if many mines"): a point a move is what a good guess gets.
BOMB_WORTH = 3.0


def flags_bomb(view: FlagsView, side: int) -> tuple[Cell, float] | None:
    """The centre of the side x side square (inside the board; the rules say how big) expected to hold
    the most mines, with that expectation; None when a proven mine is to be taken instead (a point, and
    the turn kept)."""
    counted = _flags_counted(view)
    if isinstance(counted, FlagsChoice):
        return None
    width, height = view.width, view.height
    # Summed-area table of the mine chances: each square's expectation in four lookups.
    table = [[0.0] * (width + 1) for _ in range(height + 1)]
    for y in range(height):
        for x in range(width):
            table[y + 1][x + 1] = (
                counted.chances.get(y * width + x, 0.0) + table[y][x + 1] + table[y + 1][x] - table[y][x]
            )
    best = None
    for top in range(max(1, height - side + 1)):
        for left in range(max(1, width - side + 1)):
            bottom, right = min(height, top + side), min(width, left + side)
            expected = table[bottom][right] - table[top][right] - table[bottom][left] + table[top][left]
            if best is None or expected > best[1]:
                best = ((min(width - 1, left + side // 2), min(height - 1, top + side // 2)), expected)
    return best


FLAGS_LEVELS = {"easy": flags_random, "normal": flags_local, "hard": flags_adviser}
# Opponents to measure the levels against (kaboom tournament), beside the levels themselves.
FLAGS_PLAYERS = {**FLAGS_LEVELS, "greedy": flags_greedy, "scorer": flags_scorer}
