"""The bot's look-ahead (solver.lookahead) and its endgame search against brute force on small boards,
and the exact strategy's rules on hand-made positions: the 50/50 taken early, the endgame, the budgets."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver.strategy as strategy
from solver import Analyzer, Inconsistent, Position
from solver.counting import Budget, ComponentCounts
from solver.lookahead import Frontier, _Binomials, _without
from solver.position import neighbour_table
from solver.sat import Constraint
from solver.strategy import Endgame, FiftyFifties, exact, unavoidable_pair
from tests.reference import truth
from tests.strategies import examples, positions, render


def full_layouts(position: Position) -> list[frozenset[int]] | None:
    """Every layout of the covered cells agreeing with the position, as mine indices; None when too many."""
    answer = truth(position)
    width = position.width
    outside = [y * width + x for x, y in answer.outside]
    if sum(weight for _, weight in answer.layouts) > 3000:
        return None
    found = []
    for mines, _ in answer.layouts:
        frontier_mines = frozenset(y * width + x for x, y in mines)
        for rest in itertools.combinations(outside, answer.mines_left - len(mines)):
            found.append(frontier_mines | frozenset(rest))
    return found


def frontier_of(position: Position) -> Frontier | None:
    try:
        return Analyzer(position).frontier()
    except Inconsistent:
        return None


def shown(index: int, mines: frozenset[int], position: Position) -> int:
    around = neighbour_table(position.width, position.height)[index]
    revealed_mines = {i for i, symbol in enumerate("".join(position.rows)) if symbol == "*"}
    return sum(1 for n in around if n in mines or n in revealed_mines)


@given(positions(max_side=5))
def test_the_frontier_counts_every_layout_and_every_reveal_exactly(position):
    frontier = frontier_of(position)
    layouts = full_layouts(position)
    if frontier is None or layouts is None or not truth(position).consistent:
        return
    assert frontier.layouts == len(layouts)
    undetermined = frontier.undetermined()
    # Proven cells are the same in every layout; the rest is what the frontier enumerates.
    assert sorted(sorted(layout & frozenset(undetermined)) for layout in layouts) == sorted(
        sorted(layout) for layout in frontier.all_layouts(10_000)
    )
    chances = frontier.chances()
    for index in undetermined:
        assert chances[index] == pytest.approx(
            float(Fraction(sum(index in layout for layout in layouts), len(layouts)))
        )
        for value in frontier.values(index):
            expected = sum(1 for layout in layouts if index not in layout and shown(index, layout, position) == value)
            after = frontier.reveal(index, value, strategy.Budget())
            assert (after.layouts if after else 0) == expected


@given(positions(max_side=5), st.data())
def test_layouts_given_some_mines_and_safe_cells_are_counted_exactly(position, data):
    frontier = frontier_of(position)
    layouts = full_layouts(position)
    if frontier is None or layouts is None or not truth(position).consistent:
        return
    covered = [index for index, symbol in enumerate("".join(position.rows)) if symbol in ".F"]
    if not covered:
        return
    mines = frozenset(data.draw(st.sets(st.sampled_from(covered), max_size=3)))
    safe = frozenset(data.draw(st.sets(st.sampled_from(covered), max_size=3))) - mines
    expected = sum(1 for layout in layouts if mines <= layout and not safe & layout)
    assert frontier.layouts_given(mines, safe, strategy.Budget()) == expected


def small_guesses(seed: int):
    """A seeded stream of small consistent positions with no proven-safe cell (a guess is due) and few
    enough layouts for brute force."""
    rng = random.Random(seed)
    while True:
        width, height = rng.randint(3, 5), rng.randint(2, 4)
        cells = [(x, y) for y in range(height) for x in range(width)]
        mines = set(rng.sample(cells, rng.randint(1, len(cells) // 2)))
        revealed = {cell for cell in cells if cell not in mines and rng.random() < 0.5}
        position = render(width, height, len(mines), mines, revealed, set(), rng.random() < 0.3)
        analyzer = Analyzer(position)
        if analyzer.safe_cells():
            continue
        frontier = analyzer.frontier()
        if 2 <= frontier.layouts <= 60 and len(frontier.undetermined()) <= 8:
            yield position, frontier


def blocks_around(index: int, width: int, height: int) -> list[frozenset[int]]:
    """The side-by-side pairs and 2×2 blocks of cells on the board that contain the cell."""
    x, y = index % width, index // width
    shapes = [((0, 0), (1, 0)), ((0, 0), (0, 1)), ((0, 0), (1, 0), (0, 1), (1, 1))]
    found = []
    for shape in shapes:
        for dx, dy in shape:
            cells = [(x - dx + sx, y - dy + sy) for sx, sy in shape]
            if all(0 <= cx < width and 0 <= cy < height for cx, cy in cells):
                found.append(frozenset(cy * width + cx for cx, cy in cells))
    return found


def test_a_pseudo_50_50_is_safe_or_one_side_of_a_50_50_no_reveal_can_decide():
    # What pseudo_pairs promises, by brute force: in every layout where the cell is a mine, swapping
    # the mines of its pair (or of its block's diagonals) gives another layout in which it is safe and
    # which every other cell safe in both shows the same number: a coin toss any play meets. (It does not
    # promise that guessing the cell is a best move: what it shows may teach less than another cell.)
    check_pseudo_50_50s(seed=3, count=40)


def check_pseudo_50_50s(seed: int, count: int) -> None:
    checked = 0
    for position, frontier in small_guesses(seed):
        chances = {index: chance for index, chance in frontier.chances().items() if chance < 1}
        pseudo = FiftyFifties(frontier, chances, strategy.Budget()).pseudo_pairs()
        if not pseudo:
            continue
        layouts = set(frontier.all_layouts(60))
        undetermined = frontier.undetermined()  # proven mines are in no layout listed, and show no number
        for cell in pseudo:
            for layout in (layout for layout in layouts if cell in layout):
                assert any(
                    (swapped := (layout - block) | (block - layout)) in layouts
                    and cell not in swapped
                    and all(
                        shown(other, layout, position) == shown(other, swapped, position)
                        for other in undetermined
                        if other not in layout | swapped | block
                    )
                    for block in blocks_around(cell, position.width, position.height)
                ), (position.rows, cell, sorted(layout))
        checked += 1
        if checked == count:
            break


def test_a_pseudo_50_50_can_be_a_worse_guess_than_its_twin_and_the_endgame_search_comes_first():
    # Four layouts. (3,0) and (3,1) are each a mine in one layout only, of the 2×2 block's two
    # diagonals that nothing can tell apart, so both are pseudo 50/50s. After (3,0) two of the three
    # layouts left look the same, after (3,1) none do: 2/4 against 3/4, which the exhaustive search sees.
    rows = ["2...", ".5..", "3..2", ".3.."]
    position = Position(4, 4, 7, tuple(rows))
    frontier = Analyzer(position).frontier()
    chances = {index: chance for index, chance in frontier.chances().items() if chance < 1}
    assert FiftyFifties(frontier, chances, strategy.Budget()).pseudo_pairs() == [3, 7]
    layouts, cells = frontier.all_layouts(10), frontier.undetermined()
    assert win_chance_of(3, layouts, cells, position) == Fraction(1, 2)
    assert (
        win_chance_of(7, layouts, cells, position)
        == win_chance(layouts, cells, frozenset(), position)
        == Fraction(3, 4)
    )
    assert choose(rows, 7).cells == ((3, 1),)


def test_the_strategy_takes_a_pseudo_50_50_before_safer_guesses():
    # The 1-1-3 corner proves (0,2) and (1,2) mines and one mine among (0,0), (0,1) and (2,1): if it
    # is in the left column, nothing can ever tell which of the two. 71,128 layouts, too many for the
    # endgame search; elsewhere cells are three times safer, but their risk is not lost anyway.
    rows = [".11.....", ".3......", "..4.....", "........"]
    frontier = Analyzer(Position(8, 4, 10, tuple(rows))).frontier()
    assert unavoidable_pair(frontier) is None and frontier.layouts == 71128
    choice = choose(rows, 10)
    assert choice.guess and choice.cells[0] in ((0, 0), (0, 1))
    assert choice.mine_probability == pytest.approx(0.239, abs=0.001)
    assert min(chance for chance in frontier.chances().values() if chance < 1) < 0.08


def win_chance(layouts: list[frozenset[int]], cells: list[int], opened: frozenset[int], position: Position) -> Fraction:
    """The best play's chance to win, by the rules themselves: open cells until every safe one is open."""
    if all(set(cells) - opened == layout for layout in layouts):
        return Fraction(1)
    best = Fraction(0)
    for cell in cells:
        if cell in opened:
            continue
        safe_in = [layout for layout in layouts if cell not in layout]
        if not safe_in:
            continue
        groups: dict[int, list] = {}
        for layout in safe_in:
            groups.setdefault(shown(cell, layout, position), []).append(layout)
        chance = sum(
            Fraction(len(group), len(layouts)) * win_chance(group, cells, opened | {cell}, position)
            for group in groups.values()
        )
        best = max(best, chance)
    return best


@given(positions(max_side=4))
def test_the_endgame_search_wins_as_often_as_the_best_play(position):
    frontier = frontier_of(position)
    if (
        frontier is None
        or not truth(position).consistent
        or not 2 <= frontier.layouts <= 40
        or len(frontier.undetermined()) > 7
    ):
        return
    layouts = frontier.all_layouts(40)
    search = Endgame(frontier, layouts, work=10**9, deadline=None)
    cells = frontier.undetermined()
    best = win_chance(layouts, cells, frozenset(), position)
    assert Fraction(search.wins(tuple(range(len(layouts)))), len(layouts)) == best
    move = search.best_move()
    if any(move in layout for layout in layouts):  # a guess: its own chance must be the best one
        assert win_chance_of(move, layouts, cells, position) == best


def choose(rows: list[str], mines: int, seed: int = 0):
    position = Position(len(rows[0]), len(rows), mines, tuple(rows))
    return exact(position.width, position.height, "".join(rows), Analyzer(position), random.Random(seed))


# Two cells, one mine, and every cell that sees only one of them a proven mine (the column x=2, which
# the numbers on the right prove): no number ever shown can tell the two apart.
PAIR = ["13.2", "...3", "13.2"]


def test_a_50_50_that_no_move_can_decide_is_found():
    frontier = Analyzer(Position(4, 3, 4, tuple(PAIR))).frontier()
    assert unavoidable_pair(frontier) in (1 * 4 + 0, 1 * 4 + 1)


def test_a_50_50_that_a_later_move_could_decide_is_not_taken_early():
    # The same pair, but x=2 is not proven: its cells could show numbers telling the two apart.
    rows = ["1...", "....", "1..."]
    frontier = Analyzer(Position(4, 3, 3, tuple(rows))).frontier()
    assert unavoidable_pair(frontier) is None


def test_the_strategy_takes_the_unavoidable_50_50_before_other_guesses():
    # The pocket on the left, with x=2 and x=4 proven mines by the 4-6-4 column; on the right 910
    # layouts (too many for the endgame search) and cells four times safer than the pair.
    choice = choose(["13.4......", "...6......", "13.4......"], 10)
    assert choice.guess and choice.cells[0] in ((0, 1), (1, 1)) and choice.mine_probability == pytest.approx(0.5)


def win_chance_of(move: int, layouts: list[frozenset[int]], cells: list[int], position: Position) -> Fraction:
    groups: dict[int, list] = {}
    for layout in layouts:
        if move not in layout:
            groups.setdefault(shown(move, layout, position), []).append(layout)
    return sum(
        (Fraction(len(g), len(layouts)) * win_chance(g, cells, frozenset({move}), position) for g in groups.values()),
        Fraction(0),
    )


def test_the_endgame_takes_the_move_that_wins_most_where_one_look_ahead_does_not():
    # Five layouts; the brute force wins four of them at best, and the safest cell that looks best one
    # move ahead wins only three.
    rows = ["..32", "....", "1..."]
    position = Position(4, 3, 4, tuple(rows))
    frontier = Analyzer(position).frontier()
    layouts, cells = frontier.all_layouts(100), frontier.undetermined()
    assert win_chance(layouts, cells, frozenset(), position) == Fraction(4, 5)
    chances = {index: chance for index, chance in frontier.chances().items() if chance < 1}
    looked = strategy.best_guess(frontier, chances, strategy.Budget(), random.Random(0))
    assert win_chance_of(looked, layouts, cells, position) == Fraction(3, 5)
    choice = choose(rows, 4)
    assert choice.guess
    assert win_chance_of(choice.cells[0][1] * 4 + choice.cells[0][0], layouts, cells, position) == Fraction(4, 5)


def test_a_proven_safe_cell_is_always_taken_before_any_search():
    choice = choose(["1.1", "...", "..."], 1)
    assert not choice.guess and (1, 1) not in choice.cells and choice.cells


@pytest.mark.parametrize("budget", ["LOOKAHEAD_STEPS", "ENDGAME_WORK"])
def test_out_of_budget_the_strategy_still_guesses_a_sound_cell(monkeypatch, budget):
    monkeypatch.setattr(strategy, budget, 1)
    rows = ["1.....", "......", "......", "......"]
    position = Position(6, 4, 5, tuple(rows))
    choice = choose(rows, 5)
    statuses = Analyzer(position).classify()
    assert choice.guess and len(choice.cells) == 1 and statuses[choice.cells[0]].name == "UNKNOWN"


# Each example plays a whole choice twice (0.05 s); a few seeds show the property as well as the profile's 400.
@settings(max_examples=examples(25))
@given(st.integers(0, 2**32))
def test_the_strategy_is_the_same_for_the_same_seed(seed):
    rows = ["1.......", "........", "........", "........"]
    assert choose(rows, 8, seed) == choose(rows, 8, seed)


# ----- what makes looking ahead cheap: the same answers as counting afresh ------------------------------


@given(positions(max_side=5), st.data())
def test_a_reveal_takes_the_cells_it_touches_out_of_the_outside_in_order(position, data):
    frontier = frontier_of(position)
    if frontier is None or not frontier.undetermined():
        return
    index = data.draw(st.sampled_from(frontier.undetermined()))
    _, open_cells = frontier.around(index)
    for value in frontier.values(index):
        after = frontier.reveal(index, value, Budget())
        if after is not None:
            touched = open_cells | {index}
            assert after.outside == tuple(cell for cell in frontier.outside if cell not in touched)


@given(st.lists(st.integers(0, 60), unique=True), st.sets(st.integers(0, 60), max_size=9))
def test_without_keeps_the_order_and_the_same_tuple_when_nothing_goes(cells, removed):
    ordered = tuple(sorted(cells))
    left = _without(ordered, frozenset(removed))
    assert left == tuple(cell for cell in ordered if cell not in removed)
    if not removed & set(cells):
        assert left is ordered


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-3, 3)), max_size=40), st.integers(0, 2**32))
def test_binomials_from_their_neighbours_are_exact(steps, seed):
    # A walk over (n, k) as the look-ahead asks: the outside less a few cells, the mines left less a few;
    # with a cache small enough that neighbours are dropped too.
    binomials = _Binomials(limit=8)
    rng = random.Random(seed)
    n = rng.randint(200, 3000)
    k = rng.randint(0, n)
    for dn, dk in steps:
        n = n - dn
        k = min(max(0, k + dk), n)
        assert binomials(n, k) == math.comb(n, k)
    assert binomials(10, 11) == 0


def component(seed: int) -> tuple[frozenset[int], list[Constraint[int]]]:
    """A component of a seeded random board's numbers: its cells and its constraints, ordered."""
    rng = random.Random(seed)
    while True:
        width, height = rng.randint(4, 7), rng.randint(3, 5)
        cells = [(x, y) for y in range(height) for x in range(width)]
        mines = set(rng.sample(cells, len(cells) // 3))
        revealed = {cell for cell in cells if cell not in mines and rng.random() < 0.4}
        frontier = frontier_of(render(width, height, len(mines), mines, revealed, set(), False))
        if frontier is not None and frontier.parts:
            part = max(frontier.parts, key=lambda part: len(part.cells))
            return part.cells, list(part.constraints)


@pytest.mark.parametrize("seed", range(6))
def test_the_cells_always_mines_are_those_every_layout_fills_and_the_tallies_cost_the_same(seed):
    cells, constraints = component(seed)
    now, later = Budget(), Budget()
    counts = ComponentCounts(sorted(cells), constraints, now)
    # Tallied when first asked (the look-ahead's tables), they are the same and were charged the same, up front.
    deferred = ComponentCounts(sorted(cells), constraints, later, tally_later=True)
    assert later.used == now.used and deferred.mine_by_mines == counts.mine_by_mines and later.used == now.used
    assert counts.always_mines == [cell for cell, tally in counts.mine_by_mines.items() if tally == counts.by_mines]
    layouts = [
        layout for mines in range(counts.low, counts.low + len(counts.by_mines)) for layout in counts.layouts(mines)
    ]
    assert set(counts.always_mines) == set(cells).intersection(*layouts)


@pytest.mark.parametrize("seed", range(6))
def test_the_counting_order_is_the_greedy_one(seed):
    # The order the tables are built in decides their size and so every budget: it must stay the greedy
    # order, written here as plainly as possible.
    cells, constraints = component(seed)
    order = ComponentCounts(sorted(cells), constraints, Budget()).order
    assert order == plain_greedy_order(sorted(cells), constraints)


def plain_greedy_order(cells: list[int], constraints: list[Constraint[int]]) -> list[int]:
    opened: set[int] = set()
    placed: list[int] = []
    touching: set[int] = set()
    remaining = set(cells)
    while remaining:
        candidates = touching or remaining

        def cost(cell: int) -> tuple[int, int, str]:
            members = [i for i, constraint in enumerate(constraints) if cell in constraint.cells]
            new = sum(1 for i in members if i not in opened)
            closing = sum(1 for i in members if len(constraints[i].cells - set(placed)) == 1)
            return (new - closing, new, repr(cell))

        cell = min(candidates, key=cost)
        placed.append(cell)
        remaining.discard(cell)
        touching.discard(cell)
        for i, constraint in enumerate(constraints):
            if cell in constraint.cells and i not in opened:
                opened.add(i)
                touching.update(c for c in constraint.cells if c in remaining)
    return placed
