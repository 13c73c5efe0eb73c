"""The computer players of cruel Flags (DESIGN.md §1.7): who gives the other the fewest proven mines.

In cruel Flags no mine has a place: a click on a cell that every consistent layout fills is a mine (a
point, and the mover moves again); any other click is empty, its number dealt uniformly among the
layouts that leave it empty, and the turn passes. So points come only from proof. Taking a proven mine
teaches nothing (it was known), so a player takes every one and then must open a cell that can be
empty: the art is to open the one whose number proves the fewest mines for the opponent, and, late in
the game, to leave the opponent the last empty cell, whose opening hands over every mine left.

The players share solver/flags.py's signature (a FlagsView in, a FlagsChoice out) and answer by the
view's deadline. The rules (app/modes/cruel_flags.py) are not here: the bomb's square comes in as its
side.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from solver.analysis import Analyzer, Status, sumset_bits
from solver.counting import Budget, BudgetExceeded
from solver.fewest import fewest_mines_layout
from solver.flags import FlagsChoice, FlagsView
from solver.limits import Allowance, Interrupted
from solver.local import deduce
from solver.lookahead import Frontier, FrontierPart
from solver.position import COVERED, FLAG, MINE, NUMBERS, Cell, neighbour_table, reading_order
from solver.strategy import approximate_chances

# Thinking time: the players stop this long before the view's deadline, and take no more than
# CRUEL_SECONDS when the deadline is further (or None).
GUARD_SECONDS = 0.25
CRUEL_SECONDS = 2.5
# Counting work (solver.counting's steps) for the position's tables. Counting charges a table's work
# before building it, so a budget is also how far past the guard one table may run: a step took 0.3 to
# 1.4 microseconds on big components (100x100 boards at 47.5 %).
CRUEL_STEPS = 2_000_000
# Cells whose reveal is counted number by number (the cheap estimate ranks them first), the counting
# work all of them may take, and one of them; steps alone would let big components run long, so a
# time cap too (the steps keep most moves the same on any machine; the caps bound the rest).
SHORTLIST = 40
LOOK_STEPS = 1_500_000
LOOK_SECONDS = 0.5
ONE_LOOK_STEPS = 150_000
# Of those, the best few whose opponent's best reply is looked at too: the replies near the move that
# the cheap estimate finds quiet enough (the rest of the board is as it was), and their counting work.
REPLY_CANDIDATES = 4
REPLY_NEAR = 4
REPLY_STEPS = 1_000_000
REPLY_SECONDS = 0.3
# Layouts sampled to see what a zero's flood would show; what the local rules find there is scaled up
# for what they miss (measured against the exact solver on 20x20 positions: about 1.5 times).
FLOOD_SAMPLES = 6
FLOOD_SCALE = 1.5
# The best few cells that may flood, and how many floods more each is sampled before the choice.
REFINE = 4
REFINE_SAMPLES = 12
REFINE_STEPS = 300_000
REFINE_SECONDS = 0.15
# What a flood is guessed to show before it is sampled, in proven mines: FLOOD_BASE + FLOOD_SPARSE *
# (1 - density)**4.
FLOOD_BASE = 2.0
FLOOD_SPARSE = 20.0
# With this many empty cells left, a move that leaves the mover to open the last one (if no flood comes
# later) counts as giving this share of the mines not yet proven: that opening hands over those still
# unproven then.
PARITY_EMPTY = 30
PARITY_SHARE = 0.5
# Below this many layouts left the rest of the game is searched exhaustively.
ENDGAME_LAYOUTS = 600
ENDGAME_CELLS = 40  # and this many covered cells that can be empty
ENDGAME_WORK = 1_500_000  # cells times layouts visited by that search (about 0.3 s), else the middle game's way
# Squares the bomb's choice counts exactly (the fewest mines any layout puts there), the best by the cheap count.
BOMB_EXACT = 6
# Gifts this close count as equal; the quieter cell (the one that tells least) is then preferred.
TIE = 1e-9


# ----- reading the position ----------------------------------------------------------------------


def _guard(view: FlagsView, started: float) -> float:
    """When the player must stop thinking (time.monotonic() seconds)."""
    end = started + CRUEL_SECONDS
    if view.deadline is not None:
        end = min(end, view.deadline - GUARD_SECONDS)
    return end


@dataclass
class _Read:
    """The position as the exact solver sees it, or only as the local rules do (frontier None)."""

    view: FlagsView
    mines: list[int]  # proven mines, reading order
    frontier: Frontier | None
    analyzer: Analyzer | None


# The proven mines this thread found last: taking one teaches nothing, so the rest stay proven, and the
# next call takes the next without reasoning again (a big board's mines are taken in hundreds).
_recent = threading.local()


def _still_proven(view: FlagsView) -> list[int]:
    """The proven mines found for the position before, when this one only took some of them."""
    last: tuple[FlagsView, list[int]] | None = getattr(_recent, "last", None)
    if last is None:
        return []
    before, mines = last
    if (before.width, before.height, before.mines) != (view.width, view.height, view.mines):
        return []
    proven = set(mines)
    for index, (then, now) in enumerate(zip(before.symbols, view.symbols, strict=True)):
        if then != now and not (index in proven and now == MINE):
            return []
    return [index for index in mines if view.symbols[index] == COVERED]


def _read(view: FlagsView, guard: float, count: bool = True) -> _Read:
    """Proven mines (every one, the count included) and, with `count`, the counting tables; past the
    guard, only what the local rules prove."""
    mines = _still_proven(view)
    if mines:
        return _Read(view, mines, None, None)
    analyzer = view.analyzer()
    try:
        with analyzer.limits(Allowance(deadline=guard)):
            statuses = analyzer.classify()
            mines = [y * view.width + x for x, y in reading_order(c for c, s in statuses.items() if s is Status.MINE)]
            _recent.last = (view, mines)
            if mines or not count:
                return _Read(view, mines, None, analyzer)
            frontier = analyzer.frontier(Budget(CRUEL_STEPS, guard))
            return _Read(view, [], frontier, analyzer)
    except (Interrupted, BudgetExceeded):
        found = deduce(view.width, view.height, view.symbols)
        return _Read(view, sorted(found.mines), None, None)


def _take(view: FlagsView, index: int) -> FlagsChoice:
    return FlagsChoice(view.cell(index), 1.0, "a proven mine")


def _covered_neighbours(view: FlagsView, index: int) -> int:
    return sum(1 for n in neighbour_table(view.width, view.height)[index] if view.symbols[n] == COVERED)


# ----- the sparring partners -----------------------------------------------------------------------


def cruel_random(view: FlagsView, rng: random.Random) -> FlagsChoice:
    """Opens any covered cell at random: it takes a proven mine only by luck."""
    return FlagsChoice(view.cell(rng.choice(view.covered)), None, "a cell at random")


def cruel_greedy(view: FlagsView, rng: random.Random) -> FlagsChoice:
    """Takes every proven mine; otherwise opens the cell least likely to be a mine as an ordinary game would
    count it, the one with the fewest covered neighbours where that ties (it never asks what the number
    will tell you)."""
    started = time.monotonic()
    guard = _guard(view, started)
    read = _read(view, guard, count=False)
    if read.mines:
        return _take(view, read.mines[0])
    chances: dict[int, float] | None = None
    if read.analyzer is not None:
        try:
            with read.analyzer.limits(Allowance(deadline=guard)):
                probabilities = read.analyzer.probabilities(Budget(CRUEL_STEPS, guard))
            if probabilities.floats is not None:
                chances = {y * view.width + x: p for (x, y), p in probabilities.floats.items()}
        except (Interrupted, BudgetExceeded):
            pass
    if chances is None:
        chances = approximate_chances(view.width, view.height, view.symbols, view.mines, set())
    best = min(
        (index for index in view.covered if chances.get(index, 0.0) < 1.0),
        key=lambda index: (chances.get(index, 0.0), _covered_neighbours(view, index), index),
        default=view.covered[0],
    )
    return FlagsChoice(view.cell(best), chances.get(best), "the safest cell with the fewest covered neighbours")


# ----- the levels ----------------------------------------------------------------------------------


def cruel_easy(view: FlagsView, rng: random.Random) -> FlagsChoice:
    """Takes the mines a single number shows plainly; otherwise opens a cell at random."""
    found = deduce(view.width, view.height, view.symbols)
    if found.mines:
        return _take(view, min(found.mines))
    return FlagsChoice(view.cell(rng.choice(view.covered)), None, "a cell at random")


def cruel_normal(view: FlagsView, rng: random.Random) -> FlagsChoice:
    """Takes every proven mine; otherwise opens the safest-looking cell by a quick estimate, the one with
    the fewest covered neighbours where that ties."""
    started = time.monotonic()
    read = _read(view, _guard(view, started), count=False)
    if read.mines:
        return _take(view, read.mines[0])
    chances = approximate_chances(view.width, view.height, view.symbols, view.mines, set())
    best = min(
        view.covered,
        key=lambda index: (round(chances.get(index, 0.0), 6), _covered_neighbours(view, index), index),
    )
    return FlagsChoice(view.cell(best), chances.get(best), "the safest-looking cell")


def cruel_hard(view: FlagsView, rng: random.Random) -> FlagsChoice:
    """Takes every proven mine; otherwise opens the cell that tells you least: for every number it could
    show, how many mines that number would prove for you, less what your best reply would give back; near
    the end it plays the rest of the game out, so that you are the one left to open the last empty cell."""
    started = time.monotonic()
    guard = _guard(view, started)
    read = _read(view, guard)
    if read.mines:
        return _take(view, read.mines[0])
    if read.frontier is None:
        return _quiet_estimate(view, rng, "the quietest-looking cell (the position was too big to count)")
    frontier = read.frontier
    try:
        if frontier.layouts <= ENDGAME_LAYOUTS:
            endgame = _Endgame.of(view, frontier, ENDGAME_WORK, guard)
            if endgame is not None:
                index = endgame.best_move()
                return FlagsChoice(view.cell(index), None, "the best move to the end of the game")
    except _TooBig:
        pass
    judge = _Judge(view, frontier, guard, rng)
    return judge.choose()


# ----- the estimate, when counting is out of reach ------------------------------------------------------


def _quiet_estimate(view: FlagsView, rng: random.Random, reason: str) -> FlagsChoice:
    """The cell least likely to prove mines by the Java bot's estimate: unlikely to be a zero (a flood),
    or to show all its covered neighbours as mines."""
    found = deduce(view.width, view.height, view.symbols)
    if found.mines:
        return _take(view, min(found.mines))
    chances = approximate_chances(view.width, view.height, view.symbols, view.mines, set())
    chances.update(dict.fromkeys(found.safe, 0.0))
    neighbours = neighbour_table(view.width, view.height)
    density = _density(view)

    def estimate(index: int) -> tuple[float, int, float]:
        zero = 1.0
        full = 1.0
        covered = 0
        for n in neighbours[index]:
            symbol = view.symbols[n]
            if symbol == MINE:
                zero = 0.0
            elif symbol == COVERED:
                covered += 1
                chance = chances.get(n, 0.0)
                zero *= 1 - chance
                full *= chance
        flood = zero * _flood_guess(density)
        return (flood + full * covered, covered, rng.random())

    best = min(view.covered, key=estimate)
    return FlagsChoice(view.cell(best), chances.get(best), reason)


def _density(view: FlagsView) -> float:
    covered = sum(1 for symbol in view.symbols if symbol == COVERED)
    left = view.mines - sum(1 for symbol in view.symbols if symbol == MINE)
    return left / covered if covered else 0.0


# ----- counting proven mines -------------------------------------------------------------------------


def _part_certain(part: FrontierPart) -> int:
    """Cells of a component that are mines in every one of its layouts, whatever its mine count."""
    return len(part.counts.always_mines)


def _spread(bits: int, width: int) -> int:
    """bits | bits << 1 | ... | bits << width."""
    span = 1  # bits already spread over [0, span)
    while span <= width:
        step = min(span, width + 1 - span)
        bits |= bits << step
        span += step
    return bits


class _Certain:
    """How many covered cells are mines in every layout of a frontier: exactly, in integers.

    Components are independent unless the global count binds them; then only the totals each can hold
    beside the others count.
    """

    def __init__(self) -> None:
        self._parts: dict[int, tuple[FrontierPart, int]] = {}

    def part(self, part: FrontierPart) -> int:
        known = self._parts.get(id(part))
        if known is None:
            known = (part, _part_certain(part))
            self._parts[id(part)] = known
        return known[1]

    def cells(self, frontier: Frontier) -> set[int]:
        """The component cells that are mines in every layout of their component (when the count binds, the
        proven mines may be more: only to leave these out of replies)."""
        found: set[int] = set()
        for part in frontier.parts:
            if self.part(part):
                found.update(part.counts.always_mines)
        return found

    def __call__(self, frontier: Frontier) -> int:
        parts = frontier.parts
        left, outside = frontier.mines_left, len(frontier.outside)
        low = sum(part.counts.low for part in parts)
        high = low + sum(part.counts.width for part in parts)
        if left - high >= 0 and left - low <= outside:
            # Any mix of the components' totals leaves the outside a count it can hold.
            certain = sum(self.part(part) for part in parts)
            if outside and low == high == left - outside:
                certain += outside
            return certain
        return self._bound(frontier)

    def _bound(self, frontier: Frontier) -> int:
        parts = frontier.parts
        left, outside = frontier.mines_left, len(frontier.outside)
        sets = []
        for part in parts:
            bits = 0
            for extra, count in enumerate(part.counts.by_mines):
                if count:
                    bits |= 1 << (part.counts.low + extra)
            sets.append(bits)
        prefix = [1]
        for bits in sets:
            prefix.append(sumset_bits(prefix[-1], bits))
        suffix = [1] * (len(sets) + 1)
        for i in range(len(sets) - 1, -1, -1):
            suffix[i] = sumset_bits(suffix[i + 1], sets[i])
        certain = 0
        for i, part in enumerate(parts):
            others = _spread(sumset_bits(prefix[i], suffix[i + 1]), outside)
            counts = part.counts
            feasible = [
                extra
                for extra, count in enumerate(counts.by_mines)
                if count and left - counts.low - extra >= 0 and others >> (left - counts.low - extra) & 1
            ]
            for tally in counts.mine_by_mines.values():
                if all(tally[extra] == counts.by_mines[extra] for extra in feasible):
                    certain += 1
        if outside:
            totals = prefix[-1]
            fits = [total for total in range(left - outside, left + 1) if total >= 0 and totals >> total & 1]
            if fits == [left - outside]:
                certain += outside
        return certain


# ----- the middle game: what a reveal gives away ---------------------------------------------------------

# What a cell is to an outside cell beside it, when outside cells alike stand for each other (_Judge.candidates).
_NOTHING, _KNOWN_MINE, _OPEN_OUTSIDE, _BREAKS_ALIKE = range(4)


@dataclass
class _Look:
    """One candidate: what its reveal gives the opponent (expected proven mines), and its outcomes."""

    index: int
    gift: float = 0.0
    outcomes: list[tuple[float, int, Frontier]] = field(default_factory=list)  # (share, value, frontier)
    zero: float = 0.0  # the chance of a zero that floods
    flood: float = 0.0  # what the flood shows, in proven mines
    value: float = 0.0  # less what the opponent's best reply gives back: what the move is worth to them


class _Judge:
    """Ranks the cells a player may open by what they give the opponent, and picks one."""

    def __init__(self, view: FlagsView, frontier: Frontier, guard: float, rng: random.Random):
        self.view = view
        self.frontier = frontier
        self.guard = guard
        self.rng = rng
        self.certain = _Certain()
        self.neighbours = neighbour_table(view.width, view.height)
        self.chances = frontier.chances()
        self.part_of: dict[int, FrontierPart] = {}
        for part in frontier.parts:
            for index in part.cells:
                self.part_of[index] = part
        self.outside = frozenset(frontier.outside)
        self.outside_chance = self.chances[frontier.outside[0]] if frontier.outside else _density(view)
        self.mines = frozenset(frontier.mines) | {i for i, s in enumerate(view.symbols) if s == MINE}
        # cell -> proven mines found, floods sampled, floods that opened an even number of cells
        self.flood_tally: dict[int, tuple[int, int, int]] = {}
        # Empty cells left: without a flood the player to move opens the last one when they are odd.
        covered = sum(1 for symbol in view.symbols if symbol == COVERED)
        self.empty_left = covered - len(frontier.mines) - frontier.mines_left
        self.rough: dict[int, float] = {}

    # -- cheap ranking --

    def _rough(self, index: int) -> tuple[float, float]:
        """A quick guess at what opening the cell gives away: its chance of a zero times what a flood is
        guessed to show; and its chance of showing all its covered neighbours as mines, with the mines its
        being empty proves beside a tight number."""
        zero, full, open_cells = 1.0, 1.0, 0
        for n in self.neighbours[index]:
            if n in self.mines:
                zero = 0.0
            elif self.view.symbols[n] == COVERED:
                chance = self.chances.get(n, 0.0)
                zero *= 1 - chance
                full *= chance
                if chance > 0:
                    open_cells += 1
        gift = full * open_cells
        part = self.part_of.get(index)
        if part is not None:
            tight: set[int] = set()
            for constraint in part.constraints:
                if index in constraint.cells and constraint.mines == len(constraint.cells) - 1:
                    tight |= constraint.cells
            gift += len(tight - {index})
        return zero * _flood_guess(self.outside_chance), gift + 0.01 * open_cells

    def _neighbour_roles(self) -> list[int]:
        """What each cell is to an outside cell beside it (_NOTHING, _KNOWN_MINE, _OPEN_OUTSIDE or _BREAKS_ALIKE),
        as Frontier.around and a proven-safe covered neighbour make it: read once for the whole board."""
        frontier = self.frontier
        shown, proven_mines, proven_safe = frontier.symbols, frontier.mines, frontier.safe
        roles = []
        for n, symbol in enumerate(self.view.symbols):
            if symbol == COVERED and n in proven_safe:
                roles.append(_BREAKS_ALIKE)
            elif shown[n] == MINE or n in proven_mines:
                roles.append(_KNOWN_MINE)
            elif shown[n] in (COVERED, FLAG) and n not in proven_safe:
                roles.append(_OPEN_OUTSIDE if n in self.outside else _BREAKS_ALIKE)
            else:
                roles.append(_NOTHING)
        return roles

    def _outside_kind(self, index: int, roles: list[int]) -> tuple[int, int] | None:
        """For an outside cell whose covered neighbours are all outside too, none proven safe: the mines known
        around it and its undetermined neighbours (Frontier.around's), which make it alike any other such cell
        of the same kind; None for any other cell."""
        known = undetermined = 0
        for n in self.neighbours[index]:
            role = roles[n]
            if role == _OPEN_OUTSIDE:
                undetermined += 1
            elif role == _KNOWN_MINE:
                known += 1
            elif role == _BREAKS_ALIKE:
                return None
        return known, undetermined

    def candidates(self) -> list[int]:
        """Every cell that can be empty, best first by the rough guess, taken in turn with the best by that
        guess without its floods (a flood near the numbers is often small, and the guess cannot tell);
        outside cells alike (all their covered neighbours outside too) stand for each other."""
        seen_kinds: set[tuple[int, int]] = set()
        roles = self._neighbour_roles()
        cells: list[int] = []
        order = list(self.view.covered)
        self.rng.shuffle(order)
        for index in order:
            if index in self.mines:
                continue
            if index in self.outside:
                kind = self._outside_kind(index, roles)
                if kind is not None:
                    if kind in seen_kinds:
                        continue
                    seen_kinds.add(kind)
            cells.append(index)
        guesses = {index: self._rough(index) for index in cells}
        self.rough = {index: flood + rest for index, (flood, rest) in guesses.items()}
        by_rough = sorted(cells, key=self.rough.__getitem__)
        by_rest = sorted(cells, key=lambda index: guesses[index][1])
        ranked: dict[int, None] = {}
        for pair in zip(by_rough, by_rest, strict=True):
            ranked.update(dict.fromkeys(pair))
        return list(ranked)

    # -- counting one reveal --

    def look(self, base: Frontier, index: int, taken: int, budget: Budget, flood: bool = True) -> _Look:
        """What opening `index` in `base` gives the player to move next: for each number it could show,
        the mines proven beyond the `taken` already proven in `base`; a zero's flood is sampled (or, without
        `flood`, taken from the position before, or guessed)."""
        # Beside the counting, each number tried copies the outside and sorts the components out.
        budget.spend(len(base.values(index)) * (len(base.outside) + 10 * len(base.parts)))
        outcomes = base.outcomes(index, budget)
        total = sum(after.layouts for _, after in outcomes)
        look = _Look(index)
        if not total:
            return look
        for value, after in outcomes:
            share = after.layouts / total
            look.outcomes.append((share, value, after))
            if value == 0 and self._floods(base, index):
                look.zero += share
                if flood:
                    gift = self.flood_gift(base, after, index, budget, FLOOD_SAMPLES)
                else:
                    gift = self.flood_gift(base, after, index, budget, 0)
                look.flood = gift
                look.gift += share * gift
            else:
                look.gift += share * (self.certain(after) - taken)
        return look

    def _floods(self, base: Frontier, index: int) -> bool:
        return any(base.symbols[n] == COVERED and n not in self.mines for n in self.neighbours[index])

    def flood_gift(self, base: Frontier, after: Frontier, index: int, budget: Budget, samples: int) -> float:
        """The proven mines a zero at `index` would show: the local rules' count over layouts sampled (about
        uniformly) with the zero there, scaled up for what they miss; `samples` more of them, averaged with
        those drawn before for the same cell of this position."""
        mine = base is self.frontier
        # Without samples of its own, a later position borrows this one's.
        found, drawn, even = self.flood_tally.get(index, (0, 0, 0)) if mine or not samples else (0, 0, 0)
        new_part = after.parts[-1] if after.parts and all(after.parts[-1] is not p for p in base.parts) else None
        for _ in range(samples):
            sampler = _FloodSample(self, after, new_part)
            opened = sampler.flood(index)
            budget.spend(40 * len(opened) + 100)
            start = set(opened)
            for cell in opened:
                start.update(n for n in self.neighbours[cell] if sampler.symbols[n] in NUMBERS)
            found += len(deduce(self.view.width, self.view.height, sampler.symbols, start=sorted(start)).mines)
            drawn += 1
            even += len(opened) % 2 == 0
        if mine:
            self.flood_tally[index] = (found, drawn, even)
        return FLOOD_SCALE * found / drawn if drawn else _flood_guess(self.outside_chance)

    # -- the choice --

    def choose(self) -> FlagsChoice:
        ranked = self.candidates()
        budget = Budget(LOOK_STEPS, min(self.guard, time.monotonic() + LOOK_SECONDS))
        looks: list[_Look] = []
        for index in ranked[:SHORTLIST]:
            try:
                looks.append(self.look(self.frontier, index, 0, _share(budget, ONE_LOOK_STEPS)))
            except BudgetExceeded:
                if budget.used >= budget.steps or time.monotonic() > (budget.deadline or math.inf):
                    break
        if not looks:
            first = ranked[0]
            return FlagsChoice(self.view.cell(first), self.chances.get(first, 0.0), "the quietest-looking cell")
        looks.sort(key=lambda look: (round(look.gift, 9), self.rough[look.index]))
        # The best are the luckiest draws of their floods too: the best few that may flood are drawn again.
        refined = [look for look in looks[:REFINE] if look.zero > 0]
        budget = Budget(REFINE_STEPS, min(self.guard, time.monotonic() + REFINE_SECONDS))
        for look in refined:
            after = next(after for _, value, after in look.outcomes if value == 0)
            try:
                flood = self.flood_gift(self.frontier, after, look.index, budget, REFINE_SAMPLES)
            except BudgetExceeded:
                break
            look.gift += look.zero * (flood - look.flood)
            look.flood = flood
        if refined:
            looks.sort(key=lambda look: (round(look.gift, 9), self.rough[look.index]))
        # The best few by what they give, weighed again with what the opponent's best reply gives back.
        budget = Budget(REPLY_STEPS, min(self.guard, time.monotonic() + REPLY_SECONDS))
        weighed: list[_Look] = []
        for look in looks[:REPLY_CANDIDATES]:
            try:
                look.value = look.gift - self.reply(look, looks, budget)
            except BudgetExceeded:
                break
            weighed.append(look)
        if len(weighed) < 2:
            weighed = looks
            for look in looks:
                look.value = look.gift
        if 0 < self.empty_left <= PARITY_EMPTY:
            worth = PARITY_SHARE * self.frontier.mines_left
            for look in weighed:
                look.value += worth * self._last_left_to_me(look)
        best = min(weighed, key=lambda look: (round(look.value, 9), round(look.gift, 9), self.rough[look.index]))
        return FlagsChoice(
            self.view.cell(best.index), self.chances.get(best.index, 0.0), "the cell that tells the opponent least"
        )

    def _last_left_to_me(self, look: _Look) -> float:
        """The chance that, if no flood comes later, the mover opens the last empty cell after this move: the
        opponent opens the last when an odd number is left to them. A number opens one cell; a flood
        more, and its parity comes from the floods sampled."""
        odd_left = self.empty_left % 2 == 1
        # The chance that the opponent opens the last: the move leaves them an odd number of empty cells.
        chance = (1 - look.zero) * (not odd_left)  # a number opens one cell
        if look.zero:
            _, drawn, even = self.flood_tally.get(look.index, (0, 0, 0))
            even_share = even / drawn if drawn else 0.5
            chance += look.zero * (even_share if odd_left else 1 - even_share)
        return 1 - chance

    def reply(self, look: _Look, looks: Sequence[_Look], budget: Budget) -> float:
        """What the opponent's best reply would give back, over the numbers `look` could show: the cells
        near it (the best few by what they gave before) counted again after each number, the others as
        they were."""
        near: set[int] = set()
        for n in self.neighbours[look.index]:
            near.update(self.neighbours[n])
        others = [other for other in looks if other is not look]
        if not others:
            return 0.0
        again = sorted((other for other in others if other.index in near), key=lambda other: other.gift)[:REPLY_NEAR]
        kept = min((other.gift for other in others if other not in again), default=math.inf)
        back = 0.0
        for share, value, after in look.outcomes:
            best = kept
            if not (value == 0 and self._floods(self.frontier, look.index)):
                # (After a flood the cells near it are taken as they were: too much changes to count.)
                taken = self.certain(after)
                proven = self.certain.cells(after) if taken else set()
                for other in again:
                    if other.index not in proven and best > 0:
                        best = min(best, self.look(after, other.index, taken, budget, flood=False).gift)
            if best < math.inf:
                back += share * best
        return back


def _share(budget: Budget, steps: int) -> Budget:
    """Part of a budget for one question: at most `steps` of what is left; what it spends is charged back."""
    return _Charged(min(steps, max(0, budget.steps - budget.used)), budget.deadline, parent=budget)


@dataclass
class _Charged(Budget):
    parent: Budget | None = None

    def spend(self, steps: int) -> None:
        if self.parent is not None:
            self.parent.used += steps
        super().spend(steps)


def _flood_guess(density: float) -> float:
    """What a zero's flood is guessed to show, in proven mines, before any is sampled: more on sparse boards."""
    return FLOOD_BASE + FLOOD_SPARSE * (1 - density) ** 4


class _FloodSample:
    """A layout drawn lazily, cell by cell as a flood reaches them, about uniformly: each component whole,
    its mine count weighed by the outside's density, and outside cells each a mine at that density."""

    def __init__(self, judge: _Judge, after: Frontier, new_part: FrontierPart | None):
        self.judge = judge
        self.after = after
        self.new_part = new_part
        self.symbols = list(after.symbols)
        self.sampled: dict[int, bool] = {}
        density = judge.outside_chance
        self.odds = density / (1 - density) if 0 < density < 1 else 1.0

    def mine_at(self, cell: int) -> bool:
        judge = self.judge
        if cell in judge.mines:
            return True
        known = self.sampled.get(cell)
        if known is not None:
            return known
        if cell in judge.frontier.safe or self.after.symbols[cell] != COVERED:
            return False
        new_part = self.new_part
        part = new_part if new_part is not None and cell in new_part.cells else judge.part_of.get(cell)
        if part is None:
            self.sampled[cell] = mine = judge.rng.random() < judge.outside_chance
            return mine
        layout = _sample_part(part, self.odds, judge.rng)
        for member in part.cells:
            self.sampled[member] = member in layout
        return cell in layout

    def flood(self, index: int) -> list[int]:
        """Opens the zero at `index` and its flood; the cells opened (the symbols show their numbers)."""
        neighbours = self.judge.neighbours
        opened = [index]
        queue = [index]
        while queue:
            current = queue.pop()
            for n in neighbours[current]:
                if self.symbols[n] != COVERED or self.mine_at(n):
                    continue
                value = sum(1 for m in neighbours[n] if self.mine_at(m))
                self.symbols[n] = str(value)
                opened.append(n)
                if value == 0:
                    queue.append(n)
        return opened


def _sample_part(part: FrontierPart, odds: float, rng: random.Random) -> frozenset[int]:
    """A layout of one component, its mine count weighted as the outside's density would weigh it."""
    counts = part.counts
    top = max(counts.by_mines)
    weights = [(count << 64) // top * odds**extra for extra, count in enumerate(counts.by_mines)]
    pick = rng.random() * sum(weights)
    extra = 0
    for extra, weight in enumerate(weights):  # noqa: B007
        if pick < weight:
            break
        pick -= weight
    return counts.sample(rng, counts.low + extra)


# ----- the endgame: every layout left -------------------------------------------------------------------


class _TooBig(Exception):
    """The exhaustive search would take too long."""


class _Endgame:
    """The rest of the game searched exhaustively over the layouts left, each as likely as the rules deal
    them: the move with the best expected score difference (mines taken by the mover less those taken by
    the opponent). A move's outcome is what it opens (a zero floods) and the numbers shown; a player takes
    every mine proven before opening a cell. Of the cells that would teach nothing (empty in every layout,
    one number in all, no flood) only one is tried: they are alike, and how many are left is the parity
    that decides who must open the last cell that teaches something."""

    def __init__(self, view: FlagsView, frontier: Frontier, layouts: list[frozenset[int]], work: int, guard: float):
        self.neighbours = neighbour_table(view.width, view.height)
        undetermined = frontier.undetermined()
        bit = {cell: 1 << place for place, cell in enumerate(undetermined)}
        # Each layout as the set of its mines among the undetermined cells, in bits.
        self.masks = [sum(bit[cell] for cell in layout) for layout in layouts]
        self.bit = bit
        # Every covered cell that is not a mine for sure: the cells a move may open.
        self.cells = [i for i, s in enumerate(view.symbols) if s == COVERED and i not in frontier.mines]
        self.value: dict[int, tuple[int, ...]] = {}
        for cell in self.cells:
            known, around = frontier.around(cell)
            around_bits = sum(bit[n] for n in around)
            self.value[cell] = tuple(known + (mask & around_bits).bit_count() for mask in self.masks)
        self.work = work
        self.guard = guard
        self.memo: dict[tuple[tuple[int, ...], frozenset[int]], float] = {}

    @classmethod
    def of(cls, view: FlagsView, frontier: Frontier, work: int, guard: float) -> _Endgame | None:
        """The search, when few layouts and few cells that can be empty are left; else None."""
        if sum(1 for symbol in view.symbols if symbol == COVERED) - len(frontier.mines) > ENDGAME_CELLS:
            return None
        layouts = frontier.all_layouts(ENDGAME_LAYOUTS)
        if not layouts:
            return None
        return cls(view, frontier, layouts, work, guard)

    def _spend(self, units: int) -> None:
        self.work -= units
        if self.work < 0 or time.monotonic() > self.guard:
            raise _TooBig

    def _proven(self, layouts: Sequence[int]) -> int:
        """How many undetermined cells are mines in all of these layouts."""
        common = -1
        for layout in layouts:
            common &= self.masks[layout]
        return common.bit_count() if layouts else 0

    def _outcomes(
        self, cell: int, layouts: tuple[int, ...], opened: frozenset[int]
    ) -> list[tuple[tuple[int, ...], frozenset[int]]]:
        """The layouts that agree on what opening `cell` shows, with the cells opened after it."""
        bit = self.bit.get(cell, 0)
        groups: dict[tuple[tuple[int, int], ...], list[int]] = {}
        spent = 0
        for layout in layouts:
            if self.masks[layout] & bit:
                continue
            shown = [(cell, self.value[cell][layout])]
            if shown[0][1] == 0:
                seen = {cell}
                queue = [cell]
                while queue:
                    current = queue.pop()
                    for n in self.neighbours[current]:
                        if n in seen or n in opened or n not in self.value:
                            continue
                        seen.add(n)
                        number = self.value[n][layout]
                        shown.append((n, number))
                        if number == 0:
                            queue.append(n)
                spent += len(shown)
                shown.sort()
            groups.setdefault(tuple(shown), []).append(layout)
        self._spend(len(layouts) + 8 * spent)
        return [(tuple(group), opened | {c for c, _ in key}) for key, group in groups.items()]

    def _moves(self, layouts: tuple[int, ...], opened: frozenset[int]) -> list[int]:
        """The cells worth trying: every one that can be empty, but only one of those that would teach
        nothing (empty in every layout, one number in all, and no flood: a number, or a zero with nothing
        covered around it)."""
        self._spend(len(self.cells) * len(layouts))
        common, anywhere = -1, 0
        for layout in layouts:
            common &= self.masks[layout]
            anywhere |= self.masks[layout]
        moves = []
        quiet = None
        for cell in self.cells:
            if cell in opened:
                continue
            bit = self.bit.get(cell, 0)
            if bit & common:
                continue  # a mine in every layout left: taken already
            value = self.value[cell]
            first = value[layouts[0]]
            if (
                not bit & anywhere
                and all(value[layout] == first for layout in layouts)
                and (first or not any(n in self.value and n not in opened for n in self.neighbours[cell]))
            ):
                if quiet is None:
                    quiet = cell
                continue
            moves.append(cell)
        if quiet is not None:
            moves.insert(0, quiet)
        return moves

    def score(self, layouts: tuple[int, ...], opened: frozenset[int]) -> float:
        """The expected score difference for the player to move, who has taken every proven mine."""
        key = (layouts, opened)
        known = self.memo.get(key)
        if known is not None:
            return known
        proven = self._proven(layouts)
        best = None
        for cell in self._moves(layouts, opened):
            worth = self._worth(cell, layouts, opened, proven)
            if best is None or worth > best:
                best = worth
        result = 0.0 if best is None else best
        self.memo[key] = result
        return result

    def _worth(self, cell: int, layouts: tuple[int, ...], opened: frozenset[int], proven: int) -> float:
        outcomes = self._outcomes(cell, layouts, opened)
        total = sum(len(group) for group, _ in outcomes)
        worth = 0.0
        for group, after in outcomes:
            gift = self._proven(group) - proven
            worth -= len(group) / total * (gift + self.score(group, after))
        return worth

    def best_move(self) -> int:
        """The cell to open now; raises _TooBig when the search would take too long."""
        layouts = tuple(range(len(self.masks)))
        opened: frozenset[int] = frozenset()
        proven = self._proven(layouts)
        best, best_worth = None, -math.inf
        for cell in self._moves(layouts, opened):
            worth = self._worth(cell, layouts, opened, proven)
            if worth > best_worth + TIE:
                best, best_worth = cell, worth
        if best is None:
            raise _TooBig
        return best


# ----- the bomb ---------------------------------------------------------------------------------------


def cruel_flags_bomb(view: FlagsView, side: int) -> tuple[Cell, float] | None:
    """The centre of the side x side square (inside the board; the rules say how big) that must hold the most
    mines, with that many; None when a proven mine is to be taken instead (a point, and the turn kept), or
    when no square must hold any. Every square is first counted cheaply (for each number beside it, the
    mines its covered neighbours inside must hold); the best few are then counted exactly (the fewest mines
    any consistent layout puts there)."""
    started = time.monotonic()
    guard = _guard(view, started)
    read = _read(view, guard, count=False)
    if read.mines:
        return None
    width, height = view.width, view.height
    neighbours = neighbour_table(width, height)
    near_numbers = {n for i, symbol in enumerate(view.symbols) if symbol in NUMBERS for n in neighbours[i]}
    squares: list[tuple[int, int, Cell, list[int]]] = []
    for top in range(max(1, height - side + 1)):
        for left in range(max(1, width - side + 1)):
            inside = [
                y * width + x
                for y in range(top, min(height, top + side))
                for x in range(left, min(width, left + side))
                if view.symbols[y * width + x] == COVERED
            ]
            touching = sum(1 for index in inside if index in near_numbers)
            if not touching:
                continue
            centre = (min(width - 1, left + side // 2), min(height - 1, top + side // 2))
            squares.append((_least_mines(view, neighbours, set(inside)), touching, centre, inside))
    squares.sort(key=lambda square: (-square[0], -square[1], square[2][1], square[2][0]))
    best: tuple[Cell, float] | None = None
    if squares and squares[0][0] > 0:
        best = (squares[0][2], float(squares[0][0]))
    if read.analyzer is None:
        return best
    rng = random.Random(0)
    for _, _, centre, inside in squares[:BOMB_EXACT]:
        try:
            with read.analyzer.limits(Allowance(deadline=guard)):
                fewest, _ = fewest_mines_layout(
                    read.analyzer, [view.cell(index) for index in inside], rng, Budget(CRUEL_STEPS, guard)
                )
        except (Interrupted, BudgetExceeded):
            break
        if fewest > 0 and (best is None or fewest > best[1]):
            best = (centre, float(fewest))
    return best


def _least_mines(view: FlagsView, neighbours: Sequence[Sequence[int]], inside: set[int]) -> int:
    """A lower bound on the mines the covered cells `inside` hold (no proven mine left on the board): the
    most that any one number forces into its covered neighbours inside (those outside hold at most all
    they are)."""
    numbers: set[int] = set()
    for index in inside:
        numbers.update(n for n in neighbours[index] if view.symbols[n] in NUMBERS)
    forced = 0
    for number in numbers:
        need = int(view.symbols[number])
        open_in, open_out = 0, 0
        for n in neighbours[number]:
            if view.symbols[n] == MINE:
                need -= 1
            elif view.symbols[n] == COVERED:
                if n in inside:
                    open_in += 1
                else:
                    open_out += 1
        forced = max(forced, min(open_in, need - open_out))
    return forced


CRUEL_FLAGS_LEVELS = {"easy": cruel_easy, "normal": cruel_normal, "hard": cruel_hard}
# Opponents to measure the levels against (kaboom tournament --rules cruel), beside the levels themselves.
CRUEL_FLAGS_PLAYERS = {**CRUEL_FLAGS_LEVELS, "greedy": cruel_greedy, "random": cruel_random}
