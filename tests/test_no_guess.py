"""No-guess boards (DESIGN.md §1.2, Tatham's "Ensure solubility"): every one is won by a player who only
ever opens proven-safe cells, the check is the exact solver's (local rules alone fall short on some), and
a density too high for the budget is refused with a message, changing nothing.

The boards are seeded; --deal-seeds N plays N times as many (`--deal-seeds 20`: 4,000 boards)."""

from __future__ import annotations

import random

import pytest

from app.core.game import Game, Move, Refused
from app.modes import ClassicOptions, apply_move, new_game
from solver import Analyzer
from solver.generate import NoGuessImpossible, no_guess_layout
from solver.local import deduce

# Sizes and densities from 10 % to 25 %, small ones with more boards (they are quick).
SIZES = [
    (8, 8, 10, 40),
    (9, 9, 10, 40),
    (9, 9, 20, 40),
    (16, 16, 40, 25),
    (16, 16, 64, 20),
    (30, 16, 99, 10),
    (30, 16, 120, 8),
    (12, 7, 21, 17),
]


def deal(width: int, height: int, mines: int, seed: int, safe_only: bool = False) -> tuple[Game, tuple[int, int]]:
    """A no-guess game after its first click, at a cell drawn from the seed."""
    rng = random.Random(seed)
    game = new_game(
        width, height, mines, "classic", ClassicOptions(no_guess=True, first_click_safe_only=safe_only), rng=rng
    )
    first = (rng.randrange(width), rng.randrange(height))
    after, outcome = apply_move(game, Move("reveal", *first), rng=rng, now=1.0)
    assert after.status == "playing" or after.status == "won"
    return after, outcome


def play_proven_safe_cells_only(game: Game, analyzer: Analyzer) -> Game:
    """Open every proven-safe cell (the exact solver's, count included) until none is left: never a guess."""
    while game.status == "playing":
        safe = analyzer.safe_cells()
        if not safe:
            break
        for cell in safe:
            if game.cells[game.index(*cell)] == ".":
                game, outcome = apply_move(
                    game, Move("reveal", *cell), rng=random.Random(0), now=2.0, analyzer=analyzer
                )
                assert game.status != "lost", f"a proven-safe cell {cell} was a mine"
                analyzer = outcome.analyzer
    return game


def local_rules_clear(game: Game) -> bool:
    """Whether the two local rules alone, to their fixpoint, open every safe cell of the game's board."""
    layout = set(game.hidden["mines"])
    symbols = list(game.cells)
    known: set[int] = set()
    while True:
        found = deduce(game.width, game.height, symbols, known)
        if not found.safe:
            return symbols.count(".") == game.mines
        known.update(found.mines)
        for index in found.safe:
            opened = game.board.flood(index, lambda i: game.board.mines_around(i, layout), lambda i: symbols[i] == ".")
            for cell, number in opened.items():
                symbols[cell] = str(number)


@pytest.mark.parametrize("width,height,mines,boards", SIZES, ids=[f"{w}x{h}-{k}" for w, h, k, _ in SIZES])
def test_every_no_guess_board_is_won_by_a_player_who_never_guesses(width, height, mines, boards, deal_seed):
    for board in range(boards):
        game, outcome = deal(width, height, mines, deal_seed * 100_000 + board)
        won = play_proven_safe_cells_only(game, outcome.analyzer)
        assert won.status == "won", f"board {board}: stuck with {won.covered - won.mines} safe cells covered"


def test_the_check_is_the_exact_solvers_local_rules_alone_fall_short_on_some(deal_seed):
    short = 0
    for board in range(60):
        game, _ = deal(30, 16, 99, deal_seed * 100_000 + board)
        short += not local_rules_clear(game)
    # Some boards need two numbers at once, or the mine count: deduction the local rules do not make.
    assert short > 0


def test_a_first_click_safe_only_no_guess_board_is_won_too(deal_seed):
    for board in range(30):
        game, outcome = deal(16, 16, 40, deal_seed * 100_000 + board, safe_only=True)
        assert play_proven_safe_cells_only(game, outcome.analyzer).status == "won"


def test_the_same_seed_and_click_deal_the_same_no_guess_board():
    layouts = {no_guess_layout(30, 16, 99, 250, random.Random("same")) for _ in range(3)}
    assert len(layouts) == 1


def test_a_board_that_always_needs_a_guess_is_refused_with_a_message_and_changes_nothing():
    # 2x2 with one mine: the first click shows a 1 beside three covered cells, whatever the layout.
    with pytest.raises(NoGuessImpossible, match="try fewer mines"):
        no_guess_layout(2, 2, 1, 0, random.Random(1))
    game = new_game(2, 2, 1, "classic", ClassicOptions(no_guess=True), rng=random.Random(1))
    with pytest.raises(Refused, match="try fewer mines, or turn off No guessing"):
        apply_move(game, Move("reveal", 0, 0), rng=random.Random(0), now=1.0)
    assert game.started_at is None and game.hidden["mines"] is None and game.covered == 4
