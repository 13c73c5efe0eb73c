"""Cruel Flags' rules (DESIGN.md §1.7) against brute force: every layout of a small board is listed, and each
click, bomb and end is checked against them. Deals are seeded: the games are the same on every run."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from app.core.game import Game, Move
from app.modes import get_mode
from app.modes.flags import BOMB_SIDE, Flags
from app.results.review import Step, grade
from app.web.views.reviews import grade_text
from solver.position import COVERED, MINE

CRUEL_FLAGS = get_mode("cruel-flags")
assert isinstance(CRUEL_FLAGS, Flags)

# Chi-square critical values at a false alarm of one in a million, by degrees of freedom: the deals are
# seeded, so a test that passes passes every time; this only says how far from uniform would be noticed.
CHI_SQUARE_CRITICAL = {1: 23.93, 2: 27.63, 3: 30.66, 4: 33.38, 5: 35.89, 6: 38.26, 7: 40.52, 8: 42.70}


def layouts(game: Game) -> list[frozenset[int]]:
    """Every layout of the game's mines that fits what both seats see: the mines found, and each number."""
    board = game.board
    found = frozenset(index for index, symbol in enumerate(game.cells) if symbol == MINE)
    covered = [index for index, symbol in enumerate(game.cells) if symbol == COVERED]
    numbers = [(index, int(symbol)) for index, symbol in enumerate(game.cells) if symbol.isdigit()]
    fitting = []
    for chosen in combinations(covered, game.mines - len(found)):
        mines = found | frozenset(chosen)
        if all(board.mines_around(index, mines) == number for index, number in numbers):
            fitting.append(mines)
    return fitting


def bomb_square(game: Game, centre: int) -> list[int]:
    x, y = game.cell(centre)
    left, top = Flags.bomb_corner(game.width, x), Flags.bomb_corner(game.height, y)
    return [
        game.board.index(column, row)
        for row in range(top, min(game.height, top + BOMB_SIDE))
        for column in range(left, min(game.width, left + BOMB_SIDE))
        if game.cells[game.board.index(column, row)] == COVERED
    ]


def play(game: Game, move: Move, rng: random.Random) -> Game:
    after, _ = CRUEL_FLAGS.apply(game, move, rng=rng, now=1.0)
    return after


def played(seed: int):
    """A seeded game played at random to its end, step by step: (the game before, its fitting layouts, the
    move, the game after). Half the time a proven mine is clicked when there is one, and a player who may drop
    the bomb drops it half the time."""
    rng = random.Random(seed)
    width, height = rng.choice([(4, 4), (5, 4), (6, 3)])
    game = CRUEL_FLAGS.new_game(width, height, rng.randint(3, 6), rng=random.Random(seed))
    while game.status == "playing":
        fitting = layouts(game)
        seat = game.state["turn"]
        covered = [index for index, symbol in enumerate(game.cells) if symbol == COVERED]
        if Flags.bomb_refusal(game, seat) is None and rng.random() < 0.5:
            move = Move("bomb", *game.cell(rng.choice(covered)), seat=seat)
        else:
            proven = [index for index in covered if all(index in mines for mines in fitting)]
            index = rng.choice(proven) if proven and rng.random() < 0.5 else rng.choice(covered)
            move = Move("reveal", *game.cell(index), seat=seat)
        after = play(game, move, rng)
        yield game, fitting, move, after
        game = after


SEEDS = range(24)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_click_and_bomb_follows_the_rules_against_every_layout_that_fits(seed: int) -> None:
    """A cell some fitting layout leaves empty is never a mine; a cell every one fills always scores and the
    mover goes again; the bomb's square holds the fewest mines any fitting layout puts there; what is dealt
    always fits some layout; and the end shows one that fits everything played."""
    game = None
    for game, fitting, move, after in played(seed):
        assert fitting, "every position played fits some layout"
        seat, scores = move.seat, game.state["scores"]
        assert seat is not None
        if move.action == "bomb":
            square = bomb_square(game, game.index(move.x, move.y))
            fewest = min(len(mines & set(square)) for mines in fitting)
            assert sum(after.cells[index] == MINE for index in square) == fewest
            assert after.state["scores"][seat] == scores[seat] + fewest
            assert after.status != "playing" or after.state["turn"] == 1 - seat
            continue
        index = game.index(move.x, move.y)
        if all(index in mines for mines in fitting):
            assert after.cells[index] == MINE and after.state["scores"][seat] == scores[seat] + 1
            assert after.status != "playing" or after.state["turn"] == seat, "a point, and another move"
        else:
            assert after.cells[index].isdigit(), "a cell that can be empty is empty"
            assert after.state["scores"] == scores
            assert after.status != "playing" or after.state["turn"] == 1 - seat
    assert game is not None
    final = after
    shown = frozenset(final.shown_mines or ())
    assert len(shown) == final.mines
    numbers = [(index, int(symbol)) for index, symbol in enumerate(final.cells) if symbol.isdigit()]
    assert all(final.board.mines_around(index, shown) == number for index, number in numbers)
    assert all(index in shown for index, symbol in enumerate(final.cells) if symbol == MINE)
    scores = final.state["scores"]
    assert sum(scores) == final.mines or 2 * max(scores) > final.mines


def test_the_seeded_games_click_proven_mines_and_cells_that_can_be_empty_and_drop_bombs() -> None:
    """Between them the games above meet every rule (else they would check less than they say)."""
    kinds: Counter[str] = Counter()
    for seed in SEEDS:
        for game, fitting, move, _ in played(seed):
            index = game.index(move.x, move.y)
            proven = move.action == "reveal" and all(index in mines for mines in fitting)
            kinds["bomb" if move.action == "bomb" else "mine" if proven else "empty"] += 1
    assert kinds["mine"] >= 20 and kinds["empty"] >= 20 and kinds["bomb"] >= 5, kinds


def dealt_numbers(game: Game, index: int, games: int) -> Counter[str]:
    """What a click on `index` shows there, over `games` games in this position, each with a deal seed of its own."""
    shown: Counter[str] = Counter()
    for seed in range(games):
        copy = game.copy()
        copy.hidden = {"deal_seed": f"{random.Random(f'deal {seed}').getrandbits(128):032x}"}
        after = play(copy, Move("reveal", *game.cell(index), seat=game.state["turn"]), random.Random(seed))
        shown[after.cells[index]] += 1
    return shown


def chi_square(observed: Counter[str], expected: dict[str, float]) -> float:
    return sum((observed.get(value, 0) - count) ** 2 / count for value, count in expected.items())


@pytest.mark.parametrize("opened", [(), ((0, 0),), ((0, 0), (3, 3))], ids=["fresh", "one-number", "two-numbers"])
def test_the_number_a_click_shows_is_dealt_uniformly_among_the_layouts_that_leave_the_cell_empty(opened) -> None:
    """Across games in one position (deals repeat within a game, so each game has its own seed), the number a
    click shows comes up as often as the share of fitting layouts that leave the cell empty and show it."""
    game = CRUEL_FLAGS.new_game(4, 4, 4, rng=random.Random(7))
    for x, y in opened:
        if game.cells[game.board.index(x, y)] == COVERED:
            game = play(game, Move("reveal", x, y, seat=game.state["turn"]), random.Random(0))
    assert game.status == "playing"
    fitting = layouts(game)
    covered = [index for index, symbol in enumerate(game.cells) if symbol == COVERED]
    # The covered cell whose number is least certain: the strongest check.
    index = max(covered, key=lambda i: len({game.board.mines_around(i, mines) for mines in fitting if i not in mines}))
    empty = [mines for mines in fitting if index not in mines]
    shares = Counter(str(game.board.mines_around(index, mines)) for mines in empty)
    draws = 1500
    shown = dealt_numbers(game, index, draws)
    # A zero floods, but the cell itself shows its number all the same.
    expected = {value: draws * count / len(empty) for value, count in shares.items()}
    assert set(shown) <= set(expected), (shown, expected)
    assert len(expected) >= 2, "a position whose number is not certain"
    assert chi_square(shown, expected) < CHI_SQUARE_CRITICAL[len(expected) - 1], (shown, expected)


def test_the_same_position_and_click_deal_the_same_and_the_seed_stays_secret() -> None:
    game = CRUEL_FLAGS.new_game(8, 8, 12, rng=random.Random(3))
    assert set(game.hidden) == {"deal_seed"}
    first = play(game, Move("reveal", 3, 3, seat=0), random.Random(1))
    again = play(game, Move("reveal", 3, 3, seat=0), random.Random(2))
    assert first.cells == again.cells


def test_the_review_says_of_each_move_whether_a_proven_mine_was_there_to_take() -> None:
    """Taking a proven mine is proven; opening a cell while one was there leaves it to the opponent (a mistake
    that names it); opening a cell with none to take was not a bet."""
    seen: Counter[str] = Counter()
    for seed in range(6):
        for game, fitting, move, after in played(seed):
            if move.action != "reveal":
                continue
            covered = [index for index, symbol in enumerate(game.cells) if symbol == COVERED]
            proven = [index for index in covered if all(index in mines for mines in fitting)]
            graded = grade(game, move)
            text = grade_text(graded, Step(game, move, after, frozenset(), False), scores=True)
            if game.index(move.x, move.y) in proven:
                assert graded.kind == "proven" and text == "Proven: a proven mine, taken."
                seen["taken"] += 1
            elif proven:
                assert graded.kind == "mistake" and graded.example is not None
                assert game.board.index(*graded.example) in proven
                assert text.endswith("was a proven mine, left for the opponent."), text
                seen["left"] += 1
            else:
                assert graded.kind == "noted" and text.startswith("No proven mine to take"), text
                seen["none"] += 1
    assert seen["taken"] and seen["left"] and seen["none"], seen
