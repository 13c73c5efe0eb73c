"""How a game looks on the page: cells, the status panel, messages."""

from __future__ import annotations

from app.game import set_options
from app.web.errors import as_sentence
from app.web.view import Look, panel
from tests.test_rules import SAFE_OUTSIDE, game_from, play


def test_countdown_numbers_say_and_colour_what_they_show():
    # The 2 at (0, 0) with all three neighbours flagged: one flag too many.
    game = set_options(game_from(["2F.", "FF."], 3), {"countdown": True})
    assert Look(game, None).cell(0) == ("c n2 over", "-1: more flags than mines around", "-1")
    game.marks.pop(4)
    assert Look(game, None).cell(0) == ("c n2", "0 more", "0")
    game.marks.pop(3)
    assert Look(game, None).cell(0) == ("c n2", "1 more", "1")
    plain = set_options(game, {"countdown": False})
    assert Look(plain, None).cell(0) == ("c n2", "2", "2")


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
    classes, label, _ = Look(game, statuses).cell(2)
    assert classes == "c f os" and label == "flag, proven safe"
