"""The one-player bot's move choice: the next cell to reveal in a classic or cruel game.

One place for the solver-guided choice that benchmarks, tests, the bot (its
strategies, below) and the browser's "play for me" make, so that they all play
the same way; the Flags computer (solver/flags.py) takes its proven-safe cells
and its estimate from here. `progress_cell` is the cruel-but-fair player: under
those rules (DESIGN.md §1.1) a proven-safe cell is safe, and when none exists a
frontier guess is safe, then the outside; the choice therefore never loses a
cruel game.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from solver.analysis import Analyzer, Status
from solver.counting import Budget, BudgetExceeded
from solver.local import Deductions, subtract_groups
from solver.lookahead import Frontier
from solver.position import COVERED, FLAG, MINE, NUMBERS, Cell, neighbour_table, reading_order


def safe_cells(analyzer: Analyzer) -> list[Cell]:
    """Every covered cell proven safe, in reading order (row by row)."""
    return reading_order(analyzer.safe_cells())


def progress_cell(analyzer: Analyzer, rng: random.Random | None = None) -> Cell | None:
    """A proven-safe cell, else an unknown cell next to a number, else any unknown cell.

    With `rng` the cell is drawn at random from the best group; without, it
    is the first of that group in reading order, so callers that must be
    repeatable (tests) get the same cell for the same position. None when
    every covered cell is a proven mine.
    """
    statuses = analyzer.classify()
    safe = [cell for cell, status in statuses.items() if status is Status.SAFE]
    unknown = [cell for cell, status in statuses.items() if status is Status.UNKNOWN]
    frontier = [cell for cell in unknown if not analyzer.is_outside(cell)]
    for group in (safe, frontier, unknown):
        if group:
            return _pick(group, rng)
    return None


def _pick(cells: Sequence[Cell], rng: random.Random | None) -> Cell:
    ordered = reading_order(cells)
    return rng.choice(ordered) if rng is not None else ordered[0]


# ----- the bot's strategies (DESIGN.md §1.4) -------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """What a strategy opens next: proven-safe cells (all of them at once), or one guess with the chance
    of a mine the strategy gave it (None when it could not count)."""

    cells: tuple[Cell, ...]
    guess: bool
    mine_probability: float | None = None


def groups(width: int, height: int, symbols: Sequence[str], analyzer: Analyzer, rng: random.Random) -> Choice:
    """The seeds' Java bot: its group rules to their fixpoint (solver.local.subtract_groups), else a random
    covered cell that they do not prove a mine."""
    found, safe = _group_rules(width, height, symbols)
    if safe:
        return safe
    mines = set(found.mines)
    covered = [(i % width, i // width) for i, symbol in enumerate(symbols) if symbol in (COVERED, FLAG)]
    return Choice(
        (rng.choice([cell for cell in covered if cell[1] * width + cell[0] not in mines] or covered),), guess=True
    )


def _group_rules(width: int, height: int, symbols: Sequence[str]) -> tuple[Deductions, Choice | None]:
    """What the Java bot's group rules find, and the move opening the safe cells they prove, if any."""
    found = subtract_groups(width, height, symbols)
    safe = (
        Choice(tuple(reading_order((i % width, i // width) for i in found.safe)), guess=False) if found.safe else None
    )
    return found, safe


# Rounds of rescaling in the Java bot's approximate probabilities (it stopped after a handful).
APPROXIMATION_ROUNDS = 10


def groups_with_probabilities(
    width: int, height: int, symbols: Sequence[str], analyzer: Analyzer, rng: random.Random
) -> Choice:
    """The seeds' Java bot with its approximate probabilities: the group rules first, else the covered
    cell its estimate calls least likely to be a mine (ties at random)."""
    found, safe = _group_rules(width, height, symbols)
    if safe:
        return safe
    chances = approximate_chances(width, height, symbols, analyzer.total_mines, set(found.mines))
    safest = min(chances.values())
    index = rng.choice(sorted(index for index, chance in chances.items() if chance == safest))
    return Choice(((index % width, index // width),), guess=True, mine_probability=safest)


def approximate_chances(
    width: int, height: int, symbols: Sequence[str], total_mines: int, mines: set[int]
) -> dict[int, float]:
    """The Java bot's estimate, no counting of layouts: each number is a group (its covered neighbours and
    the mines they still hold); a cell starts at 1 - prod(1 - mines/cells) over its groups, then each
    group is rescaled to hold its mines, round after round; the rest of the mines spread evenly outside."""
    neighbours = neighbour_table(width, height)
    covered = [index for index, symbol in enumerate(symbols) if symbol in (COVERED, FLAG) and index not in mines]
    groups = []
    for index, symbol in enumerate(symbols):
        if symbol in NUMBERS:
            cells = [n for n in neighbours[index] if symbols[n] in (COVERED, FLAG) and n not in mines]
            if cells:
                held = int(symbol) - sum(1 for n in neighbours[index] if n in mines or symbols[n] == MINE)
                groups.append((cells, held))
    chance: dict[int, float] = {}
    for cells, held in groups:
        for cell in cells:
            chance[cell] = 1 - (1 - chance.get(cell, 0.0)) * (1 - held / len(cells))
    for _ in range(APPROXIMATION_ROUNDS):
        for cells, held in groups:
            total = sum(chance[cell] for cell in cells)
            if total > 0:
                for cell in cells:
                    chance[cell] = min(1.0, chance[cell] * held / total)
    outside = [index for index in covered if index not in chance]
    if outside:
        left = total_mines - len(mines) - sum(1 for symbol in symbols if symbol == MINE) - sum(chance.values())
        spread = min(1.0, max(0.0, left / len(outside)))
        chance.update((index, spread) for index in outside)
    return chance


# Budgets of one move (DESIGN.md §1.4: no move takes much more than a second). Steps are deterministic,
# so that a seed replays the same game; the deadline is only the last guard.
MOVE_SECONDS = 1.0
LOOKAHEAD_STEPS = 3_000_000  # counting work for the frontier and every position looked at
ENDGAME_LAYOUTS = 300  # below this many layouts the endgame is searched exhaustively
ENDGAME_WORK = 1_500_000  # cells times layouts visited by that search
# Look-ahead candidates: cells at least this share as safe as the safest, the best few of them.
CANDIDATE_SHARE = 0.9
OUTSIDE_SHARE = 0.95
FRONTIER_CANDIDATES = 8
OUTSIDE_CANDIDATES = 4
# The next move's safety blends the safest cell (this share) with the second safest.
BLEND = 0.8
# How much a move that makes progress counts beyond safety (only to break near ties).
PROGRESS_WEIGHT = 0.02
# How much a guess that may open an area counts beyond what the next move gains from it.
OPENING_WEIGHT = 0.05


def exact(width: int, height: int, symbols: Sequence[str], analyzer: Analyzer, rng: random.Random) -> Choice:
    """Every proven-safe cell (the exact solver's, count included); else, when few layouts remain, the
    move that wins most of them; else a 50/50 that no move can ever decide, taken now; else the guess
    that, looking one move ahead, best survives this guess and the next."""
    safe = analyzer.safe_cells()
    if safe:
        return Choice(tuple(reading_order(safe)), guess=False)
    budget = Budget(steps=LOOKAHEAD_STEPS, deadline=time.monotonic() + MOVE_SECONDS)
    try:
        frontier = analyzer.frontier(budget)
        chances = {index: chance for index, chance in frontier.chances().items() if chance < 1}
    except BudgetExceeded:
        cell = progress_cell(analyzer, rng)
        assert cell is not None
        return Choice((cell,), guess=True)

    def choice(index: int) -> Choice:
        return Choice(((index % width, index // width),), guess=True, mine_probability=chances[index])

    endgame = Endgame.of(frontier, ENDGAME_LAYOUTS, ENDGAME_WORK, budget.deadline)
    if endgame is not None:
        try:
            return choice(endgame.best_move())
        except EndgameTooBig:
            pass
    pair = unavoidable_pair(frontier)
    if pair is not None:
        return choice(pair)
    try:
        risk = FiftyFifties(frontier, chances, budget)
        pseudo = risk.pseudo_pairs()
    except BudgetExceeded:
        return choice(best_guess(frontier, chances, budget, rng))
    if pseudo:
        return choice(best_guess(frontier, chances, budget, rng, risk, among=pseudo))
    return choice(best_guess(frontier, chances, budget, rng, risk))


def opening_chance(frontier: Frontier, chances: dict[int, float], index: int) -> float:
    """The chance that the cell is safe and shows a zero, its neighbours taken as independent: a corner
    away from the numbers opens more often than a cell in the middle."""
    chance = 1 - chances[index]
    for neighbour in neighbour_table(frontier.width, frontier.height)[index]:
        if neighbour in chances:
            chance *= 1 - chances[neighbour]
    return chance


def candidates(
    frontier: Frontier, chances: dict[int, float], rng: random.Random, risk: FiftyFifties | None = None
) -> list[int]:
    """The guesses worth looking ahead from, safest first: the safest frontier cells, when the outside
    is about as safe the outside cells most likely to open an area, and cells whose risk is mostly
    that of a 50/50 the game may hold anyway."""
    ranked = {index: (1 - chances[index], opening_chance(frontier, chances, index), rng.random()) for index in chances}
    on_edge = [index for part in frontier.parts for index in part.cells if index in chances]
    best_on_edge = max((ranked[index][0] for index in on_edge), default=0.0)
    best = max(best_on_edge, 1 - chances[frontier.outside[0]] if frontier.outside else 0.0)
    chosen = sorted(
        (index for index in on_edge if ranked[index][0] >= CANDIDATE_SHARE * best), key=ranked.__getitem__, reverse=True
    )[:FRONTIER_CANDIDATES]
    if frontier.outside and ranked[frontier.outside[0]][0] >= OUTSIDE_SHARE * best_on_edge:
        chosen += sorted(outside_candidates(frontier), key=ranked.__getitem__, reverse=True)[:OUTSIDE_CANDIDATES]
    if risk is not None:
        try:
            chosen += [
                index for index in risk.influenced(CANDIDATE_SHARE * best) if index in chances and index not in chosen
            ]
        except BudgetExceeded:
            pass
    return sorted(chosen, key=ranked.__getitem__, reverse=True)


def outside_candidates(frontier: Frontier) -> list[int]:
    """Outside cells worth a guess: all of few; else those two steps from a number (their own number
    may decide cells next to it), and those with few covered neighbours (likely to open an area)."""
    if len(frontier.outside) < 30:
        return list(frontier.outside)
    width, height = frontier.width, frontier.height
    outside = set(frontier.outside)
    chosen = set()
    for index, symbol in enumerate(frontier.symbols):
        if symbol in NUMBERS:
            x, y = index % width, index // width
            for dx, dy in ((2, 0), (-2, 0), (0, 2), (0, -2)):
                if 0 <= x + dx < width and 0 <= y + dy < height and (y + dy) * width + x + dx in outside:
                    chosen.add((y + dy) * width + x + dx)
    neighbours = neighbour_table(width, height)
    for index in outside:
        if sum(1 for n in neighbours[index] if frontier.symbols[n] in (COVERED, FLAG) and n not in frontier.mines) <= 3:
            chosen.add(index)
    return sorted(chosen)


@dataclass(frozen=True)
class Prospect:
    """What a guess promises, looking one move ahead."""

    cell: int
    safety: float
    # The chance to survive this guess and then the next (the safest next move, blended with the
    # second safest so that a position with one good move counts less than one with two).
    score: float
    progress: float  # the chance that this guess is safe and leaves a proven-safe cell
    opening: float  # the chance that it shows a zero, which opens an area
    dead: bool  # whatever it shows is known already: it teaches nothing
    influence: float = 1.0  # FiftyFifties.factor: risk the game holds anyway counts less

    @property
    def rank(self) -> tuple[bool, float]:
        return (
            not self.dead,
            self.score * self.influence * (1 + PROGRESS_WEIGHT * self.progress + OPENING_WEIGHT * self.opening),
        )


def prospect(
    frontier: Frontier, chances: dict[int, float], index: int, budget: Budget, influence: float = 1.0
) -> Prospect:
    score = progress = opening = 0.0
    outcomes = frontier.outcomes(index, budget)
    for value, after in outcomes:
        share = after.layouts / frontier.layouts
        safeties = sorted((1 - chance for chance in after.chances().values()), reverse=True)[:2]
        if not safeties:  # every cell left is a mine: the game is won
            safeties = [1.0]
        first, second = safeties[0], safeties[-1]
        score += share * (BLEND * first + (1 - BLEND) * second)
        progress += share * (first == 1.0)
        opening += share * (value == 0)
    return Prospect(index, 1 - chances[index], score, progress, opening, dead=len(outcomes) == 1, influence=influence)


def best_guess(
    frontier: Frontier,
    chances: dict[int, float],
    budget: Budget,
    rng: random.Random,
    risk: FiftyFifties | None = None,
    among: Sequence[int] | None = None,
) -> int:
    """The candidate (of `among`, if given) with the best prospect; only candidates that cannot beat
    the best so far are skipped."""
    ranked = list(among) if among is not None else candidates(frontier, chances, rng, risk)
    factors = {index: 1.0 for index in ranked}
    if risk is not None:
        try:
            factors = {index: risk.factor(index) for index in ranked}
        except BudgetExceeded:
            pass
    # No rank exceeds the safety times the influence times the largest bonus.
    bound = {index: (1 - chances[index]) * factors[index] * (1 + PROGRESS_WEIGHT + OPENING_WEIGHT) for index in ranked}
    ranked.sort(key=bound.__getitem__, reverse=True)
    best: Prospect | None = None
    for index in ranked:
        if best is not None and not best.dead and bound[index] <= best.rank[1]:
            break
        try:
            looked = prospect(frontier, chances, index, budget, factors[index])
        except BudgetExceeded:
            break
        if best is None or looked.rank > best.rank:
            best = looked
    return best.cell if best is not None else ranked[0]


def unavoidable_pair(frontier: Frontier) -> int | None:
    """One cell of two that hold exactly one mine and that no reveal can ever tell apart, if any.

    Every cell next to one of them and not the other is a known mine, so swapping the two changes no
    number that is or will be shown: a 50/50 now or later, and now it costs no other guess first.
    """
    neighbours = neighbour_table(frontier.width, frontier.height)
    for part in frontier.parts:
        for constraint in part.constraints:
            if constraint.mines != 1 or len(constraint.cells) != 2:
                continue
            first, second = sorted(constraint.cells)
            apart = (set(neighbours[first]) ^ set(neighbours[second])) - {first, second}
            if all(cell in frontier.mines or frontier.symbols[cell] == MINE for cell in apart):
                return first
    return None


# Long-term risk, after JSMinesweeper's "50/50 influence". Two side-by-side cells (or a 2×2 block) form
# a 50/50 no reveal can ever decide when every cell that touches one of them and not the other is a
# mine. In the layouts where that happens, the game holds a coin toss whatever the player does, so a
# guess whose mine layouts are mostly of that kind risks little that is not lost anyway.
INFLUENCE_WEIGHT = 0.9  # how much of that risk is forgiven in a guess's rank
INFLUENCE_SHARE = 0.025  # a possible 50/50 this likely lends its risk to the cells that seal it
SEALED_PAIR = 1  # undetermined sealing cells a possible 50/50 may need, when looking for pseudo ones
SEALED_BLOCK = 2
INFLUENCE_MISSING = 3  # and when weighing a guess


@dataclass(frozen=True)
class Pattern:
    """A 50/50 that may form: its cells, and the layouts in which it does, one way round."""

    cells: tuple[int, ...]
    mines: frozenset[int]  # one diagonal (one cell of a pair) and the undetermined sealing cells
    safe: frozenset[int]  # the other diagonal
    sealing: frozenset[int]  # undetermined cells that must be mines for it to form


class FiftyFifties:
    """The 50/50s that may form in a position, counted exactly (`Frontier.layouts_given`).

    `pseudo_pairs` finds cells that are safe or else one side of a 50/50 that no reveal can decide: in
    every layout where such a cell is a mine its partner is safe and the sealing cells are mines, so
    each layout it loses has a twin, the pair swapped, that looks the same forever, and any play loses
    one of the two. JSMinesweeper guesses such a cell at once. That is a rule of thumb, not a proof:
    what the cell shows may teach less than what another cell would (tests/test_lookahead.py has a
    small position where it does), so the look-ahead chooses among them, and the exhaustive endgame
    search, which is exact, comes first.
    """

    _OFF, _SEALED, _HIDDEN, _REVEALED = range(4)

    def __init__(self, frontier: Frontier, chances: dict[int, float], budget: Budget):
        self.frontier = frontier
        self.chances = chances
        self.budget = budget
        self._tallies: dict[tuple[frozenset[int], frozenset[int]], int] = {}
        self._sealing_influence: dict[int, int] = {}
        self._influenced: dict[int, int] = {}
        self._state = [
            self._REVEALED
            if symbol in NUMBERS
            else self._SEALED
            if symbol == MINE or index in frontier.mines
            else self._HIDDEN
            for index, symbol in enumerate(frontier.symbols)
        ]

    def _tally(self, mines: frozenset[int], safe: frozenset[int]) -> int:
        key = (mines, safe)
        if key not in self._tallies:
            self._tallies[key] = self.frontier.layouts_given(mines, safe, self.budget)
        return self._tallies[key]

    def mine_tally(self, index: int) -> int:
        return self._tally(frozenset((index,)), frozenset())

    def _at(self, x: int, y: int) -> tuple[int, int]:
        """A cell's state and index (the state _OFF when off the board)."""
        frontier = self.frontier
        if not (0 <= x < frontier.width and 0 <= y < frontier.height):
            return self._OFF, -1
        index = y * frontier.width + x
        return self._state[index], index

    def _pattern(
        self, cells: Sequence[tuple[int, int]], around: Sequence[tuple[int, int]], mined: int, most_missing: int
    ) -> Pattern | None:
        """`cells` as a 50/50 sealed by `around`, the first `mined` of them holding the mines; None when
        one is not undetermined, a sealing cell is revealed, or too many sealing cells are undetermined."""
        indices = []
        for x, y in cells:
            state, index = self._at(x, y)
            if state != self._HIDDEN:
                return None
            indices.append(index)
        sealing: list[int] = []
        for x, y in around:
            state, index = self._at(x, y)
            if state == self._REVEALED:
                return None
            if state == self._HIDDEN:
                sealing.append(index)
                if len(sealing) > most_missing:
                    return None
        if len(sealing) + mined > self.frontier.mines_left:
            return None
        return Pattern(
            tuple(indices), frozenset(sealing + indices[:mined]), frozenset(indices[mined:]), frozenset(sealing)
        )

    def pair(self, x: int, y: int, horizontal: bool, most_missing: int) -> Pattern | None:
        """Cells (x, y) and its right (or lower) neighbour as a 50/50, (x, y) holding the mine."""
        if horizontal:
            around = [(x - 1, y - 1), (x - 1, y), (x - 1, y + 1), (x + 2, y - 1), (x + 2, y), (x + 2, y + 1)]
            return self._pattern([(x, y), (x + 1, y)], around, 1, most_missing)
        around = [(x - 1, y - 1), (x, y - 1), (x + 1, y - 1), (x - 1, y + 2), (x, y + 2), (x + 1, y + 2)]
        return self._pattern([(x, y), (x, y + 1)], around, 1, most_missing)

    def block(self, x: int, y: int, most_missing: int) -> Pattern | None:
        """The 2×2 block from (x, y) as a 50/50 between its diagonals, (x, y)'s holding the mines."""
        around = [(x - 1, y - 1), (x + 2, y - 1), (x - 1, y + 2), (x + 2, y + 2)]
        return self._pattern([(x, y), (x + 1, y + 1), (x + 1, y), (x, y + 1)], around, 2, most_missing)

    def tally(self, pattern: Pattern | None) -> int:
        return 0 if pattern is None else self._tally(pattern.mines, pattern.safe)

    def _patterns(self, kind: str) -> list[Pattern]:
        found = []
        width = self.frontier.width
        for index, state in enumerate(self._state):
            if state != self._HIDDEN:
                continue
            x, y = index % width, index // width
            if kind == "pair":
                found += [self.pair(x, y, True, SEALED_PAIR), self.pair(x, y, False, SEALED_PAIR)]
            else:
                found.append(self.block(x, y, SEALED_BLOCK))
        return [pattern for pattern in found if pattern is not None]

    def pseudo_pairs(self) -> list[int]:
        """Cells that are safe or one side of an undecidable 50/50, pairs looked for before blocks;
        along the way, the influence of every likely 50/50 on its cells and its sealing cells."""
        layouts = self.frontier.layouts
        for kind in ("pair", "block"):
            pseudo = []
            for pattern in self._patterns(kind):
                # No more layouts have the pattern than have any one of its mines, or its safe cells.
                chance = {index: self.chances.get(index, 1.0) for index in pattern.mines | pattern.safe}
                most = min([chance[index] for index in pattern.mines] + [1 - chance[index] for index in pattern.safe])
                could_be_pseudo = [index for index in pattern.cells if chance[index] <= most * (1 + 1e-9)]
                if most <= INFLUENCE_SHARE and not could_be_pseudo:
                    continue
                tally = self.tally(pattern)
                if not tally:
                    continue
                # As a fraction: past about 10**308 layouts a count has no float to multiply a share by.
                if Fraction(tally, layouts) > INFLUENCE_SHARE:
                    for index in pattern.sealing:
                        self._sealing_influence[index] = self._sealing_influence.get(index, 0) + tally
                    for index in pattern.cells:
                        self._influenced[index] = self._influenced.get(index, 0) + tally
                pseudo += [
                    index
                    for index in could_be_pseudo
                    if abs(tally / layouts - chance[index]) <= 1e-9
                    and tally == self.mine_tally(index)
                    and not self._dead(index)
                ]
            if pseudo:
                return sorted(set(pseudo))
        return []

    def _dead(self, index: int) -> bool:
        return len(self.frontier.outcomes(index, self.budget)) <= 1

    def influence(self, index: int) -> float:
        """The share of layouts in which the cell is a mine of a 50/50 the game holds anyway (at most
        its chance of a mine, and of none)."""
        x, y = index % self.frontier.width, index // self.frontier.width
        pairs = sum(
            self.tally(self.pair(px, py, horizontal, INFLUENCE_MISSING))
            for px, py, horizontal in ((x, y, True), (x - 1, y, True), (x, y, False), (x, y - 1, False))
        )
        blocks = max(
            self.tally(self.block(bx, by, INFLUENCE_MISSING))
            for bx, by in ((x, y), (x - 1, y), (x, y - 1), (x - 1, y - 1))
        )
        share = (pairs + blocks + self._sealing_influence.get(index, 0)) / self.frontier.layouts
        return min(share, self.chances[index], 1 - self.chances[index])

    def factor(self, index: int) -> float:
        """How much more a guess is worth for the risk it takes that the game holds anyway."""
        safe = 1 - self.chances[index]
        return 1 + INFLUENCE_WEIGHT * self.influence(index) / safe if safe else 1.0

    def influenced(self, share: float) -> list[int]:
        """Cells near a likely 50/50 that, its risk forgiven, are at least `share` safe."""
        layouts, found = self.frontier.layouts, []
        for index in set(self._influenced) | set(self._sealing_influence):
            extra = (self._influenced.get(index, 0) + self._sealing_influence.get(index, 0)) / layouts
            if 1 - self.chances.get(index, 1.0) + extra > share and not self._dead(index):
                found.append(index)
        return sorted(found)


class EndgameTooBig(Exception):
    """The exhaustive search went past its budget."""


class Endgame:
    """The best move by exhaustive search over every layout left: the one that wins the most of them.

    A state is the set of layouts still possible: which cells were opened to get there changes nothing,
    because a cell safe in all of them can be opened for free. Wins are counted in layouts (integers).
    """

    def __init__(self, frontier: Frontier, layouts: list[frozenset[int]], work: int, deadline: float | None):
        self.cells = frontier.undetermined()
        self.mine = {cell: tuple(cell in layout for layout in layouts) for cell in self.cells}
        self.value = {}
        for cell in self.cells:
            known, around = frontier.around(cell)
            self.value[cell] = tuple(known + len(around & layout) for layout in layouts)
        self.layouts = tuple(range(len(layouts)))
        self.work = work
        self.deadline = deadline
        self.memo: dict[tuple[int, ...], int] = {}

    @classmethod
    def of(cls, frontier: Frontier, limit: int, work: int, deadline: float | None) -> Endgame | None:
        layouts = frontier.all_layouts(limit)
        return cls(frontier, layouts, work, deadline) if layouts is not None else None

    def _spend(self, units: int) -> None:
        self.work -= units
        if self.work < 0 or (self.deadline is not None and time.monotonic() > self.deadline):
            raise EndgameTooBig

    def _split(self, cell: int, layouts: Sequence[int]) -> list[tuple[int, ...]]:
        groups: dict[int, list[int]] = {}
        for layout in layouts:
            groups.setdefault(self.value[cell][layout], []).append(layout)
        return [tuple(group) for group in groups.values()]

    def _moves(
        self, layouts: tuple[int, ...]
    ) -> tuple[list[tuple[int, ...]] | None, list[tuple[int, int, tuple[int, ...]]]]:
        """A free reveal that teaches something (as its groups), else the guesses: (layouts where the cell is
        safe, cell, those layouts)."""
        self._spend(len(self.cells) * len(layouts))
        guesses = []
        for cell in self.cells:
            mine = self.mine[cell]
            safe_in = tuple(layout for layout in layouts if not mine[layout])
            if not safe_in:
                continue
            if len(safe_in) == len(layouts):
                groups = self._split(cell, layouts)
                if len(groups) > 1:
                    return groups, []
                continue
            guesses.append((len(safe_in), cell, safe_in))
        guesses.sort(key=lambda guess: -guess[0])
        return None, guesses

    def wins(self, layouts: tuple[int, ...]) -> int:
        """Layouts of these that the best play wins."""
        if len(layouts) == 1:
            return 1
        if layouts in self.memo:
            return self.memo[layouts]
        free, guesses = self._moves(layouts)
        if free is not None:
            best = sum(self.wins(group) for group in free)
        else:
            best = 0
            for safe_count, cell, safe_in in guesses:
                if safe_count <= best:
                    break
                best = max(best, sum(self.wins(group) for group in self._split(cell, safe_in)))
        self.memo[layouts] = best
        return best

    def best_move(self) -> int:
        """The cell to open now; raises EndgameTooBig when the search would take too long."""
        free, guesses = self._moves(self.layouts)
        if free is not None:  # not reached after the safe cells were opened, but sound anyway
            return next(cell for cell in self.cells if not any(self.mine[cell]))
        best_cell, best = guesses[0][1], -1
        for safe_count, cell, safe_in in guesses:
            if safe_count <= best:
                break
            won = sum(self.wins(group) for group in self._split(cell, safe_in))
            if won > best:
                best_cell, best = cell, won
        return best_cell


STRATEGIES = {"groups": groups, "groups+prob": groups_with_probabilities, "exact": exact}
