"""The review (app/results/review.py) against games `kaboom bot` played: for 200 seeded classic games, every move
the bot made on a proven-safe cell is graded proven, and every guess's recorded chance is the exact
probability of the position it was made in.

Counted apart from app.results.review's own path: a fresh Analyzer of each position before a move, and the
brute force of tests/reference.py (quick on Beginner's 9x9 board: a few milliseconds a position at most).
The positions are checked against the rules too (each step played again gives the next), and each grade
against another layout under the same position (a grade never reads the layout).
"""

from __future__ import annotations

import copy
import random
from fractions import Fraction

import pytest

from app.core.game import COVERED
from app.modes import apply_move
from app.play.bot import GameResult, GameSetup, play
from app.results.review import BEST_GUESS_MARGIN, Grade, Review, Step, grade, review, story
from solver import Analyzer, Inconsistent, Status
from tests.reference import truth

# Beginner, the first click in the middle opening an area, as `kaboom bot --size beginner --first center --opening`.
BOARD = GameSetup(9, 9, 10, first=(4, 4), opening=True)
SEEDS = range(200)


@pytest.fixture(scope="module")
def played() -> list[tuple[GameResult, Review, list[Step]]]:
    """Each game with its review and its story (the positions the player saw, one step a grade)."""
    games = []
    for seed in SEEDS:
        result = play(BOARD, "exact", seed)
        assert result.game is not None and result.game.status != "playing"
        reviewed, steps = review(result.game), story(result.game)
        assert [step.move for step in steps] == [kept.move for kept in reviewed.steps]
        games.append((result, reviewed, steps))
    return games


def graded_moves(reviewed: Review, steps: list[Step]) -> list[tuple[Step, Grade]]:
    """The moves after the first click, with their grades."""
    return list(zip(steps, reviewed.grades, strict=True))[1:]


def cell_of(step: Step) -> tuple[int, int]:
    assert step.move is not None and step.move.x is not None and step.move.y is not None
    return step.move.x, step.move.y


def test_each_step_of_the_story_is_the_bots_move_played_by_the_rules(played):
    for result, reviewed, steps in played:
        game = result.game
        # The bot reveals and nothing else: one step a record, none taken back, each a move graded.
        assert len(steps) == len(game.history) == len(reviewed.grades) == len(reviewed.moves)
        assert all(step.move is not None and step.move.action == "reveal" for step in steps)
        assert not any(step.taken_back for step in steps)
        assert set(steps[0].before.cells) == {COVERED} and steps[0].before.started_at is None
        for number, step in enumerate(steps):
            assert step.move is not None
            before = step.before.copy()
            before.hidden = copy.deepcopy(game.hidden)  # the rules need the layout, which a story leaves out
            after, _ = apply_move(before, step.move, rng=random.Random(0), now=0.0)
            assert (after.cells, after.status) == (step.after.cells, step.after.status)
            following = steps[number + 1].before if number + 1 < len(steps) else game
            assert (following.cells, following.status) == (after.cells, after.status)


def test_a_move_on_a_proven_safe_cell_is_proven_and_a_guess_has_the_exact_chance_of_its_position(played):
    guesses = 0
    for result, reviewed, steps in played:
        assert reviewed.grades[0] == Grade("first") and steps[0].before.started_at is None
        chances_met = []
        for step, graded in graded_moves(reviewed, steps):
            assert step.before.started_at is not None and step.before.status == "playing"
            cell = cell_of(step)
            statuses = Analyzer(step.before.position()).classify()
            if statuses[cell] is Status.SAFE:
                assert graded == Grade("proven")
                continue
            # A guess: the bot opens no proven mine, and guesses only when no cell is proven safe.
            assert statuses[cell] is Status.UNKNOWN and Status.SAFE not in statuses.values()
            chances = Analyzer(step.before.position()).probabilities().cells
            assert chances is not None
            best = min(chance for other, chance in chances.items() if statuses[other] is not Status.MINE)
            assert isinstance(graded.chance, Fraction) and graded.chance == chances[cell] and graded.best == best
            expected = "best" if chances[cell] - best <= BEST_GUESS_MARGIN else "inaccuracy"
            assert graded.kind == expected and graded.guessed
            chances_met.append(graded.chance)
        # The bot's own count of its guesses, and the chances it gave them (floats), are the review's.
        assert len(chances_met) == result.guesses == reviewed.guesses()
        assert [chance for chance, _ in result.guessed] == pytest.approx([float(chance) for chance in chances_met])
        guesses += result.guesses
    # Not vacuous: the bot guessed in these games (17 times over these seeds, one of them an inaccuracy).
    assert guesses > 0


def test_the_grades_agree_with_brute_force_counting(played):
    compared = 0
    for _, reviewed, steps in played:
        for step, graded in graded_moves(reviewed, steps):
            exact = truth(step.before.position())
            assert exact.consistent
            chance = exact.probability[cell_of(step)]
            if chance == 0:
                assert graded == Grade("proven")
                continue
            assert 0 not in exact.probability.values()  # nothing proven safe: a guess, not a mistake
            assert graded.chance == chance and graded.best == min(p for p in exact.probability.values() if p < 1)
            compared += 1
    assert compared > 0


def test_a_grade_never_reads_the_layout(played):
    """The same position over another layout, one that puts a mine where there was none (and none where there
    was one) whenever the position allows it, grades the same."""
    flipped = 0
    for number, (result, reviewed, steps) in enumerate(played):
        mines = set(result.game.mode_secret()["mines"])
        rng = random.Random(number)
        for step, graded in zip(steps, reviewed.grades, strict=True):
            cell = cell_of(step)
            was_mine = step.before.index(*cell) in mines
            analyzer = Analyzer(step.before.position())
            try:
                other = analyzer.sample_layout(rng, force=(cell, not was_mine)).mines
                assert (cell in other) != was_mine
                flipped += 1
            except Inconsistent:  # proven: no layout differs there
                other = analyzer.sample_layout(rng).mines
            elsewhere = step.before.copy()
            elsewhere.hidden = {"layout_seed": "0" * 32, "mines": sorted(step.before.index(*mine) for mine in other)}
            assert step.move is not None
            assert grade(elsewhere, step.move) == graded
    assert flipped > 0
