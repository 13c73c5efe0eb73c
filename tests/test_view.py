"""How a game looks on the page: cells, the status panel, messages."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from app.core.game import LossReview, set_options
from app.core.seats import Invitation, Player
from app.modes import get_mode
from app.service.overlays import Overlay
from app.web.errors import as_sentence
from app.web.views.game import Look, Seating, cell_html, clock_text, panel, review_text, seat_lines
from solver import Allowance
from tests.boards import classic_from
from tests.test_flags import game_of, move
from tests.test_rules import ALL_UNKNOWN, SAFE_OUTSIDE, game_from, play


def test_countdown_numbers_say_and_colour_what_they_show():
    # The 2 at (0, 0) with all three neighbours flagged: one flag too many.
    game = set_options(game_from(["2F.", "FF."], 3), {"countdown": True})
    assert Look(game, None).cell(0) == ("c n2 over", "-1: more flags than mines around", "-1", "")
    game.marks.pop(4)
    assert Look(game, None).cell(0) == ("c n2", "0 more", "0", "")
    game.marks.pop(3)
    assert Look(game, None).cell(0) == ("c n2", "1 more", "1", "")
    plain = set_options(game, {"countdown": False})
    assert Look(plain, None).cell(0) == ("c n2", "2", "2", "")


def test_a_loss_offers_undo_and_deaths_are_counted_on_the_panel():
    lost, _ = play(game_from(SAFE_OUTSIDE, 2, undo=True), "reveal", 1, 0)
    assert panel(lost, 5.0).undo_offered
    assert not panel(set_options(lost, {"undo": False}), 5.0).undo_offered
    back, _ = play(lost, "undo")
    assert ("deaths", "Deaths", 1, "Losses taken back with undo") in panel(back, 5.0).counters
    assert all(counter[0] != "deaths" for counter in panel(lost, 5.0).counters)


def test_messages_read_as_sentences():
    assert as_sentence("the game is won: a win is not undone") == "The game is won: a win is not undone."
    assert as_sentence("Undone.") == "Undone."


def test_the_overlay_covers_flagged_cells_too():
    from solver import Analyzer

    # The 2 in the corner of a 3x2 board with two mines: both mines next to it, the right column safe.
    game = game_from(["2.F", "..."], 2)
    statuses = Analyzer(game.position()).classify()
    classes, label, _, _ = Look(game, Overlay(statuses=statuses)).cell(2)
    assert classes == "c f os" and label == "flag, proven safe"


def test_a_loss_says_what_could_have_been_known():
    # Both mines next to the 2 (three cells, so the click at (1, 0) was a mine 2 times in 3); the count proves the
    # right column safe.
    lost, _ = play(game_from(SAFE_OUTSIDE, 2), "reveal", 1, 0)
    review = get_mode("cruel").review_loss(lost, Allowance())
    assert review.clicked == (1, 0) and not review.outside
    assert review.mine_probability == Fraction(2, 3)
    assert review.safe == [(2, 0), (2, 1)] and review.example == (2, 0)
    assert review.proof == [(0, 0)] and review.uses_count
    assert review_text(review, lost) == (
        "When you clicked column 2, row 1, it was a mine in 67 % of the layouts that fit what you saw. "
        "2 cells could be proven safe (outlined in green): column 3, row 1, for one, is proven "
        "by the number outlined in amber and the number of mines left."
    )
    # The overlay, on after a loss, shows what was proven just before the click.
    look = Look(lost, Overlay(statuses=review.statuses))
    assert look.cell(lost.index(2, 0))[0] == "c u os" and look.cell(lost.index(2, 1))[0] == "c u os"
    # A guess away from the numbers, under the strict rule: nothing was provable, and the rule is named.
    outside, _ = play(game_from(ALL_UNKNOWN, 2), "reveal", 2, 1)
    review = get_mode("cruel").review_loss(outside, Allowance())
    assert outside.status == "lost" and review.safe == [] and review.outside
    assert "Allow guessing anywhere" in review_text(review, outside)
    # A game still played has nothing to review.
    assert get_mode("cruel").review_loss(game_from(SAFE_OUTSIDE, 2), Allowance()) is None


def test_a_won_game_shows_its_time_in_tenths():
    assert clock_text(185.47) == "3:05" and clock_text(185.47, tenths=True) == "3:05.4"
    won, _ = play(game_from(SAFE_OUTSIDE, 2), "reveal", 2, 1)
    while won.status == "playing":
        from solver import Analyzer
        from solver.strategy import progress_cell

        won, _ = play(won, "reveal", *progress_cell(Analyzer(won.position())))
    won.started_at, won.finished_at = 10.0, 73.25
    shown = panel(won, 100.0)
    assert shown.clock == "1:03.2" and "1:03.2" in shown.result


def test_a_cell_says_where_it_is():
    """Issue 9 #13: cell labels had no coordinates, so a screen reader moving the cursor heard only "covered"."""
    assert 'aria-label="covered, column 3, row 4"' in cell_html((2, 3), ("c u", "covered", "", ""))
    assert (
        cell_html((0, 0), ("c n2", "2", "2", ""))
        == '<div id="c-0-0" class="c n2" role="gridcell" aria-label="2, column 1, row 1">2</div>'
    )


def test_a_loss_the_bot_clicked_is_told_as_the_bots():
    """Issue 22 #12: after the bot's losing click the review said "you clicked"."""
    game = classic_from(["o.", ".*"])
    review = LossReview((1, 1), False, Fraction(1, 3), [], None, [], False, {})
    assert review_text(review, game).startswith(
        "When you clicked column 2, row 2, it was a mine in 33 % of the layouts that fit what you saw."
    )
    bots = LossReview((1, 1), False, Fraction(1, 3), [], None, [], False, {}, by_bot=True)
    assert review_text(bots, game).startswith(
        "When the bot clicked column 2, row 2, it was a mine in 33 % of the layouts that fit what it saw."
    )


def test_a_finished_game_of_two_tells_each_player_first_whether_they_won():
    """Issue 22 #15: "You win" and "You lose" for the player's own seat; the score as everyone reads it."""
    game, _ = move(game_of("*..", "...", "..*"), "reveal", 0, 0, seat=0)
    game, _ = move(game, "reveal", 2, 2, seat=0)
    assert game.status == "won" and game.state["winner"] == 0
    game.seats = [Player("alice"), Invitation("key", "bob")]
    seen = {
        seat: seat_lines(
            game,
            Seating(
                seat, frozenset({seat}) if seat is not None else frozenset(), seat is None, False, None, frozenset(), ""
            ),
        )[0].text
        for seat in (0, 1, None)
    }
    assert seen == {0: "You win: Blue wins, 2–0.", 1: "You lose: Blue wins, 2–0.", None: "Blue wins, 2–0."}


@given(st.data())
def test_the_board_shows_a_flag_on_a_covered_cell_only_and_a_shown_mine_over_anything(data):
    game = classic_from(["*..o", ".o.*", "oo.."])
    cells = range(len(game.cells))
    game.marks.update({index: data.draw(st.sampled_from("F?")) for index in data.draw(st.sets(st.sampled_from(cells)))})
    game.shown_mines = sorted(data.draw(st.sets(st.sampled_from(cells))))
    # The rule cell by cell, as the page's alphabet says it.
    expected = [
        "*" if index in game.shown_mines else "F" if symbol == "." and game.marks.get(index) == "F" else symbol
        for index, symbol in enumerate(game.cells)
    ]
    assert game.board_rows() == ["".join(expected[y * 4 : (y + 1) * 4]) for y in range(3)]
