"""Grading a move from what the player could see before it (app/results/review.py, issue 25): hand-made positions
whose grades are known, and a property test against brute force that a grade never depends on the layout."""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from app.core.game import Move
from app.modes import MODES
from app.results.review import BEST_GUESS_MARGIN, Grade, Luck, grade, kept_review, review, story
from solver.limits import Allowance
from tests.boards import classic_from
from tests.reference import truth
from tests.test_flags import game_of as flags_game


def reveal(x: int, y: int) -> Move:
    return Move("reveal", x, y)


def test_a_reveal_of_a_provably_safe_cell_is_proven():
    # The 0 at the corner proves its covered neighbours safe.
    game = classic_from(["o..", "...", "..*"])
    assert grade(game, reveal(1, 1)) == Grade("proven")


def test_the_first_click_is_safe_by_the_rules():
    game = classic_from(["...", "...", "..*"])
    assert game.started_at is None and grade(game, reveal(2, 2)).kind == "first"


def test_a_guess_at_the_lowest_chance_is_the_best_guess_and_a_riskier_one_an_inaccuracy():
    # The 1 has one mine among its three covered neighbours (a third each); the other mine is one of the
    # six cells away from it (a sixth each). Nothing is proven.
    game = classic_from(["o*...", "....*"])
    far, near = grade(game, reveal(3, 0)), grade(game, reveal(1, 1))
    assert far == Grade("best", Fraction(1, 6), Fraction(1, 6))
    assert near == Grade("inaccuracy", Fraction(1, 3), Fraction(1, 6))
    assert near.chance - near.best > BEST_GUESS_MARGIN and far.guessed and near.guessed


def test_a_risky_reveal_while_a_cell_is_proven_safe_is_a_mistake_naming_the_cell_and_its_proof():
    # One mine in all: the 1 holds it, so every cell away from the 1 is safe, proven by the 1 and the count.
    game = classic_from(["o*.", "...", "..."])
    graded = grade(game, reveal(1, 1))
    assert graded.kind == "mistake" and graded.chance == Fraction(1, 3) and graded.best == 0
    assert graded.example == (2, 0) and graded.proof == ((0, 0),) and graded.uses_count


def test_a_flag_on_a_proven_mine_is_proven_one_that_could_be_safe_a_mistake_and_a_question_mark_noted():
    game = classic_from(["o*.", "oo."])  # the 1 below the corner proves (1, 0) a mine; the rest is safe
    assert grade(game, Move("flag", 1, 0)) == Grade("proven")
    assert grade(game, Move("flag", 2, 0)).kind == "mistake"
    guessing = classic_from(["o*", ".."])
    assert grade(guessing, Move("flag", 1, 1)) == Grade("mistake", example=(1, 1))
    assert grade(guessing, Move("flag", 1, 1, mark="question")).kind == "noted"
    assert grade(guessing, Move("undo")).kind == "noted"


def test_a_chord_whose_cells_are_all_safe_is_proven_and_one_that_opens_a_guess_is_a_mistake():
    # The 1 below the corner proves the flagged cell a mine: a chord on the middle 1 opens two safe cells.
    game = classic_from(["oM.", "oo."])
    assert grade(game, Move("chord", 1, 1)) == Grade("proven")
    # The 0 proves the flagged cell safe: the chord opens a guess while a cell is proven safe.
    risky = classic_from(["oF*", "oo."])
    graded = grade(risky, Move("chord", 1, 1))
    assert graded.kind == "mistake" and graded.chance == Fraction(1, 2) and graded.example == (1, 0)


def flags_position(rows: list[str]):
    """A Flags game in play from its layout: '*' a covered mine, '.' a covered cell, 'o' a revealed number."""
    game = flags_game(*(row.replace("o", ".") for row in rows))
    mines = set(game.hidden["layout"])
    for index, symbol in enumerate("".join(rows)):
        if symbol == "o":
            game.cells[index] = str(game.board.mines_around(index, mines))
    game.started_at = 0.0
    return game


def test_in_flags_a_proven_mine_is_the_move_and_a_guess_beside_it_leaves_it_to_the_opponent():
    # The 1 below the corner has one covered neighbour: the corner is a proven mine, and (one mine in
    # all) the right-hand column is safe.
    game = flags_position(["*o.", "oo."])
    assert grade(game, reveal(0, 0)) == Grade("proven")
    left = grade(game, reveal(2, 0))
    assert left.kind == "mistake" and left.example == (0, 0) and left.chance == 0 and left.best == 1
    # Nothing proven: a guess is graded by its chance of a mine against the highest on the board.
    guessing = flags_position(["*..", "o..", "..*"])
    exact = truth(guessing.position()).probability
    for x, y in [(1, 0), (2, 2)]:
        graded = grade(guessing, reveal(x, y))
        assert graded.chance == exact[(x, y)] and graded.best == max(exact.values())
        assert graded.kind == ("best" if max(exact.values()) - exact[(x, y)] <= BEST_GUESS_MARGIN else "inaccuracy")


def test_a_position_too_complex_for_the_allowance_is_graded_so_never_guessed():
    game = classic_from(["o*...", "....*"])
    assert grade(game, reveal(3, 0), Allowance(work=1)).kind == "too_complex"


def test_luck_is_the_chance_every_guess_survived_beside_the_best_guesses():
    grades = [
        Grade("best", Fraction(1, 6), Fraction(1, 6)),
        Grade("proven"),
        Grade("inaccuracy", Fraction(1, 2), Fraction(1, 4)),
    ]
    assert Luck.of(grades) == Luck(Fraction(5, 12), Fraction(5, 8))


def positions(draw) -> tuple[list[str], int, int]:
    """A small classic game in play: a layout, some cells revealed, and a covered cell to click."""
    width, height = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    cells = width * height
    mines = set(draw(st.lists(st.integers(0, cells - 1), min_size=1, max_size=cells - 2, unique=True)))
    safe = [index for index in range(cells) if index not in mines]
    shown = set(draw(st.lists(st.sampled_from(safe), min_size=1, max_size=len(safe) - 1, unique=True)))
    rows = [
        "".join("*" if y * width + x in mines else "o" if y * width + x in shown else "." for x in range(width))
        for y in range(height)
    ]
    covered = [index for index in range(cells) if index not in shown]
    target = draw(st.sampled_from(covered))
    return rows, target % width, target // width


@given(st.composite(positions)())
def test_a_grade_follows_the_exact_chances_of_the_position_whatever_the_layout(drawn):
    rows, x, y = drawn
    game = classic_from(rows)
    graded = grade(game, reveal(x, y))
    exact = truth(game.position()).probability
    open_chances = [chance for chance in exact.values() if chance < 1]
    if exact[(x, y)] == 0:
        assert graded == Grade("proven")
    elif 0 in exact.values():
        assert graded.kind == "mistake" and graded.chance == exact[(x, y)] and exact[graded.example] == 0
    else:
        assert graded.chance == exact[(x, y)] and graded.best == min(open_chances)
        assert graded.kind == ("best" if exact[(x, y)] - min(open_chances) <= BEST_GUESS_MARGIN else "inaccuracy")
    # Never from the layout: the same position over another layout (any at all) grades the same.
    elsewhere = game.copy()
    elsewhere.hidden = {
        "layout_seed": "0" * 32,
        "mines": sorted(random.Random(x * 7 + y).sample(range(len(game.cells)), game.mines)),
    }
    assert grade(elsewhere, reveal(x, y)) == graded


def test_a_games_story_is_its_moves_each_graded_from_the_position_before_it():
    # The 1 in the corner: one mine among its three neighbours, the other somewhere among the six far cells.
    game = classic_from(["o*...", "....*"])
    played = []
    for move in [Move("reveal", 3, 0), Move("flag", 1, 1), Move("reveal", 2, 0)]:
        game, _ = MODES["classic"].apply(game, move, rng=random.Random(0), now=1.0)
        played.append(move)
    assert story(game)[0].before.cells == classic_from(["o*...", "....*"]).cells
    assert [step.move for step in story(game)] == played
    reviewed = review(game)
    kinds = [graded.kind for _, graded in reviewed.moves]
    assert kinds[0] == "best" and kinds[1] == "mistake"  # a guess at a sixth; a flag on a cell that could be safe
    assert reviewed.count("mistake") >= 1 and reviewed.accuracy() is not None
    assert reviewed.luck is not None and reviewed.luck.survived <= Fraction(5, 6)


def test_cruel_games_leave_nothing_to_luck_and_flags_games_are_not_a_survival():
    cruel = MODES["cruel"].new_game(5, 5, 5, rng=random.Random(0))
    cruel, _ = MODES["cruel"].apply(cruel, Move("reveal", 2, 2), rng=random.Random(0), now=1.0)
    assert review(cruel).luck is None and [graded.kind for _, graded in review(cruel).moves] == ["first"]
    assert review(flags_position(["*o.", "oo."])).luck is None


def test_undone_moves_and_deaths_stay_in_the_story_in_the_order_played():
    # Undo on: a guess that dies is taken back, then two moves are both taken back, then the game is won.
    game = classic_from(["o*.", "...", "..."], undo=True)
    moves = [
        Move("reveal", 1, 0),  # the mine: a death
        Move("undo"),
        Move("flag", 2, 2),
        Move("reveal", 1, 1),
        Move("undo"),
        Move("undo"),
        Move("reveal", 2, 2),
    ]
    for move in moves:
        game, _ = MODES["classic"].apply(game, move, rng=random.Random(0), now=1.0)
    steps = story(game)
    assert [step.move.action for step in steps] == [move.action for move in moves]
    assert [step.taken_back for step in steps] == [True] * 6 + [False]
    assert [step.played.death for step in steps] == [True] + [False] * 6
    for earlier, later in zip(steps, steps[1:], strict=False):
        assert (later.before.cells, later.before.marks) == (earlier.after.cells, earlier.after.marks)
    assert steps[-1].after.cells == game.cells and steps[-1].after.marks == game.marks
    reviewed = review(game)
    assert reviewed.deaths == 1
    assert [step.death for step in reviewed.steps] == [True] + [False] * 6
    assert reviewed.grades[0].kind == "mistake"  # every far cell was proven safe by the 1 and the count
    assert reviewed.grades[-1] == Grade("proven")
    # Luck counts the moves that stand: the death taken back is not a guess that survived.
    assert reviewed.luck == Luck(Fraction(1), Fraction(1))


def test_a_review_kept_with_the_game_reads_back_the_same_and_goes_with_the_next_action():
    game = classic_from(["o*...", "....*"], undo=True)
    for move in [Move("reveal", 3, 0), Move("flag", 1, 1), Move("undo"), Move("reveal", 2, 0)]:
        game, _ = MODES["classic"].apply(game, move, rng=random.Random(0), now=1.0)
    reviewed = review(game)
    game.review = reviewed.kept()
    again = kept_review(game)
    assert again is not None and again.grades == reviewed.grades and again.luck == reviewed.luck
    assert again.steps == reviewed.steps
    assert again.accuracy() == reviewed.accuracy()
    game, _ = MODES["classic"].apply(game, Move("flag", 4, 1), rng=random.Random(0), now=1.0)
    assert game.review is None and kept_review(game) is None
