"""Records (issue 10 #8): 3BV on hand-made boards, and what a player's results add up to; tallied as results
arrive, and a board counted once (issue 23 #4, #10)."""

from __future__ import annotations

import asyncio
import json
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.config import Settings
from app.core.game import Move
from app.modes import apply_move, get_mode
from app.modes.classic import BoardId
from app.results import records
from app.results.records import (
    BEST_TIMES,
    TAIL,
    TALLIED,
    accuracy_of,
    fixed_layout_figures,
    records_of,
    recount,
    result_of,
    tallied,
    tally,
    tally_key,
)
from app.service import Deals, GameService
from app.service.kept import KEPT
from app.store import Listing, MemoryStore, SQLiteStore
from app.web.views.game import accuracy_text, game_list, record_size
from solver.generate import bbbv
from tests.boards import classic_from, play


def layout(rows: list[str]) -> tuple[int, int, frozenset[int]]:
    width = len(rows[0])
    return width, len(rows), frozenset(i for i, symbol in enumerate("".join(rows)) if symbol == "*")


def test_bbbv_counts_each_opening_once_and_each_number_no_opening_reaches():
    assert bbbv(*layout(["*..", "...", "..."])) == 1  # one opening reaches every number
    assert bbbv(*layout(["*.*", "...", "*.*"])) == 5  # no zero at all: every safe cell is a click
    assert bbbv(*layout(["....", "....", "....", "...."])) == 1
    assert bbbv(*layout([".*..", "**..", "....", "...."])) == 2  # the opening, and the corner cell it cannot reach


def test_a_won_classic_game_has_its_3bv_its_rate_and_its_clicks():
    game = classic_from(["o.", ".*"])
    after = play(game, "flag", 1, 1)
    after = play(after, "reveal", 1, 0)
    won, _ = apply_move(after, Move("reveal", 0, 1), rng=random.Random(0), now=50.0)
    assert won.status == "won"
    value, rate, clicks = fixed_layout_figures(won)
    # No zero on the board: each of the three safe cells is a click of its own.
    assert value == 3 and clicks == 3
    assert rate == 3 / 50.0


def result(won: bool, seconds: float, at: float, mode: str = "classic", size=(9, 9, 10), **extra) -> str:
    """A stored result; `extra` adds fields (accuracy: results kept before grades have none)."""
    width, height, mines = size
    return json.dumps(
        {
            "mode": mode,
            "width": width,
            "height": height,
            "mines": mines,
            "won": won,
            "seconds": seconds,
            "finished_at": at,
            "deaths": 0,
            "hints": 0,
            "bbbv": 20 if won else None,
            "clicks": 30 if won else None,
            **extra,
        }
    )


def test_records_add_up_games_wins_streaks_and_the_best_times_per_mode_and_size():
    stored = [
        result(True, 30.0, 1),
        result(True, 20.0, 2),
        result(False, 5.0, 3),
        result(True, 40.0, 4),
        result(True, 10.0, 5, mode="cruel"),
        result(False, 9.0, 6, size=(30, 16, 99)),
    ]
    records = records_of(list(reversed(stored)))  # the store's order does not matter: the end times do
    classic, cruel, expert = records.records
    assert (classic.mode, record_size(classic)) == ("classic", "Beginner (9×9, 10 mines)")
    assert (classic.games, classic.wins, classic.streak, classic.best_streak) == (4, 3, 1, 2)
    assert classic.win_rate == 0.75 and [best.seconds for best in classic.best] == [20.0, 30.0, 40.0]
    assert classic.best[0].bbbv_per_second == 1.0
    assert (cruel.mode, cruel.games, cruel.wins) == ("cruel", 1, 1)
    assert (record_size(expert), expert.games, expert.wins, expert.streak) == ("Expert (30×16, 99 mines)", 1, 0, 0)


def test_only_the_ten_best_times_are_kept():
    records = records_of([result(True, float(seconds), seconds) for seconds in range(30, 0, -1)])
    assert [best.seconds for best in records.records[0].best] == [float(s) for s in range(1, BEST_TIMES + 1)]


def test_a_stored_result_that_does_not_read_is_left_out_and_counted():
    records = records_of(
        [
            result(True, 30.0, 1),
            "not JSON",
            json.dumps({"won": "yes"}),
            result(False, 1.0, 2).replace('"seconds": 1.0', '"seconds": -1'),
        ]
    )
    assert records.unreadable == 3 and records.records[0].games == 1


def test_a_result_is_what_the_game_ended_with():
    game = classic_from(["o*", "o."])
    lost = play(game, "reveal", 1, 0)
    kept = result_of(lost)
    assert kept["won"] is False and kept["mode"] == "classic" and kept["bbbv"] is None and kept["clicks"] is None
    # Its accuracy, as the game's review keeps it: none before it is graded, or when no move bet on anything.
    assert kept["accuracy"] is None
    lost.review = {"grades": [], "accuracy": "47/50"}
    assert result_of(lost)["accuracy"] == 0.94 and accuracy_of(lost) == Fraction(47, 50)
    lost.review = {"grades": [], "accuracy": None}
    assert result_of(lost)["accuracy"] is None and accuracy_of(lost) is None


def test_a_record_has_the_mean_accuracy_of_its_graded_results_and_each_best_time_its_games():
    """Issue 25 #5: results kept before grades, and games graded with no move that bet on anything, have no
    accuracy, and count in the games but not in the mean."""
    stored = [
        result(True, 30.0, 1),  # kept before grades
        result(True, 20.0, 2, accuracy=0.5),
        result(False, 5.0, 3, accuracy=1.0),
        result(True, 40.0, 4, accuracy=None),
        result(True, 10.0, 5, accuracy=0.75),
        result(True, 10.0, 6, mode="cruel"),
    ]
    classic, cruel = records_of(stored).records
    assert (classic.games, classic.graded) == (5, 3)
    assert classic.accuracy == 0.75  # (0.5 + 1 + 0.75) / 3
    assert [(best.seconds, best.accuracy) for best in classic.best] == [
        (10.0, 0.75),
        (20.0, 0.5),
        (30.0, None),
        (40.0, None),
    ]
    assert (cruel.graded, cruel.accuracy, cruel.best[0].accuracy) == (0, None, None)
    # The mean is exact, whatever the order the results were kept in: a third three times is one third.
    thirds = [result(False, 1.0, at, accuracy=1 / 3) for at in range(3)] + [result(False, 1.0, 3, accuracy=0.1)]
    means = {records_of(order).records[0].accuracy for order in (thirds, thirds[::-1], thirds[1:] + thirds[:1])}
    assert means == {float((3 * Fraction(1 / 3) + Fraction(0.1)) / 4)}
    # An accuracy out of 0 to 1, or not a number, does not read.
    for wrong in (1.5, -0.1, "0.9", True):
        assert records_of([result(False, 1.0, 1, accuracy=wrong)]).unreadable == 1


def test_no_guess_boards_are_kept_apart_from_dealt_ones_by_the_board_as_dealt():
    """Issue 22 #13: a no-guess board's record is its own, read from the board's id (the setting may have
    changed since the deal); results kept before kinds read as the mode's usual boards."""
    game = classic_from(["o.", ".*"])
    game.state["board_id"] = "2x2-1-on-1.1-0123456789abcdef"
    won = play(play(game, "reveal", 1, 0), "reveal", 0, 1)
    assert won.status == "won" and result_of(won)["kind"] == "no guessing"
    game.state["board_id"] = "2x2-1-o-1.1-0123456789abcdef"
    game.options.no_guess = True  # ticked after the deal: the board is still a dealt one
    assert result_of(play(play(game, "reveal", 1, 0), "reveal", 0, 1))["kind"] == ""
    no_guess = json.loads(result(True, 12.0, 3))
    no_guess["kind"] = "no guessing"
    records = records_of([result(True, 30.0, 1), result(True, 20.0, 2), json.dumps(no_guess)])
    dealt, solvable = records.records
    assert (dealt.kind, dealt.games, solvable.kind, solvable.games) == ("", 2, "no guessing", 1)
    assert (
        record_size(solvable) == "Beginner (9×9, 10 mines), no guessing"
        and record_size(dealt) == "Beginner (9×9, 10 mines)"
    )


# ----- tallies: the records kept up to date as results arrive (issue 23 #10) -----------------------


@st.composite
def stored_results(draw) -> str:
    """A stored result as varied as the store holds: modes, sizes, kinds (and none, as kept before kinds),
    ends out of order and at the same moment, and now and then one that does not read."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["not JSON", json.dumps({"won": "yes"}), result(True, -1.0, 1)]))
    won = draw(st.booleans())
    text = json.loads(
        result(
            won,
            draw(st.sampled_from([0.5, 3.0, 9.25, 30.0, 41.5])),
            draw(st.integers(0, 25)),
            mode=draw(st.sampled_from(["classic", "cruel"])),
            size=draw(st.sampled_from([(9, 9, 10), (16, 16, 40)])),
        )
    )
    kind = draw(st.sampled_from([None, "", "no guessing"]))
    if kind is not None:
        text["kind"] = kind
    if won:
        text["bbbv"] = draw(st.sampled_from([None, 7, 20]))
    accuracy = draw(st.sampled_from(["absent", None, 0.0, 0.1, 1 / 3, 0.94, 1.0]))
    if accuracy != "absent":  # absent: kept before grades
        text["accuracy"] = accuracy
    return json.dumps(text)


def tallied_as_they_arrive(stored: list[str]) -> tuple[dict[str, str], int]:
    """The tallies after folding each result in as a store does (counting all again when told to), and how often
    it was told."""
    rows: dict[str, str] = {}
    recounts = 0
    for arrived, text in enumerate(stored, 1):
        key = tally_key(text)
        changes = tally({name: rows[name] for name in (TALLIED, key) if name in rows}, text)
        if changes is None:
            rows, recounts = recount(stored[:arrived]), recounts + 1
        else:
            rows.update(changes)
    return rows, recounts


@given(st.lists(stored_results(), max_size=40), st.sampled_from([TAIL, 3, 1]))
def test_tallies_kept_as_results_arrive_answer_what_counting_every_result_answers(stored, tail):
    """The golden comparison: games, wins, streaks, best times, their order, the accuracy and the unreadable count,
    whatever the order results arrive in (short tails, so that results later than a group keeps come up too)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(records, "TAIL", tail)
        rows, _ = tallied_as_they_arrive(stored)
        assert tallied(rows) == records_of(stored)
        assert tallied(recount(stored)) == records_of(stored)


def test_results_in_order_or_a_little_late_are_folded_in_without_counting_again():
    stored = [result(index % 3 != 0, 10.0 + index, index, mode=("classic", "cruel")[index % 2]) for index in range(100)]
    # Two games that ended one after the other, their results written the other way round.
    stored[60], stored[62] = stored[62], stored[60]
    rows, recounts = tallied_as_they_arrive(stored)
    assert recounts == 1  # the first result: no tallies yet
    assert tallied(rows) == records_of(stored)
    # One that ended before every end its group keeps falls among those it does not: counted again.
    late = result(False, 5.0, 100 - 2 * TAIL - 10.5)
    assert tally({name: rows[name] for name in (TALLIED, tally_key(late))}, late) is None


def before_grades(rows: dict[str, str]) -> dict[str, str]:
    """Tallies as the code before grades kept them: no accuracy, and best times of three figures."""
    old = {}
    for key, text in rows.items():
        group = json.loads(text)
        if key != TALLIED:
            del group["graded"], group["accuracy_sum"]
            group["best"] = [best[:3] for best in group["best"]]
        old[key] = json.dumps(group)
    return old


def test_tallies_kept_before_grades_still_read_and_count_the_accuracy_of_results_after():
    old = [result(True, 30.0, 1), result(False, 3.0, 2), result(True, 20.0, 3)]
    rows = before_grades(recount(old))
    assert tallied(rows) == records_of(old)
    (record,) = tallied(rows).records
    assert (record.graded, record.accuracy, [best.accuracy for best in record.best]) == (0, None, [None, None])
    stored = old
    for text in (result(True, 10.0, 4, accuracy=0.5), result(False, 2.0, 5, accuracy=1.0), result(True, 9.0, 6)):
        stored = [*stored, text]
        changes = tally({name: rows[name] for name in (TALLIED, tally_key(text))}, text)
        assert changes is not None  # folded in, not counted again
        rows = {**rows, **changes}
        assert tallied(rows) == records_of(stored)
    (record,) = tallied(rows).records
    assert (record.games, record.graded, record.accuracy) == (6, 2, 0.75)
    assert [(best.seconds, best.accuracy) for best in record.best] == [
        (9.0, None),
        (10.0, 0.5),
        (20.0, None),
        (30.0, None),
    ]
    # An accuracy sum that does not read is a tally that does not read.
    key = tally_key(old[0])
    damaged = json.loads(rows[key])
    damaged["accuracy_sum"] = "1/0"
    assert tallied({**rows, key: json.dumps(damaged)}) is None


def test_a_tally_that_does_not_read_back_is_not_shown():
    rows = recount([result(True, 30.0, 1), result(False, 3.0, 2)])
    key = tally_key(result(True, 30.0, 1))
    assert tallied({**rows, key: '{"games": -1}'}) is None
    assert tally({**rows, key: "not JSON"}, result(True, 20.0, 3)) is None


# ----- a board counts once: its first game to end (issue 23 #4) ----------------------------------

BOARD = "9x9-10-o-5.5-0123456789abcdef"


@pytest.fixture(params=["memory", "sqlite"])
def service(request, tmp_path, clock):
    settings = Settings(database=tmp_path / "games.sqlite3", secret_key="a test key, long enough")
    store = (
        MemoryStore(clock, kept=KEPT) if request.param == "memory" else SQLiteStore(settings.database, clock, kept=KEPT)
    )
    service = GameService(store, settings, Deals(seed=0), clock=clock)
    yield service
    service.close()


def layout_of(service: GameService, game_id: str, player: str = "alice") -> frozenset[int]:
    """The mines a board id deals: a function of the id and the server's key, known before the first click."""
    game = service.store.load(game_id, player)
    board = BoardId.parse(game.state["board_id"])
    return get_mode(game.mode).layout(game, game.state["start"], board.safe_only, board.no_guess)


async def started(service: GameService, game_id: str):
    """The game from its board id's first click, which opens it (a first click elsewhere is refused)."""
    game = service.store.load(game_id, "alice")
    if game.started_at is None:
        game = (await service.games.move(game_id, "alice", Move("reveal", *game.cell(game.state["start"])))).after
    return game


async def lose(service: GameService, game_id: str) -> None:
    mine = min(layout_of(service, game_id))
    game = await started(service, game_id)
    after = (await service.games.move(game_id, "alice", Move("reveal", *game.cell(mine)))).after
    assert after.status == "lost"


async def win(service: GameService, game_id: str):
    mines = layout_of(service, game_id)
    game = await started(service, game_id)
    while game.status == "playing":
        safe = next(index for index, symbol in enumerate(game.cells) if symbol == "." and index not in mines)
        game = (await service.games.move(game_id, "alice", Move("reveal", *game.cell(safe)))).after
    assert game.status == "won"
    return game


def the_record(service: GameService):
    """The player's one record: a game of a board played again in another mode makes no record of its own."""
    (record,) = asyncio.run(service.games.records("alice")).records
    return record


def test_a_board_replayed_after_its_layout_was_shown_is_no_win(service, clock):
    async def play():
        lost, _ = await service.games.create("alice", "client", "classic", 0, 0, 0, {}, BOARD)
        await lose(service, lost)
        clock.advance(60)
        again, game = await service.games.restart(lost, "alice", "client")
        # Known from the start: the page says so before the first click.
        assert game.state.get("layout_seen") is True
        clock.advance(30)
        won = await win(service, again)
        assert won.state.get("layout_seen") is True
        # Shared by its link, the same board once more, in another mode: the layout is the same one.
        shared, game = await service.games.create("alice", "client", "help", 0, 0, 0, {}, BOARD)
        assert game.state.get("layout_seen") is True
        await win(service, shared)

    asyncio.run(play())
    record = the_record(service)
    assert (record.games, record.wins, record.streak, record.best_streak, record.best) == (1, 0, 0, 0, [])


def test_of_two_games_of_a_board_played_at_once_the_first_to_end_is_the_result(service, clock):
    async def play():
        first, _ = await service.games.create("alice", "client", "classic", 0, 0, 0, {}, BOARD)
        second, game = await service.games.create("alice", "client", "classic", 0, 0, 0, {}, BOARD)
        assert not game.state.get("layout_seen")  # nothing shown yet when it started
        clock.advance(10)
        await lose(service, second)
        clock.advance(10)
        won = await win(service, first)
        # Its layout was shown when the other one ended: no result, and the page says why once it is over.
        assert won.state.get("layout_seen") is True

    asyncio.run(play())
    record = the_record(service)
    assert (record.games, record.wins) == (1, 0)


def test_the_game_that_showed_a_board_stays_its_result_after_an_undo(service, clock):
    """Its own end does not make it a replay: a loss undone and played on to a win is the loss it first was."""

    async def play():
        game_id, _ = await service.games.create("alice", "client", "classic", 0, 0, 0, {}, BOARD)
        await lose(service, game_id)
        await service.games.move(game_id, "alice", Move("undo"))
        clock.advance(10)
        won = await win(service, game_id)
        assert not won.state.get("layout_seen")

    asyncio.run(play())
    record = the_record(service)
    assert (record.games, record.wins) == (1, 0)


def test_each_player_sees_a_board_for_themselves(service, clock):
    async def play():
        shown, game = await service.games.create("bob", "client", "classic", 0, 0, 0, {}, BOARD)
        mine = min(layout_of(service, shown, "bob"))
        await service.games.move(shown, "bob", Move("reveal", *game.cell(game.state["start"])))
        assert (await service.games.move(shown, "bob", Move("reveal", *game.cell(mine)))).after.status == "lost"
        game_id, game = await service.games.create("alice", "client", "classic", 0, 0, 0, {}, BOARD)
        assert not game.state.get("layout_seen")
        await win(service, game_id)

    asyncio.run(play())
    record = the_record(service)
    assert (record.games, record.wins) == (1, 1)


# ----- a game's accuracy, graded at its end (issue 25 #5) ------------------------------------------


def test_a_game_graded_at_its_end_brings_its_accuracy_to_the_records_and_the_list(service, clock):
    async def play():
        game_id, _ = await service.games.create("alice", "client", "classic", 0, 0, 0, {}, BOARD)
        clock.advance(10)
        return game_id, await win(service, game_id)

    game_id, won = asyncio.run(play())
    kept = service.store.load(game_id, "alice").review
    assert kept is not None and kept["accuracy"] is not None and kept == won.review
    accuracy = float(Fraction(kept["accuracy"]))
    record = the_record(service)
    assert (record.graded, record.accuracy, record.best[0].accuracy) == (1, accuracy, accuracy)
    (row,) = game_list(asyncio.run(service.games.games_of("alice")), clock(), "alice")
    assert row.accuracy == f"Accuracy {round(accuracy * 100)} %" and row.replay == f"/games/{game_id}/replay"


def test_a_game_too_long_to_grade_at_its_end_counts_in_the_records_without_an_accuracy(service, clock, monkeypatch):
    # As for a huge board: the move that ends it leaves the grading to its review, asked for later.
    monkeypatch.setattr("app.service.reviews.REVIEW_AT_END_SECONDS", 0.0)

    async def play():
        game_id, _ = await service.games.create("alice", "client", "classic", 0, 0, 0, {}, BOARD)
        await lose(service, game_id)
        return game_id

    game_id = asyncio.run(play())
    assert service.store.load(game_id, "alice").review is None
    record = the_record(service)
    assert (record.games, record.graded, record.accuracy) == (1, 0, None)
    (row,) = game_list(asyncio.run(service.games.games_of("alice")), clock(), "alice")
    assert (row.accuracy, row.replay) == ("Not graded", f"/games/{game_id}/replay")


def test_the_list_shows_no_accuracy_in_play_and_a_dash_when_no_move_bet_on_anything(service, clock):
    async def play():
        game_id, _ = await service.games.create("alice", "client", "classic", 0, 0, 0, {}, BOARD)
        return game_id

    game_id = asyncio.run(play())
    (row,) = game_list(asyncio.run(service.games.games_of("alice")), clock(), "alice")
    assert (row.accuracy, row.replay) == ("", "")
    game = service.store.load(game_id, "alice")
    game.status, game.review = "won", {"grades": [], "accuracy": None}
    (row,) = game_list([Listing(game_id, game, 0.0)], clock(), "alice")
    assert row.accuracy == "Accuracy –"
    assert [accuracy_text(value) for value in (None, 0.0, Fraction(47, 50), 2 / 3, 1.0)] == [
        "–",
        "0 %",
        "94 %",
        "67 %",
        "100 %",
    ]
