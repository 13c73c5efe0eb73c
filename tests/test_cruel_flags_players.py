"""The computer players of cruel Flags (solver/cruel_flags.py): legal, sound, in time, and right where the
right move is plain. Positions come from seeded games played here by cruel Flags' rules (DESIGN.md §1.7):
a proven mine is a mine, any other click is empty with its number dealt uniformly, and a zero floods."""

from __future__ import annotations

import random
import time

import pytest

from app.play.tournament import sample_position
from solver.analysis import Analyzer, Inconsistent, Status
from solver.counting import Budget
from solver.cruel_flags import (
    CRUEL_FLAGS_LEVELS,
    CRUEL_FLAGS_PLAYERS,
    _Certain,
    _Judge,
    cruel_flags_bomb,
    cruel_greedy,
    cruel_hard,
)
from solver.fewest import fewest_mines_layout
from solver.flags import FlagsView
from solver.position import COVERED, MINE, Position, neighbour_table
from tests.reference import truth

BOMB_SIDE = 5


def covered(position: Position) -> set[tuple[int, int]]:
    return {cell for cell in position.cells() if position[cell] == COVERED}


def cruel_positions(width: int, height: int, mines: int, seed: int, moves: int, take: bool = False) -> list[Position]:
    """The positions of a seeded cruel Flags game whose moves are random clicks, before each move; with `take`,
    every proven mine is taken before each click (the positions then hold none)."""
    rng = random.Random(seed)
    symbols = [COVERED] * (width * height)
    neighbours = neighbour_table(width, height)
    analyzer = Analyzer(Position.empty(width, height, mines))
    found, seen = 0, []
    for _ in range(moves):
        if take:
            proven = [cell for cell, status in analyzer.classify().items() if status is Status.MINE]
            analyzer.reveal(dict.fromkeys(proven, MINE))
            for x, y in proven:
                symbols[y * width + x] = MINE
            found += len(proven)
        position = analyzer.position
        if found == mines or COVERED not in symbols:
            break
        seen.append(position)
        index = rng.choice([i for i, symbol in enumerate(symbols) if symbol == COVERED])
        cell = (index % width, index // width)
        try:
            layout = analyzer.sample_layout(rng, force=(cell, False))
        except Inconsistent:  # a proven mine: a point
            symbols[index] = MINE
            analyzer.reveal({cell: MINE})
            found += 1
            continue
        placed = {y * width + x for x, y in layout.mines}
        opened: dict[int, str] = {}
        queue = [index]
        while queue:
            current = queue.pop()
            if current in opened or symbols[current] != COVERED:
                continue
            opened[current] = str(sum(1 for n in neighbours[current] if n in placed))
            if opened[current] == "0":
                queue.extend(neighbours[current])
        for opened_index, symbol in opened.items():
            symbols[opened_index] = symbol
        analyzer.reveal({(i % width, i // width): symbol for i, symbol in opened.items()})
    return seen


def small_positions() -> list[Position]:
    positions = []
    rng = random.Random(1957)
    for seed in range(10):
        width, height = rng.randint(3, 7), rng.randint(3, 7)
        mines = rng.randint(1, width * height - 2)
        positions.extend(cruel_positions(width, height, mines, seed, 40)[::4])
    return positions


SMALL = small_positions()


def test_every_player_answers_a_covered_cell() -> None:
    assert len(SMALL) > 30
    for number, position in enumerate(SMALL):
        for name, player in CRUEL_FLAGS_PLAYERS.items():
            cell = player(FlagsView.of(position), random.Random(number)).cell
            assert cell in covered(position), f"{name} answered {cell}:\n{position.format()}"


def test_every_player_answers_a_covered_cell_in_the_middle_of_a_20x20_game() -> None:
    # Random clicks scatter numbers: one big component, the costliest kind to count (a deadline keeps it short).
    positions = [cruel_positions(20, 20, mines, seed, 30, take=True)[-1] for seed, mines in enumerate((60, 180))]
    for seed, position in enumerate(positions):
        for name, player in CRUEL_FLAGS_PLAYERS.items():
            cell = player(FlagsView.of(position, time.monotonic() + 1), random.Random(seed)).cell
            assert cell in covered(position), f"{name} answered {cell}:\n{position.format()}"


def test_the_empty_board_and_a_board_of_one_covered_cell() -> None:
    for position in (Position.empty(9, 9, 10), Position(3, 2, 1, ("111", "1.1"))):
        for name, player in CRUEL_FLAGS_PLAYERS.items():
            cell = player(FlagsView.of(position), random.Random(0)).cell
            assert cell in covered(position), name


def test_hard_and_greedy_take_a_proven_mine_and_only_a_proven_mine_is_called_one() -> None:
    taken = 0
    for number, position in enumerate(SMALL):
        facts = truth(position)
        certain = {cell for cell, chance in facts.probability.items() if chance == 1}
        for name, player in CRUEL_FLAGS_PLAYERS.items():
            choice = player(FlagsView.of(position), random.Random(number))
            if choice.mine_probability == 1.0:
                assert choice.cell in certain, f"{name} called {choice.cell} a proven mine:\n{position.format()}"
            if name in ("hard", "greedy", "normal") and certain:
                assert choice.cell in certain, f"{name} left {sorted(certain)} for {choice.cell}:\n{position.format()}"
                taken += 1
    assert taken > 10


def test_the_mines_a_number_would_prove_are_counted_exactly() -> None:
    # What hard weighs: for each number a cell could show, how many covered cells every layout then fills.
    checked = 0
    for position in SMALL[::2]:
        frontier = Analyzer(position).frontier()
        for x, y in sorted(covered(position))[::3]:
            index = y * position.width + x
            if index in frontier.mines:
                continue
            for value, after in frontier.outcomes(index, Budget()):
                shown = position.with_cells({(x, y): str(value)})
                facts = truth(shown)
                assert facts.consistent
                certain = sum(1 for chance in facts.probability.values() if chance == 1)
                assert _Certain()(after) + len(frontier.mines) == certain, (
                    f"{(x, y)} showing {value}:\n{shown.format()}"
                )
                checked += 1
    assert checked > 100


def view(rows: tuple[str, ...], mines: int, deadline: float | None = None) -> FlagsView:
    return FlagsView.of(Position(len(rows[0]), len(rows), mines, rows), deadline)


def test_outside_cells_alike_are_told_apart_as_their_neighbours_say() -> None:
    # Hard tries one outside cell of each kind (the mines known around it, its undetermined neighbours) whose
    # covered neighbours are all outside and none proven safe; the board's roles are read once for speed, and
    # must say what Frontier.around says cell by cell.
    positions = [p for seed, mines in enumerate((30, 80, 150)) for p in cruel_positions(20, 20, mines, seed, 40)[5::7]]
    positions += [sample_position(30, 30, 200, 60, 5)]
    kinds = set()
    for position in positions:
        view = FlagsView.of(position)
        frontier = view.analyzer().frontier(Budget())
        judge = _Judge(view, frontier, time.monotonic() + 60, random.Random(0))
        roles = judge._neighbour_roles()
        for index in frontier.outside:
            known, open_cells = frontier.around(index)
            alike = open_cells <= judge.outside and not any(
                n in frontier.safe for n in judge.neighbours[index] if view.symbols[n] == COVERED
            )
            assert judge._outside_kind(index, roles) == ((known, len(open_cells)) if alike else None)
            kinds.add(judge._outside_kind(index, roles))
    assert None in kinds and len(kinds) > 3


def test_hard_answers_a_legal_cell_on_a_100x100_board_with_a_deadline() -> None:
    # Numbers scattered at random are the hardest positions to count; and a position from play.
    scattered = sample_position(100, 100, 2500, 300, seed=5)
    rows = ["." * 100 for _ in range(100)]
    rows[40] = "." * 40 + "1223" + "." * 56
    rows[41] = "." * 40 + "2..3" + "." * 56
    played = Position(100, 100, 3000, tuple(rows))
    for position in (scattered, played):
        choice = cruel_hard(FlagsView.of(position, time.monotonic() + 1.5), random.Random(0))
        assert choice.cell in covered(position)


# Two 50/50 pairs walled in by found mines ('*'): opening a cell of a pair proves the other cell a mine for the
# opponent. The last column holds a cell proven safe whose number is known: opening it tells nothing.
PAIRS_AND_A_QUIET_CELL = ("*..*..*.", "*33*33*2")


def test_hard_opens_the_cell_that_tells_nothing_rather_than_half_a_pair() -> None:
    choice = cruel_hard(view(PAIRS_AND_A_QUIET_CELL, 8), random.Random(0))
    assert choice.cell == (7, 0)


def test_with_no_time_to_count_hard_takes_what_a_number_shows_and_opens_the_quietest_cell() -> None:
    # A deadline already past leaves only the local rules and the estimate: the cell proven safe beside the
    # found mines cannot be a zero and shows nothing new, a cell of a pair shows its partner half the time.
    past = time.monotonic()
    choice = cruel_hard(view(PAIRS_AND_A_QUIET_CELL, 8, deadline=past), random.Random(0))
    assert (choice.cell, choice.reason) == ((7, 0), "the quietest-looking cell (the position was too big to count)")
    plain_mine = cruel_hard(view(("..1",), 1, deadline=past), random.Random(0))
    assert (plain_mine.cell, plain_mine.mine_probability) == ((1, 0), 1.0)


def test_hard_leaves_the_opponent_to_open_the_last_pair() -> None:
    # Three pairs and one quiet cell: whoever opens a pair hands its other cell over. Opening the quiet cell
    # leaves the opponent the first and the last pair (+1 for the mover); opening a pair now loses a mine.
    choice = cruel_hard(view(("*..*..*..*.", "*33*33*33*2"), 11), random.Random(0))
    assert choice.cell == (10, 0)


def test_hard_keeps_away_from_a_pair_on_a_big_board() -> None:
    # A pair in the corner, its only other neighbours revealed; the rest of the board covered and dense (the
    # count is far from deciding anything): opening a cell of the pair proves the other, a cell far away
    # rarely proves anything. The ordinary solver's safest cell is a cell of the pair (a chance of 1/2 against
    # about 3/5 elsewhere): greedy opens it, hard does not.
    rows = ("..*" + "." * 17, "36*" + "." * 17, "***" + "." * 17) + tuple("." * 20 for _ in range(17))
    mines = 5 + 1 + 234
    hard = cruel_hard(view(rows, mines), random.Random(0)).cell
    greedy = cruel_greedy(view(rows, mines), random.Random(0)).cell
    assert greedy in ((0, 0), (1, 0))
    assert hard not in ((0, 0), (1, 0)) and hard in covered(Position(20, 20, mines, rows))


def test_the_bomb_is_none_or_a_square_that_holds_its_worth() -> None:
    dropped = 0
    games = [cruel_positions(12, 12, mines, seed, 50, take=True)[10::8] for seed, mines in enumerate((30, 45, 60))]
    for number, position in enumerate(position for game in games for position in game):
        target = cruel_flags_bomb(FlagsView.of(position), BOMB_SIDE)
        if target is None:
            continue
        (x, y), worth = target
        assert 0 <= x < position.width and 0 <= y < position.height and worth > 0
        left = max(0, min(x - BOMB_SIDE // 2, position.width - BOMB_SIDE))
        top = max(0, min(y - BOMB_SIDE // 2, position.height - BOMB_SIDE))
        square = [
            (column, row)
            for row in range(top, min(position.height, top + BOMB_SIDE))
            for column in range(left, min(position.width, left + BOMB_SIDE))
            if position[(column, row)] == COVERED
        ]
        fewest, _ = fewest_mines_layout(Analyzer(position), square, random.Random(number))
        assert fewest == worth, f"the square at {(x, y)} was said to hold {worth}, it must hold {fewest}"
        dropped += 1
    assert dropped > 3


def test_no_bomb_while_a_proven_mine_is_there_to_take() -> None:
    position = Position(3, 3, 2, ("1..", "2..", "1.."))
    analyzer = Analyzer(position)
    assert any(status is Status.MINE for status in analyzer.classify().values())
    assert cruel_flags_bomb(FlagsView.of(position), BOMB_SIDE) is None


def test_the_bomb_finds_a_square_that_must_hold_mines() -> None:
    # The 3s in the middle each need their three covered neighbours' mines: a square over them holds them all.
    rows = (".........", ".........", "...3.....", "...3.....", ".........") + tuple("." * 9 for _ in range(4))
    target = cruel_flags_bomb(view(rows, 20), BOMB_SIDE)
    assert target is not None and target[1] >= 2


@pytest.mark.parametrize("level", sorted(CRUEL_FLAGS_LEVELS))
def test_each_level_says_what_it_does(level: str) -> None:
    doc = CRUEL_FLAGS_LEVELS[level].__doc__
    assert doc and len(doc.split()) >= 8
